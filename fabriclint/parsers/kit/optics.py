"""Switch transceivers (vendor, part number, serial per port) for the BOM lock, the part every
platform shares: recording what a platform's `optics.py` read on the state.

A platform's reader turns its output (the descriptor names the command: `TRANSCEIVERS`) into
port -> {vendor, part_number, serial, firmware: those the output shows}; `attach` records them as `DeviceState.facts`
`transceiver.<port>.<field>`. An output that is not the command's shape is an input problem at
its line (the device is incomplete, exit 3), never a silent "no transceivers"; no output at
all records nothing (not shown: the lock then never names a change).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from fabriclint.bounded import InputLimitError, json_loads
from fabriclint.models.common import source_at
from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState, InputProblem

PREFIX = "transceiver."
COUNT = "transceivers"
"""Fact: how many modules the output showed (present, possibly 0: shown, none inserted)."""
FIELDS = ("vendor", "part_number", "serial", "firmware")
FIRMWARE_NOT_SHOWN = "transceivers.firmware_not_shown"
"""Fact: the output the modules were read from shows no module firmware (which one), so the
lock has none to compare: said by `bom lock`, never taken for "no firmware"."""
_ABSENT = frozenset({"", "n/a", "not present", "none", "unknown"})


@dataclass
class Read:
    """What a platform reader got from one output: the modules by port, or why it could not
    (with the line)."""

    modules: dict[str, dict[str, str]] = field(default_factory=dict)
    error: str | None = None
    line: int = 1


def load_json(text: str) -> tuple[object, Read | None]:
    """The output's JSON, or (None, a Read saying why not, at the line of the error)."""
    try:
        return json_loads(text), None
    except InputLimitError as exc:
        return None, Read(error=str(exc), line=exc.line or 1)
    except json.JSONDecodeError as exc:
        return None, Read(error=f"not JSON: {exc.msg}", line=exc.lineno)
    except ValueError as exc:
        return None, Read(error=f"not JSON: {exc}")


def shown(value: object) -> str | None:
    """A field's value as the output shows it; None for a blank, `N/A` or `Not Present`."""
    if not isinstance(value, str | int):
        return None
    text = str(value).strip()
    return None if text.lower() in _ABSENT else text


def module(vendor: object, part: object, serial: object, firmware: object = None) -> dict[str, str]:
    """The fields shown of one module ({} for an empty cage); `firmware` only where the
    output shows the module's firmware (CMIS modules on SONiC, NVUE's `fw-version`)."""
    values = (shown(vendor), shown(part), shown(serial), shown(firmware))
    return {name: value for name, value in zip(FIELDS, values, strict=True) if value is not None}


def line_of(text: str, needle: str) -> int:
    """The line of the first `needle` in the text (1 when not found): where a structural
    problem of a JSON output is reported."""
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def attach(state: DeviceState, raw: RawDevice, key: str, read: Read) -> None:
    """Record the transceivers read from output `key` on `state` (or the problem)."""
    output = raw.outputs.get(key)
    if output is None:
        return
    state.inputs.append(key)
    if read.error is not None:
        message = f"'{key}': {read.error}"
        state.problems.append(
            InputProblem(
                kind="unparseable", message=message, source=source_at(output.file, read.line)
            )
        )
        return
    state.facts[COUNT] = str(len(read.modules))
    for port, values in sorted(read.modules.items()):
        for name, value in values.items():
            state.facts[f"{PREFIX}{port}.{name}"] = value


def transceivers(facts: dict[str, str]) -> dict[str, dict[str, str]] | None:
    """port -> {field: value} from a state's facts; None when no transceiver output was read."""
    if COUNT not in facts:
        return None
    found: dict[str, dict[str, str]] = {}
    for key, value in facts.items():
        if key.startswith(PREFIX):
            port, _, name = key[len(PREFIX) :].rpartition(".")
            found.setdefault(port, {})[name] = value
    return found
