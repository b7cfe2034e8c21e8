"""Redaction of collected text before it is written: password hashes, keys, SNMP communities.

Every substitution stays inside its line, so line numbers (finding sources) do not move. What
is redacted is listed per platform in `collectors/redaction/tables.py`: an output gets its
platform's table, then the generic one (crypt hashes, secret-named JSON/YAML keys, PEM keys).
"""

from __future__ import annotations

import functools

from fabriclint.collectors.redaction.base import MARK, Rule
from fabriclint.collectors.redaction.tables import rules_for

__all__ = ["MARK", "redact"]


def redact(text: str, platform: str | None = None) -> str:
    """`text` with every secret replaced by <redacted>; line count unchanged.

    `platform` is the inventory platform the text came from; None (or an unknown name) applies
    every platform's table.
    """
    found = _found_words(text.lower(), platform)
    if not found:  # every rule names words, one of which must be found for it to be tried
        return text
    for rule, words in _rules(platform):
        if not found.isdisjoint(words):
            text = rule.apply(text)
    return text


def _found_words(low: str, platform: str | None) -> set[str]:
    """Which of the prefilter words of `platform`'s rules occur in `low`, each searched for at
    most once: shortest first, and a word holding one found absent is absent unsearched
    (no `key` means no `key-string` and no `authentication-key`). A scan of a large output
    (a 60 kB `show interfaces`) per word was most of the redaction's time."""
    found: set[str] = set()
    for word, parts in _word_order(platform):
        if found.issuperset(parts) and word in low:
            found.add(word)
    return found


@functools.cache
def _rules(platform: str | None) -> tuple[tuple[Rule, frozenset[str]], ...]:
    """`platform`'s rules in order, each with its prefilter words."""
    return tuple((rule, frozenset(rule.words)) for rule in rules_for(platform))


@functools.cache
def _word_order(platform: str | None) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """`platform`'s prefilter words, shortest first, each with the shorter ones it contains."""
    words = sorted(
        {w for rule in rules_for(platform) for w in rule.words}, key=lambda w: (len(w), w)
    )
    return tuple(
        (word, tuple(part for part in words[:index] if part in word))
        for index, word in enumerate(words)
    )
