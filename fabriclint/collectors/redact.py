"""Redaction of collected text before it is written: password hashes, keys, SNMP communities.

Every substitution stays inside its line, so line numbers (finding sources) do not move. What
is redacted is listed per platform in `collectors/redaction/tables.py`: an output gets its
platform's table, then the generic one (crypt hashes, secret-named JSON/YAML keys, PEM keys).
"""

from __future__ import annotations

import functools

from fabriclint.collectors.redaction.base import MARK
from fabriclint.collectors.redaction.tables import rules_for

__all__ = ["MARK", "redact"]


def redact(text: str, platform: str | None = None) -> str:
    """`text` with every secret replaced by <redacted>; line count unchanged.

    `platform` is the inventory platform the text came from; None (or an unknown name) applies
    every platform's table.
    """
    present = _present_words(text.lower(), platform)
    for rule in rules_for(platform):
        if any(present[word] for word in rule.words):
            text = rule.apply(text)
    return text


def _present_words(low: str, platform: str | None) -> dict[str, bool]:
    """Which of the prefilter words of `platform`'s rules occur in `low`, each searched for at
    most once: shortest first, and a word holding one found absent is absent unsearched
    (no `key` means no `key-string` and no `authentication-key`). A scan of a large output
    (a 60 kB `show interfaces`) per word was most of the redaction's time."""
    present: dict[str, bool] = {}
    for word, parts in _word_order(platform):
        present[word] = all(present[part] for part in parts) and word in low
    return present


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
