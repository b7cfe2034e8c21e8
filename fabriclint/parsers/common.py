"""Text helpers several CLI-config parsers share (numbers, value lists with ranges and names)."""

from __future__ import annotations

MAX_DIGITS = 30
"""Longer digit strings are no setting's value (and past 4300 digits int() raises)."""


def to_int(token: str) -> int | None:
    """`token` as a non-negative integer, or None."""
    ok = token.isascii() and token.isdigit() and len(token) <= MAX_DIGITS
    return int(token) if ok else None


def parse_values(tokens: list[str], names: dict[str, int] | None = None) -> list[int] | None:
    """Integers, `a-b` ranges or names (DSCP aliases) as a flat list; None when a token is none
    of these. A range spans at most 256 values (a typo must not build a huge list)."""
    out: list[int] = []
    for token in tokens:
        value = to_int(token)
        if value is not None:
            out.append(value)
            continue
        low, sep, high = token.partition("-")
        lo, hi = to_int(low), to_int(high)
        if sep and lo is not None and hi is not None and lo <= hi and hi - lo < 256:
            out.extend(range(lo, hi + 1))
            continue
        named = names.get(token.lower()) if names else None
        if named is None:
            return None
        out.append(named)
    return out
