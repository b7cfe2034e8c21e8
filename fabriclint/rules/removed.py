"""The codes of removed rules, in a module of their own so the policy loader can name a removed
code as removed (with its version and reason) without importing every rule family.

`rules/registry.py` re-exports `REMOVED` and reserves these codes in the rule registry."""

from __future__ import annotations

REMOVED: dict[str, str] = {}
"""Codes of removed rules -> why (`removed in 0.9: merged into PFC002`). Never shrinks."""


def removed_message(code: str) -> str | None:
    """What to say of `code` when it names a removed rule (None when it does not)."""
    why = REMOVED.get(code)
    return None if why is None else f"rule '{code}' was removed ({why})"
