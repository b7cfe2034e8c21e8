"""Shared plumbing of the mlnx-host parser modules: numbered raw text, the problem log."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Generic, TypeVar

from fabriclint.bounded import int_too_long
from fabriclint.models.common import Source, source_at
from fabriclint.models.state import InputProblem, Unparsed

T = TypeVar("T")

MAX_RUN = 256
"""The longest digit run a line may hold: OpenSM writes 256-bit masks as 64 hex digits; a
longer run is no value (int() refuses 4300+ digits, float() of 309+ is inf)."""
_HUGE_NUMBER = re.compile(rf"\d{{{MAX_RUN + 1}}}")
_KEY_VALUE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_ .-]*?):\s*(.*?)\s*$")


@dataclass(frozen=True)
class Text:
    """One command's output, split into lines, with the file that finding sources point at."""

    cmd: str
    file: str
    lines: tuple[str, ...]

    @classmethod
    def of(cls, cmd: str, file: str, text: str) -> Text:
        """Build from raw text (any line ending)."""
        return cls(cmd=cmd, file=file, lines=tuple(text.splitlines()))

    def src(self, line: int | None) -> Source:
        """Source of a 1-based line of this output (None: the output as a whole)."""
        return source_at(self.file, line)

    def numbered(self) -> Iterator[tuple[int, str]]:
        """(1-based line number, line) for every line."""
        return enumerate(self.lines, start=1)

    def is_blank(self) -> bool:
        """True when the output holds nothing but whitespace."""
        return not any(line.strip() for line in self.lines)

    def first_text(self) -> tuple[int | None, str]:
        """The first non-blank line and its number, for error messages."""
        for num, line in self.numbered():
            if line.strip():
                return num, line.strip()
        return None, ""


@dataclass(frozen=True)
class At(Generic[T]):
    """A parsed value and the 1-based line it was read from."""

    value: T
    line: int


@dataclass
class Log:
    """Lines the parser could not model and inputs it could not parse, in the order met."""

    unparsed: list[Unparsed] = field(default_factory=list)
    problems: list[InputProblem] = field(default_factory=list)

    def unmodeled(self, text: Text, line: int | None, reason: str) -> None:
        """Record a QoS-relevant line that the model has no place for (PARSE001)."""
        shown = text.lines[line - 1].strip() if line else text.cmd
        self.unparsed.append(Unparsed(text=shown, reason=reason, source=text.src(line)))

    def unparseable(self, text: Text, message: str, line: int | None = None) -> None:
        """Record an output that could not be parsed (PARSE003: the device is incomplete)."""
        self.problems.append(
            InputProblem(
                kind="unparseable", message=f"{text.cmd}: {message}", source=text.src(line)
            )
        )

    def missing(self, cmd: str, message: str) -> None:
        """Record a required command whose output is absent."""
        self.problems.append(InputProblem(kind="unparseable", message=f"{cmd}: {message}"))


def key_value(line: str) -> tuple[str, str] | None:
    """Split 'key:  value' (tabs or spaces) into a stripped pair; None when the line is not one."""
    match = _KEY_VALUE.match(line)
    if match is None:
        return None
    return match.group(1).strip(), match.group(2)


def leading_int(value: str) -> int | None:
    """The integer a value starts with ('4096 (5)' -> 4096); None when there is none."""
    match = re.match(r"\s*(-?[0-9]+)", value)
    return int(match.group(1)) if match and int_too_long(match.group(1)) is None else None


def strip_code(value: str) -> str:
    """Drop a trailing numeric code: 'PORT_ACTIVE (4)' -> 'PORT_ACTIVE'."""
    return re.sub(r"\s*\(\d+\)\s*$", "", value).strip()


def checked(text: Text, log: Log) -> Text:
    """`text` with each line holding a run of more than MAX_RUN digits blanked and reported as
    unparseable at its line (PARSE003): no command prints such a number, and the readers'
    int() and float() must never see one."""
    lines = list(text.lines)
    for num, line in text.numbered():
        if _HUGE_NUMBER.search(line):
            log.unparseable(text, f"line {num} holds a number of over {MAX_RUN} digits", num)
            lines[num - 1] = ""
    return replace(text, lines=tuple(lines)) if lines != list(text.lines) else text
