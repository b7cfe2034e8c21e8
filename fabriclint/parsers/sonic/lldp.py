"""SONiC LLDP neighbours: the `show lldp table` table.

Columns: LocalPort, RemoteDevice, RemotePortID, Capability, RemotePortDescr, then a `Total
entries displayed` line (SONiC Command Reference, "LLDP show commands").
"""

from __future__ import annotations

from fabriclint.models.ports import is_mac
from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.lldp import Seen, attach, table
from fabriclint.platforms.sonic import LLDP

COLUMNS = {
    "local": "LocalPort",
    "system": "RemoteDevice",
    "port": "RemotePortID",
    "caps": "Capability",
    "descr": "RemotePortDescr",
}


def read_lldp(raw: RawDevice, state: DeviceState) -> None:
    """Record the neighbours of `show lldp table` on `state`, when collected."""
    output = raw.outputs.get(LLDP)
    if output is not None:
        attach(state, raw, LLDP, neighbours(output.text))


def neighbours(text: str) -> list[Seen] | None:
    """The neighbours of the table (a MAC port ID gives way to the port description)."""
    rows = table(text, COLUMNS)
    if rows is None:
        return None
    return [
        Seen(
            r["local"],
            r["system"],
            r["descr"] if is_mac(r["port"]) and r["descr"] else r["port"],
            n,
        )
        for n, r in rows
        if r["local"] and r["system"]
    ]
