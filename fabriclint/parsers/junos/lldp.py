"""Junos LLDP neighbours: the `show lldp neighbors` table.

Columns: Local Interface, Parent Interface (the ae bundle, or `-`), Chassis Id, Port info (the
neighbour's port ID or description) and System Name (Junos OS CLI reference, `show lldp
neighbors`).
"""

from __future__ import annotations

from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.lldp import Seen, attach, from_table
from fabriclint.platforms.junos import LLDP

COLUMNS = {"local": "Local Interface", "port": "Port info", "system": "System Name"}


def read_lldp(raw: RawDevice, state: DeviceState) -> None:
    """Record the neighbours of `show lldp neighbors` on `state`, when collected."""
    output = raw.outputs.get(LLDP)
    if output is not None:
        attach(state, raw, LLDP, neighbours(output.text))


def neighbours(text: str) -> list[Seen] | None:
    """The neighbours of the table; None when the text has no such header."""
    return from_table(text, COLUMNS)
