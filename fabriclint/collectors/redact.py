"""Redaction of collected text before it is written: password hashes, keys, SNMP communities.

Every substitution stays inside its line, so line numbers (finding sources) do not move. What
is redacted is listed per platform in `collectors/redaction/tables.py`: an output gets its
platform's table, then the generic one (crypt hashes, secret-named JSON/YAML keys, PEM keys).
"""

from __future__ import annotations

from fabriclint.collectors.redaction.base import MARK
from fabriclint.collectors.redaction.tables import rules_for

__all__ = ["MARK", "redact"]


def redact(text: str, platform: str | None = None) -> str:
    """`text` with every secret replaced by <redacted>; line count unchanged.

    `platform` is the inventory platform the text came from; None (or an unknown name) applies
    every platform's table.
    """
    low = text.lower()
    present: dict[str, bool] = {}  # each prefilter word is searched for once per text
    for rule in rules_for(platform):
        if any(present.setdefault(word, word in low) for word in rule.words):
            text = rule.apply(text)
    return text
