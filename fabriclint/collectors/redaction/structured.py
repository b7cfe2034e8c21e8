"""Substitutions that need more than one regex: secrets that are JSON or YAML *keys*, key files.

SNMP communities are often the name of an object rather than a value (SONiC
`"SNMP_COMMUNITY": {"public": {...}}`, NVIDIA NVUE `readonly-community: {public: {...}}`): the
name itself is the secret. Keys are replaced with numbered markers (`<redacted>-1`, ...) so an
object never ends up with two equal keys, which would make the JSON/YAML ambiguous to parse.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from fabriclint.collectors.redaction.base import MARK, marked

_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_YAML_KEY = re.compile(
    r"""^(?P<i>[ ]*)(?:-[ ]+)?(?P<k>'[^'\n]*'|"[^"\n]*"|[^\s:#'"{}\[\],][^:\n]*?)[ ]*:(?=[ ]|$)"""
)


def _bodies(
    start: re.Pattern[str], redact: Callable[[str, int], tuple[int, str]]
) -> Callable[[str], str]:
    """A rewrite of every JSON body that `start` opens: `redact(text, i)` scans the body from
    `i` and returns (its end, the new body); a match inside a body already rewritten is skipped."""

    def apply(text: str) -> str:
        out, pos = [], 0
        for found in start.finditer(text):
            if found.start() < pos:
                continue
            end, body = redact(text, found.end())
            out.append(text[pos : found.end()] + body)
            pos = end
        return "".join(out) + text[pos:]

    return apply


def json_object_keys(table: str) -> Callable[[str], str]:
    """Replace the keys of every JSON object `"TABLE": {...}` (nested SONiC config_db form)."""
    start = re.compile(rf'"{re.escape(table)}"\s*:\s*\{{')
    return _bodies(start, _redact_object_keys)


def _redact_object_keys(text: str, i: int) -> tuple[int, str]:
    """Scan one JSON object body from `i`; replace its own keys. Returns (end, new body)."""
    depth, parts, n = 1, [], 0
    while i < len(text) and depth > 0:
        ch = text[i]
        if ch == '"':
            found = _JSON_STRING.match(text, i)
            j = found.end() if found else len(text)
            is_key = depth == 1 and text[j:].lstrip().startswith(":")
            n += is_key
            parts.append(f'"{MARK}-{n}"' if is_key else text[i:j])
            i = j
            continue
        depth += {"{": 1, "[": 1, "}": -1, "]": -1}.get(ch, 0)
        parts.append(ch)
        i += 1
    return i, "".join(parts)


def json_flat_keys(table: str) -> Callable[[str], str]:
    """Replace the name in flat SONiC keys `"TABLE|name"` (numbered, so keys stay unique)."""
    flat = re.compile(rf'"{re.escape(table)}\|(?:[^"\\\n]|\\.)*"')

    def apply(text: str) -> str:
        counter = iter(range(1, 1_000_000))
        return flat.sub(lambda _m: f'"{table}|{MARK}-{next(counter)}"', text)

    return apply


def _bare(key: str) -> str:
    """A YAML key without its quotes."""
    return key[1:-1] if key[:1] in "'\"" and key[-1:] == key[:1] and len(key) > 1 else key


def yaml_child_keys(parents: frozenset[str]) -> Callable[[str], str]:
    """Replace the keys one level below any key in `parents` (NVUE `readonly-community:`).

    Works on indentation alone (NVUE writes block YAML, two spaces a level), so a config that a
    YAML library could not load is still redacted; deeper levels are left alone unless they are
    parents themselves (`auth-sha: {KEY: {encrypt-aes: {KEY2: {}}}}` written as blocks). A
    parent written as a one-line flow map (`community-password: {KEY: {version: 2c}}`) has its
    first-level keys replaced.
    """

    def apply(text: str) -> str:
        lines = text.split("\n")
        stack: list[list[int]] = []  # [parent indent, child indent or -1]
        count = [0]
        for index, line in enumerate(lines):
            if line.strip() and not line.strip().startswith("#"):
                lines[index] = _child_line(line, stack, parents, count)
        return "\n".join(lines)

    return apply


def _next_mark(count: list[int]) -> str:
    """The next numbered key marker of this output."""
    count[0] += 1
    return f"'{MARK}-{count[0]}'"


def _child_line(
    line: str, stack: list[list[int]], parents: frozenset[str], count: list[int]
) -> str:
    """One non-blank YAML line: redacted when it is a child key of an open parent."""
    indent = len(line) - len(line.lstrip(" "))
    while stack and indent <= stack[-1][0]:
        stack.pop()
    found = _YAML_KEY.match(line)
    if found is None:
        return line
    if stack and stack[-1][1] in (-1, indent):
        stack[-1][1] = indent
        return line[: found.start("k")] + _next_mark(count) + line[found.end("k") :]
    if _bare(found["k"]) in parents:
        rest = line[found.end() :]
        if not rest.strip():
            stack.append([indent, -1])
        elif rest.lstrip().startswith("{"):
            return line[: found.end()] + _flow_keys(rest, count)
    return line


_FLOW_KEY = re.compile(r"""'[^'\n]*'|"[^"\n]*"|[^\s:{}\[\],'"][^:{}\[\],\n]*?(?=[ ]*:)""")


def _flow_keys(rest: str, count: list[int]) -> str:
    """A one-line flow map with its first-level keys replaced (`{KEY: {...}, KEY2: {}}`)."""
    out, depth, i, expect_key = [], 0, 0, False
    while i < len(rest):
        ch = rest[i]
        found = _FLOW_KEY.match(rest, i) if expect_key and not ch.isspace() else None
        if found is not None:
            out.append(_next_mark(count))
            i, expect_key = found.end(), False
            continue
        depth += {"{": 1, "[": 1, "}": -1, "]": -1}.get(ch, 0)
        expect_key = (
            (ch == "{" and depth == 1)
            or (ch == "," and depth == 1)
            or (expect_key and ch.isspace())
        )
        out.append(ch)
        i += 1
    return "".join(out)


_YAML_VALUE = re.compile(
    r"^(?P<p>[ \t]*-?[ \t]*(?P<k>[\w-]+)[ \t]*:[ \t]+)(?P<v>[^\s#{\[].*?)(?P<t>[ \t]*)$",
    re.MULTILINE,
)


def yaml_named_values(names: str) -> Callable[[str], str]:
    """Replace the scalar value of every YAML `KEY: value` whose KEY fully matches `names`.

    The line is matched first and its key checked second: one pattern holding the names would
    backtrack through every word of every line (a host's outputs are mostly `key: value`).
    """
    name = re.compile(names, re.IGNORECASE)

    def apply(text: str) -> str:
        blocks: list[bool] = []

        def one(match: re.Match[str]) -> str:
            if name.fullmatch(match["k"]) is None:
                return match[0]
            if _BLOCK.fullmatch(match["v"]):  # `password: |`: the secret is on the lines below
                blocks.append(True)
                return match[0]
            return match["p"] + marked(match["v"]) + match["t"]

        out = _sub_lines(_YAML_VALUE, one, text, ":")
        return _block_values(out, name) if blocks else out

    return apply


def _sub_lines(
    pattern: re.Pattern[str], replace: Callable[[re.Match[str]], str], text: str, needle: str
) -> str:
    """`pattern.sub(replace, text)` for a pattern that matches only from the start of a line
    (`^`, MULTILINE), never across one, and only a line holding `needle`: the pattern is tried
    at the start of those lines alone. Tried at every position of the text, such a pattern
    cost ~0.1 us per character (no literal to skip to): ~1 ms per switch configuration, whose
    lines hardly ever hold a colon."""
    out: list[str] = []
    pos = 0
    for start in _lines_holding(text, needle):
        found = pattern.match(text, start)
        if found is not None:
            out += (text[pos : found.start()], replace(found))
            pos = found.end()
    return "".join(out) + text[pos:] if out else text


def _lines_holding(text: str, needle: str) -> Iterator[int]:
    """Where each line of `text` (split at LF) that holds `needle` starts, in order."""
    at = text.find(needle)
    while at >= 0:
        yield text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        if end < 0:
            return
        at = text.find(needle, end)


_BLOCK = re.compile(r"[|>][-+1-9]*(?:[ \t]+#.*)?")
"""A block scalar header (`|`, `>-`, `|2`, a comment after it): the value is on the next lines."""


def _block_values(text: str, name: re.Pattern[str]) -> str:
    """Every line of a secret-named key's block scalar replaced by MARK (its indentation kept):
    the lines below the key indented deeper than the key itself (YAML 1.2 section 8.1)."""
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        match = _YAML_VALUE.match(lines[index])
        index += 1
        if match is None or not name.fullmatch(match["k"]) or not _BLOCK.fullmatch(match["v"]):
            continue
        column = match.start("k")
        while index < len(lines) and (
            not lines[index].strip() or len(lines[index]) - len(lines[index].lstrip(" ")) > column
        ):
            line = lines[index]
            if line.strip():
                lines[index] = line[: len(line) - len(line.lstrip(" "))] + MARK
            index += 1
    return "\n".join(lines)


def non_default_key(names: tuple[str, ...], defaults: tuple[int, ...]) -> Callable[[str], str]:
    """Replace `NAME VALUE` lines (OpenSM keys) unless the value is one of `defaults`.

    OpenSM's defaults (m_key 0, sm_key/sa_key 1, cc_key 0) are kept so rule IB005 can still
    tell "left at default"; the opensm parser reads the marker as "set, value unknown".
    """
    pattern = re.compile(
        rf"^(?P<p>[ \t]*(?:{'|'.join(map(re.escape, names))})[ \t]+)(?P<v>[^\s#]+)", re.MULTILINE
    )

    def one(match: re.Match[str]) -> str:
        try:
            trivial = int(match["v"], 0) in defaults
        except ValueError:
            trivial = False
        return match[0] if trivial else match["p"] + MARK

    return lambda text: pattern.sub(one, text)


_PEM = re.compile(
    r"(?P<b>-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----)(?P<body>.*?)"
    r"(?=(?P<end>-----END [A-Z0-9 ]*PRIVATE KEY-----)|\Z)",
    re.DOTALL,
)


def pem_private_keys(text: str) -> str:
    """Every line inside a PEM private key block replaced by MARK (the lines are kept). A block
    with no END line (an output cut off mid-key) is key material up to the end of the text."""

    def body(match: re.Match[str]) -> str:
        lines = match["body"].split("\n")
        if len(lines) == 1:  # a key on one line (escaped newlines in JSON)
            return match["b"] + MARK
        last = lines[-1]  # before END: its indentation; cut off: part of the key
        if match["end"] is None and last.strip():
            last = MARK
        inner = [MARK if line.strip() else line for line in lines[1:-1]]
        return match["b"] + "\n".join([lines[0], *inner, last])

    return _PEM.sub(body, text)


_FLOW_VALUE = re.compile(
    r"""(?P<p>[{,][ \t]*(?P<k>'[\w-]+'|"[\w-]+"|[\w-]+)[ \t]*:[ \t]+)"""
    r"""(?P<v>"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s,{}\[\]'"][^,{}\[\]\n]*?)(?=[ \t]*[,}])"""
)


def yaml_flow_values(names: str) -> Callable[[str], str]:
    """Replace the scalar value of every `KEY: value` inside a one-line YAML flow map
    (`{password: X, role: admin}`) whose KEY fully matches `names`; nested maps are left to
    the key rules (their values are maps, not secrets)."""
    name = re.compile(names, re.IGNORECASE)

    def one(match: re.Match[str]) -> str:
        if name.fullmatch(_bare(match["k"])) is None:
            return match[0]
        return match["p"] + marked(match["v"])

    return lambda text: _FLOW_VALUE.sub(one, text)


_JSON_SCALAR = re.compile(r'"(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*')


def json_secret_containers(names: str) -> Callable[[str], str]:
    """Replace every string and number inside a list or object that is the value of a
    secret-named JSON key (`"passkey": ["X"]`, `"passkey": {"value": "X"}`); object keys,
    punctuation and newlines are kept, so the JSON stays valid and its lines do not move."""
    start = re.compile(rf'"(?:{names})"\s*:\s*[\[{{]', re.IGNORECASE)
    return _bodies(start, _redact_container)


def _redact_container(text: str, i: int) -> tuple[int, str]:
    """Scan one JSON list/object body from `i`, its scalars replaced. Returns (end, new body)."""
    depth, parts = 1, []
    while i < len(text) and depth > 0:
        found = _JSON_SCALAR.match(text, i)
        if found is not None:
            is_key = found[0].startswith('"') and text[found.end() :].lstrip().startswith(":")
            parts.append(found[0] if is_key else f'"{MARK}"')
            i = found.end()
            continue
        depth += {"{": 1, "[": 1, "}": -1, "]": -1}.get(text[i], 0)
        parts.append(text[i])
        i += 1
    return i, "".join(parts)


_EMPTY_KEY = re.compile(r"^(?P<i>[ ]*)(?:-[ ]+)?(?P<k>[\w-]+)[ ]*:[ ]*(?:#.*)?$")
_NOT_SCALAR = re.compile(
    r"""[ ]*(?:-(?:[ ]|$)|[{\[#&*!|>]|(?:'[^']*'|"[^"]*"|[^\s'"][^:]*?):(?:[ ]|$))"""
)


def yaml_next_line_values(names: str) -> Callable[[str], str]:
    """Replace a secret-named key's plain scalar written on the lines below it
    (`password:` then `  X` indented deeper), in a YAML output only: the text must load as a
    YAML mapping or list (YAML 1.2 section 7.3.3, multi-line plain scalars), so a `show`
    table with a `Password:` heading is never guessed at."""
    name = re.compile(names, re.IGNORECASE)

    def apply(text: str) -> str:
        lines = text.split("\n")
        spans = _next_line_spans(lines, name)
        if not spans or not _is_yaml(text):
            return text
        for first, last in spans:
            for index in range(first, last):
                line = lines[index]
                if line.strip():
                    lines[index] = line[: len(line) - len(line.lstrip(" "))] + MARK
        return "\n".join(lines)

    return apply


def _next_line_spans(lines: list[str], name: re.Pattern[str]) -> list[tuple[int, int]]:
    """(first, end) line ranges holding a secret-named empty key's plain scalar."""
    spans: list[tuple[int, int]] = []
    for index, line in enumerate(lines):
        # a key line holds a colon: the others are not matched at all (most of a switch's)
        found = _EMPTY_KEY.match(line) if ":" in line else None
        if found is None or name.fullmatch(found["k"]) is None:
            continue
        column, end = found.start("k"), index + 1
        while end < len(lines) and (
            not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip(" ")) > column
        ):
            end += 1
        body = [line for line in lines[index + 1 : end] if line.strip()]
        if body and _NOT_SCALAR.match(body[0]) is None:
            spans.append((index + 1, end))
    return spans


def _is_yaml(text: str) -> bool:
    """Whether `text` loads as a YAML mapping or list (not a bare string: plain text)."""
    import yaml  # only here: most outputs never get this far

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(text, Loader=loader)  # a safe loader (C or pure Python)
    except yaml.YAMLError:
        return False
    return isinstance(data, (dict, list))
