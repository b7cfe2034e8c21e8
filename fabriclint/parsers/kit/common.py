"""Text helpers several CLI-config parsers share (numbers, value lists with ranges and names)."""

from __future__ import annotations

from fabriclint.bounded import int_too_long


def is_digits(text: str) -> bool:
    """Whether `text` is ASCII digits only. `str.isdigit()` alone is also true for '²', '①' and
    Arabic-Indic digits, on which `int()` fails or which no device writes."""
    return text.isascii() and text.isdigit()


def to_int(token: str) -> int | None:
    """`token` as a non-negative integer, or None (also past FABRICLINT_MAX_INT_DIGITS)."""
    return int(token) if is_digits(token) and int_too_long(token) is None else None


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
