"""Source locations and the base class for objects that remember where they came from."""

from __future__ import annotations

from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field


class Source(BaseModel):
    """Where a value came from: a file (relative to the fabric or snapshot) and a 1-based line."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    file: str
    """Path of the file, as the user would type it."""
    line: int | None = None
    """1-based line number; None when the value is a platform default, not a line."""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


@lru_cache(maxsize=1 << 16)
def source_at(file: str, line: int | None = None) -> Source:
    """A shared Source (they are immutable): parsers build hundreds of thousands of them."""
    return Source(file=file, line=line)


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
