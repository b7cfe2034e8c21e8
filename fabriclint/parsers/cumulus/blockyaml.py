"""A one-pass reader for the block YAML NVUE writes (`key: value`, nested by indentation, `- `
list items, `{}` / `[]`, plain or simply quoted scalars), about twice as fast as composing with
libyaml. Anything outside that subset (flow collections, anchors, tags, block scalars, comments
after values, multi-line scalars, JSON) raises Unsupported and the caller falls back to libyaml,
so the result is always the same tree a full YAML 1.2 reader gives (tested against it).
"""

from __future__ import annotations

import re
from typing import Any

from fabriclint.bounded import InputLimitError, depth_message, int_too_long, limits
from fabriclint.parsers.cumulus.tree import Item, Scalar

_INT = re.compile(r"[-+]?[0-9][0-9_]*|0o[0-7]+|0x[0-9a-fA-F]+", re.ASCII)
_FLOAT = re.compile(
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
    re.ASCII,
)
_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_WORDS = _NULL | set(_BOOL)
# A plain scalar may not start with these (they open flow collections, anchors, tags, ...).
_SPECIAL_START = tuple("[]{}&*!|>%@`#,?")


class Unsupported(Exception):
    """The text uses YAML this reader does not handle; use a full YAML reader."""


class _Frame:
    """An open mapping or sequence: its indentation, its item, and its last value (for nesting)."""

    __slots__ = ("indent", "item", "last")

    def __init__(self, indent: int, item: Item) -> None:
        self.indent = indent
        self.item = item
        self.last: Item | None = None


def read_block(text: str, dups: list[tuple[str, int, int]]) -> Item | None:
    """The tree of `text` (None when it has no content); repeated keys are appended to `dups`."""
    reader = _Reader(dups)
    for number, raw in enumerate(text.lstrip("\ufeff").split("\n"), 1):
        body = raw.lstrip(" ")
        if not body or body[0] == "#" or body == "\r":
            continue
        try:
            reader.line(len(raw) - len(body), body.rstrip(), number)
        except InputLimitError as exc:  # raised without a line by scalar()
            raise InputLimitError(exc.message, number) from None
    return reader.root


class _Reader:
    """The open blocks (`stack`) and the tree read so far."""

    def __init__(self, dups: list[tuple[str, int, int]]) -> None:
        self.stack: list[_Frame] = []
        self.root: Item | None = None
        self.dups = dups
        self.max_depth = limits().max_depth

    def line(self, indent: int, body: str, number: int) -> None:
        """One non-blank, non-comment line."""
        if body.startswith(("---", "...", "\t")):
            raise Unsupported
        stack = self.stack
        if len(stack) >= self.max_depth:
            raise InputLimitError(depth_message(self.max_depth))
        while stack and indent < stack[-1].indent:
            stack.pop()
        if self.root is not None and not stack:
            raise Unsupported  # dedented past the root: malformed, let the full reader say why
        if body == "-" or body.startswith("- "):
            self.dash(indent, body, number)
        else:
            self.key(indent, body, number)

    def dash(self, indent: int, body: str, number: int) -> None:
        """A `- item` line: a scalar item, or the first key of a mapping item."""
        content = body[2:]
        if not content.strip():
            raise Unsupported
        frame = self._sequence(indent, number)
        inner = indent + 2 + len(content) - len(content.lstrip(" "))
        content = content.strip()
        if _is_key_line(content):
            item = Item({}, number)
            frame.item.value.append(item)
            self.stack.append(_Frame(inner, item))
            self.key(inner, content, number)
        else:
            frame.item.value.append(Item(scalar(content), number))

    def _sequence(self, indent: int, number: int) -> _Frame:
        """The sequence a `- ` at `indent` belongs to (opened under a pending key if needed)."""
        top = self.stack[-1] if self.stack else None
        if top is None:
            self.root = Item([], number)
            self.stack.append(_Frame(indent, self.root))
        elif isinstance(top.item.value, dict) and top.last is not None and top.last.value is None:
            if indent < top.indent:
                raise Unsupported
            top.last.value = []
            self.stack.append(_Frame(indent, top.last))
        elif not (isinstance(top.item.value, list) and top.indent == indent):
            raise Unsupported
        return self.stack[-1]

    def key(self, indent: int, body: str, number: int) -> None:
        """A `key: value` or `key:` line."""
        key, value = _split(body)
        top = self.stack[-1] if self.stack else None
        if top is not None and top.indent == indent and type(top.item.value) is dict:
            mapping = top  # the common case: one more key of the open mapping
        else:
            mapping = self._mapping(indent, number)
        if key in mapping.item.value:
            self.dups.append((key, number, mapping.item.value[key].line))
        item = Item(_value(value), number)
        mapping.item.value[key] = item
        mapping.last = item

    def _mapping(self, indent: int, number: int) -> _Frame:
        """The mapping a key at `indent` belongs to (opened under a pending key if needed)."""
        stack = self.stack
        while stack and isinstance(stack[-1].item.value, list) and stack[-1].indent == indent:
            stack.pop()  # a key at the indentation of a compact list ends that list
        top = stack[-1] if stack else None
        if top is None:
            if self.root is not None:
                raise Unsupported
            self.root = Item({}, number)
            stack.append(_Frame(indent, self.root))
        elif indent > top.indent:
            if top.last is None or top.last.value is not None:
                raise Unsupported  # a deeper line under a scalar: a multi-line scalar
            top.last.value = {}
            stack.append(_Frame(indent, top.last))
        elif indent != top.indent or not isinstance(top.item.value, dict):
            raise Unsupported
        return stack[-1]


def _is_key_line(text: str) -> bool:
    if text[0] in "'\"":
        return _quoted_end(text) < len(text) and text[_quoted_end(text) :].startswith(":")
    return text.endswith(":") or ": " in text


def _quoted_end(text: str) -> int:
    """Index just after the quoted scalar that starts `text`."""
    end = text.find(text[0], 1)
    if end < 0:
        raise Unsupported
    return end + 1


def _split(body: str) -> tuple[str, str]:
    """(key, value text) of a `key: value` line."""
    if body[0] in "'\"":
        end = _quoted_end(body)
        key, rest = str(scalar(body[:end])), body[end:]
        if not (rest == ":" or rest.startswith(": ")):
            raise Unsupported
        return key, rest[1:].strip()
    cut = body.find(": ")
    if cut < 0:
        if not body.endswith(":"):
            raise Unsupported  # a bare scalar line
        key, value = body[:-1], ""
    else:
        key, value = body[:cut], body[cut + 2 :].strip()
    if not key or key.startswith(_SPECIAL_START) or key.startswith("- ") or " #" in key:
        raise Unsupported
    if key[0].isalpha() and key not in _WORDS and key[-1] != " ":
        return key, value  # a plain name (swp1, qos, mtu): no scalar rules to apply
    return str(scalar(key.rstrip())), value


def _value(text: str) -> Any:
    if text == "{}":
        return {}
    if text == "[]":
        return []
    if not text:
        return None
    return scalar(text)


def scalar(text: str) -> Scalar:
    """A scalar under YAML 1.2 core-schema rules (`on`/`off` stay strings)."""
    first = text[0] if text else ""
    if first in "'\"":
        if len(text) < 2 or text[-1] != first or first in text[1:-1] or "\\" in text:
            raise Unsupported  # escapes and doubled quotes are left to the full reader
        return text[1:-1]
    if first and (text.startswith(_SPECIAL_START) or ": " in text or " #" in text):
        raise Unsupported
    if text in _NULL:
        return None
    if text in _BOOL:
        return _BOOL[text]
    if first in "-+0123456789.":
        return _number(text)
    return text


def _number(text: str) -> Scalar:
    if _INT.fullmatch(text):
        too_long = int_too_long(text)
        if too_long is not None:
            raise InputLimitError(too_long)
        if text.startswith("0o"):
            return int(text[2:], 8)
        if text.startswith("0x"):
            return int(text[2:], 16)
        return int(text.replace("_", ""), 10)
    if _FLOAT.fullmatch(text):
        return float(text.replace(".inf", "inf").replace(".Inf", "inf").replace(".nan", "nan"))
    return text
