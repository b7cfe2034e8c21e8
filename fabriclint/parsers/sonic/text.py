"""JSON for the SONiC parser: every object key keeps its line, and duplicate keys are kept.

`json.loads` (and so `sonic-cfggen`) silently keeps the last of two equal keys and forgets
where anything was. Here the C decoder still does the parsing, with an `object_pairs_hook` that
keeps every pair; a separate scan of the text lists the line of every key in document order,
which is the order a depth-first walk of the decoded pairs visits them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import compress, repeat
from typing import Any

from fabriclint.bounded import (
    InputLimitError,
    depth_message,
    json_limit_error,
    json_loads,
    limits,
)

# One JSON string, optionally followed by the colon that makes it a key (unrolled-loop form:
# much faster than an alternation on a 100 KB config_db).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"(\s*:)?')
_KEY_GAP = re.compile("\x00[ \t\r]+:")
_KEY_GAP_NEWLINE = re.compile("\x00\\s*\n\\s*:")


class Pairs(list[tuple[str, Any]]):
    """One decoded JSON object: its (key, value) pairs in order, duplicates included."""


class JObj(dict[str, Any]):
    """A JSON object: key -> value, and `lines`, the 1-based line of each key in iteration
    order. The last duplicate wins, as in `json.loads`; `dups` keeps every (value, line) of a
    key written more than once."""

    lines: list[int]
    dups: dict[str, list[tuple[Any, int]]] | None = None

    def line(self, key: str) -> int:
        """Line of `key` (which must be present)."""
        return self.lines[list(self).index(key)]

    def triples(self) -> Iterator[tuple[str, Any, int]]:
        """(key, value, line) in order."""
        return zip(self.keys(), self.values(), self.lines, strict=True)


def jobj(lines: list[int]) -> JObj:
    """An empty JObj (or one whose lines are given)."""
    out = JObj()
    out.lines = lines
    return out


@dataclass(slots=True)
class Duplicate:
    """A key written twice (or more) in one JSON object."""

    path: str
    """Where the object is ('' = top level, 'DSCP_TO_TC_MAP.AZURE', '[2]')."""
    key: str
    lines: list[int]
    """Line of each occurrence, in order."""


class JsonError(ValueError):
    """The text is not JSON."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


class _TooDeep(Exception):
    """The decoded document nests deeper than the limit (located afterwards, from the text)."""


@dataclass(slots=True)
class _Walk:
    lines: list[int]
    max_depth: int
    at: int = 0
    depth: int = 0
    duplicates: list[Duplicate] = field(default_factory=list)

    def value(self, value: Any, path: str) -> Any:
        kind = type(value)
        if kind is not Pairs and kind is not list:
            return value
        self.depth += 1
        if self.depth > self.max_depth:
            raise _TooDeep
        if kind is Pairs:
            out: Any = self.obj(value, path)
        else:
            out = [self.value(item, f"{path}[{n}]") for n, item in enumerate(value)]
        self.depth -= 1
        return out

    def obj(self, pairs: Pairs, path: str) -> JObj:
        out = JObj(pairs)
        count = len(pairs)
        if len(out) == count:
            kinds = set(map(type, out.values()))
            if Pairs not in kinds and list not in kinds:
                # A leaf object (most of a config_db): its keys' lines are consecutive.
                at = self.at
                lines = self.lines[at : at + count]
                if len(lines) < count:  # never with valid JSON; keeps triples() safe
                    lines += [0] * (count - len(lines))
                out.lines = lines
                self.at = at + count
                return out
        return self._slow(pairs, path)

    def _slow(self, pairs: Pairs, path: str) -> JObj:
        """Objects holding objects, and objects with duplicate keys."""
        out = jobj([])
        lines, at = self.lines, self.at
        where: dict[str, int] = {}
        for key, raw in pairs:
            line = lines[at] if at < len(lines) else 0
            at += 1
            item = raw
            if type(raw) is Pairs or type(raw) is list:
                self.at = at
                item = self.value(raw, f"{path}.{key}" if path else key)
                at = self.at
            index = where.get(key)
            if index is None:
                where[key] = len(out.lines)
                out.lines.append(line)
            else:
                _remember(out, key, (out[key], out.lines[index]), (item, line))
                out.lines[index] = line
            out[key] = item
        self.at = at
        if out.dups is not None:
            for key, history in out.dups.items():
                self.duplicates.append(Duplicate(path, key, [line for _, line in history]))
        return out


def _remember(out: JObj, key: str, before: tuple[Any, int], now: tuple[Any, int]) -> None:
    if out.dups is None:
        out.dups = {}
    history = out.dups.setdefault(key, [before])
    history.append(now)


def load(text: str) -> tuple[Any, list[Duplicate]]:
    """Decode `text`: objects become JObj (values with their key lines), arrays lists.
    Past the input limits (nesting depth, integer digits) it raises a located JsonError."""
    bounds = limits()
    try:
        raw = json_loads(text, depth=False, object_pairs_hook=Pairs)
    except json.JSONDecodeError as exc:
        raise JsonError(exc.msg, exc.lineno) from exc
    except InputLimitError as exc:
        raise JsonError(exc.message, exc.line or None) from exc
    lines = key_lines(text)
    try:
        walk = _Walk(lines, bounds.max_depth)
        decoded = walk.value(raw, "")
        if walk.at != len(lines):  # the fast scan miscounted: tokenize every string instead
            walk = _Walk(_key_lines_slow(text), bounds.max_depth)
            decoded = walk.value(raw, "")
    except _TooDeep:
        found = json_limit_error(text, bounds)
        raise JsonError(depth_message(bounds.max_depth), found.line if found else None) from None
    return decoded, walk.duplicates


def key_lines(text: str) -> list[int]:
    """The line of every object key, in document order (valid JSON assumed)."""
    if "\\" in text or "\x00" in text:
        return _key_lines_slow(text)
    # Outside strings only: every string becomes \0, so a key is "\0:" (after optional blanks).
    outside = "\x00".join(text.split('"')[0::2])
    if _KEY_GAP_NEWLINE.search(outside):
        return _key_lines_slow(text)
    if "\x00 " in outside or "\x00\t" in outside or "\x00\r" in outside:
        outside = _KEY_GAP.sub("\x00:", outside)
    counts = list(map(str.count, outside.split("\n"), repeat("\x00:")))
    numbers = range(1, len(counts) + 1)
    if max(counts, default=0) <= 1:
        return list(compress(numbers, counts))
    out: list[int] = []
    for number, count in zip(numbers, counts, strict=True):
        if count:
            out.extend(repeat(number, count))
    return out


def _key_lines_slow(text: str) -> list[int]:
    """Tokenize every string (escapes and odd spacing included)."""
    out: list[int] = []
    line, last = 1, 0
    count = text.count
    for match in _STRING.finditer(text):
        if match.group(1) is not None:
            start = match.start()
            line += count("\n", last, start)
            last = start
            out.append(line)
    return out
