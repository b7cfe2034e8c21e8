"""What a redaction rule is, and the building blocks the platform tables are written with.

A rule covers one kind of secret: a documented example line (the secret spelled `SECRET`), the
words one of which must appear for it to be tried (a cheap prefilter, so a host's large outputs
are not scanned by patterns that cannot match them), and the substitution itself. Every
substitution stays inside its line, so finding line numbers do not move.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

MARK = "<redacted>"
"""What a secret is replaced with (the OpenSM parser reads it as "set, value unknown")."""

SP = r"[ \t]+"
"""Blanks inside one line (never a newline: a match must not cross lines)."""
VALUE = r'(?P<v>"(?:[^"\\\n]|\\.)*"|[^\s;"]+)'
"""A value: a double-quoted string (Junos, NX-OS) or one bare token (never the `;` after it)."""
TYPE = r"(?:[0-9]{1,2}|8a)"
"""An encryption type before a key: 0 (clear), 5/8/9 (hashes), 7 (Cisco-style), 8a (EOS AES)."""


@dataclass(frozen=True)
class Rule:
    """One kind of secret and how it is removed."""

    kind: str
    """What the secret is, as docs/collect.md lists it."""
    example: str
    """A line holding the secret, spelled `SECRET` (tests redact it with this rule alone)."""
    words: tuple[str, ...]
    """Lower-case words one of which must occur in the output for the rule to be tried."""
    apply: Callable[[str], str]
    """The output with this kind of secret replaced by MARK."""


def marked(value: str) -> str:
    """MARK in the value's own quoting (a quoted value stays a quoted string)."""
    if value.startswith('"'):
        return f'"{MARK}"'
    if value.startswith("'"):
        return f"'{MARK}'"
    return MARK


def _replacer(as_string: bool) -> Callable[[re.Match[str]], str]:
    """The match with only its `v` group replaced (context before and after kept)."""

    def replace(match: re.Match[str]) -> str:
        start, end = match.span("v")
        whole, offset = match[0], match.start()
        mark = f'"{MARK}"' if as_string else marked(match["v"])
        return whole[: start - offset] + mark + whole[end - offset :]

    return replace


def token(
    kind: str, example: str, words: tuple[str, ...], pattern: str, *, as_string: bool = False
) -> Rule:
    """A rule that replaces the `v` group of every (case-insensitive, per-line) match.

    `as_string`: the marker is written as a JSON string whatever the value was (a number
    replaced by a bare `<redacted>` would make the JSON invalid).
    """
    regex = re.compile(pattern, re.IGNORECASE | re.MULTILINE)
    replace = _replacer(as_string)
    return Rule(kind, example, words, lambda text: regex.sub(replace, text))


def custom(kind: str, example: str, words: tuple[str, ...], apply: Callable[[str], str]) -> Rule:
    """A rule whose substitution is a function (structured outputs: JSON, YAML keys)."""
    return Rule(kind, example, words, apply)
