"""Junos transceivers: `show chassis hardware | display json`, with each PIC's `show chassis
pic fpc-slot F pic-slot P` where collected (optional, for the BOM lock).

The chassis inventory as Junos JSON (every element a list of objects, every text a
`[{"data": "..."}]`): `chassis-inventory` > `chassis` > `chassis-module` (`FPC 0`) >
`chassis-sub-module` (`PIC 0`) > `chassis-sub-sub-module` (`Xcvr 3`), one level deeper on an
MX (`FPC` > `MIC` > `PIC` > `Xcvr`); each module with `name`, `version`, `part-number`,
`serial-number` and `description` (Junos CLI reference, `show chassis hardware`; Juniper's
XML API `get-chassis-inventory`). `Xcvr N` of PIC p on FPC f is port f/p/N: each interface
the state knows there (`et-0/0/3`, `et-0/0/3:1` ...), else `et-f/p/N`. The inventory shows no
vendor name and no module firmware: a Juniper optic's `part-number` is Juniper's (740-...), a
third-party one's reads `NON-JNPR`; `version` is the hardware revision, not read. The
`{master:0}` banner a QFX prints before its prompt is not part of the JSON.

`show chassis pic` adds the vendor and firmware: its `PIC port information` table has a row per
port with `Xcvr vendor`, `Xcvr vendor part number` and `Xcvr Firmware` (Junos CLI reference,
`show chassis pic`; "0.0" where a module reports no firmware revision, kept as shown). The
part number and serial stay the inventory's (a lock taken before keeps matching). Without any
PIC output the firmware is not shown: the fact FIRMWARE_NOT_SHOWN says so for `bom lock`.
"""

from __future__ import annotations

import re
from typing import Any

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
from fabriclint.platforms.junos import PIC_COMMAND, TRANSCEIVERS

_BANNER = re.compile(r"^[ \t]*\{[A-Za-z][\w.-]*(?::[\w.-]+)?\}[ \t]*$", re.MULTILINE)
_PORT = re.compile(r"^[a-z]+-([0-9]+/[0-9]+/[0-9]+)(?::[0-9]+)?$")
_SLOT = re.compile(r"^(FPC|PIC|Xcvr) ([0-9]+)$")
LEVELS = (
    "chassis-module",
    "chassis-sub-module",
    "chassis-sub-sub-module",
    "chassis-sub-sub-sub-module",
)


class _Malformed(Exception):
    """An element that is not a list of objects: the key it was under."""


_PIC_KEY = re.compile(r"fpc-slot ([0-9]+) pic-slot ([0-9]+)$")
_PIC_HEADER = re.compile(r"^\s*FPC slot ([0-9]+), PIC slot ([0-9]+) information:", re.MULTILINE)
_PIC_COLUMNS = {"vendor": "Xcvr vendor", "part_number": "part number", "firmware": "Firmware"}


def read_transceivers(raw: RawDevice, state: DeviceState) -> None:
    """Record the modules of the chassis inventory JSON and the PIC tables on `state`."""
    output = raw.outputs.get(TRANSCEIVERS)
    pics = sorted(key for key in raw.outputs if PIC_COMMAND.fullmatch(key))
    if output is None and not pics:
        return
    found: dict[str, dict[str, str]] = {}
    if output is not None:
        read = positions(output.text)
        if read.error is not None:
            attach(state, raw, TRANSCEIVERS, read)
            return
        found = read.modules
    for key in pics:
        pic = pic_ports(raw.outputs[key].text, key)
        if pic.error is not None:
            attach(state, raw, key, pic)
            continue
        state.inputs.append(key)
        for at, shown in pic.modules.items():
            found[at] = {**shown, **found[at]} if at in found else shown
    merged = Read(modules=_by_interface(found, list(state.interfaces)))
    attach(state, raw, TRANSCEIVERS if output is not None else pics[0], merged)
    if not pics:
        state.facts[FIRMWARE_NOT_SHOWN] = (
            f"`{TRANSCEIVERS}` (Junos; `show chassis pic` not collected)"
        )


def inventory(text: str, interfaces: list[str]) -> Read:
    """The modules by interface of the JSON text (or why it is not the chassis inventory)."""
    read = positions(text)
    if read.error is not None:
        return read
    return Read(modules=_by_interface(read.modules, interfaces))


def positions(text: str) -> Read:
    """The modules by FPC/PIC/port position of the chassis inventory JSON (or why not)."""
    data, failed = load_json(_BANNER.sub("", text))
    if failed is not None:
        return failed
    try:
        top = _children(data, "chassis-inventory") if isinstance(data, dict) else []
        chassis = [c for entry in top for c in _children(entry, "chassis")]
        if not chassis:
            return Read(error=f"no `chassis-inventory` > `chassis`: not `{TRANSCEIVERS}` output")
        found: dict[str, dict[str, str]] = {}
        for node in chassis:
            _walk(node, 0, {}, found)
    except _Malformed as exc:
        key = str(exc)
        return Read(error=f"`{key}` is not a list of objects", line=line_of(text, f'"{key}"'))
    return Read(modules=found)


def pic_ports(text: str, key: str) -> Read:
    """The vendor and firmware by FPC/PIC/port position of one `show chassis pic` output, or
    why it is not one (the slots it names must be the key's)."""
    header = _PIC_HEADER.search(text)
    asked = _PIC_KEY.search(key)
    if header is None or asked is None:
        return Read(error="no `FPC slot F, PIC slot P information:` line: not `show chassis pic`")
    if header.groups() != asked.groups():
        line = line_of(text, header[0].strip())
        return Read(error=f"it shows FPC {header[1]} PIC {header[2]}, not the PIC asked", line=line)
    start = text.find("PIC port information:")
    if start < 0:
        return Read()  # a PIC without optics ports
    block = text[start:].split("\n\n", 1)[0].split("Port speed information", 1)[0]
    offset = text.count("\n", 0, start)
    read = Read()
    for line, row in table(block, _PIC_COLUMNS) or []:
        port = block.splitlines()[line - 1].split()[0]
        if not port.isdigit():
            return Read(error=f"{port!r} is not a port number", line=offset + line)
        shown = module(row["vendor"], None, None, row["firmware"])
        if shown:
            read.modules[f"{header[1]}/{header[2]}/{port}"] = shown
    return read


def _walk(node: dict[str, Any], depth: int, at: dict[str, str], found: dict[str, Any]) -> None:
    """Record each `Xcvr N` below `node` by its FPC/PIC/N position."""
    if depth >= len(LEVELS):
        return
    for child in _children(node, LEVELS[depth]):
        slot = _SLOT.match(_text(child, "name"))
        where = dict(at)
        if slot is not None:
            where[slot[1]] = slot[2]
        if slot is not None and slot[1] == "Xcvr" and {"FPC", "PIC"} <= set(where):
            shown = module(None, _text(child, "part-number"), _text(child, "serial-number"))
            if shown:
                found[f"{where['FPC']}/{where['PIC']}/{slot[2]}"] = shown
        _walk(child, depth + 1, where, found)


def _by_interface(found: dict[str, dict[str, str]], interfaces: list[str]) -> dict[str, Any]:
    """Each position's module under every interface the state knows on it (else et-f/p/N)."""
    names: dict[str, list[str]] = {}
    for name in interfaces:
        port = _PORT.match(name)
        if port is not None:
            names.setdefault(port[1], []).append(name)
    return {n: shown for at, shown in found.items() for n in names.get(at, [f"et-{at}"])}


def _children(node: object, key: str) -> list[dict[str, Any]]:
    """The objects under `key` (Junos JSON lists them; one object is taken as a list of one)."""
    value = node.get(key, []) if isinstance(node, dict) else []
    items = [value] if isinstance(value, dict) else value
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise _Malformed(key)
    return items


def _text(node: dict[str, Any], key: str) -> str:
    """The `data` of a Junos JSON text element (`"name": [{"data": "Xcvr 0"}]`), "" if none."""
    value = node.get(key)
    first = value[0] if isinstance(value, list) and value else value
    data = first.get("data") if isinstance(first, dict) else first
    return data.strip() if isinstance(data, str) else ""
