"""LLDP neighbour outputs of a generated fabric, from the cables it really has.

`lldp_outputs(fabric, cables)` renders, for every device at an end of `cables` (the physical
cables, as ('device:port', 'device:port')), what its LLDP command prints: EOS `show lldp
neighbors detail | json` on switches, lldpd's `lldpctl -f json` on hosts. The NICs send their
MAC as port ID and the netdev name as port description, as lldpd does by default, so the switch
side exercises the by-description match. Given the plan's own cables it gives a clean pod;
given other cables, the miscabling the CAB rules must find.
"""

from __future__ import annotations

import json
from typing import Any

from benchmarks.fabricgen import Fabric
from fabriclint.platforms.eos import LLDP as EOS_LLDP
from fabriclint.platforms.mlnx_host import LLDP as HOST_LLDP


def _mac(value: int) -> str:
    return ":".join(f"{(value >> s) & 0xFF:02x}" for s in range(40, -8, -8))


def _switch_mac(fabric: Fabric, name: str) -> str:
    return _mac(0x001C73000000 + (fabric.switches[name].index << 8))


def _nic_mac(fabric: Fabric, name: str, port: str) -> str:
    nic = next(n for n in fabric.hosts[name].nics if n.netdev == port)
    return _mac(nic.mac)


def _eos_entry(fabric: Fabric, device: str, port: str) -> dict[str, Any]:
    """What an EOS switch shows of the far end (device, port)."""
    if device in fabric.hosts:
        mac = _nic_mac(fabric, device, port)
        iface = {"interfaceIdType": "macAddress", "interfaceId": mac, "interfaceId_v2": mac}
        iface["interfaceDescription"] = port
        chassis = mac
    else:
        iface = {"interfaceIdType": "interfaceName", "interfaceId": f'"{port}"'}
        iface |= {"interfaceId_v2": port, "interfaceDescription": ""}
        chassis = _switch_mac(fabric, device)
    return {
        "ttl": 120,
        "chassisIdType": "macAddress",
        "chassisId": chassis,
        "systemName": device,
        "neighborInterfaceInfo": iface,
    }


def _eos(fabric: Fabric, seen: dict[str, tuple[str, str]]) -> str:
    neighbours = {
        local: {"lldpNeighborInfo": [_eos_entry(fabric, *far)]}
        for local, far in sorted(seen.items(), key=lambda item: _port_order(item[0]))
    }
    return json.dumps({"lldpNeighbors": neighbours}, indent=2) + "\n"


def _port_order(port: str) -> tuple[int, ...]:
    digits = "".join(c if c.isdigit() else " " for c in port).split()
    return tuple(int(d) for d in digits)


def _lldpctl_entry(fabric: Fabric, local: str, far: tuple[str, str]) -> dict[str, Any]:
    device, port = far
    chassis = {device: {"id": {"type": "mac", "value": _switch_mac(fabric, device)}}}
    return {
        local: {
            "via": "LLDP",
            "rid": "1",
            "chassis": chassis,
            "port": {"id": {"type": "ifname", "value": port}, "descr": port, "ttl": "120"},
        }
    }


def _lldpctl(fabric: Fabric, seen: dict[str, tuple[str, str]]) -> str:
    entries = [_lldpctl_entry(fabric, local, far) for local, far in sorted(seen.items())]
    interface: Any = entries[0] if len(entries) == 1 else entries  # lldpd's own quirk
    return json.dumps({"lldp": {"interface": interface}}, indent=2) + "\n"


def lldp_outputs(fabric: Fabric, cables: list[tuple[str, str]]) -> dict[str, dict[str, str]]:
    """{device: {LLDP command: output}} for every device at an end of `cables`."""
    seen: dict[str, dict[str, tuple[str, str]]] = {}
    for a, b in cables:
        (da, pa), (db, pb) = a.split(":", 1), b.split(":", 1)
        seen.setdefault(da, {})[pa] = (db, pb)
        seen.setdefault(db, {})[pb] = (da, pa)
    out: dict[str, dict[str, str]] = {}
    for device, ports in seen.items():
        if device in fabric.hosts:
            out[device] = {HOST_LLDP: _lldpctl(fabric, ports)}
        else:
            out[device] = {EOS_LLDP: _eos(fabric, ports)}
    return out
