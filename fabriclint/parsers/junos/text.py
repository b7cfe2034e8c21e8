"""Read Junos `show configuration` text, curly-brace or `display set`, into flat statements.

Both forms become the same list of `Stmt`: the full hierarchy path of each statement as words
(`class-of-service schedulers s1 priority strict-high`), with its 1-based line. A brace-form
block header (`schedulers s1 {`) is a statement too, flagged `opens`, so named objects can point
at their first line. Only top-level sections the parser uses are turned into statements; the
others are checked for syntax and skipped (a QFX config is mostly routing policy).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from fabriclint.bounded import depth_message, limits

# Top-level sections whose statements are kept (all of them, or only those whose second word is
# listed); everything else is only syntax-checked.
RELEVANT: dict[str, frozenset[str] | None] = {
    "version": None,
    "system": frozenset({"host-name"}),
    "interfaces": None,
    "vlans": None,
    "routing-instances": None,
    "class-of-service": None,
    "firewall": None,
    "protocols": frozenset({"dcbx"}),
    "groups": None,
    "apply-groups": None,
}
# Statements never used below `interfaces` (addresses, MACs, ESIs), skipped for speed. The
# `vlan members` of a switched unit are read: they say which VLANs the port carries (MTU005).
_UNUSED = frozenset({"address", "mac", "description", "esi", "filter", "native-vlan-id"})

# Prefixes `show configuration` writes before a statement: inactive ones are ignored by Junos.
_MARKERS = ("inactive:", "protect:", "replace:")

_TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|(/\*.*?\*/)|(#.*)|([{};])|([^\s{};"]+))', re.DOTALL)
_MAX_HELD = 50  # lines a quoted string or /* annotation */ may span
_PATH_WORDS = 4  # words a block header may add to the path, on average, per level of nesting
_BANNER = re.compile(r"\{[\w:.-]*\}")  # {master:0}, {primary}: routing-engine banner lines
_PROMPT = re.compile(r"[\w.-]+@[\w.-]+[>#%]")  # user@host> show configuration


class Stmt(NamedTuple):
    """One configuration statement with its full hierarchy path."""

    words: tuple[str, ...]
    line: int
    opens: bool = False
    """A block header: the statements that follow until its `}` are below it."""
    inactive: bool = False
    """Marked `inactive:` (brace form) or `deactivate`d (set form): Junos ignores it."""


@dataclass(slots=True)
class Reading:
    """The statements read from one configuration text."""

    form: Literal["brace", "set"]
    statements: list[Stmt] = field(default_factory=list)
    problem: tuple[int, str] | None = None
    """(line, message) of the first syntax error; statements before it are kept."""


def read_config(text: str) -> Reading:
    """Statements of a Junos configuration in either form."""
    lines = text.splitlines()
    first = _first_line(lines)
    if first is None:
        return Reading("brace", problem=(1, "the configuration is empty"))
    number, body = first
    if body == "{" or body.startswith(('{"', "<")):
        kind = "JSON" if body[0] == "{" else "XML"
        return Reading("brace", problem=(number, f"{kind} output is not read; collect text"))
    if body.startswith(("set ", "deactivate ")):
        return _read_set(lines)
    return _read_braces(lines)


def _first_line(lines: list[str]) -> tuple[int, str] | None:
    for number, line in enumerate(lines, 1):
        body = line.strip()
        if body and not _skippable(body):
            return number, body
    return None


def _skippable(body: str) -> bool:
    """Comments, routing-engine banners and the CLI prompt line."""
    return body[0] == "#" or _BANNER.fullmatch(body) is not None or _PROMPT.match(body) is not None


def tokens(body: str) -> list[str] | None:
    """Words and `{` `;` `}` of one line; quotes removed; None when a quote is left open."""
    if '"' not in body and "#" not in body and "/*" not in body:
        return _split_simple(body)
    if body.count("/*") > body.count("*/"):
        return None  # an annotation runs on to the next line
    out: list[str] = []
    pos, end = 0, len(body)
    while pos < end:
        found = _TOKEN.match(body, pos)
        if found is None or found.end() == pos:
            return None if body[pos:].strip() else out
        pos = found.end()
        quoted, _, comment, punct, word = found.groups()
        if comment is not None:
            break
        piece = quoted if quoted is not None else punct or word
        if piece is not None:
            out.append(piece)
    return out


def _split_simple(body: str) -> list[str]:
    words = body.split()
    if words and len(words[-1]) > 1 and words[-1][-1] in ";{":
        last = words.pop()
        words += [last[:-1], last[-1]]
    return words


def _words(parts: list[str]) -> tuple[str, ...]:
    """Statement words: list brackets (`[ a b ]`) dropped, values kept in order."""
    return tuple(p for p in parts if p not in ("[", "]"))


@dataclass(slots=True)
class _Block:
    path: tuple[str, ...]
    inactive: bool
    only: frozenset[str] | None = None
    """Second words kept below a top-level section (None = all)."""


@dataclass(slots=True)
class _Braces:
    """State of the brace-form reader."""

    reading: Reading
    stack: list[_Block] = field(default_factory=list)
    skipping: int = 0
    """Depth inside a top-level section that is only syntax-checked."""
    max_depth: int = field(default_factory=lambda: limits().max_depth)

    def opened(self) -> str | None:
        """The error when one more open block nests past the limit (blocks read or skipped)."""
        if len(self.stack) + self.skipping >= self.max_depth:
            return depth_message(self.max_depth)
        return None


_SYNTAX = "not Junos configuration syntax: a statement must end with ';', '{' or '}'"


def _read_braces(lines: list[str]) -> Reading:
    state = _Braces(Reading("brace"))
    pending, held = "", 0
    for number, line in enumerate(lines, 1):
        body = line.strip()
        if not body:
            continue
        if pending or '"' in body or "#" in body or "/*" in body:
            body = (pending + "\n" + body).strip() if pending else body
            parts = tokens(body)
            if parts is None and held < _MAX_HELD:  # a quote or annotation runs on
                pending, held = body, held + 1
                continue
            pending, held = "", 0
            error = _parts_line(state, parts, number) if parts is not None else _OPEN_QUOTE
        elif state.skipping and body[-1] == ";" and "{" not in body and "}" not in body:
            continue  # the fast path: a statement inside a section that is not read
        else:
            error = _simple_line(state, body, number)
        if error is not None:
            state.reading.problem = (number, error)
            return state.reading
    if pending or state.stack or state.skipping:
        open_blocks = len(state.stack) + state.skipping
        state.reading.problem = (
            len(lines),
            f"the configuration ends inside {open_blocks} open block(s)",
        )
    return state.reading


_OPEN_QUOTE = "a quoted string or annotation is never closed"


def _simple_line(state: _Braces, body: str, number: int) -> str | None:
    """A line without quotes or comments."""
    last, head = body[-1], body[:-1]
    if last not in "{;" or ";" in head or "{" in head or "}" in head:
        if body == "}":
            return _close(state)
        return None if _skippable(body) else _SYNTAX
    if state.skipping:
        return _skip(state, last == "{")
    words = head.split()
    if "[" in head:
        words = [w for w in words if w not in ("[", "]")]
    return _statement(state, words, last == "{", number)


def _parts_line(state: _Braces, parts: list[str], number: int) -> str | None:
    """A tokenized line (quotes, comments or annotations in it)."""
    if not parts:
        return None
    if parts == ["}"]:
        return _close(state)
    end = parts[-1]
    if end not in ("{", ";") or any(p in ("{", "}", ";") for p in parts[:-1]):
        return _SYNTAX
    if state.skipping:
        return _skip(state, end == "{")
    return _statement(state, list(_words(parts[:-1])), end == "{", number)


def _skip(state: _Braces, opens: bool) -> str | None:
    """A statement inside (or opening) a section that is only syntax-checked."""
    if opens:
        error = state.opened()
        if error is not None:
            return error
        state.skipping += 1
    return None


def _close(state: _Braces) -> str | None:
    if state.skipping:
        state.skipping -= 1
    elif state.stack:
        state.stack.pop()
    else:
        return "'}' closes no block"
    return None


def _statement(state: _Braces, words: list[str], opens: bool, number: int) -> str | None:
    marker = words[0] if words else ""
    if marker in _MARKERS:
        words = words[1:]
    if not words:
        return "a statement without words"
    parent = state.stack[-1] if state.stack else None
    if not _kept(parent, words[0]):
        return _skip(state, opens)
    path = parent.path + tuple(words) if parent is not None else tuple(words)
    if opens:
        error = state.opened() or _too_long(path, state.max_depth)
        if error is not None:
            return error
    inactive = marker == "inactive:" or (parent is not None and parent.inactive)
    if parent is None or not parent.inactive:
        state.reading.statements.append(Stmt(path, number, opens, inactive))
    if opens:
        only = RELEVANT.get(words[0]) if parent is None else None
        state.stack.append(_Block(path, inactive, only))
    return None


def _too_long(path: tuple[str, ...], max_depth: int) -> str | None:
    """Every statement holds its whole path: bounding it keeps memory linear in the input."""
    allowed = _PATH_WORDS * max_depth
    if len(path) <= allowed:
        return None
    return f"a block path of {len(path)} words (the limit is {allowed}: {_PATH_WORDS} x FABRICLINT_MAX_DEPTH)"


def _kept(parent: _Block | None, word: str) -> bool:
    """Whether a statement starting with `word` below `parent` is read."""
    if parent is None:
        return word in RELEVANT
    if parent.only is not None:
        return word in parent.only
    return not (word in _UNUSED and parent.path[0] == "interfaces")


def _read_set(lines: list[str]) -> Reading:
    reading = Reading("set")
    deactivated: set[tuple[str, ...]] = set()
    for number, line in enumerate(lines, 1):
        body = line.strip()
        if not body or _skippable(body):
            continue
        parts = tokens(body)
        verb = parts[0] if parts else ""
        if verb not in ("set", "deactivate") or len(parts or ()) < 2:
            reading.problem = (number, "not Junos `display set` syntax: expected 'set ...'")
            return reading
        words = _words(parts[1:] if parts else [])
        only = RELEVANT.get(words[0], frozenset())
        if only is not None and (len(words) < 2 or words[1] not in only):
            continue
        if words[0] == "interfaces" and len(words) > 2 and words[2] in _UNUSED:
            continue
        if verb == "deactivate":
            deactivated.add(words)
            reading.statements.append(Stmt(words, number, inactive=True))
        else:
            reading.statements.append(Stmt(words, number))
    if deactivated:
        reading.statements = [
            s for s in reading.statements if s.inactive or not _under(s, deactivated)
        ]
    return reading


def _under(stmt: Stmt, prefixes: set[tuple[str, ...]]) -> bool:
    words = stmt.words
    return any(words[:size] in prefixes for size in range(1, len(words) + 1))
