"""NX-OS transceivers: `show interface transceiver details | json` (optional, for the BOM lock).

NX-API JSON: `TABLE_interface.ROW_interface`, one row per interface (a list, or one object when
there is a single row), each with `interface`, `sfp` ("present" / "not present"), `name` (the
vendor), `partnum`, `serialnum`, `type` (Cisco Nexus 9000 Series NX-OS Interfaces Configuration
Guide, "show interface transceiver"; the `details` form adds the DOM values, not read here).
"""

from __future__ import annotations

from typing import Any

from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.optics import Read, attach, load_json, module
from fabriclint.platforms.nxos import TRANSCEIVERS


def read_transceivers(raw: RawDevice, state: DeviceState) -> None:
    """Record the modules of the transceiver JSON on `state`, when collected."""
    output = raw.outputs.get(TRANSCEIVERS)
    if output is not None:
        attach(state, raw, TRANSCEIVERS, rows(output.text))


def rows(text: str) -> Read:
    """The modules by interface of the NX-API JSON text (or why it is not that)."""
    data, failed = load_json(text)
    if failed is not None:
        return failed
    table = data.get("TABLE_interface") if isinstance(data, dict) else None
    found: Any = table.get("ROW_interface") if isinstance(table, dict) else None
    if isinstance(found, dict):
        found = [found]
    if not isinstance(found, list):
        return Read(error="no `TABLE_interface.ROW_interface`: not NX-API transceiver JSON")
    read = Read()
    for row in found:
        port = row.get("interface") if isinstance(row, dict) else None
        if not isinstance(port, str) or not port.strip():
            return Read(error="a `ROW_interface` entry without `interface`", line=_row_line(text))
        if str(row.get("sfp", "")).strip().lower() != "present":
            continue
        shown = module(row.get("name"), row.get("partnum"), row.get("serialnum"))
        if shown:
            read.modules[port.strip()] = shown
    return read


def _row_line(text: str) -> int:
    """The line of `ROW_interface` (1 when not found): where the malformed rows begin."""
    at = text.find('"ROW_interface"')
    return text.count("\n", 0, at) + 1 if at >= 0 else 1
