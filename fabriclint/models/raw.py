"""Raw inputs of one device: command (or file) -> text, before any parsing."""

from pydantic import BaseModel, ConfigDict, Field


class RawOutput(BaseModel):
    """The text of one command's output (or one file) and where it is stored."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    text: str
    """The raw text."""
    file: str
    """Path used in finding sources (relative to the fabric directory when possible)."""


class RawDevice(BaseModel):
    """All raw outputs collected for one device."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    name: str
    """Device name."""
    platform: str
    """Platform key; picks the parser."""
    outputs: dict[str, RawOutput] = Field(default_factory=dict)
    """Command (as run) -> its output."""
