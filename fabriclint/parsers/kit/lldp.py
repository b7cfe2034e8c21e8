"""LLDP neighbour outputs, the parts every platform shares: column tables, lldpd's JSON, and
spelling the local port as the device does.

A platform's `lldp.py` picks its output (descriptors name the command: `LLDP`) and hands the
text to one of the readers here or reads its own shape, then `attach` records the neighbours
on the state. Nothing here raises on bad input: an output that is not LLDP at all leaves
`DeviceState.neighbors` None (the CAB rules then report a coverage gap, never a pass) and
records an `Unparsed` line saying so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from fabriclint.bounded import InputLimitError, json_loads
from fabriclint.models.common import source_at
from fabriclint.models.ports import is_mac, port_key
from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState, InputProblem, LldpNeighbor

_RULE = re.compile(r"^[\s=+-]+$")
_GAP = re.compile(r"\s{2,}")


@dataclass(frozen=True)
class Seen:
    """One neighbour as read, before the local port is spelled as the device spells it."""

    local: str
    system: str
    port: str
    line: int


def attach(state: DeviceState, raw: RawDevice, key: str, seen: list[Seen] | None) -> None:
    """Record the neighbours read from output `key` on `state`; None: the output was there but
    unreadable, an input problem (the device, and so the run, is incomplete: exit 3), never a
    silent coverage gap: the cabling of this device could not be checked from what it said."""
    output = raw.outputs.get(key)
    if output is None:
        return
    state.inputs.append(key)
    if seen is None:
        message = (
            f"'{key}' is not LLDP neighbour output fabriclint can read (truncated or another form?)"
        )
        state.problems.append(
            InputProblem(kind="unparseable", message=message, source=source_at(output.file, 1))
        )
        return
    spelled = {port_key(name): name for name in state.interfaces}
    state.neighbors = [
        LldpNeighbor(
            local_port=spelled.get(port_key(s.local), s.local),
            remote_system=s.system,
            remote_port=s.port,
            source=source_at(output.file, s.line),
        )
        for s in seen
        if s.local and s.system
    ]


# ---- column tables (SONiC `show lldp table`, Junos `show lldp neighbors`, NVUE) ----------------


def table(text: str, columns: Mapping[str, str]) -> list[tuple[int, dict[str, str]]] | None:
    """Rows of a column-aligned table whose header line holds every title of `columns`
    (field -> title); each row as field -> cell, with its line number. None: no such header."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        starts = {f: line.find(title) for f, title in columns.items()}
        if all(pos >= 0 for pos in starts.values()):
            # every column of the header bounds its left neighbour, listed in `columns` or not
            bounds = sorted({0, *(m.end() for m in _GAP.finditer(line.rstrip()))})
            return list(_rows(lines, index + 1, starts, bounds))
    return None


def _rows(
    lines: list[str], first: int, starts: dict[str, int], bounds: list[int]
) -> Iterator[tuple[int, dict[str, str]]]:
    """The rows under a header: a cell runs to the next column of the header (the last one to
    the end of the line)."""
    for number, line in enumerate(lines[first:], start=first + 1):
        if not line.strip() or _RULE.match(line):
            continue
        if line.lstrip().startswith(("Total ", "Capability codes")):
            break
        yield number, {f: _cell(line, s, _next(bounds, s, len(line))) for f, s in starts.items()}


def _next(bounds: list[int], start: int, default: int) -> int:
    """The first column start right of `start`."""
    return next((b for b in bounds if b > start), max(default, start))


def _cell(line: str, start: int, end: int) -> str:
    """A cell: the text between two column starts, widened to whole words (a value may start a
    little left of its title, or run past the next one, as Junos prints them)."""
    start = min(start, len(line))
    end = max(start, min(end, len(line)))
    while start > 0 and not line[start - 1].isspace():
        start -= 1
    while end < len(line) and not line[end - 1].isspace() and not line[end].isspace():
        end += 1
    return line[start:end].strip()


def from_table(text: str, columns: Mapping[str, str]) -> list[Seen] | None:
    """Neighbours from a table with `local`, `system` and `port` columns."""
    rows = table(text, columns)
    if rows is None:
        return None
    return [
        Seen(r["local"], r["system"], r["port"], n) for n, r in rows if r["local"] and r["system"]
    ]


# ---- lldpd (`lldpctl -f json`: hosts, Cumulus, SONiC's lldp container) ------------------------


def from_lldpctl(text: str) -> list[Seen] | None:
    """Neighbours from `lldpctl -f json`. lldpd writes `interface` as an object when there is one
    neighbour and as a list of one-key objects when there are more; both are read."""
    data = _json(text)
    if not isinstance(data, dict) or not isinstance(data.get("lldp"), dict):
        return None
    found = data["lldp"].get("interface", [])
    entries = found if isinstance(found, list) else [found]
    finder = LineFinder(text)
    seen: list[Seen] = []
    for entry in entries:
        for local, info in entry.items() if isinstance(entry, dict) else ():
            if isinstance(info, dict):
                seen.append(_lldpd_neighbour(local, info, finder))
    return seen


def _lldpd_neighbour(local: str, info: dict[str, Any], finder: LineFinder) -> Seen:
    """One lldpd interface entry: the chassis is keyed by its system name; the port ID names the
    port unless it is a MAC (then the port description, when it names one)."""
    chassis = info.get("chassis")
    system = next(iter(chassis), "") if isinstance(chassis, dict) and chassis else ""
    if system == "id":  # no system name sent: only an ID, which names no inventory device
        system = ""
    port = info.get("port") if isinstance(info.get("port"), dict) else {}
    ident = port.get("id") if isinstance(port, dict) else None
    value = str(ident.get("value", "")) if isinstance(ident, dict) else ""
    kind = str(ident.get("type", "")) if isinstance(ident, dict) else ""
    if kind == "mac" or is_mac(value):
        descr = port.get("descr") if isinstance(port, dict) else None
        value = str(descr) if isinstance(descr, str) and descr and " " not in descr else value
    return Seen(local, str(system), value, finder.line_of(local))


def _json(text: str) -> Any:
    """Bounded JSON, None when the text is not JSON (or past the input limits)."""
    try:
        return json_loads(text)
    except (json.JSONDecodeError, InputLimitError, ValueError):
        return None


class LineFinder:
    """Line numbers of strings in a text, searched forward so repeated keys map in order."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def line_of(self, name: str, field: str | None = None) -> int:
        """The line of the next `"name":` key (or of `"field": "name"` when a field is given),
        searched from the last one found, else line 1."""
        needle = f'"{re.escape(field)}"\\s*:\\s*' if field else ""
        pattern = re.compile(f'{needle}"{re.escape(name)}"' + ("" if field else r"\s*:"))
        found = pattern.search(self.text, self.pos) or pattern.search(self.text)
        if found is None:
            return 1
        self.pos = found.end()
        return self.text.count("\n", 0, found.start()) + 1
