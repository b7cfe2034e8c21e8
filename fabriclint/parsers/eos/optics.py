"""EOS transceivers: `show inventory | json` (optional, for the BOM lock).

The inventory's `xcvrSlots` object is keyed by front-panel slot ("1", "33"), each slot with
`mfgName`, `modelName`, `serialNum` and `hardwareRev` (Arista EOS Command API Guide,
`show inventory`); an empty cage shows blank names or "Not Present". A slot serves every lane
interface of its port (slot 33: Ethernet33, Ethernet33/1 ... Ethernet33/8), so each interface
the state knows on that slot gets the slot's module; a slot no known interface sits on is
recorded as `Ethernet<slot>`.
"""

from __future__ import annotations

import re

from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.optics import Read, attach, load_json, module
from fabriclint.platforms.eos import TRANSCEIVERS

_LANE = re.compile(r"^Ethernet([0-9]+)(?:/[0-9]+)?$")


def read_transceivers(raw: RawDevice, state: DeviceState) -> None:
    """Record the modules of `show inventory | json` on `state`, when collected."""
    output = raw.outputs.get(TRANSCEIVERS)
    if output is not None:
        attach(state, raw, TRANSCEIVERS, slots(output.text, list(state.interfaces)))


def slots(text: str, interfaces: list[str]) -> Read:
    """The modules by interface of the JSON text (or why it is not EOS inventory JSON)."""
    data, failed = load_json(text)
    if failed is not None:
        return failed
    found = data.get("xcvrSlots") if isinstance(data, dict) else None
    if not isinstance(found, dict):
        return Read(error="no `xcvrSlots` object: not `show inventory | json` output")
    by_slot: dict[str, list[str]] = {}
    for name in interfaces:
        lane = _LANE.match(name)
        if lane is not None:
            by_slot.setdefault(lane[1], []).append(name)
    read = Read()
    for slot, info in found.items():
        if not isinstance(info, dict):
            return Read(error=f"slot {slot!r} is not an object", line=_line_of(text, slot))
        shown = module(info.get("mfgName"), info.get("modelName"), info.get("serialNum"))
        if shown:
            for port in by_slot.get(str(slot), [f"Ethernet{slot}"]):
                read.modules[port] = shown
    return read


def _line_of(text: str, key: str) -> int:
    """The line of the first `"key":` in the text (1 when not found)."""
    at = text.find(f'"{key}"')
    return text.count("\n", 0, at) + 1 if at >= 0 else 1
