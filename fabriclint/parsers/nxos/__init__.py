"""Cisco NX-OS parser: `show running-config` (+ `show interface`) to a DeviceState.

The running-config is read into blocks (nxos/text.py), recorded in a Draft (nxos/toplevel.py,
nxos/policy.py) and assembled into the model (nxos/assemble.py, nxos/qos.py, nxos/ports.py).
Semantics and defaults assumed are documented in docs/platforms/nxos.md.

Cut-off outputs: the running-config has no end marker, but NX-OS 9.2 and later head the
device's own output with `!Running configuration last done at:` and always print `line console`
and `line vty` after every interface (all physical ports are listed, configured or not) and
before `boot` and the routing protocols. Such an output without a top-level `line vty` was cut
before it: incomplete (PARSE003 at its last line). A cut after `line vty` (in `router bgp`, which
the model does not read) and any cut of an output without that header (older releases, rendered
configs) cannot be told. `show interface` is judged by its last port block (nxos/show.py).
"""

from __future__ import annotations

from collections.abc import Mapping

from fabriclint.models.common import source_at
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState, InputProblem
from fabriclint.parsers.kit.inputs import missing_or_empty
from fabriclint.parsers.kit.internal import never_raises
from fabriclint.parsers.kit.show import ShownInterface
from fabriclint.parsers.kit.whole import cut_before, port_blocks_cut
from fabriclint.parsers.nxos.assemble import build_state
from fabriclint.parsers.nxos.draft import Draft
from fabriclint.parsers.nxos.lldp import read_lldp
from fabriclint.parsers.nxos.optics import read_transceivers
from fabriclint.parsers.nxos.show import is_header, parse_show_interface
from fabriclint.parsers.nxos.text import walk
from fabriclint.platforms.nxos import INTERFACE as SHOW_INTERFACE
from fabriclint.platforms.nxos import RUNNING_CONFIG

_SHOW_ALIASES = (SHOW_INTERFACE, "show interfaces")
_HEADER = ("!Command: show running-config", "!Running configuration last done at:")
"""The head of the device's own output (NX-OS 9.2+); `!Time:` follows."""
_EXPECTS = "the device prints 'line vty' after its interfaces"
_NO_MTU_LINE = ("nve",)
"""Interfaces whose `show interface` block holds no MTU line nxos/show.py reads, when whole."""


@never_raises("nxos", "NX-OS")
def parse(raw: RawDevice) -> DeviceState:
    """Parse an NX-OS device's outputs. Pure; never raises on bad input (problems are reported)."""
    config = raw.outputs.get(RUNNING_CONFIG)
    show_key = next((k for k in _SHOW_ALIASES if k in raw.outputs), None)
    show = raw.outputs.get(show_key) if show_key else None
    draft = Draft(file=config.file if config else show.file if show else RUNNING_CONFIG)
    problem = missing_or_empty(raw, RUNNING_CONFIG, "NX-OS")
    if problem is None and config is not None:
        walk(draft, config.text)
        problem = _not_nxos(draft, config.text)
    shown = parse_show_interface(show.text, show.file) if show is not None else {}
    state = build_state(raw.name, draft, shown, with_config=problem is None)
    if problem is not None:
        state.problems.append(problem)
    elif (cut := cut_before(config, RUNNING_CONFIG, _HEADER, "line vty", _EXPECTS)) is not None:
        state.problems.append(cut)
    if show is not None and not shown and show.text.strip():
        message = f"'{show_key}' output lists no interface (`NAME is up|down` lines)"
        state.problems.append(
            InputProblem(kind="unparseable", message=message, source=source_at(show.file, 1))
        )
    elif show is not None and show_key is not None and (found := _show_cut(show, show_key, shown)):
        state.problems.append(found)
    state.inputs = [cmd for cmd in (RUNNING_CONFIG, *_SHOW_ALIASES) if cmd in raw.outputs]
    read_lldp(raw, state)
    read_transceivers(raw, state)
    return state


def _show_cut(
    show: RawOutput, key: str, shown: Mapping[str, ShownInterface]
) -> InputProblem | None:
    """`show interface` cut short: its last block unfinished (kit/whole.py `port_blocks_cut`).
    The VXLAN `nve1` block prints `MTU 9216 bytes` with no `BW` (`show interface nve 1`, Cisco
    Nexus 9000 VXLAN configuration guide), which nxos/show.py does not read as an MTU line: its
    block is no measure of a cut."""
    return port_blocks_cut(show, key, shown, is_header, _NO_MTU_LINE)


def _not_nxos(draft: Draft, text: str) -> InputProblem | None:
    """An input that is not an NX-OS running-config at all (JSON, Junos, EOS, random text)."""
    number, first = next(
        ((n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if line.strip()), (1, "")
    )
    reason = None
    if first[:1] in ("{", "["):
        reason = "it looks like JSON"
    elif draft.foreign is not None:
        reason = "it is an Arista EOS configuration (`! device: ... EOS-...` header)"
        number = draft.foreign[1]
    elif draft.recognized == 0:
        reason = "no line is an NX-OS configuration statement"
    if reason is None:
        return None
    message = f"'{RUNNING_CONFIG}' is not an NX-OS configuration: {reason}"
    return InputProblem(kind="unparseable", message=message, source=source_at(draft.file, number))
