"""Token helpers of the Cumulus parser: port ranges, number lists, byte sizes, on/off words."""

from __future__ import annotations

import math
import re
from typing import Any

from fabriclint.bounded import int_too_long
from fabriclint.models.state import Trust
from fabriclint.parsers.kit.common import is_digits

# swp1, swp1-32, swp1-swp32, swp50s0-swp50s3, swp1s0-3, eth0, bond1, peerlink.4094, lo.
_RANGE = re.compile(
    r"(?P<prefix>[A-Za-z_][A-Za-z_-]*?)(?P<start>\d{1,30})(?:s(?P<sub>\d{1,30}))?"
    r"-(?:(?P<prefix2>[A-Za-z_][A-Za-z_-]*?))?(?P<end>\d{1,30})(?:s(?P<subend>\d{1,30}))?",
    re.ASCII,
)
_NAME = re.compile(r"[A-Za-z0-9_.:@-]+", re.ASCII)
# numbers of at most 30 digits: no value has more (float("9" * 400) is inf, int() refuses 4300+)
_SIZE = re.compile(r"(\d{1,30}(?:\.\d{1,30})?)\s*([KMG]?i?B?|bytes)", re.ASCII | re.IGNORECASE)
_SPEED = re.compile(r"(\d{1,30}(?:\.\d{1,30})?)\s*([GM])", re.ASCII | re.IGNORECASE)
_MAX_RANGE = 4096
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*%?$", re.ASCII)
_SOURCE_SET = {
    frozenset({"802.1p", "dscp"}): Trust.BOTH,
    frozenset({"dscp"}): Trust.DSCP,
    frozenset({"802.1p"}): Trust.PCP,
    frozenset({"port"}): Trust.NONE,
    frozenset(): Trust.NONE,
}

# NVUE prints sizes in binary units (150,000 B shows as "146.48 KB").
_UNIT = {"": 1, "b": 1, "bytes": 1, "k": 1024, "m": 1024**2, "g": 1024**3}

ON_WORDS = frozenset({"on", "enable", "enabled", "true", "yes", "1"})
OFF_WORDS = frozenset({"off", "disable", "disabled", "false", "no", "0"})


def to_int(value: Any) -> int | None:
    """`value` as a non-negative integer (an int, or a string of digits), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, str) and is_digits(value.strip()) and int_too_long(value.strip()) is None:
        return int(value.strip())
    return None


def on_off(value: Any) -> bool | None:
    """True/False for on/off, enable/disable, true/false (any case); None otherwise."""
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word in ON_WORDS:
        return True
    return False if word in OFF_WORDS else None


def numbers(value: Any) -> list[int] | None:
    """Integers from 3, "3", "0-3,5", "[0, 1, 2]", "[]" or a list of those; None when malformed."""
    if isinstance(value, list):
        out: list[int] = []
        for item in value:
            found = numbers(item)
            if found is None:
                return None
            out.extend(found)
        return out
    single = to_int(value)
    if single is not None:
        return [single]
    if not isinstance(value, str):
        return None
    text = value.strip().strip("[]").strip()
    return _number_tokens(text) if text else []


def _number_tokens(text: str) -> list[int] | None:
    out: list[int] = []
    for token in text.split(","):
        low, sep, high = token.strip().partition("-")
        lo, hi = to_int(low), to_int(high)
        if not sep and lo is not None:
            out.append(lo)
        elif sep and lo is not None and hi is not None and lo <= hi and hi - lo < _MAX_RANGE:
            out.extend(range(lo, hi + 1))
        else:
            return None
    return out


def expand_ports(spec: str) -> list[str] | None:
    """Interface names of `swp1-32,swp49`, `swp1-swp4,swp6`, `swp50s0-swp50s3`, `[swp1,swp3]`."""
    out: list[str] = []
    for token in spec.strip().strip("[]").replace(" ", "").split(","):
        if not token:
            continue
        found = _RANGE.fullmatch(token)
        if found is not None:
            names = _range(found)
            if names is None:
                return None
            out.extend(names)
        elif _NAME.fullmatch(token):
            out.append(token)
        else:
            return None
    return out


def _range(found: re.Match[str]) -> list[str] | None:
    prefix, prefix2 = found["prefix"], found["prefix2"]
    start, end = int(found["start"]), int(found["end"])
    sub, subend = found["sub"], found["subend"]
    if prefix2 not in (None, prefix):
        return None
    if sub is not None and subend is None and prefix2 is None:
        # swp1s0-3: a range of breakout lanes of one port
        return _span(f"{prefix}{start}s", int(sub), end)
    if sub is not None and subend is not None and start == end:
        return _span(f"{prefix}{start}s", int(sub), int(subend))
    if sub is None and subend is None:
        return _span(prefix, start, end)
    return None


def _span(prefix: str, low: int, high: int) -> list[str] | None:
    if high < low or high - low >= _MAX_RANGE:
        return None
    return [f"{prefix}{n}" for n in range(low, high + 1)]


def parse_bytes(value: Any) -> int | None:
    """A size in bytes: 150000, "150000", "40000 B", "146.48 KB" (binary units, as NVUE prints)."""
    plain = to_int(value)
    if plain is not None:
        return plain
    if isinstance(value, float) and value >= 0:
        return round(value) if math.isfinite(value) else None  # JSON 1e309 reads as inf
    if not isinstance(value, str):
        return None
    found = _SIZE.fullmatch(value.strip())
    if found is None:
        return None
    unit = found.group(2).lower()
    factor = _UNIT.get(unit if unit == "bytes" else unit[:1])
    return round(float(found.group(1)) * factor) if factor is not None else None


def speed_mbps(value: Any) -> int | None:
    """Speed in Mb/s from an NVUE link speed (400G, 100G, 10M); None for auto or unknown."""
    plain = to_int(value)
    if plain is not None:
        return plain
    found = _SPEED.fullmatch(str(value).strip())
    if found is None:
        return None
    number = float(found.group(1))
    return int(number * 1000) if found.group(2).upper() == "G" else int(number)


def percent(value: Any) -> float | None:
    """A percent from 50, "50", "50%", "DWRR-50%"; None otherwise."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    found = _PERCENT.search(str(value).strip())
    return float(found.group(1)) if found is not None else None


def source_set(value: str) -> Trust | None:
    """Trust of a datapath `packet_priority_source_set` ([802.1p,dscp], [dscp], [port], [])."""
    words = frozenset(w.strip().lower() for w in value.strip().strip("[]").split(",") if w.strip())
    return _SOURCE_SET.get(words)
