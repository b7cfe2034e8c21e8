"""Cumulus Linux LLDP neighbours: the `nv show interface lldp` table (NVUE, 5.0 and later).

Columns: Interface, Speed, Type, Remote Host, Remote Port; a host that sends its MAC as port
ID shows the MAC as Remote Port (NVUE command reference, `nv show interface lldp`).
"""

from __future__ import annotations

from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.lldp import Seen, attach, from_table
from fabriclint.platforms.cumulus import LLDP

COLUMNS = {"local": "Interface", "system": "Remote Host", "port": "Remote Port"}


def read_lldp(raw: RawDevice, state: DeviceState) -> None:
    """Record the neighbours of `nv show interface lldp` on `state`, when collected."""
    output = raw.outputs.get(LLDP)
    if output is not None:
        attach(state, raw, LLDP, neighbours(output.text))


def neighbours(text: str) -> list[Seen] | None:
    """The neighbours of the table; None when the text has no such header."""
    return from_table(text, COLUMNS)
