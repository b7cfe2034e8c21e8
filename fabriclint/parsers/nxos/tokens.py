"""Token-level helpers of the NX-OS parser: value lists, DSCP names, interface names and ranges."""

from __future__ import annotations

import re

from fabriclint.parsers.kit.common import parse_values as shared_values
from fabriclint.parsers.kit.common import to_int

# Names NX-OS accepts for DSCP values (RFC 2474 / 2597 / 3246 code points).
DSCP_NAMES: dict[str, int] = {
    "default": 0,
    "ef": 46,
    **{f"cs{n}": n * 8 for n in range(8)},
    **{f"af{c}{d}": c * 8 + d * 2 for c in range(1, 5) for d in range(1, 4)},
}

# WRED/ECN threshold units that are sizes, in bytes per unit (decimal, see docs/platforms/nxos.md).
SIZE_UNITS: dict[str, int] = {"bytes": 1, "kbytes": 1_000, "mbytes": 1_000_000}

# Interface type prefixes as written (any case, abbreviated) -> the spelling NX-OS prints.
_IF_TYPES: dict[str, str] = {
    "ethernet": "Ethernet",
    "eth": "Ethernet",
    "e": "Ethernet",
    "port-channel": "port-channel",
    "portchannel": "port-channel",
    "po": "port-channel",
    "vlan": "Vlan",
    "loopback": "loopback",
    "lo": "loopback",
    "mgmt": "mgmt",
    "nve": "nve",
    "tunnel": "Tunnel",
}


_IF_ITEM = re.compile(r"([A-Za-z][A-Za-z-]*?)\s*(\d[\d/.]*)(?:\s*-\s*([\d/]+))?", re.ASCII)
# at most 30 digits: no setting has more (and float("9" * 400) is inf)
_NUMBER = re.compile(r"\d{1,30}(?:\.\d{1,30})?", re.ASCII)

# Largest interface range expanded (a typo such as 1/1-1/9999 must not build 10^4 ports).
MAX_RANGE = 512


def parse_values(tokens: list[str], names: dict[str, int] | None = None) -> list[int] | None:
    """Integers, `a-b` ranges, comma lists or names (DSCP) as a flat list; None when unreadable."""
    return (
        shared_values([part for word in tokens for part in word.split(",") if part], names) or None
    )


def threshold_bytes(value: str, unit: str) -> int | None:
    """A threshold in bytes when `unit` is a size unit, else None."""
    factor = SIZE_UNITS.get(unit)
    if factor is None or _NUMBER.fullmatch(value) is None:
        return None
    return round(float(value) * factor)


def interface_names(text: str) -> list[str] | None:
    """Interfaces named by the rest of an `interface` line, ranges and lists expanded:
    `Ethernet1/1`, `Ethernet 1/1-1/54`, `Eth1/1-4, Eth1/10`, `vlan6`. None when unreadable."""
    out: list[str] = []
    for written in text.split(","):
        item = written.strip()
        if not item:
            continue
        found = _IF_ITEM.fullmatch(item)
        if found is None:
            if " " in item:
                return None
            out.append(item)  # an unusual name kept as written
            continue
        names = _expand(found.group(1), found.group(2), found.group(3))
        if names is None:
            return None
        out.extend(names)
    return out or None


def canonical_type(word: str) -> str:
    """The spelling NX-OS prints for an interface type word (`eth` -> `Ethernet`)."""
    return _IF_TYPES.get(word.lower(), word)


def _expand(kind: str, start: str, end: str | None) -> list[str] | None:
    prefix = canonical_type(kind)
    if end is None:
        return [f"{prefix}{start}"]
    head, _, first = start.rpartition("/")
    end_head, _, last = end.rpartition("/")
    lo, hi = to_int(first), to_int(last)
    if lo is None or hi is None or hi < lo or hi - lo >= MAX_RANGE:
        return None
    if end_head and end_head != head:
        return None  # a range across slots (1/1-2/4) is not a valid NX-OS range
    base = f"{prefix}{head}/" if head else prefix
    return [f"{base}{n}" for n in range(lo, hi + 1)]


def speed_mbps(token: str) -> int | None:
    """`speed 100000` (Mb/s) as an integer; `auto` and other words give None."""
    return to_int(token)
