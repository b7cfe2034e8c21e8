"""Arista EOS parser: `show running-config` (+ `show interfaces`) to a DeviceState.

The running-config is read into blocks (eos/text.py), recorded in a Draft (eos/toplevel.py,
eos/nested.py) and assembled into the model (eos/assemble.py, eos/qos.py).
Semantics and defaults assumed are documented in docs/platforms/eos.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from fabriclint.models.common import Source
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState, InputProblem
from fabriclint.parsers.eos.assemble import build_state
from fabriclint.parsers.eos.draft import Draft
from fabriclint.parsers.eos.lldp import read_lldp
from fabriclint.parsers.eos.optics import read_transceivers
from fabriclint.parsers.eos.show import MANAGEMENT, is_header, order, parse_show_interfaces
from fabriclint.parsers.eos.text import walk
from fabriclint.parsers.kit.inputs import missing_or_empty
from fabriclint.parsers.kit.internal import never_raises
from fabriclint.parsers.kit.show import ShownInterface
from fabriclint.parsers.kit.whole import cut_before, has_header, port_blocks_cut, stops
from fabriclint.platforms.eos import INTERFACES as SHOW_INTERFACES
from fabriclint.platforms.eos import RUNNING_CONFIG

# An EOS running-config (or a fragment of one) has at least one top-level line starting with one of
# these words; random text, a README or another vendor's JSON/YAML has none.
_EOS_MARK = re.compile(
    r"^(?:! device: |(?:interface|hostname|end|qos|priority-flow-control|class-map|policy-map|"
    r"router|vlan|ip|ipv6|username|management|spanning-tree|service|no|aaa|logging|ntp|"
    r"snmp-server|transceiver|daemon|mlag|dns|platform|hardware|lldp|vrf|route-map|"
    r"queue-monitor|errdisable|load-interval|sflow|system|clock|banner|boot)\b)",
    re.M,
)

# The first line of `show running-config` as EOS prints it; that output always ends with `end`.
_DEVICE_HEADER = "! Command: show running-config"


@never_raises("eos", "EOS")
def parse(raw: RawDevice) -> DeviceState:
    """Parse an EOS device's outputs. Pure; never raises on bad input (problems are reported)."""
    config = raw.outputs.get(RUNNING_CONFIG)
    show = raw.outputs.get(SHOW_INTERFACES)
    draft = Draft(file=config.file if config else show.file if show else RUNNING_CONFIG)
    problem = _config_problem(raw)
    if problem is None and config is not None:
        walk(draft, config.text)
    shown = parse_show_interfaces(show.text, show.file) if show is not None else {}
    state = build_state(raw.name, draft, shown, with_config=problem is None)
    cut = _cut_off(raw) if problem is None else None
    declared = {n: layer.source for n, layer in draft.interfaces.items()} if problem is None else {}
    shown_cut = _show_cut(raw, shown, declared) if cut is None else None
    for found in (problem, cut, _show_problem(raw, shown) or shown_cut):
        if found is not None:
            state.problems.append(found)
    state.inputs = [cmd for cmd in (RUNNING_CONFIG, SHOW_INTERFACES) if cmd in raw.outputs]
    read_lldp(raw, state)
    read_transceivers(raw, state)
    return state


def _config_problem(raw: RawDevice) -> InputProblem | None:
    problem = missing_or_empty(raw, RUNNING_CONFIG, "EOS")
    config = raw.outputs.get(RUNNING_CONFIG)
    if problem is not None or config is None:
        return problem
    if _EOS_MARK.search(config.text) is None:
        message = (
            f"'{RUNNING_CONFIG}' does not look like an EOS configuration "
            "(no top-level EOS command such as 'interface', 'hostname', 'qos' or 'end')"
        )
        return InputProblem(
            kind="unparseable", message=message, source=Source(file=config.file, line=1)
        )
    return None


def _cut_off(raw: RawDevice) -> InputProblem | None:
    """The device's own output (its `! Command:` header) with no top-level `end` was cut
    off (a dropped session, a half-copied file): the settings past the cut would read as missing
    and be reported as faults, so the device is incomplete instead. A rendered config or a
    fragment without the header is not judged."""
    expects = "the device's output ends with 'end'"
    config = raw.outputs.get(RUNNING_CONFIG)
    return cut_before(config, RUNNING_CONFIG, (_DEVICE_HEADER,), "end", expects)


_NO_MTU_LINE = ("Vxlan",)
"""Interfaces whose `show interfaces` block holds no MTU line when whole."""


def _show_cut(
    raw: RawDevice, shown: Mapping[str, ShownInterface], declared: Mapping[str, Source]
) -> InputProblem | None:
    """`show interfaces` cut short: its last block unfinished (kit/whole.py `port_blocks_cut`),
    or cut between two whole blocks where its member ports or the running-config prove it
    (`_short_of`). A VXLAN
    tunnel interface prints no MTU line (`Vxlan1 is up ...`, `Hardware is Vxlan`, then its VNI
    maps: EOS VXLAN guide, `show interfaces vxlan`), and EOS lists it last: its block is no
    measure either."""
    show = raw.outputs.get(SHOW_INTERFACES)
    if show is None:
        return None
    found = port_blocks_cut(show, SHOW_INTERFACES, shown, is_header, _NO_MTU_LINE)
    return found if found is not None or not shown else _short_of(raw, show, shown, declared)


def _short_of(
    raw: RawDevice,
    show: RawOutput,
    shown: Mapping[str, ShownInterface],
    declared: Mapping[str, Source],
) -> InputProblem | None:
    """A `show interfaces` cut exactly between two whole blocks, told from the port-channels its
    ports are members of (`Member of Port-Channel2`: the channel exists and is listed, after the
    Ethernet ports), and from the interfaces the running-config declares (`declared`: name ->
    its `interface` line), which EOS creates and lists, each type's in order (eos/show.py
    `order`):
    - the last block shown is followed, in that order, by interfaces of its own type the
      running-config declares and the output does not show (cut among the Ethernet ports:
      `Ethernet12/1` is last, `interface Ethernet13/1` is declared);
    - the device's own running-config (its `! Command:` header) declares a Management
      interface and the output shows none: every EOS switch has one and lists it (after the
      Ethernet ports and loopbacks), so the output stops before it.
    Other interfaces declared and not shown are no measure: a snapshot edited by hand may
    declare a port-channel or SVI its `show interfaces` predates, and a running-config keeps the
    configuration of a removed linecard's ports or supervisor's management port. A cut after
    the Management blocks, between two types (port-channels, SVIs), is told only by a member
    port whose channel is missing."""
    orphan = next(
        (n for n, port in shown.items() if port.member_of and port.member_of not in shown), None
    )
    if orphan is not None:
        expects = f"{orphan} is a member of {shown[orphan].member_of}, which a whole output shows"
        return stops(show, SHOW_INTERFACES, expects)
    last = max(shown, key=lambda name: shown[name].source.line or 0)
    missing = _declared_after(last, shown, declared)
    if missing:
        name, more = missing[0], len(missing) - 1
        also = f" and {more} more" if more else ""
        expects = (
            f"the running-config declares {name} (line {declared[name].line}){also} after "
            f"{last}, the last interface shown"
        )
        return stops(show, SHOW_INTERFACES, expects)
    config = raw.outputs.get(RUNNING_CONFIG)
    if config is None or not has_header(config.text, (_DEVICE_HEADER,)):
        return None
    managed = [n for n in declared if _kind(n) == MANAGEMENT]
    if managed and not any(_kind(n) == MANAGEMENT for n in shown):
        expects = (
            f"the device's running-config declares {managed[0]} (line "
            f"{declared[managed[0]].line}), which a whole output shows"
        )
        return stops(show, SHOW_INTERFACES, expects)
    return None


def _declared_after(
    last: str, shown: Mapping[str, ShownInterface], declared: Mapping[str, Source]
) -> list[str]:
    """The interfaces of `last`'s type (but Management) the running-config declares after it,
    in EOS's order, that the output does not show."""
    where = order(last)
    if where is None or where[0] == MANAGEMENT:
        return []
    after = [
        (key, name)
        for name in declared
        if name not in shown and (key := order(name)) is not None and key[0] == where[0]
    ]
    return [name for key, name in sorted(after) if key > where]


def _kind(name: str) -> str | None:
    where = order(name)
    return where[0] if where is not None else None


def _show_problem(raw: RawDevice, shown: Mapping[str, object]) -> InputProblem | None:
    show = raw.outputs.get(SHOW_INTERFACES)
    if show is None or shown or not show.text.strip():
        return None
    message = (
        f"'{SHOW_INTERFACES}' has no 'EthernetN is up, line protocol is up' line: not EOS output"
    )
    return InputProblem(kind="unparseable", message=message, source=Source(file=show.file, line=1))
