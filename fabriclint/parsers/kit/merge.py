"""The one layered merge of the parsers: settings written at several levels (platform defaults,
a profile, an interface, operational state) stacked lowest first, the higher level winning field
by field.

A layer is any object whose fields hold None where the level sets nothing. How each field of two
levels combines is a `Merge`: `last` (the higher value replaces the lower), `update` (mappings:
the higher level's keys replace the lower's, the other keys stay), `by_key(combine)` (mappings
whose colliding values are merged themselves) or `update_unless(flag)` (a mapping that replaces
the lower one outright when the higher layer's `flag` is true).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

L = TypeVar("L")
V = TypeVar("V")

Merge = Callable[[Any, Any, Any], Any]
"""(value below, value of this layer, this layer) -> the value of both; called only when this
layer sets the field (not None)."""


def stack(layers: Sequence[L], start: Callable[[], L], how: Mapping[str, Merge]) -> L:
    """One layer with the settings of `layers`, later layers overriding earlier ones, each field
    of `how` merged as it says. A single layer is returned as it is (no copy: callers read the
    result, never change it); no layer gives `start()`."""
    if len(layers) == 1:
        return layers[0]
    out = start()
    for layer in layers:
        for name, merge in how.items():
            above = getattr(layer, name)
            if above is not None:
                setattr(out, name, merge(getattr(out, name), above, layer))
    return out


def last(below: object, above: V, layer: object) -> V:
    """The higher level's value replaces the lower one."""
    return above


def update(below: Mapping[Any, Any] | None, above: Mapping[Any, Any], layer: object) -> Any:
    """The higher level's keys replace the lower level's; the other keys stay."""
    return {**below, **above} if below else dict(above)


def by_key(combine: Callable[[Any, Any], Any]) -> Merge:
    """Like `update`, but a key both levels set gets `combine(lower value, higher value)`."""

    def merge(below: Mapping[Any, Any] | None, above: Mapping[Any, Any], layer: object) -> Any:
        out = dict(below or {})
        for key, value in above.items():
            lower = out.get(key)
            out[key] = value if lower is None else combine(lower, value)
        return out

    return merge


def update_unless(flag: str) -> Merge:
    """Like `update`, but a layer whose attribute `flag` is true replaces the lower mapping."""

    def merge(below: Mapping[Any, Any] | None, above: Mapping[Any, Any], layer: object) -> Any:
        return dict(above) if getattr(layer, flag) else update(below, above, layer)

    return merge
