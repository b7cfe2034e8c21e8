"""Parsed states made lighter: model instances with the same explicitly-set fields share one set.

pydantic keeps on every model instance the set of field names it was given (`model_fields_set`):
216 to 728 bytes each, about a quarter of a parsed state's memory (~200 MB at 1,000 switches).
Once a state is parsed and annotated nothing changes it (rules only read), and nothing reads
these sets for a state except pydantic's own `exclude_unset`, which no state dump uses. Sharing
one set per distinct set of names keeps every `model_fields_set` answer the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from fabriclint.models.common import Source


def share_fields_sets(states: Iterable[BaseModel]) -> None:
    """Give every model reachable from `states` the shared fields-set equal to its own."""
    interned: dict[frozenset[str], set[str]] = {}
    for state in states:
        _share(state, interned)


def _share(root: BaseModel, interned: dict[frozenset[str], set[str]]) -> None:
    """Walk one state (iteratively: no recursion limit); shared sub-objects are visited once."""
    seen: set[int] = set()
    stack: list[Any] = [root]
    while stack:
        obj = stack.pop()
        if isinstance(obj, BaseModel):
            _intern(obj, interned)
            if type(obj) is Source or id(obj) in seen:
                continue  # a Source holds no model; it is often shared
            seen.add(id(obj))
            stack.extend(obj.__dict__.values())
        elif isinstance(obj, dict):
            stack.extend(obj.values())
        elif isinstance(obj, list | tuple):
            stack.extend(obj)


def _intern(obj: BaseModel, interned: dict[frozenset[str], set[str]]) -> None:
    own = obj.__pydantic_fields_set__
    shared = interned.setdefault(frozenset(own), own)
    if shared is not own:
        object.__setattr__(obj, "__pydantic_fields_set__", shared)
