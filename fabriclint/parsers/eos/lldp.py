"""EOS LLDP neighbours: `show lldp neighbors detail | json` (or the brief `| json` form).

The detail form keys `lldpNeighbors` by local port, each with `lldpNeighborInfo` entries holding
`systemName` and `neighborInterfaceInfo` (`interfaceId_v2`, the port ID unquoted; the older
`interfaceId` carries quotes); the brief form is a list of `port`/`neighborDevice`/
`neighborPort` rows (Arista EOS Command API Guide, `show lldp neighbors`).
"""

from __future__ import annotations

import json
from typing import Any

from fabriclint.bounded import InputLimitError, json_loads
from fabriclint.models.ports import is_mac
from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.lldp import LineFinder, Seen, attach
from fabriclint.platforms.eos import LLDP


def read_lldp(raw: RawDevice, state: DeviceState) -> None:
    """Record the neighbours of `show lldp neighbors detail | json` on `state`, when collected."""
    output = raw.outputs.get(LLDP)
    if output is not None:
        attach(state, raw, LLDP, neighbours(output.text))


def neighbours(text: str) -> list[Seen] | None:
    """The neighbours of the JSON text; None when it is not EOS LLDP JSON."""
    try:
        data = json_loads(text)
    except (json.JSONDecodeError, InputLimitError, ValueError):
        return None
    found = data.get("lldpNeighbors") if isinstance(data, dict) else None
    finder = LineFinder(text)
    if isinstance(found, list):
        return [_brief(row, finder) for row in found if isinstance(row, dict)]
    if isinstance(found, dict):
        return [s for port, info in found.items() for s in _detail(port, info, finder)]
    return None


def _brief(row: dict[str, Any], finder: LineFinder) -> Seen:
    port = str(row.get("port", ""))
    line = finder.line_of(port, "port")
    return Seen(port, str(row.get("neighborDevice", "")), str(row.get("neighborPort", "")), line)


def _detail(port: str, info: Any, finder: LineFinder) -> list[Seen]:
    entries = info.get("lldpNeighborInfo") if isinstance(info, dict) else None
    line = finder.line_of(port)
    out = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict):
            out.append(Seen(port, str(entry.get("systemName", "")), _port_id(entry), line))
    return out


def _port_id(entry: dict[str, Any]) -> str:
    """The neighbour's port: its ID, or its description when the ID is a MAC (NICs send one)."""
    iface = entry.get("neighborInterfaceInfo")
    if not isinstance(iface, dict):
        return ""
    ident = str(iface.get("interfaceId_v2") or iface.get("interfaceId", "")).strip('"')
    descr = str(iface.get("interfaceDescription", ""))
    if (iface.get("interfaceIdType") == "macAddress" or is_mac(ident)) and descr:
        return descr
    return ident
