"""Parsed states made lighter: model instances with the same explicitly-set fields share one set.

pydantic keeps on every model instance the set of field names it was given (`model_fields_set`):
216 to 728 bytes each, about a quarter of a parsed state's memory (~200 MB at 1,000 switches).
Once parsed, a state's objects are not changed (rules only read), except what the engine's
annotation sets on the state and its interfaces (role, neighbor): setting a field adds its name
to the instance's set, so those two models share theirs only once annotated
(`share_annotated_fields_sets`). Sharing one set per distinct set of names keeps every
`model_fields_set` answer the same. The rest is done per device as soon as it is parsed, so the
sets are freed before the next device's are made (the peak, not the end).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from fabriclint.models.common import Source

_ANNOTATED = ("DeviceState", "Interface")
"""Models the engine sets fields on after parsing: each keeps its own fields-set."""

_INTERNED: dict[frozenset[str], set[str]] = {}
"""The shared sets, by content (a few dozen distinct ones over every platform)."""

_LEAVES = frozenset({str, int, float, bool, type(None), Source})
"""Values that hold no model (exactly these types; subclasses such as enums take the long way):
four in five of a state's values, each asked three isinstance questions otherwise (asking one
about BaseModel goes through its ABC metaclass)."""


def share_fields_sets(states: Iterable[BaseModel]) -> None:
    """Give every model reachable from `states` (but the annotated ones) the shared fields-set
    equal to its own."""
    for state in states:
        _share(state, _INTERNED)


def share_annotated_fields_sets(states: Iterable[BaseModel]) -> None:
    """The same for the annotated models (each state and its interfaces), once annotation is
    done: from then on nothing sets a field on them."""
    for state in states:
        _intern(state, _INTERNED, annotated=True)
        for iface in getattr(state, "interfaces", {}).values():
            _intern(iface, _INTERNED, annotated=True)


def _share(root: BaseModel, interned: dict[frozenset[str], set[str]]) -> None:
    """Walk one state (iteratively: no recursion limit); shared sub-objects are visited once."""
    seen: set[int] = set()
    stack: list[Any] = [root]
    while stack:
        obj = stack.pop()
        if type(obj) in _LEAVES:
            continue
        if isinstance(obj, BaseModel):
            _intern(obj, interned)
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            stack.extend(obj.__dict__.values())
        elif isinstance(obj, dict):
            stack.extend(obj.values())
        elif isinstance(obj, list | tuple):
            stack.extend(obj)


def _intern(
    obj: BaseModel, interned: dict[frozenset[str], set[str]], annotated: bool = False
) -> None:
    if type(obj).__name__ in _ANNOTATED and not annotated:
        return
    own = obj.__pydantic_fields_set__
    shared = interned.setdefault(frozenset(own), own)
    if shared is not own:
        object.__setattr__(obj, "__pydantic_fields_set__", shared)
