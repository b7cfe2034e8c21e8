"""Source locations and the base class for objects that remember where they came from."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler
from pydantic.fields import FieldInfo
from pydantic_core import core_schema

from fabriclint.models.source_schema import Source as _Schema


class Source:
    """Where a value came from: a file (relative to the fabric or snapshot) and a 1-based line.

    Immutable and slotted (48 bytes; a parsed fabric holds one per distinct config line):
    pydantic sees it through `source_schema.Source`, the model of the same fields, so schemas,
    reports and validation are as for that model. Models hold it as they would the model."""

    __slots__ = ("file", "line")
    file: str
    """Path of the file, as the user would type it."""
    line: int | None
    """1-based line number; None when the value is a platform default, not a line."""

    model_fields: ClassVar[dict[str, FieldInfo]] = _Schema.model_fields
    """The schema model's fields (their descriptions, once a JSON schema is made)."""

    def __init__(self, file: str, line: int | None = None) -> None:
        object.__setattr__(self, "file", file)
        object.__setattr__(self, "line", line)

    def __setattr__(self, name: str, value: object) -> None:
        raise TypeError(f"Source is immutable: cannot set {name!r}")

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file

    def __repr__(self) -> str:
        return f"Source(file={self.file!r}, line={self.line!r})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not Source:
            return NotImplemented
        return self.file == other.file and self.line == other.line

    def __hash__(self) -> int:
        return hash((self.file, self.line))

    def __reduce__(self) -> tuple[type[Source], tuple[str, int | None]]:
        return Source, (self.file, self.line)

    def __copy__(self) -> Source:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Source:
        return self

    def model_copy(self, update: dict[str, Any] | None = None) -> Source:
        """A Source with `update`'s fields changed (as pydantic's `model_copy`)."""
        values = {"file": self.file, "line": self.line, **(update or {})}
        return Source(values["file"], values["line"])

    def model_dump(self, **_: Any) -> dict[str, Any]:
        """The fields as a dict (as pydantic's `model_dump`)."""
        return {"file": self.file, "line": self.line}

    @property
    def model_fields_set(self) -> set[str]:
        """Both fields (a Source is always made with both; as pydantic's `model_fields_set`)."""
        return set(_FILE_AND_LINE)

    @classmethod
    def model_json_schema(cls, **kwargs: Any) -> dict[str, Any]:
        """The schema model's JSON schema."""
        return _Schema.model_json_schema(**kwargs)

    @classmethod
    def __get_pydantic_core_schema__(cls, _source: Any, handler: GetCoreSchemaHandler) -> Any:
        """A Source passes as it is; a dict (a report or baseline read back) is validated by the
        schema model; either way it is dumped as the model would be."""
        fields = handler.generate_schema(_Schema)
        return core_schema.no_info_wrap_validator_function(
            _as_source,
            core_schema.no_info_after_validator_function(_from_schema, fields),
            serialization=core_schema.plain_serializer_function_ser_schema(
                _to_schema, return_schema=fields
            ),
        )


def _as_source(value: Any, validate: core_schema.ValidatorFunctionWrapHandler) -> Source:
    """A Source as it is (no copy, no check), anything else through the schema model."""
    return value if type(value) is Source else validate(value)


def _from_schema(value: _Schema) -> Source:
    return Source(value.file, value.line)


def _to_schema(value: Source) -> _Schema:
    return _Schema.model_construct(_FILE_AND_LINE, file=value.file, line=value.line)


_FILE_AND_LINE = {"file", "line"}
"""The fields-set of every schema model made for a dump (both fields always given)."""


def make_source(file: str, line: int | None = None) -> Source:
    """A Source from a known str and int|None (kept for the parsers that call it)."""
    return Source(file, line)


@lru_cache(maxsize=1 << 16)
def source_at(file: str, line: int | None = None) -> Source:
    """A shared Source (they are immutable): parsers build hundreds of thousands of them."""
    return make_source(file, line)


M = TypeVar("M", bound=BaseModel)

DEFERRED = ConfigDict(defer_build=True)
"""The config of a model a plain check never validates nor dumps (counters, nccl results, the
InfiniBand state, DeviceState itself): pydantic builds its validator and serializer on first use
instead of when the class is made (~1 ms a class, most of a small check's start)."""


def construct(cls: type[M], **values: Any) -> M:
    """`cls(**values)` without validation, for values already of their fields' types (a parser's
    own objects): the same instance, fields-set and field order as validating would give, but
    `cls`'s validator is never needed (a deferred class is never built). Unlike pydantic's
    `model_construct`, missing defaults cost no signature inspection of their factories."""
    defaults = _defaults(cls)
    if defaults is None:  # a factory reads the other fields' values: pydantic's own way
        return cls.model_construct(**values)
    fields_set = set(values)
    for name, default in defaults:
        if name not in fields_set:
            values[name] = default()
    return cls.model_construct(fields_set, **values)


@cache
def _defaults(cls: type[BaseModel]) -> tuple[tuple[str, Callable[[], Any]], ...] | None:
    """Each optional field of `cls` and what makes its default (its factory, or pydantic's copy
    of its default value); None when a factory takes the validated data."""
    made: list[tuple[str, Callable[[], Any]]] = []
    for name, info in cls.model_fields.items():
        if info.is_required():
            continue
        if info.default_factory is None:
            made.append((name, info.get_default))
        elif info.default_factory_takes_validated_data:
            return None
        else:
            made.append((name, info.default_factory))  # type: ignore[arg-type]
    return tuple(made)


class Located(BaseModel):
    """A model whose fields remember their source lines in `sources` (key = field or field.key)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    sources: dict[str, Source] = Field(default_factory=dict)
    """Source of each field, keyed by field name or `field.key` ('' = the object itself)."""

    def src(self, *keys: str) -> Source | None:
        """The first source with a line among `keys`, then the object's own source (a platform
        default has no line: pointing at the object's line beats pointing at no line)."""
        found = [s for key in (*keys, "") if (s := self.sources.get(key)) is not None]
        return next((s for s in found if s.line), found[0] if found else None)

    def mark(self, key: str, source: Source | None) -> None:
        """Record where `key` came from (no-op for None)."""
        if source is not None:
            self.sources[key] = source
