"""Cumulus transceivers for the BOM lock, from the first of three optional outputs collected:
`nv show platform transceiver -o json` (5.11 and later), `nv show interface pluggables -o json`
(5.x before 5.11) or `net show interface pluggables` (NCLU, 4.x).

NVUE's JSON of the transceiver collection: an object keyed by the port holding the module
(`swp1`), each with the fields its text form shows, `identifier`, `vendor-name`, `vendor-pn`,
`vendor-sn`, `vendor-rev`, `status`, ... and `fw-version` where the module reports one (NVUE
command reference, `nv show platform transceiver`, Cumulus Linux 5.11 and later). An empty
cage shows no vendor fields (or a `status` of unplugged / removed / not present). A cage serves
its breakouts: the module of `swp1` is also that of each `swp1s0` ... `swp1s3` the state knows.

Before 5.11, `nv show interface pluggables -o json` keys the same fields by interface, each
interface's under `pluggable` (the fields of `nv show interface <interface-id> pluggable`:
`identifier`, `vendor-name`, `vendor-pn`, `vendor-rev`, `vendor-sn`); NCLU prints them as a
table (Interface, Identifier, Vendor Name, Vendor PN, Vendor SN, Vendor Rev), one row per port
or breakout. Neither shows the module's firmware: the fact FIRMWARE_NOT_SHOWN says so, and
`bom lock` repeats it, rather than lock a firmware nobody read.
"""

from __future__ import annotations

import re

from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.lldp import table
from fabriclint.parsers.kit.optics import (
    FIRMWARE_NOT_SHOWN,
    Read,
    attach,
    line_of,
    load_json,
    module,
)
from fabriclint.platforms.cumulus import NCLU_PLUGGABLES, NVUE_PLUGGABLES, TRANSCEIVERS

_BREAKOUT = re.compile(r"^(swp[0-9]+)s[0-9]+$")
_EMPTY = re.compile(r"unplug|remov|not present|absent|empty", re.IGNORECASE)


_COLUMNS = {
    "port": "Interface",
    "vendor": "Vendor Name",
    "part_number": "Vendor PN",
    "serial": "Vendor SN",
}


def read_transceivers(raw: RawDevice, state: DeviceState) -> None:
    """Record the modules of the first transceiver output collected on `state`."""
    readers = ((TRANSCEIVERS, cages), (NVUE_PLUGGABLES, cages), (NCLU_PLUGGABLES, pluggables))
    for key, reader in readers:
        output = raw.outputs.get(key)
        if output is None:
            continue
        attach(state, raw, key, reader(output.text, list(state.interfaces)))
        if key != TRANSCEIVERS:
            state.facts[FIRMWARE_NOT_SHOWN] = f"`{key}` (Cumulus Linux before 5.11)"
        return


def pluggables(text: str, interfaces: list[str]) -> Read:
    """The modules by interface of NCLU's `net show interface pluggables` table."""
    rows = table(text, _COLUMNS)
    if rows is None:
        return Read(error="no `Interface ... Vendor Name  Vendor PN  Vendor SN` header line")
    read = Read()
    for line, row in rows:
        if not re.fullmatch(r"[A-Za-z][\w.-]*", row["port"]):
            return Read(error=f"{row['port']!r} is not an interface name", line=line)
        shown = module(row["vendor"], row["part_number"], row["serial"])
        if shown:
            read.modules[row["port"]] = shown
    return read


def _breakouts(interfaces: list[str]) -> dict[str, list[str]]:
    """Cage port -> the breakouts of it the state knows (`swp1` -> `swp1s0` ... `swp1s3`)."""
    found: dict[str, list[str]] = {}
    for name in interfaces:
        split = _BREAKOUT.match(name)
        if split is not None:
            found.setdefault(split[1], []).append(name)
    return found


def _module_fields(value: object) -> object:
    """An interface's module fields: the object itself (5.11), or its `pluggable` (before)."""
    if isinstance(value, dict) and isinstance(value.get("pluggable"), dict):
        return value["pluggable"]
    return value


def cages(text: str, interfaces: list[str]) -> Read:
    """The modules by interface of the JSON text (or why it is not NVUE transceiver JSON)."""
    data, failed = load_json(text)
    if failed is not None:
        return failed
    if not isinstance(data, dict):
        return Read(error="not an object keyed by port: not `nv show platform transceiver` JSON")
    breakouts = _breakouts(interfaces)
    read = Read()
    for port, value in data.items():
        info = _module_fields(value)
        if not isinstance(info, dict):
            return Read(error=f"port {port!r} is not an object", line=line_of(text, f'"{port}"'))
        if _EMPTY.search(str(info.get("status", ""))):
            continue
        fields = ("vendor-name", "vendor-pn", "vendor-sn", "fw-version")
        shown = module(*(info.get(name) for name in fields))
        if shown:
            for name in (port, *breakouts.get(port, ())):
                read.modules[name] = shown
    return read
