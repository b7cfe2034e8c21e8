"""Junos transceivers: `show chassis hardware | display json` (optional, for the BOM lock).

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
"""

from __future__ import annotations

import re
from typing import Any

from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.optics import Read, attach, line_of, load_json, module
from fabriclint.platforms.junos import TRANSCEIVERS

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


def read_transceivers(raw: RawDevice, state: DeviceState) -> None:
    """Record the modules of the chassis inventory JSON on `state`, when collected."""
    output = raw.outputs.get(TRANSCEIVERS)
    if output is not None:
        attach(state, raw, TRANSCEIVERS, inventory(output.text, list(state.interfaces)))


def inventory(text: str, interfaces: list[str]) -> Read:
    """The modules by interface of the JSON text (or why it is not the chassis inventory)."""
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
    return Read(modules=_by_interface(found, interfaces))


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
