"""The input problems every family reports the same way: a required output that is missing or
empty (PARSE003: the device is incomplete)."""

from __future__ import annotations

from fabriclint.models.common import source_at
from fabriclint.models.raw import RawDevice
from fabriclint.models.state import InputProblem


def missing_or_empty(raw: RawDevice, key: str, os_name: str) -> InputProblem | None:
    """The problem when output `key`, which the `os_name` configuration is read from, is absent
    or holds only white space; None when it has text."""
    output = raw.outputs.get(key)
    if output is None:
        message = f"no '{key}' output: the {os_name} configuration could not be read"
        return InputProblem(kind="unparseable", message=message)
    if not output.text.strip():
        message = f"'{key}' output is empty"
        return InputProblem(kind="unparseable", message=message, source=source_at(output.file))
    return None
