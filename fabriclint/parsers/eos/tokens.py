"""Token-level helpers of the EOS parser: numbers, DSCP names, speeds, times and ECN thresholds."""

from __future__ import annotations

import math
import re

from fabriclint.parsers.kit.common import to_int

# Names EOS accepts for DSCP values (RFC 2474 / 2597 / 3246 code points).
DSCP_NAMES: dict[str, int] = {
    "default": 0,
    "be": 0,
    "ef": 46,
    **{f"cs{n}": n * 8 for n in range(8)},
    **{f"af{c}{d}": c * 8 + d * 2 for c in range(1, 5) for d in range(1, 4)},
}

# ECN/WRED threshold units that are sizes, in bytes per unit. EOS writes kbytes and mbytes;
# we read them as decimal (1 kbyte = 1000 bytes), see docs/platforms/eos.md.
SIZE_UNITS: dict[str, int] = {
    "bytes": 1,
    "kbytes": 1_000,
    "mbytes": 1_000_000,
}

# Threshold units that are times, in microseconds per unit: bytes = time x port speed.
TIME_UNITS: dict[str, float] = {
    "microseconds": 1.0,
    "milliseconds": 1_000.0,
}

# Every unit EOS accepts for random-detect thresholds; segments are buffer cells whose size
# depends on the ASIC, so they are kept as written.
_MAX_BYTES = 1e100  # past this a size is no setting (and 1e400 is inf, which int() refuses)
THRESHOLD_UNITS = frozenset({*SIZE_UNITS, *TIME_UNITS, "segments"})

# numbers of at most 30 digits: no setting has more (and float("9" * 400) is inf)
_SPEED = re.compile(r"(\d{1,30}(?:\.\d{1,30})?)([gm])", re.ASCII)

_NUMBER = re.compile(r"\d{1,30}(?:\.\d{1,30})?", re.ASCII)


def to_seconds_ms(token: str) -> float | None:
    """A time in seconds as written by EOS (0.05, 60) converted to milliseconds."""
    if _NUMBER.fullmatch(token) is None:
        return None
    return round(float(token) * 1000.0, 6)


def speed_mbps(tokens: list[str]) -> int | None:
    """Speed in Mb/s from the words after `speed` (forced 100gfull, 400g-8, auto 25gfull, 1000)."""
    for token in tokens:
        if token in ("forced", "auto"):
            continue
        found = _SPEED.match(token.lower())
        if found is not None:
            value = float(found.group(1))
            return int(value * 1000) if found.group(2) == "g" else int(value)
        plain = to_int(token.removesuffix("full"))
        if plain is not None:
            return plain
    return None


def threshold_bytes(value: str, unit: str) -> int | None:
    """A threshold in bytes when `unit` is a size unit, else None (segments, times)."""
    factor = SIZE_UNITS.get(unit)
    if factor is None or _NUMBER.fullmatch(value) is None:
        return None
    return _rounded(float(value) * factor)


def time_bytes(raw: str | None, speed: int | None) -> int | None:
    """Bytes a queue drains in the time written in `raw` ('3 milliseconds') at `speed` Mb/s."""
    if raw is None or not speed:
        return None
    value, _, unit = raw.partition(" ")
    micros = TIME_UNITS.get(unit)
    if micros is None or _NUMBER.fullmatch(value) is None:
        return None
    # Mb/s x us = bits; / 8 = bytes.
    return _rounded(float(value) * micros * speed / 8)


def _rounded(number: float) -> int | None:
    """`number` as an int; None when it is too large to be one ('1' and 400 zeros: inf)."""
    return round(number) if math.isfinite(number) and number < _MAX_BYTES else None


def is_time_unit(raw: str | None) -> bool:
    """True when a raw threshold ('9 milliseconds') is written in a time unit."""
    return raw is not None and raw.partition(" ")[2] in TIME_UNITS


def options(tokens: list[str]) -> dict[str, str]:
    """Keyword/value pairs (`max-mark-probability 90 weight 10`) as a dict; odd tails are kept."""
    out: dict[str, str] = {}
    for key, value in zip(tokens[::2], tokens[1::2], strict=False):
        out[key] = value
    if len(tokens) % 2:
        out[tokens[-1]] = ""
    return out
