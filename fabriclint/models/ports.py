"""Port and system names compared across devices and tools (the cabling plan against LLDP).

The plan says `leaf01:Ethernet1/1`, an NX-OS neighbour reports `Eth1/49`, EOS LLDP JSON may say
`Et1/1`, Cumulus a breakout `swp1s0`: `port_key` spells each the way netutils' canonical
interface names do (`Et1/1` -> `Ethernet1/1`), then folds case and spaces, so the same port
gives the same key whoever wrote it. Names netutils does not know (`swp1s0`, `ens1np0`,
`et-0/0/0`) keep their own spelling. LLDP system names are often fully qualified: `system_key`
keeps the first label, case-folded.
"""

from __future__ import annotations

import re
from functools import lru_cache

_MAC = re.compile(
    r"^(?:[0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$|^(?:[0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}$"
)


@lru_cache(maxsize=1 << 14)
def port_key(name: str) -> str:
    """The comparison key of a port name (`Et1/1`, `ethernet1/1`, `Ethernet 1/1` are one key)."""
    # netutils is imported here, not at module level: it costs ~60 ms and only LLDP needs it.
    from netutils.interface import canonical_interface_name

    compact = "".join(name.split())
    try:
        canonical = canonical_interface_name(compact)
    except Exception:  # netutils refuses some odd names; the name as written is the best key
        canonical = compact
    return canonical.lower()


def system_key(name: str) -> str:
    """The comparison key of an LLDP system name: `Leaf01.example.net` -> `leaf01`."""
    return name.strip().split(".", 1)[0].lower()


def is_mac(value: str) -> bool:
    """True for a MAC address: a port ID that names no port (NICs often send one)."""
    return bool(_MAC.match(value.strip()))
