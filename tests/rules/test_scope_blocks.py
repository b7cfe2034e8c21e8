"""Layer provenance: the block table a parser records (`DeviceState.blocks`) and how rules ask it
where a faulty setting lives (rules/scope.py `locate`), instead of guessing from the nearest
block header above a line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fabriclint.models.common import Source
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import Block, DeviceState, Interface
from fabriclint.parsers import get_parser
from fabriclint.rules.scope import DEVICE, locate

GOLDEN = Path(__file__).parent.parent / "parsers" / "golden"

FILE = "leaf01/show_running-config.txt"

# A profile, then a top-level map, then ports: line numbers matter (1-based).
CONFIG = """\
qos profile ROCE
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   !
   tx-queue 3
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes
!
qos map dscp 26 to traffic-class 3
!
interface Ethernet1
   service-profile ROCE
!
interface Ethernet2
   service-profile ROCE
   priority-flow-control priority 4 no-drop
!
interface Ethernet3
   mtu 9214
"""

FAMILIES_WITH_A_TABLE = {"eos", "nxos", "sonic"}
"""Parser families that record their blocks; the others still use the header-above fallback."""


def _eos(text: str = CONFIG) -> DeviceState:
    parse = get_parser("eos")
    assert parse is not None
    outputs = {"show running-config": RawOutput(text=text, file=FILE)}
    return parse(RawDevice(name="leaf01", platform="eos", outputs=outputs))


def _at(line: int) -> Source:
    return Source(file=FILE, line=line)


def test_eos_records_each_profile_and_interface_block_with_its_span() -> None:
    blocks = [(b.kind, b.name, b.first, b.last, b.path) for b in _eos().blocks]
    assert blocks == [
        ("qos-profile", "ROCE", 1, 6, "profiles.ROCE"),
        ("interface", "Ethernet1", 10, 11, "interfaces.Ethernet1.qos"),
        ("interface", "Ethernet2", 13, 15, "interfaces.Ethernet2.qos"),
        ("interface", "Ethernet3", 17, 18, "interfaces.Ethernet3.qos"),
    ]
    assert all(b.file == FILE for b in _eos().blocks)


def test_a_setting_in_a_profile_is_owned_by_the_profile() -> None:
    state = _eos()
    scope = locate(state, state.interfaces["Ethernet1"], _at(6))  # the tx-queue 3 ECN line
    assert (scope.kind, scope.label, scope.prefix) == (
        "profile",
        "qos-profile ROCE",
        "profiles.ROCE",
    )
    assert scope.path("queues.3.ecn") == "profiles.ROCE.queues.3.ecn"


def test_a_top_level_line_after_a_profile_is_not_the_profiles() -> None:
    """The header-above guess gave the `qos map` line (8) to `qos profile ROCE` (line 1): the
    block's span ends at line 6, so the map is the device-wide QoS every port shares."""
    state = _eos()
    assert state.qos.sources["dscp_to_tc.26"].line == 8
    assert locate(state, state.interfaces["Ethernet1"], _at(8)) == DEVICE


def test_a_ports_own_line_is_owned_by_the_port() -> None:
    state = _eos()
    scope = locate(state, state.interfaces["Ethernet2"], _at(15))
    assert (scope.kind, scope.label, scope.prefix) == (
        "port",
        "interface Ethernet2",
        "interfaces.Ethernet2.qos",
    )


def test_the_innermost_block_holding_a_line_owns_it() -> None:
    state = DeviceState(name="sw", platform="eos")
    state.blocks = [
        Block(kind="interface", name="et-0/0/0", file=FILE, first=1, last=20, path="a"),
        Block(kind="policy-map", name="PM", file=FILE, first=5, last=9, path="profiles.PM"),
    ]
    port = state.interfaces["x"] = Interface(name="x")
    scope = locate(state, port, _at(7))
    assert (scope.label, scope.prefix) == ("policy-map PM", "profiles.PM")
    assert locate(state, port, _at(12)).kind == "port"


def _golden(platform: str, case: str) -> DeviceState:
    folder = GOLDEN / platform / case
    inputs = json.loads((folder / "inputs.json").read_text())
    outputs = {c: RawOutput(text=(folder / n).read_text(), file=n) for c, n in inputs.items()}
    parse = get_parser(platform)
    assert parse is not None
    return parse(RawDevice(name=case, platform=platform, outputs=outputs))


def test_nxos_policy_maps_own_their_class_lines() -> None:
    state = _golden("nxos", "roce_leaf")
    port = state.interfaces["Ethernet1/1"]
    ecn = Source(file="running-config.txt", line=44)  # ROCE_EGRESS class c-out-8q-q3 WRED-ECN
    scope = locate(state, port, ecn)
    assert (scope.label, scope.path("queues.3.ecn")) == (
        "queuing-policy-map ROCE_EGRESS",
        "profiles.ROCE_EGRESS.queues.3.ecn",
    )
    # `system qos` applies the policies device-wide: its lines are no profile's
    applied = Source(file="running-config.txt", line=60)
    assert locate(state, port, applied).kind != "profile"
    # an interface's own line
    own = Source(file="running-config.txt", line=70)  # Ethernet1/1 priority-flow-control mode on
    assert locate(state, port, own).label == "interface Ethernet1/1"


def test_sonic_entries_are_blocks_with_their_json_spans() -> None:
    state = _golden("sonic", "roce_leaf")
    spans = {(b.kind, b.name): (b.first, b.last, b.path) for b in state.blocks}
    assert spans[("PORT_QOS_MAP", "Ethernet0")] == (83, 89, "interfaces.Ethernet0.qos")
    assert spans[("PORT_QOS_MAP", "global")][2] == "qos"
    assert spans[("DSCP_TO_TC_MAP", "ROCE")][2] is None  # applied by ports, not reported itself
    assert [b.first for b in state.blocks] == sorted(b.first for b in state.blocks)
    # a field of Ethernet0's entry is Ethernet0's own; no JSON line is given to a profile
    scope = locate(state, state.interfaces["Ethernet0"], Source(file="config_db.json", line=86))
    assert scope.kind != "profile"


def _golden_platforms() -> list[tuple[str, Path]]:
    return sorted((case.parent.name, case) for case in GOLDEN.glob("*/*") if case.is_dir())


@pytest.mark.parametrize(("platform", "case"), _golden_platforms())
def test_which_families_record_a_block_table(platform: str, case: Path) -> None:
    """A family joins FAMILIES_WITH_A_TABLE when its parser records blocks; until then rules
    fall back to the nearest header above a line for its devices."""
    expected = json.loads((case / "expected.json").read_text())
    has_table = bool(expected["blocks"])
    if platform in FAMILIES_WITH_A_TABLE and expected["interfaces"]:
        assert has_table, case
    if platform not in FAMILIES_WITH_A_TABLE:
        assert not has_table, case
