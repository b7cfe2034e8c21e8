"""NX-OS `show interface` text: link and admin state, MTU, bandwidth and port mode per interface.

Cut-off outputs: the text has no end marker; a last block without its `MTU` line, or a last
line at column 0 that is neither a header nor `admin state is ...` (one cut mid-line), is
refused (kit/whole.py `port_blocks_cut`, from the package). A cut exactly after a whole block
cannot be told: the ports past it are simply not shown.
"""

from __future__ import annotations

import re

from fabriclint.models.common import Source, source_at
from fabriclint.parsers.kit.show import ShownInterface

# Header lines start at column 0; the detail lines that matter start with these (2-space indent).
# Every other line (counters, mostly) is skipped by one C-level startswith test.
_HEADER = re.compile(r"(\S+) is (up|down|administratively down)(.*)", re.ASCII)
_ADMIN = "admin state is "
_DETAILS = ("  MTU ", "  Port mode is ", "  Belongs to ")
# at most 30 digits: a longer number is no MTU (and past 4300 digits int() raises)
_MTU = re.compile(r"  MTU (\d{1,30}) bytes, BW (\d{1,30}) Kbit", re.ASCII)


def parse_show_interface(text: str, file: str) -> dict[str, ShownInterface]:
    """Interfaces of a `show interface` output, by name (other lines are ignored)."""
    out: dict[str, ShownInterface] = {}
    current: ShownInterface | None = None
    for number, line in enumerate(text.split("\n"), 1):
        if line[:1] in (" ", "\t", ""):
            if current is not None and line.startswith(_DETAILS):
                _detail(current, line, source_at(file, number))
            continue
        if line.startswith(_ADMIN):
            if current is not None and line[len(_ADMIN) :].startswith("down"):
                current.admin_down = True
            continue
        header = _HEADER.match(line)
        if header is not None:
            current = _header(out, header, source_at(file, number))
    return out


def is_header(line: str) -> bool:
    """True for a line NX-OS starts at column 0: `Ethernet1/1 is up`, `admin state is up, ...`."""
    return line.startswith(_ADMIN) or _HEADER.match(line) is not None


def _header(out: dict[str, ShownInterface], found: re.Match[str], source: Source) -> ShownInterface:
    name, state, tail = found.group(1), found.group(2), found.group(3)
    admin_down = state == "administratively down" or "(Administratively down)" in tail
    shown = ShownInterface(
        source=source,
        oper_up=state == "up",
        admin_down=admin_down,
        channel=name.startswith("port-channel"),
    )
    out[name] = shown
    return shown


def _detail(shown: ShownInterface, line: str, source: Source) -> None:
    mtu = _MTU.match(line)
    if mtu is not None:
        if shown.mtu is None:
            shown.mtu = (int(mtu.group(1)), source)
            # A port-channel without members shows a placeholder bandwidth (100 Mb/s).
            if shown.oper_up or not shown.channel:
                shown.speed_mbps = (int(mtu.group(2)) // 1000, source)
    elif line.startswith("  Port mode is "):
        shown.routed = line.rsplit(maxsplit=1)[-1] == "routed"
    elif line.startswith("  Belongs to "):
        number = line.rsplit(maxsplit=1)[-1].removeprefix("Po").removeprefix("port-channel")
        shown.member_of = f"port-channel{number}"
