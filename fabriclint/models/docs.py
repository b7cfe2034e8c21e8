"""Field docstrings read when a JSON schema is made, not when every model class is built.

The models document their fields with attribute docstrings (pydantic's
`use_attribute_docstrings`), and pydantic reads them when it builds each class: it finds the
class's source, tokenizes and parses it, ~0.1 s of every start for ~100 classes. The
descriptions matter only in JSON schemas (`fabriclint schema export`, the rule options of
`rules explain` and `rules docs`), so `defer()` (run by `fabriclint.models` before any model
exists) records the classes instead, and `json_schema` applies their docstrings with pydantic's
own function and rebuilds them before the first schema is made: the same schemas, later. If
pydantic no longer has that function, docstrings are read as before (a slower start, the same
schemas).
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel
from pydantic._internal import _fields

_HOOK = "_update_fields_from_docstrings"
"""pydantic's function that turns a class's attribute docstrings into field descriptions."""

_Apply = Callable[..., None]

_pending: list[type[BaseModel]] = []
"""Classes built with `use_attribute_docstrings` whose docstrings are not read yet, in build order."""

_original: list[_Apply] = []
"""pydantic's own function, once `defer()` has replaced it."""

_applied: list[bool] = []
"""Non-empty once `apply()` ran: classes built after it read their docstrings at once."""


def defer() -> None:
    """Record documented model classes instead of reading their docstrings (idempotent)."""
    original = getattr(_fields, _HOOK, None)
    if original is None or _original:
        return
    _original.append(original)

    def deferred(cls: type[Any], fields: dict[str, Any], use_inspect: bool = False) -> None:
        if _applied or not (isinstance(cls, type) and issubclass(cls, BaseModel)):
            original(cls, fields, use_inspect)  # dataclasses, or after apply(): as pydantic does
        else:
            _pending.append(cls)

    setattr(_fields, _HOOK, deferred)


def apply() -> None:
    """Give every recorded class the field descriptions pydantic would have given it, then rebuild
    the classes (the models their fields use first) so their schemas carry them."""
    if _applied:
        return
    _applied.append(True)
    if not _original:
        return
    for cls in _pending:  # build order: a class comes after its bases
        _inherit_descriptions(cls)
        _original[0](cls, cls.__pydantic_fields__, True)  # by its source, not the building frame
    for cls in _dependencies_first(_pending):
        if cls.__pydantic_complete__:  # an incomplete one builds later, from the fields set here
            cls.model_rebuild(force=True)
    _pending.clear()


def json_schema(model: type[BaseModel], **kwargs: Any) -> dict[str, Any]:
    """`model.model_json_schema(**kwargs)` with the field descriptions of its docstrings."""
    apply()
    return model.model_json_schema(**kwargs)


def _inherit_descriptions(cls: type[BaseModel]) -> None:
    """An inherited field is a copy of the base's, made when the class was built: pydantic copied
    the base's description with it, which was not read yet then."""
    own = inspect.get_annotations(cls)  # this class's own, unevaluated
    inherited: dict[str, Any] = {}
    for base in reversed(cls.__bases__):  # the first base wins, as in pydantic's field lookup
        inherited.update(getattr(base, "__pydantic_fields__", {}))
    for name, info in cls.__pydantic_fields__.items():
        parent = inherited.get(name)
        if name not in own and parent is not None and info.description is None:
            info.description = parent.description


def _dependencies_first(classes: list[type[BaseModel]]) -> list[type[BaseModel]]:
    """`classes` ordered so that a model used by another's fields is rebuilt before it (pydantic
    reuses a nested model's built schema)."""
    wanted = set(classes)
    order: list[type[BaseModel]] = []
    seen: set[type[BaseModel]] = set()
    for root in classes:
        stack: list[tuple[type[BaseModel], Iterator[type[BaseModel]]]] = []
        if root not in seen:
            seen.add(root)
            stack.append((root, _used_models(root, wanted)))
        while stack:
            cls, used = stack[-1]
            nxt = next((m for m in used if m not in seen), None)
            if nxt is None:
                stack.pop()
                order.append(cls)
            else:
                seen.add(nxt)
                stack.append((nxt, _used_models(nxt, wanted)))
    return order


def _used_models(cls: type[BaseModel], wanted: set[type[BaseModel]]) -> Iterator[type[BaseModel]]:
    """The recorded models named anywhere in `cls`'s field annotations (`dict[str, list[X]]`)."""
    todo = [info.annotation for info in cls.__pydantic_fields__.values()]
    while todo:
        ann = todo.pop()
        if isinstance(ann, type) and ann in wanted:
            yield ann
        todo.extend(typing.get_args(ann))
