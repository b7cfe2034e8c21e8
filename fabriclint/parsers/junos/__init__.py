"""Juniper Junos parser: `show configuration` (curly-brace or `| display set`) to a DeviceState.

The text is read into flat statements (junos/text.py), recorded in a Draft (junos/toplevel.py,
junos/cos.py) and assembled into the model (junos/assemble.py, junos/qos.py, junos/sched.py).
Semantics and defaults assumed are documented in docs/platforms/junos.md.
"""

from __future__ import annotations

from fabriclint.models.common import construct, source_at
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState, InputProblem
from fabriclint.parsers.junos.assemble import build_state
from fabriclint.parsers.junos.draft import Draft
from fabriclint.parsers.junos.lldp import read_lldp
from fabriclint.parsers.junos.optics import read_transceivers
from fabriclint.parsers.junos.text import read_config
from fabriclint.parsers.junos.toplevel import collect
from fabriclint.parsers.kit.internal import never_raises
from fabriclint.platforms.junos import CONFIGURATION as SHOW_CONFIGURATION

COMMANDS = (SHOW_CONFIGURATION, "show configuration | display set")


@never_raises("junos", "Junos")
def parse(raw: RawDevice) -> DeviceState:
    """Parse a Junos device's configuration. Pure; never raises on bad input (problems are reported)."""
    found = [(cmd, raw.outputs[cmd]) for cmd in COMMANDS if cmd in raw.outputs]
    if not found:
        state = construct(DeviceState, name=raw.name, platform="junos")
        message = f"no '{SHOW_CONFIGURATION}' output: the Junos configuration could not be read"
        state.problems.append(InputProblem(kind="unparseable", message=message))
        return state
    command, output = found[0]
    state, problem = parse_text(raw.name, output)
    if problem is not None:
        state.problems.append(problem)
    state.inputs = [command]
    read_lldp(raw, state)
    read_transceivers(raw, state)
    return state


def parse_text(name: str, output: RawOutput) -> tuple[DeviceState, InputProblem | None]:
    """The state of one configuration text, and the syntax problem that stopped reading it."""
    reading = read_config(output.text)
    draft = Draft(file=output.file)
    collect(draft, reading.statements)
    state = build_state(name, draft)
    if reading.problem is None:
        return state, None
    line, message = reading.problem
    form = "display set" if reading.form == "set" else "curly-brace"
    text = f"line {line}: {message} (read as Junos {form} configuration)"
    return state, InputProblem(
        kind="unparseable", message=text, source=source_at(output.file, line)
    )
