"""NX-OS LLDP neighbours: `show lldp neighbors detail`, one block per neighbour.

Each block starts at `Chassis id:` and holds `Port id:` (the neighbour's port), `Local Port id:`
(ours, abbreviated `Eth1/49`) and `System Name:` (Cisco Nexus 9000 Series Interfaces
Configuration Guide, "Verifying the LLDP Configuration").
"""

from __future__ import annotations

import re

from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.lldp import Seen, attach
from fabriclint.platforms.nxos import LLDP

_FIELD = re.compile(
    r"^\s*(Chassis id|Port id|Local Port id|System Name|Port Description):\s*(.*?)\s*$"
)


def read_lldp(raw: RawDevice, state: DeviceState) -> None:
    """Record the neighbours of `show lldp neighbors detail` on `state`, when collected."""
    output = raw.outputs.get(LLDP)
    if output is not None:
        attach(state, raw, LLDP, neighbours(output.text))


def neighbours(text: str) -> list[Seen] | None:
    """The neighbours of the text; None when it holds no `Chassis id:` block."""
    blocks: list[tuple[int, dict[str, str]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _FIELD.match(line)
        if match is None:
            continue
        if match[1] == "Chassis id":
            blocks.append((number, {}))
        elif blocks:
            blocks[-1][1][match[1]] = match[2]
    if not blocks:
        return None
    return [
        Seen(f.get("Local Port id", ""), _value(f.get("System Name")), f.get("Port id", ""), n)
        for n, f in blocks
    ]


def _value(text: str | None) -> str:
    """A field's value; NX-OS prints `null` for a TLV the neighbour did not send."""
    return "" if text in (None, "null", "not advertised") else str(text)
