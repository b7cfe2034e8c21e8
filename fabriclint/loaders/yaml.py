"""YAML loading that keeps line numbers, finds duplicate keys, and locates validation errors."""

from __future__ import annotations

import difflib
import re
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from fabriclint.bounded import yaml_limit_error
from fabriclint.fastyaml import (
    core_int,
    fast_loader,
    key_identity,
    yaml_compose,
    yaml_construct,
)
from fabriclint.fastyaml import (
    has_duplicate_keys as _has_duplicate_keys,
)

if TYPE_CHECKING:  # ruamel (~0.04 s to import) reads only what libyaml cannot, see YamlDoc
    from ruamel.yaml import YAML
    from ruamel.yaml.nodes import Node

Loc = tuple[str | int, ...]
M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Problem:
    """A located problem in a user file (1-based line and column)."""

    file: str
    line: int
    col: int
    message: str
    code: str = "INV001"

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.message}"


Positions = dict[Loc, tuple[int, int]]


def _plain(node: Any, loc: Loc, lines: Positions, values: Positions) -> Any:
    """ruamel's round-trip data as plain data, noting where each key, value and item is."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(node, CommentedMap):
        out: dict[Any, Any] = {}
        for raw_key, value in node.items():
            position = node.lc.data.get(raw_key)  # merged (<<) keys have no position of their own
            key: str | int = raw_key if isinstance(raw_key, str | int) else str(raw_key)
            if position is not None:
                lines[(*loc, key)] = (position[0] + 1, position[1] + 1)
                values[(*loc, key)] = (position[2] + 1, position[3] + 1)
            out[key] = _plain(value, (*loc, key), lines, values)
        return out
    if isinstance(node, CommentedSeq):
        items = []
        for index, value in enumerate(node):
            line, col = node.lc.item(index)
            lines[(*loc, index)] = (line + 1, col + 1)
            items.append(_plain(value, (*loc, index), lines, values))
        return items
    return node


def _duplicates(node: Node | None, file: str) -> list[Problem]:
    from ruamel.yaml.nodes import MappingNode, SequenceNode

    found: list[Problem] = []
    if isinstance(node, MappingNode):
        seen: dict[Any, int] = {}
        for key_node, value_node in node.value:
            key = getattr(key_node, "value", None)
            key = key if isinstance(key, str) else repr(key)  # complex keys (? [a]) are unhashable
            same = key_identity(key_node)  # 0x3 is the key 3
            same = same if isinstance(same, str) else repr(same)
            mark = key_node.start_mark
            if same in seen:
                message = f"duplicate key '{key}' (first at line {seen[same]}); YAML keeps only one"
                found.append(Problem(file, mark.line + 1, mark.column + 1, message, "PARSE002"))
            else:
                seen[same] = mark.line + 1
            found.extend(_duplicates(value_node, file))
    elif isinstance(node, SequenceNode):
        for item in node.value:
            found.extend(_duplicates(item, file))
    return found


def _ruamel() -> YAML:
    """A round-trip (position-keeping) reader that keeps duplicate keys for us to report, and
    timestamps as strings, as on the libyaml path (a date field is parsed by pydantic, which
    reports `2026-13-45` as a located problem)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.constructor import RoundTripConstructor

    class _Constructor(RoundTripConstructor):
        """ruamel's round-trip constructor; timestamps stay strings."""

    _Constructor.add_constructor(
        "tag:yaml.org,2002:timestamp", RoundTripConstructor.construct_yaml_str
    )
    yaml = YAML(typ="rt")
    yaml.Constructor = _Constructor
    yaml.allow_duplicate_keys = True
    return yaml


@dataclass
class Index:
    """Where each key, value and sequence item of a document is (1-based line, column)."""

    lines: Positions
    """Each key's position, and each sequence item's."""
    values: Positions
    """Each mapping value's position."""
    unsure: frozenset[Loc] = frozenset()
    """Empty values and items (`key:` with nothing after it): libyaml places one at the end of
    its `:` or `-`, ruamel at the next token; their positions are left to ruamel."""

    def find(self, loc: Loc, value: bool) -> tuple[int, int] | None:
        """The position of `loc` (its value when asked) or of its deepest known prefix; None
        when the answer would be an unsure position."""
        if value and loc in self.values:
            return self.values[loc]
        if value and loc in self.unsure:
            return None
        for end in range(len(loc), -1, -1):
            found = self.lines.get(loc[:end])
            if found is not None:
                return found
            if loc[:end] in self.unsure:
                return None
        return (1, 1)


class YamlDoc:
    """A loaded YAML document: plain data, plus where each key and item is (built on demand)."""

    def __init__(self, file: str, data: Any, text: str, index: Index | None = None):
        self.file = file
        self.data = data
        self._text = text
        self._index = index

    @property
    def text(self) -> str:
        """The text the document was loaded from (inline suppressions are read from it)."""
        return self._text

    def where(self, loc: Loc, value: bool = False) -> tuple[int, int]:
        """1-based (line, col) of the deepest known prefix of `loc` (its value when asked).

        The fast loader keeps no positions: they are read from libyaml's node tree on the
        first question (the same positions as ruamel's round-trip loader gives, a twentieth of
        its cost and no ruamel import), and from ruamel once libyaml's cannot answer.
        """
        if self._index is None:
            self._index = node_index(self._text) or ruamel_index(self._text)
        found = self._index.find(loc, value)
        if found is None:
            self._index = ruamel_index(self._text)
            found = self._index.find(loc, value)
        return found or (1, 1)

    def problem(self, loc: Loc, message: str, code: str = "INV001", value: bool = False) -> Problem:
        """A Problem located at `loc` (at its value rather than its key when `value`)."""
        line, col = self.where(loc, value)
        return Problem(self.file, line, col, message, code)


def ruamel_index(text: str) -> Index:
    """Where each key, value and item of `text` is, as ruamel's round-trip loader keeps them."""
    lines: Positions = {(): (1, 1)}
    values: Positions = {}
    _plain(_ruamel().load(text), (), lines, values)
    return Index(lines, values)


_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_OTHER_BREAKS = ("\x85", "\u2028", "\u2029")
"""Line breaks of YAML 1.1 (libyaml's marks count them) that YAML 1.2 (ruamel) reads as text."""


def node_index(text: str) -> Index | None:
    """The positions ruamel gives (`ruamel_index`), from libyaml's node tree: each key at its
    key node's start, each value and item at its node's start, as ruamel's round-trip
    constructor records them. None where the two could differ throughout: no libyaml, merge
    keys (ruamel gives merged keys no position), keys that are not plain strings or integers,
    duplicate keys, YAML 1.1-only line breaks."""
    loader = fast_loader()
    if loader is None or any(c in text for c in _OTHER_BREAKS):
        return None
    try:
        node = yaml_compose(text, loader)
    except Exception:  # not what the fast load read: ruamel decides
        return None
    index = Index({(): (1, 1)}, {})
    unsure: set[Loc] = set()
    if node is not None and (_has_duplicate_keys(node) or not _walk(node, (), index, unsure)):
        return None
    index.unsure = frozenset(unsure)
    return index


def _walk(node: Any, loc: Loc, index: Index, unsure: set[Loc]) -> bool:
    """Record the positions under `node`; False at a key this walk cannot name as ruamel does."""
    if node.id == "sequence":
        for number, item in enumerate(node.value):
            here = (*loc, number)
            if _empty(item):
                unsure.add(here)
            else:
                index.lines[here] = (item.start_mark.line + 1, item.start_mark.column + 1)
            if not _walk(item, here, index, unsure):
                return False
    elif node.id == "mapping":
        for key_node, value_node in node.value:
            key = _key(key_node)
            if key is None:
                return False
            here = (*loc, key)
            index.lines[here] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            if _empty(value_node):
                unsure.add(here)
            else:
                mark = value_node.start_mark
                index.values[here] = (mark.line + 1, mark.column + 1)
            if not _walk(value_node, here, index, unsure):
                return False
    return True


def _empty(node: Any) -> bool:
    """A scalar with no text at all (no tag or anchor either): where it is depends on the parser."""
    return bool(node.id == "scalar" and node.start_mark.index == node.end_mark.index)


def _key(node: Any) -> str | int | None:
    """A mapping key as the loaders construct it: a string or an integer, else None."""
    if node.id != "scalar" or _empty(node):
        return None
    if node.tag == _STR:
        return str(node.value)
    return core_int(node.value) if node.tag == _INT else None


def _fast_load(text: str) -> Any:
    """Load with libyaml under YAML 1.2 core-schema scalars; None when it cannot be used.

    ruamel's round-trip loader keeps positions but costs ~8 us a line (2.6 s for a 4,000-device
    inventory); libyaml is 7x faster. Positions are only needed when something is wrong, and
    then they are read from libyaml's node tree (see YamlDoc.where).
    """
    loader = fast_loader()
    if loader is None:
        return None
    node = yaml_compose(text, loader)
    if node is None or _has_duplicate_keys(node):
        return None
    return yaml_construct(node, loader)


def load_yaml(path: Path, display: str) -> tuple[YamlDoc | None, list[Problem]]:
    """Load one YAML file. Syntax errors and duplicate keys come back as Problems."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        return None, [Problem(display, 1, 1, f"cannot read: {exc.strerror or exc}")]
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        return None, [
            Problem(
                display, line, 1, f"not UTF-8 text (byte {exc.start}): {exc.reason}", "PARSE003"
            )
        ]
    beyond = yaml_limit_error(text)  # before anything builds a tree: depth, aliases, integers
    if beyond is not None:
        message = f"invalid YAML: {beyond.message}"
        return None, [Problem(display, beyond.line, beyond.col, message, "PARSE003")]
    try:
        data = _fast_load(text)
    except Exception:  # any libyaml complaint: the ruamel path below reports it with its position
        data = None
    if data is not None:
        return YamlDoc(display, data, text), []
    from ruamel.yaml.error import MarkedYAMLError

    yaml = _ruamel()
    try:
        problems = _duplicates(yaml.compose(text), display)
        loaded = yaml.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        reason = exc.problem or exc.context or "invalid YAML"
        return None, [Problem(display, line, col, f"invalid YAML: {reason}", "PARSE003")]
    lines: Positions = {(): (1, 1)}
    values: Positions = {}
    plain = _plain(loaded, (), lines, values)
    return YamlDoc(display, plain, text, Index(lines, values)), problems


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The BaseModel inside an annotation (through Optional, list, dict values)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin in (Union, types.UnionType, typing.Annotated):
        for arg in args:
            found = _model_of(arg)
            if found is not None:
                return found
    return None


def _fields_at(model: type[BaseModel], loc: Loc) -> list[str]:
    """Field names (by alias when set) accepted at `loc` inside `model`."""
    current: Any = model
    for part in loc:
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(part))
            if field is None:
                field = next((f for f in current.model_fields.values() if f.alias == part), None)
            if field is None:
                return []
            current = field.annotation
            continue
        inner = _model_of(current)
        origin = get_origin(current)
        if origin in (dict, list) and get_args(current):
            current = get_args(current)[-1]
        elif inner is not None:
            current = inner
            if isinstance(part, str) and part in inner.model_fields:
                current = inner.model_fields[part].annotation
        else:
            return []
    model_cls = _model_of(current)
    if model_cls is None:
        return []
    return [f.alias or name for name, f in model_cls.model_fields.items()]


def _describe(model: type[BaseModel], error: Any) -> str:
    loc: Loc = tuple(error["loc"])
    dotted = ".".join(str(p) for p in loc) or "(document)"
    if error["type"] == "extra_forbidden":
        key = str(loc[-1])
        allowed = _fields_at(model, loc[:-1])
        hint = difflib.get_close_matches(key, allowed, n=1)
        suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
        known = f" (known keys: {', '.join(sorted(allowed))})" if allowed and not hint else ""
        return f"unknown key '{key}' at {dotted}{suggestion}{known}"
    if error["type"] == "missing":
        return f"{dotted}: required key is missing"
    value = error.get("input")
    shown = f" (got {value!r})" if not isinstance(value, dict | list) else ""
    if error["type"] == "literal_error" and isinstance(value, str):
        shown += _closest(value, error.get("ctx", {}).get("expected", ""))
    return f"{dotted}: {error['msg']}{shown}"


def _closest(value: str, expected: str) -> str:
    """A did-you-mean for a choice: a known word inside the value (`arista_eos`, netmiko's
    name for `eos`), else the closest spelling."""
    known = re.findall(r"'([^']+)'", expected)
    words = set(re.split(r"[_\-\s.]+", value.lower()))
    inside = [k for k in known if k in words]
    hint = inside or difflib.get_close_matches(value.lower(), known, n=1)
    return f"; did you mean '{hint[0]}'?" if hint else ""


def validate_doc(doc: YamlDoc, model: type[M]) -> tuple[M | None, list[Problem]]:
    """Validate a YamlDoc against a model; every error becomes a located Problem."""
    data = doc.data if doc.data is not None else {}
    try:
        return model.model_validate(data), []
    except ValidationError as exc:
        problems = [
            doc.problem(
                tuple(err["loc"]),
                _describe(model, err),
                value=err["type"] not in ("extra_forbidden", "missing"),
            )
            for err in exc.errors()
        ]
        return None, problems
