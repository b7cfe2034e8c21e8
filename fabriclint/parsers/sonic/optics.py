"""SONiC transceivers: `show interfaces transceiver eeprom` (optional, for the BOM lock).

One block per logical port: a header at the left margin, `Ethernet0: SFP EEPROM detected` (or
`... not detected`, `... Not detected`, `... is not applicable for RJ45 port`: no module), then
the decoded EEPROM as indented `Field: value` lines, among them `Vendor Name`, `Vendor PN`,
`Vendor SN` and, on CMIS modules, `Active Firmware` (SONiC Command Reference, `show interfaces
transceiver eeprom`; sonic-utilities `sfpshow`, which reads xcvrd's TRANSCEIVER_INFO and
TRANSCEIVER_FIRMWARE_INFO tables). A nested value (`Application Advertisement`, the DOM
values of `--dom`) is indented further and not read; of a field shown twice (co-packaged
optics list each device), the first is kept. A ganged port reads `Ethernet0:1 (ganged)`.
"""

from __future__ import annotations

import re

from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.optics import Read, attach, module
from fabriclint.platforms.sonic import TRANSCEIVERS

# greedy tails, stripped after: no backtracking over a long line of spaces
_HEADER = re.compile(r"^(\S+?)(?::[0-9]+ \(ganged\))?: SFP EEPROM (.*)$")
_FIELD = re.compile(r"^\s+(Vendor Name|Vendor PN|Vendor SN|Active Firmware):(.*)$")
_NAMES = {"Vendor Name": 0, "Vendor PN": 1, "Vendor SN": 2, "Active Firmware": 3}


def read_transceivers(raw: RawDevice, state: DeviceState) -> None:
    """Record the modules of `show interfaces transceiver eeprom` on `state`, when collected."""
    output = raw.outputs.get(TRANSCEIVERS)
    if output is not None:
        attach(state, raw, TRANSCEIVERS, blocks(output.text))


def blocks(text: str) -> Read:
    """The modules by port of the text (or why it is not that command's output, at its line)."""
    found: dict[str, list[str | None]] = {}
    current: list[str | None] | None = None
    headers = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if not line[0].isspace():
            header = _HEADER.match(line)
            if header is None:
                return _not_eeprom(number, line)
            headers += 1
            detected = header[2].strip().lower() == "detected"
            current = found.setdefault(header[1], [None] * 4) if detected else None
        elif headers == 0:
            return _not_eeprom(number, line)
        else:
            _field(current, line)
    if headers == 0:
        return Read(error=f"empty: no port in the `{TRANSCEIVERS}` output")
    read = Read()
    for port, values in found.items():
        shown = module(*values)
        if shown:
            read.modules[port] = shown
    return read


def _field(values: list[str | None] | None, line: str) -> None:
    """Keep a vendor, part, serial or firmware line of the current block (the first of each)."""
    match = _FIELD.match(line)
    if values is not None and match is not None and values[_NAMES[match[1]]] is None:
        values[_NAMES[match[1]]] = match[2].strip()


def _not_eeprom(number: int, line: str) -> Read:
    """A line outside any `PORT: SFP EEPROM ...` block: not this command's output."""
    shown = line.strip()[:60]
    message = f"{shown!r} is not a `PORT: SFP EEPROM ...` line of `{TRANSCEIVERS}` output"
    return Read(error=message, line=number)
