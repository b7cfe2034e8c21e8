"""What a switch's `show interface(s)` text says about one interface, whichever OS printed it.

EOS `show interfaces` and NX-OS `show interface` print one block per interface: a header at
column 0 (`Ethernet1 is up, line protocol is up`, `Ethernet1/1 is up`), then indented detail
lines, one of them the MTU line. Each family's `show.py` reads its own spelling into this one
record; its `assemble.py` lays it over the configuration (operational state, MTU, speed), and
`kit/whole.py` `port_blocks_cut` judges from these records whether the text was cut short.
"""

from __future__ import annotations

from dataclasses import dataclass

from fabriclint.models.common import Source


@dataclass(slots=True)
class ShownInterface:
    """One interface's block of a `show interface(s)` text. The fields an OS does not print
    keep their defaults (EOS: `routed`, `channel`)."""

    source: Source
    """The header line ('Ethernet1 is up, line protocol is up', 'Ethernet1/1 is up')."""
    oper_up: bool
    admin_down: bool
    mtu: tuple[int, Source] | None = None
    """What its MTU line said; None when the block has none."""
    speed_mbps: tuple[int, Source] | None = None
    routed: bool | None = None
    """NX-OS `Port mode is routed` (True) or another mode (False); None when not printed."""
    member_of: str | None = None
    """The port-channel the port is a member of, as the OS names it: NX-OS `Belongs to Po1`
    gives port-channel1, EOS `Member of Port-Channel1` Port-Channel1."""
    channel: bool = False
    """NX-OS: True for a port-channel."""
