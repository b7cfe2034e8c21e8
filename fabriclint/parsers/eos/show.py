"""EOS `show interfaces` text: link state, operational MTU and bandwidth per interface.

Cut-off outputs: the text has no end marker; a last block without its MTU line or a last header
cut mid-line is refused (kit/whole.py `port_blocks_cut`). A cut exactly after a whole block is
told from the channels ports are members of (`Member of Port-Channel2`: that block must
follow) and the running-config (eos/__init__.py `_short_of`): EOS lists every interface it has,
each type's in the order `order` gives (Ethernet ports by slot and port, then loopbacks,
Management, port-channels, SVIs, the VXLAN tunnel last), so ports the running-config declares
after the last block of their type, or a declared Management interface not shown at all, were
cut off. Past that (a cut among SVIs, or port-channels no member names) the interfaces are
simply not shown: their operational MTU and state are then unknown, never guessed.
"""

from __future__ import annotations

import re

from fabriclint.models.common import Source, make_source
from fabriclint.parsers.kit.show import ShownInterface

# Only header, channel-member and MTU lines matter; they are found with str.find (no per-line
# Python work for the many counter lines) and then matched one by one.
_MARKERS = (", line protocol is ", " MTU ", "  Member of ")
_MEMBER = re.compile(r"\s+Member of (Port-Channel[0-9]{1,9})\b")
_HEADER = re.compile(r"(\S+) is (administratively down|up|down)\S*, line protocol is (\w+)")
# at most 30 digits: a longer number is no MTU (and past 4300 digits int() raises)
_MTU = re.compile(r"\s+(?:\S+ )?MTU (\d{1,30}) bytes(?:.*?BW (\d{1,30}) kbit)?")


def parse_show_interfaces(text: str, file: str) -> dict[str, ShownInterface]:
    """Interfaces of a `show interfaces` output, by name (other lines are ignored)."""
    out: dict[str, ShownInterface] = {}
    current: ShownInterface | None = None
    number, position = 1, 0
    for start in _line_starts(text):
        number += text.count("\n", position, start)
        position = start
        end = text.find("\n", start)
        line = text[start : end if end != -1 else len(text)]
        header = _HEADER.match(line)
        if header is not None:
            current = _header(out, header, make_source(file, number))
        elif current is not None and (member := _MEMBER.match(line)) is not None:
            current.member_of = member[1]
        elif current is not None and current.mtu is None:
            _mtu(current, line, file, number)
    return out


MANAGEMENT = "Management"
_NAME = re.compile(r"([A-Za-z][A-Za-z-]*?)([0-9]{1,9}(?:[/.][0-9]{1,9}){0,4})")


def order(name: str) -> tuple[str, tuple[int, ...]] | None:
    """Where EOS lists interface `name` among those of its type: (type, its numbers), `Ethernet`,
    (3, 1) for `Ethernet3/1`, `Ethernet`, (7, 1, 100) for the subinterface `Ethernet7/1.100`;
    None for a name that is no single interface (`Ethernet1-4`, a range)."""
    found = _NAME.fullmatch(name)
    if found is None:
        return None
    return found[1], tuple(int(n) for n in re.split(r"[/.]", found[2]))


def is_header(line: str) -> bool:
    """True for an `EthernetN is up, line protocol is up` line."""
    return _HEADER.match(line) is not None


def _line_starts(text: str) -> list[int]:
    """Start offsets of the lines that contain a marker, in order, each once."""
    starts: set[int] = set()
    for marker in _MARKERS:
        found = text.find(marker)
        while found != -1:
            starts.add(text.rfind("\n", 0, found) + 1)
            end = text.find("\n", found)
            found = text.find(marker, end) if end != -1 else -1
    return sorted(starts)


def _header(out: dict[str, ShownInterface], found: re.Match[str], source: Source) -> ShownInterface:
    shown = ShownInterface(
        source=source,
        admin_down=found.group(2) == "administratively down",
        oper_up=found.group(3) == "up",
    )
    out[found.group(1)] = shown
    return shown


def _mtu(shown: ShownInterface, line: str, file: str, number: int) -> None:
    found = _MTU.match(line)
    if found is None:
        return
    source = make_source(file, number)
    shown.mtu = (int(found.group(1)), source)
    if found.group(2) is not None:
        shown.speed_mbps = (int(found.group(2)) // 1000, source)
