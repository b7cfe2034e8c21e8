"""VLAN lists as switch configurations write them (`10,20-30`, `all`, `none`), and what a
layer-2 port carries from its mode, access VLAN and trunk allowed list."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from fabriclint.parsers.kit.common import to_int

MAX_VLAN = 4094
"""The highest usable 802.1Q VLAN id (4095 is reserved)."""

Vlans = list[int] | Literal["all"]
"""A sorted VLAN list, or every VLAN."""


def parse_vlan_list(text: str) -> Vlans | None:
    """`10,20-30` (commas, ranges), `all`, `none` (the empty list); None when malformed or a
    VLAN is outside 1-4094 (the caller reports the line rather than guessing)."""
    word = text.strip().lower()
    if word == "all":
        return "all"
    if word == "none":
        return []
    out: set[int] = set()
    for part in word.split(","):
        low, sep, high = part.strip().partition("-")
        lo = to_int(low)
        hi = to_int(high) if sep else lo
        if lo is None or hi is None or not 1 <= lo <= hi <= MAX_VLAN:
            return None
        out.update(range(lo, hi + 1))
    return sorted(out)


def edit_vlans(current: Vlans, action: str, change: Vlans) -> Vlans:
    """`current` after `add` or `remove` of `change` (Cisco/Arista `allowed vlan add|remove`);
    any other action replaces it."""
    if action == "add":
        if current == "all" or change == "all":
            return "all"
        return sorted(set(current) | set(change))
    if action == "remove":
        if change == "all":
            return []
        full = range(1, MAX_VLAN + 1) if current == "all" else current
        return sorted(set(full) - set(change))
    return change


def carried_vlans(mode: str | None, access: int | None, trunk: Vlans | None) -> Vlans | None:
    """What a switched port carries: a trunk its allowed list (every VLAN when none is written),
    an access port its access VLAN; None when the input says nothing about VLANs."""
    if mode == "trunk":
        return trunk if trunk is not None else "all"
    if access is not None:
        return [access]
    if mode == "access":
        return [1]  # the default access VLAN on EOS and NX-OS
    return None


def svi_vlan(name: str, prefix: str = "Vlan") -> int | None:
    """The VLAN of a VLAN interface named `Vlan10` (`prefix` + number); None otherwise."""
    if not name.startswith(prefix):
        return None
    number = to_int(name[len(prefix) :])
    return number if number is not None and 1 <= number <= MAX_VLAN else None


@dataclass(slots=True)
class L2Port:
    """The VLAN statements of one interface block (EOS and NX-OS spell them alike)."""

    mode: str | None = None
    """`switchport mode trunk|access` (other modes are kept as written)."""
    access: int | None = None
    """`switchport access vlan N`."""
    trunk: Vlans | None = None
    """`switchport trunk allowed vlan ...` after every add/remove; None when never written."""
    line: int | None = None
    """Line of the last VLAN statement."""

    def apply(self, words: list[str], line: int) -> bool:
        """Record `switchport mode|access vlan|trunk allowed vlan` words (after `switchport`,
        `no` already removed); False when they are none of these or malformed."""
        if len(words) == 2 and words[0] == "mode":
            self.mode = words[1]
        elif len(words) == 3 and words[:2] == ["access", "vlan"]:
            self.access = to_int(words[2])
            if self.access is None:
                return False
        elif words[:3] == ["trunk", "allowed", "vlan"] and len(words) in (4, 5):
            return self._allowed(words[3:], line)
        else:
            return False
        self.line = line
        return True

    def _allowed(self, words: list[str], line: int) -> bool:
        """`LIST`, `add LIST`, `remove LIST`, `except LIST`, `all`, `none`."""
        action = words[0] if len(words) == 2 else "set"
        change = parse_vlan_list(words[-1])
        if change is None or action not in ("set", "add", "remove", "except"):
            return False
        if action == "except":
            self.trunk = edit_vlans("all", "remove", change)
        else:
            self.trunk = edit_vlans(self.trunk if self.trunk is not None else "all", action, change)
        self.line = line
        return True

    def carried(self) -> Vlans | None:
        """The VLANs the port carries (`carried_vlans`)."""
        return carried_vlans(self.mode, self.access, self.trunk)
