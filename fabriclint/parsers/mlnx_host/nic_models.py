"""NIC model identity: the one table from what the host tools print to a card family name.

The same ConnectX-7 is `CA type: MT4129` in `ibstat`, `vendor_part_id: 4129` (with `board_id:
MT_0000000838`, a PSID: the board, not the family) in `ibv_devinfo`, `MT4129` in `ibdev2netdev
-v`, and firmware `28.39.1002` everywhere. Parsers store the family name in `RdmaPort.model` and
NIC005/NIC006 group NICs by `family()`, so those spellings compare as one model and two
families never do.

Sources: the PCI device ids of the ConnectX/BlueField adapters (the MT number is the device id
in decimal: MT4129 = 0x1021), and NVIDIA's firmware tables (MFT "Supported Adapter Cards
Firmware Versions", mlxup release notes): the firmware major number is the family's (12
ConnectX-4 ... 22 ConnectX-6 Dx, 28 ConnectX-7, 32 BlueField-3).
"""

from __future__ import annotations

import re

PCI_FAMILIES: dict[int, str] = {
    4115: "ConnectX-4",  # 0x1013
    4117: "ConnectX-4 Lx",  # 0x1015
    4119: "ConnectX-5",  # 0x1017
    4121: "ConnectX-5 Ex",  # 0x1019
    4123: "ConnectX-6",  # 0x101b
    4125: "ConnectX-6 Dx",  # 0x101d
    4127: "ConnectX-6 Lx",  # 0x101f
    4129: "ConnectX-7",  # 0x1021
    4131: "ConnectX-8",  # 0x1023
    41682: "BlueField",  # 0xa2d2
    41686: "BlueField-2",  # 0xa2d6
    41692: "BlueField-3",  # 0xa2dc
}
"""PCI device id (decimal, as in `MT4129` / `vendor_part_id`) -> family."""

FIRMWARE_FAMILIES: dict[int, str] = {
    12: "ConnectX-4",
    14: "ConnectX-4 Lx",
    16: "ConnectX-5",  # ConnectX-5 and ConnectX-5 Ex share one firmware line
    18: "BlueField",
    20: "ConnectX-6",
    22: "ConnectX-6 Dx",
    24: "BlueField-2",
    26: "ConnectX-6 Lx",
    28: "ConnectX-7",
    32: "BlueField-3",
    40: "ConnectX-8",
}
"""Firmware major version -> family, for a NIC whose device id is not shown."""

_FAMILY_NAMES = {
    name.lower(): name for name in (*PCI_FAMILIES.values(), *FIRMWARE_FAMILIES.values())
}
_PART = re.compile(r"^(?:MT)?(\d{4,5})$|^0x([0-9a-f]{4})$", re.IGNORECASE)


def part_family(model: str | None) -> str | None:
    """The family a printed model names: `MT4129`, `4129`, `0x1021` or `ConnectX-7`."""
    text = (model or "").strip()
    found = _PART.match(text)
    if found is not None:
        number = int(found[1]) if found[1] else int(found[2], 16)
        return PCI_FAMILIES.get(number)
    return _FAMILY_NAMES.get(text.lower())


def firmware_family(firmware: str | None) -> str | None:
    """The family a firmware version belongs to (`28.39.1002` -> ConnectX-7)."""
    major = (firmware or "").strip().split(".", maxsplit=1)[0]
    return FIRMWARE_FAMILIES.get(int(major)) if major.isdigit() else None


def family(model: str | None, firmware: str | None = None) -> str | None:
    """A NIC's identity for comparisons: the family of its device id, else of its firmware major,
    else the model as printed (a board id the table cannot place); None when nothing is known."""
    return part_family(model) or firmware_family(firmware) or (model or None)
