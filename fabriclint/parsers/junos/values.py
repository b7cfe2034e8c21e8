"""Junos values: code points and their aliases, speeds, and the QFX defaults the parser assumes.

The defaults are documented (with where they come from) in docs/platforms/junos.md.
"""

from __future__ import annotations

import re

from fabriclint.bounded import int_too_long
from fabriclint.parsers.kit.common import is_digits

# Standard DSCP aliases Junos accepts in classifiers (`show class-of-service code-point-aliases
# dscp`): be, efN, afXY, csN, nc1 (= cs6) and nc2 (= cs7).
DSCP_ALIASES: dict[str, int] = {
    "be": 0,
    "ef": 46,
    "nc1": 48,
    "nc2": 56,
    **{f"cs{n}": n * 8 for n in range(8)},
    **{f"af{c}{d}": c * 8 + d * 2 for c in range(1, 5) for d in range(1, 4)},
}

# Standard IEEE 802.1p aliases (`show class-of-service code-point-aliases ieee-802.1`).
PCP_ALIASES: dict[str, int] = {
    "be": 0,
    "be1": 1,
    "ef": 2,
    "ef1": 3,
    "af11": 4,
    "af12": 5,
    "nc1": 6,
    "nc2": 7,
}

# Bits of each classifier type's code points.
CODE_BITS: dict[str, int] = {"dscp": 6, "dscp-ipv6": 6, "ieee-802.1": 3}

# Default forwarding classes and their queues: QFX's ("Understanding Default CoS Settings"),
# plus expedited-forwarding and assured-forwarding of the other Junos platforms, which only matter
# when a configuration names them.
DEFAULT_CLASSES: dict[str, int] = {
    "best-effort": 0,
    "expedited-forwarding": 1,
    "assured-forwarding": 2,
    "fcoe": 3,
    "no-loss": 4,
    "network-control": 7,
    "mcast": 8,
}
BEST_EFFORT = "best-effort"
LOSSLESS_DEFAULTS = frozenset({"fcoe", "no-loss"})
"""Default classes that are lossless while the configuration does not define them itself."""

# QFX default unicast DSCP classifier: CS6/CS7 are network control, every other code point is
# best effort. Default trusted IEEE 802.1p classifier: 011 fcoe, 100 no-loss, 110/111 network
# control, the rest best effort.
DEFAULT_DSCP_CLASS: dict[int, str] = {
    dscp: ("network-control" if dscp in (48, 56) else BEST_EFFORT) for dscp in range(64)
}
DEFAULT_PCP_CLASS: dict[int, str] = {
    0: BEST_EFFORT,
    1: BEST_EFFORT,
    2: BEST_EFFORT,
    3: "fcoe",
    4: "no-loss",
    5: BEST_EFFORT,
    6: "network-control",
    7: "network-control",
}

# PFC watchdog defaults when `pfc-watchdog` is written without options: poll every 100 ms,
# a queue stalled for 2 polls is a storm (200 ms), the queue is disabled for 200 ms, drop.
WATCHDOG_POLL_MS = 100.0
WATCHDOG_DETECTION_POLLS = 2.0
WATCHDOG_RECOVERY_MS = 200.0
WATCHDOG_ACTION = "drop"

# Physical (media) MTU of Ethernet interfaces when none is written: it counts the 14-byte
# Ethernet header (not the FCS), so the IP MTU is 1500.
DEFAULT_MEDIA_MTU = 1514
ETHERNET_HEADER = 14
VLAN_TAG = 4
ETHERNET_PREFIXES = ("ge-", "xe-", "et-", "mge-", "ae", "irb", "em", "fxp", "re0:", "re1:")
# Ports that carry data and classify it (the others get no per-port QoS unless CoS names them).
DATA_PREFIXES = ("ge-", "xe-", "et-", "mge-", "ae")

# at most 30 digits: no setting has more (and float("9" * 400) is inf, int() refuses 4300+)
_SPEED = re.compile(r"(\d{1,30}(?:\.\d{1,30})?)([gm])", re.ASCII)
MAX_DIGITS = 30


def to_int(token: str) -> int | None:
    """`token` as a non-negative integer, or None."""
    return int(token) if is_digits(token) and int_too_long(token) is None else None


def to_float(token: str) -> float | None:
    """`token` as a non-negative number, or None."""
    try:
        value = float(token)
    except ValueError:
        return None
    return value if value >= 0 else None


def code_point(token: str, kind: str, aliases: dict[tuple[str, str], int]) -> int | None:
    """A code point written as bits (`011010`), a standard alias (`af31`) or a user alias."""
    bits = CODE_BITS.get(kind, 6)
    if len(token) == bits and set(token) <= {"0", "1"}:
        return int(token, 2)
    user = aliases.get((kind, token))
    if user is not None:
        return user
    standard = PCP_ALIASES if kind == "ieee-802.1" else DSCP_ALIASES
    return standard.get(token.lower())


def speed_mbps(token: str) -> int | None:
    """`400g`, `100g`, `10g`, `100m` as Mb/s."""
    found = _SPEED.fullmatch(token.lower())
    if found is None:
        return None
    value = float(found.group(1))
    return int(value * 1000) if found.group(2) == "g" else int(value)


def is_ethernet(name: str) -> bool:
    """Interfaces whose physical MTU defaults to 1514 (Ethernet ports, LAGs, IRB, management)."""
    return name.startswith(ETHERNET_PREFIXES)


def is_data_port(name: str) -> bool:
    """Front-panel ports and LAGs (not IRB, loopback or management)."""
    return name.startswith(DATA_PREFIXES)
