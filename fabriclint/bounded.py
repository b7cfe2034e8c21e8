"""Limits on what any input may make fabriclint build: nesting depth, YAML alias expansion and
integer size, each refused with a located message instead of exhausting time, memory or stack.

A 450-byte YAML "billion laughs" (anchors of anchors) expands to 10**9 nodes; a 10,000-deep
`[[[...]]]` overflows Python's stack in a recursive reader; a 5,000-digit integer makes `int()`
raise ValueError (CPython limits int/str conversion to 4,300 digits since 3.11). The checks here
run before (YAML) or around (JSON) the real reader, in time linear in the input.

The limits come from environment variables (see README "Input limits"):
FABRICLINT_MAX_DEPTH, FABRICLINT_MAX_ALIAS_NODES, FABRICLINT_MAX_INT_DIGITS.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

_ENV = {
    "max_depth": "FABRICLINT_MAX_DEPTH",
    "max_alias_nodes": "FABRICLINT_MAX_ALIAS_NODES",
    "max_int_digits": "FABRICLINT_MAX_INT_DIGITS",
}
# Past ~250 levels ruamel's recursive composer overflows Python's stack: the depth limit stays below.
_DEPTH_CAP = 200
# Past 308 digits an integer is no float (1.8e308 is the largest): rules that compute with
# thresholds as floats would raise OverflowError. (Python's own int/str limit is 4,300.)
_MAX_INT_DIGITS = 300
_MIN_INT_DIGITS = 20  # a 64-bit counter: any real input has integers this long
_INT = re.compile(r"[-+]?(?:0x[0-9a-fA-F_]+|0o[0-7_]+|[0-9][0-9_]*)", re.ASCII)
# JSON tokens that matter for locating a limit: strings (skipped), brackets, numbers, newlines.
_JSON_TOKEN = re.compile(
    r'"(?:[^"\\\n]|\\.)*"|[\[\]{}\n]|-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?', re.ASCII
)
# Explicit YAML tags a fabric file may use (the YAML 1.2 core schema, plus merge keys).
_CORE_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq")
) | {"!", "tag:yaml.org,2002:merge"}


@dataclass(frozen=True)
class Limits:
    """How deep, how expanded and how long-numbered an input may be."""

    max_depth: int = 64
    """Nested mappings/sequences/objects/arrays/blocks (fabric files need < 15)."""
    max_alias_nodes: int = 100_000
    """Nodes YAML aliases and merge keys may add to a user file in total."""
    max_int_digits: int = 100
    """Digits of one integer (a 64-bit counter has 20)."""


class LimitsConfigError(ValueError):
    """An environment variable sets a limit to something that is not a positive integer."""


class InputLimitError(ValueError):
    """An input exceeds a limit (or is not readable at all); `line`/`col` are 1-based, 0 = unknown."""

    def __init__(self, message: str, line: int = 0, col: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col

    def where(self, file: str) -> str:
        """`file:line: message` (or `file: message` when the line is unknown)."""
        place = f"{file}:{self.line}" if self.line else file
        return f"{place}: {self.message}"


def limits() -> Limits:
    """The limits in force: defaults, overridden by the FABRICLINT_MAX_* environment variables."""
    values: dict[str, int] = {}
    for field, name in _ENV.items():
        raw = os.environ.get(name)
        if raw is None or raw == "":
            continue
        if not (raw.isascii() and raw.isdigit()) or int(raw) < 1:
            raise LimitsConfigError(f"{name}={raw!r}: expected a positive integer")
        values[field] = int(raw)
    if values.get("max_depth", 0) > _DEPTH_CAP:
        raise LimitsConfigError(
            f"{_ENV['max_depth']}: at most {_DEPTH_CAP} (a deeper input overflows)"
        )
    digits = values.get("max_int_digits", _MIN_INT_DIGITS)
    if not _MIN_INT_DIGITS <= digits <= _MAX_INT_DIGITS:
        name = _ENV["max_int_digits"]
        raise LimitsConfigError(
            f"{name}: from {_MIN_INT_DIGITS} (a 64-bit counter) to {_MAX_INT_DIGITS} (a float's range)"
        )
    return Limits(**values)


def int_too_long(text: str, limit: int | None = None) -> str | None:
    """The message for an integer literal with more than the allowed digits, else None (at
    once, without reading the limits, for the short numbers of every real input)."""
    if len(text) <= _MIN_INT_DIGITS:
        return None
    allowed = limits().max_int_digits if limit is None else limit
    if len(text) <= allowed or _INT.fullmatch(text) is None:
        return None
    digits = sum(c.isalnum() for c in text) - ("0x" in text or "0o" in text) * 2
    if digits <= allowed:
        return None
    return f"an integer with {digits} digits (the limit is {allowed}, FABRICLINT_MAX_INT_DIGITS)"


def depth_message(limit: int) -> str:
    """The message for input nested deeper than `limit`."""
    return f"nested more than {limit} levels deep (the limit, FABRICLINT_MAX_DEPTH)"


# --- JSON ---------------------------------------------------------------------------------


def json_loads(text: str, depth: bool = True, **options: Any) -> Any:
    """`json.loads(text, **options)`, raising InputLimitError (located) instead of RecursionError
    or a ValueError from a huge integer, and (when `depth`) when the result nests deeper than the
    limit (a caller that walks the result anyway can count depth itself, for speed)."""
    bounds = limits()
    try:
        data = json.loads(text, **options)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise _json_depth_error(text, bounds.max_depth) from None
    except ValueError as exc:  # int() of a number past Python's digit limit
        located = json_limit_error(text, bounds)
        raise located or InputLimitError(str(exc)) from None
    if depth and exceeds_depth(data, bounds.max_depth):
        raise _json_depth_error(text, bounds.max_depth)
    located = (
        json_limit_error(text, bounds, depth=False) if _has_long_digits(text, bounds) else None
    )
    if located is not None:
        raise located
    return data


def _has_long_digits(text: str, bounds: Limits) -> bool:
    """A cheap test that some run of digits is longer than the integer limit."""
    return re.search(f"[0-9]{{{bounds.max_int_digits + 1}}}", text) is not None


def _json_depth_error(text: str, limit: int) -> InputLimitError:
    found = json_limit_error(text, Limits(max_depth=limit), ints=False)
    return found or InputLimitError(depth_message(limit))


def json_limit_error(
    text: str, bounds: Limits, depth: bool = True, ints: bool = True
) -> InputLimitError | None:
    """The first place where JSON `text` nests too deep or writes too long an integer."""
    line, level = 1, 0
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first == "\n":
            line += 1
        elif first in "[{":
            level += 1
            if depth and level > bounds.max_depth:
                return InputLimitError(depth_message(bounds.max_depth), line)
        elif first in "]}":
            level -= 1
        elif ints and first != '"':
            message = int_too_long(token, bounds.max_int_digits)  # None for a float
            if message is not None:
                return InputLimitError(message, line)
    return None


def exceeds_depth(data: Any, limit: int) -> bool:
    """Whether decoded data (dicts, lists, tuples) nests deeper than `limit` (iterative)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list | tuple):
            children = value
        else:
            continue
        if level > limit:
            return True
        stack.extend((child, level + 1) for child in children)
    return False


# --- YAML ---------------------------------------------------------------------------------


@dataclass
class _Open:
    """A mapping or sequence being read: its anchor and the node count when it started."""

    anchor: str | None
    start: int


@dataclass
class _YamlScan:
    """Counts while walking YAML events: expanded nodes, nodes added by aliases, anchor sizes."""

    bounds: Limits
    aliases: bool
    tags: bool
    nodes: int = 0
    added: int = 0

    def __post_init__(self) -> None:
        self.open: list[_Open] = []
        self.sizes: dict[str, int] = {}

    def event(self, event: Any) -> str | None:
        """Account for one event; a message when it breaks a limit."""
        kind = type(event).__name__
        if kind in ("MappingStartEvent", "SequenceStartEvent"):
            return self._start(event)
        if kind in ("MappingEndEvent", "SequenceEndEvent"):
            done = self.open.pop()
            if done.anchor is not None:
                self.sizes[done.anchor] = self.nodes - done.start + 1
            return None
        if kind == "ScalarEvent":
            return self._scalar(event)
        if kind == "AliasEvent":
            return self._alias(event.anchor)
        return None

    def _start(self, event: Any) -> str | None:
        problem = self._tag(event)
        self.open.append(_Open(event.anchor, self.nodes))
        self.nodes += 1
        if len(self.open) > self.bounds.max_depth:
            return depth_message(self.bounds.max_depth)
        return problem

    def _scalar(self, event: Any) -> str | None:
        self.nodes += 1
        if event.anchor is not None:
            self.sizes[event.anchor] = 1
        problem = self._tag(event)
        if problem is None and not event.style and event.tag is None:  # a plain scalar
            problem = int_too_long(event.value, self.bounds.max_int_digits)
        return problem

    def _tag(self, event: Any) -> str | None:
        tag = event.tag
        if not self.tags or tag is None or tag in _CORE_TAGS:
            return None
        return f"the YAML tag {tag!r} is not supported (only plain YAML data is read)"

    def _alias(self, anchor: str) -> str | None:
        if not self.aliases:
            return f"a YAML alias (*{anchor}): this input never uses anchors or aliases"
        if any(frame.anchor == anchor for frame in self.open):
            return f"the YAML alias *{anchor} refers to a node that contains it (recursive)"
        size = self.sizes.get(anchor, 1)
        self.nodes += size
        self.added += size
        if self.added > self.bounds.max_alias_nodes:
            limit = self.bounds.max_alias_nodes
            return (
                f"YAML aliases expand to more than {limit} nodes "
                "(the limit, FABRICLINT_MAX_ALIAS_NODES): an alias bomb?"
            )
        return None


def yaml_limit_error(text: str, aliases: bool = True, tags: bool = True) -> InputLimitError | None:
    """The first place where YAML `text` breaks a limit (depth, alias expansion, integer size, a
    non-core tag when `tags`, any alias unless `aliases`), or holds a character YAML forbids.

    Reads the event stream only (no tree is built, aliases are counted, not expanded). Other
    syntax errors are left to the caller's reader, which reports them with its own wording.
    """
    scan = _YamlScan(limits(), aliases, tags)
    try:
        for event in _yaml_events(text):
            problem = scan.event(event)
            if problem is not None:
                mark = event.start_mark
                return InputLimitError(problem, mark.line + 1, mark.column + 1)
    except Exception as exc:  # the parsers raise several unrelated error types
        return _reader_error(text, exc)
    return None


def _reader_error(text: str, exc: Exception) -> InputLimitError | None:
    """A located error for a forbidden character (NUL, other control characters), or for
    nesting past libyaml's own limit (1,000 levels, found before the events reach ours)."""
    mark = getattr(exc, "problem_mark", None)
    if getattr(exc, "problem", None) == "exceeded maximum nesting depth" and mark is not None:
        return InputLimitError(depth_message(limits().max_depth), mark.line + 1, mark.column + 1)
    position = getattr(exc, "position", None)
    if type(exc).__name__ != "ReaderError" or not isinstance(position, int):
        return None
    line = text.count("\n", 0, position) + 1
    col = position - (text.rfind("\n", 0, position) + 1) + 1
    character = getattr(exc, "character", "")
    shown = f"{character!r}" if isinstance(character, str) else f"#x{character:04x}"
    return InputLimitError(f"the character {shown} is not allowed", line, col)


def _yaml_events(text: str) -> Iterator[Any]:
    """The YAML event stream of `text`: libyaml's when installed, else ruamel's."""
    from fabriclint.fastyaml import fast_loader

    loader = fast_loader()
    if loader is not None:
        import yaml

        parse: Callable[..., Iterator[Any]] = yaml.parse
        return parse(text, Loader=loader)
    from ruamel.yaml import YAML  # pragma: no cover - only without libyaml

    return iter(YAML(typ="rt").parse(text))  # pragma: no cover
