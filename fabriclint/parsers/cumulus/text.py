"""YAML/JSON (NVUE output) read into a tree that remembers the line of every key, and its duplicates.

libyaml composes the node tree (YAML 1.2 core scalars, as ruamel reads them); ruamel's composer is
the fallback when PyYAML has no C extension. Both give every node its start line. Composing with
ruamel costs ~170 us a line on the development VM (88 ms for a 64-port NVUE config, 88 s for
1,000 devices); libyaml ~4 us a line, so a fleet parses in seconds. See docs/platforms/cumulus.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fabriclint.bounded import InputLimitError, Limits, depth_message, int_too_long, limits
from fabriclint.parsers.cumulus.blockyaml import Unsupported, read_block
from fabriclint.parsers.cumulus.tree import Item, Scalar

_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_BOOL_TAG = "tag:yaml.org,2002:bool"
_NULL_TAG = "tag:yaml.org,2002:null"


@dataclass
class Loaded:
    """The result of reading one document."""

    root: Item | None = None
    duplicates: list[tuple[str, int, int]] = field(default_factory=list)
    """(key, line, line of its first occurrence) for every repeated key."""
    error: tuple[str, int] | None = None
    """(message, line) when the text is not YAML at all."""


def load(text: str) -> Loaded:
    """Read `text` (the fast block reader, else libyaml); never raises on malformed input.

    Input limits (see fabriclint.bounded): nesting depth, integer digits, and no alias of
    a mapping or list (NVUE never writes one; a "billion laughs" would expand exponentially).
    """
    out = Loaded()
    try:
        out.root = read_block(text, out.duplicates)
        return out
    except Unsupported:
        out.duplicates.clear()
    except InputLimitError as exc:
        out.duplicates.clear()
        out.error = (exc.message, exc.line or 1)
        return out
    try:
        node = _compose(text)
    except Exception as exc:  # any YAML/JSON syntax error, from either composer
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = min(mark.line + 1, len(text.splitlines()) or 1) if mark is not None else 1
        reason = getattr(exc, "problem", None) or type(exc).__name__
        if reason == "exceeded maximum nesting depth":  # libyaml's own limit (1,000)
            reason = depth_message(limits().max_depth)
        out.error = (f"not valid YAML/JSON: {reason}", line)
        return out
    if node is not None:
        try:
            out.root = _convert(node, node.start_mark.line + 1, out.duplicates, 0, _Bounds())
        except InputLimitError as exc:
            out.error = (exc.message, exc.line or 1)
    return out


def _compose(text: str) -> Any:
    from fabriclint.fastyaml import fast_loader

    loader = fast_loader()
    if loader is not None:
        import yaml

        return yaml.compose(text, Loader=loader)
    from ruamel.yaml import YAML  # pragma: no cover - only without libyaml

    return YAML(typ="rt").compose(text)  # pragma: no cover


@dataclass
class _Bounds:
    """Limits while converting one composed tree, and the mappings/lists already converted."""

    limits: Limits = field(default_factory=limits)
    seen: set[int] = field(default_factory=set)

    def enter(self, node: Any, line: int, depth: int) -> None:
        """Refuse a second visit of a collection node (an alias) and nesting past the limit."""
        if id(node) in self.seen:
            message = (
                "a YAML alias of the mapping or list anchored here (NVUE never writes aliases)"
            )
            raise InputLimitError(message, line)
        self.seen.add(id(node))
        if depth >= self.limits.max_depth:
            raise InputLimitError(depth_message(self.limits.max_depth), line)


def _convert(
    node: Any,
    line: int,
    dups: list[tuple[str, int, int]],
    depth: int,
    bounds: _Bounds | None = None,
) -> Item:
    kind = type(node).__name__
    bounds = bounds or _Bounds()
    if kind == "MappingNode":
        bounds.enter(node, line, depth)
        mapping: dict[str, Item] = {}
        for key_node, value_node in node.value:
            key = str(_scalar(key_node)) if type(key_node).__name__ == "ScalarNode" else "?"
            key_line = key_node.start_mark.line + 1
            if key in mapping:
                dups.append((key, key_line, mapping[key].line))
            mapping[key] = _convert(value_node, key_line, dups, depth + 1, bounds)
        return Item(mapping, line)
    if kind == "SequenceNode":
        bounds.enter(node, line, depth)
        items = [_convert(v, v.start_mark.line + 1, dups, depth + 1, bounds) for v in node.value]
        return Item(items, line)
    return Item(_scalar(node), line)


def _scalar(node: Any) -> Scalar:
    """A scalar under YAML 1.2 core-schema rules (`on`/`off` stay strings)."""
    text: str = node.value
    tag = getattr(node.tag, "value", node.tag)  # ruamel wraps tags in a Tag object
    too_long = int_too_long(text) if tag == _INT_TAG else None
    if too_long is not None:
        raise InputLimitError(too_long, node.start_mark.line + 1)
    try:
        if tag == _INT_TAG:
            return _int(text)
        if tag == _FLOAT_TAG:
            return float(text.replace(".inf", "inf").replace(".nan", "nan"))
    except ValueError:
        return text
    if tag == _BOOL_TAG:
        return text.lower() == "true"
    if tag == _NULL_TAG:
        return None
    return text


def _int(text: str) -> int:
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text.replace("_", ""), 10)
