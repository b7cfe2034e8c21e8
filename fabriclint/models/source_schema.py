"""The schema side of `common.Source`: a pydantic model of the same name and fields.

`common.Source` is a slotted class (a parsed 1,000-switch fabric holds ~500k of them: a pydantic
instance with its `__dict__` is ~264 bytes, the slotted one 48). Pydantic validates, serialises
and documents it through this model, so a JSON schema, a report and a validation error read as
they did when Source was this model (the class name is the `$defs` key).
"""

from pydantic import BaseModel, ConfigDict


class Source(BaseModel):
    """Where a value came from: a file (relative to the fabric or snapshot) and a 1-based line."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    file: str
    """Path of the file, as the user would type it."""
    line: int | None = None
    """1-based line number; None when the value is a platform default, not a line."""
