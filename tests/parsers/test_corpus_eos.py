"""The EOS parser on the real public samples in ../shared/corpus/eos (skipped when absent).

Every file must parse; the facts asserted below were checked by reading the files by hand.
`.cfg` files are fed as `show running-config`, `.raw` files as `show interfaces`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.resolve import resolve
from fabriclint.models.state import DeviceState, Trust
from fabriclint.parsers.eos import parse
from fabriclint.parsers.eos.draft import Draft
from fabriclint.parsers.eos.qos import port_qos
from fabriclint.parsers.eos.text import walk

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "eos"
if not CORPUS.is_dir():
    pytest.skip(f"no EOS corpus at {CORPUS}", allow_module_level=True)

FILES = sorted(p for p in CORPUS.iterdir() if p.suffix in (".cfg", ".raw"))
QOS_CFG = "avd__eos_cli_config_gen__qos.cfg"
ETH_CFG = "avd__eos_cli_config_gen__ethernet-interfaces.cfg"
SHOW_RAW = "ntc-templates__arista_eos_show_interfaces_portchannel.raw"


def load(name: str) -> DeviceState:
    path = CORPUS / name
    command = "show running-config" if path.suffix == ".cfg" else "show interfaces"
    outputs = {command: RawOutput(text=path.read_text(), file=path.name)}
    return parse(RawDevice(name=path.stem, platform="eos", outputs=outputs))


def unparsed_lines(state: DeviceState) -> set[int]:
    return {u.source.line for u in state.unparsed if u.source is not None and u.source.line}


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_corpus_file_parses(path: Path) -> None:
    state = load(path.name)
    assert not [p for p in state.problems if "parser failed" in p.message]
    assert state.interfaces


# ---- avd qos.cfg --------------------------------------------------------------------------------


def test_qos_cfg_global_maps_defaults_and_conflict() -> None:
    state = load(QOS_CFG)
    dscp, cos = state.qos.dscp_to_tc or {}, state.qos.pcp_to_tc or {}
    assert dscp[26] == 4  # line 237, with a drop-precedence suffix
    assert dscp[46] == 5 and dscp[8] == 1 and dscp[63] == 1
    assert dscp[48] == 6 and state.qos.sources["dscp_to_tc.48"].line is None  # default
    assert dscp[0] == 1 and state.qos.sources["dscp_to_tc.0"].line is None  # default
    assert (cos[1], cos[2], cos[4], cos[0]) == (2, 2, 2, 1)
    # `qos map cos 1 2 3 4 to traffic-class 2` then `qos map cos 3 to traffic-class 3`.
    (conflict,) = state.qos.conflicts
    assert (conflict.map, conflict.key, conflict.values) == ("pcp_to_tc", 3, [2, 3])
    assert [s.line for s in conflict.sources] == [234, 235]
    assert state.qos.tc_to_queue is not None and state.qos.tc_to_queue[6] == 2


def test_qos_cfg_global_pfc_all_off_and_watchdog_defaults() -> None:
    pfc = load(QOS_CFG).qos.pfc
    assert pfc is not None and not pfc.enabled and pfc.sources["enabled"].line == 274
    dog = pfc.watchdog
    assert dog is not None and not dog.enabled
    assert (dog.detection_ms, dog.restoration_ms, dog.action) == (50.0, 1220.0, "no-drop")


def test_qos_cfg_profile_test_with_pfc_priority_0_no_drop() -> None:
    draft = Draft(file=QOS_CFG)
    walk(draft, (CORPUS / QOS_CFG).read_text())
    profile = draft.profiles["test_with_pfc"]
    assert {prio: on for prio, (on, _) in profile.pfc_prio.items()} == {0: True, 1: False}
    qos = port_qos(draft, profile, None, None)
    assert qos is not None and qos.pfc is not None and qos.pfc.watchdog is not None
    assert qos.pfc.priorities == [0]
    assert qos.pfc.sources["priorities.0"].line == 73
    # `priority-flow-control all off` (line 274) wins over the profile's `on` (line 72).
    assert not qos.pfc.enabled and qos.sources["pfc"].line == 274
    dog = qos.pfc.watchdog
    assert (dog.enabled, dog.detection_ms, dog.restoration_ms, dog.action) == (
        True,
        50.0,
        1110.0,
        "drop",
    )


def test_qos_cfg_ecn_units_and_profile_on_interface() -> None:
    state = load(QOS_CFG)
    eth1 = state.interfaces["Ethernet1"]
    assert eth1.profiles == ["test", "pmap_test1"] and eth1.mtu == 1500 and eth1.routed
    qos = eth1.qos
    assert qos is not None and qos.queues is not None and qos.trust is Trust.DSCP
    kbytes, segments = qos.queues[2].ecn, qos.queues[4].ecn
    assert kbytes is not None and (kbytes.min_bytes, kbytes.max_bytes) == (320_000, 320_000)
    assert kbytes.probability_pct == 90.0
    assert segments is not None and segments.min_bytes is None
    assert segments.min_raw == "320 segments"
    draft = Draft(file=QOS_CFG)
    walk(draft, (CORPUS / QOS_CFG).read_text())
    timed = draft.profiles["uc_mc_queues_test"].queues[1].ecn
    assert timed is not None and (timed.min_raw, timed.max_raw) == (
        "3 milliseconds",
        "9 milliseconds",
    )
    assert draft.profiles["wred_queues_test"].queues[1].wred_drop


def test_qos_cfg_port_channel_members_and_references() -> None:
    state = load(QOS_CFG)
    for member in ("Ethernet3", "Ethernet4"):
        iface = state.interfaces[member]
        assert iface.profiles == ["experiment", "pmap_test1"]
        assert iface.qos is not None and iface.qos.trust is Trust.PCP
        assert iface.qos.sources["trust"].line == 173  # the port-channel's `qos trust cos`
    # DSCP 26 -> TC 4 everywhere, but the port trusts CoS; PFC is off on this switch.
    res = resolve(state, "Ethernet3", 26)
    assert (res.tc, res.trust, res.lossless) == (4, Trust.PCP, False)
    defined = {(d.kind, d.name) for d in state.definitions}
    used = {(r.kind, r.name) for r in state.references}
    assert used - defined == {("policy-map", "test_qos_policy_v1")}  # dangling, from a profile
    assert len([d for d in defined if d[0] == "qos-profile"]) == 8
    assert ("class-map", "class-default") not in used


def test_qos_cfg_unmodeled_lines_are_reported() -> None:
    state = load(QOS_CFG)
    lines = unparsed_lines(state)
    # tc->cos rewrite, exp map, ECN allow non-ect, polling interval.
    assert {240, 242, 244, 277} <= lines
    # `qos rewrite dscp` and `qos map traffic-class 1 to dscp 56` are modelled (QOS010).
    assert not {233, 239} & lines
    rewrite = state.qos.rewrite
    assert rewrite is not None and rewrite.by_tc[1] == 56 and rewrite.by_tc[4] == 32
    assert rewrite.sources["by_tc.1"].line == 239 and rewrite.sources[""].line == 233
    assert {97, 98, 99, 19, 44, 204, 214, 260, 272} <= lines  # mc queues, shape, counters, sets
    assert not {234, 235, 236, 237, 238, 241, 274, 275, 276, 278} & lines  # modeled
    assert len(state.unparsed) == 36


# ---- avd ethernet-interfaces.cfg ----------------------------------------------------------------


def test_ethernet_cfg_mtus() -> None:
    state = load(ETH_CFG)
    assert len(state.interfaces) == 89
    written = Counter(i.mtu for i in state.interfaces.values() if i.sources["mtu"].line is not None)
    assert written == Counter({1500: 3, 9100: 2, 7000: 1})
    # Ethernet1 is routed: its `mtu 1500` counts, not `l2 mtu 8000`.
    assert state.interfaces["Ethernet1"].mtu == 1500
    assert state.interfaces["Ethernet6"].mtu == 9214  # switched, EOS default
    assert state.interfaces["Ethernet8.101"].mtu == 1500  # routed subinterface default


def test_ethernet_cfg_interface_pfc() -> None:
    state = load(ETH_CFG)

    def pfc(name: str) -> tuple[bool, list[int]]:
        qos = state.interfaces[name].qos
        assert qos is not None and qos.pfc is not None
        return qos.pfc.enabled, qos.pfc.priorities

    assert pfc("Ethernet1") == (True, [])  # on, but `priority 5 drop`: no lossless priority
    assert pfc("Ethernet2") == (True, [5])
    assert pfc("Ethernet3") == (False, [])  # `no priority-flow-control`
    assert pfc("Ethernet4") == (True, [])
    assert state.interfaces["Ethernet4"].admin_up is False
    assert state.interfaces["Ethernet1"].speed_mbps == 100_000
    eth2 = state.interfaces["Ethernet2"].qos
    assert eth2 is not None and eth2.pfc is not None and eth2.pfc.watchdog is None


def test_ethernet_cfg_trust_and_unparsed() -> None:
    state = load(ETH_CFG)
    trust = Counter(i.qos.trust for i in state.interfaces.values() if i.qos is not None)
    assert trust == Counter({Trust.PCP: 64, Trust.DSCP: 23, Trust.NONE: 1})
    assert state.interfaces["Ethernet21"].qos is not None
    assert state.interfaces["Ethernet21"].qos.trust is Trust.NONE
    assert {(r.kind, r.name) for r in state.references} == {("qos-profile", "QoS")}
    assert unparsed_lines(state) == {202, 301, 322, 327}  # qos cos, pbr policy, 2x shape


# ---- ntc-templates show interfaces --------------------------------------------------------------


def test_show_interfaces_raw() -> None:
    state = load(SHOW_RAW)
    (problem,) = state.problems  # no running-config given with it
    assert problem.kind == "unparseable"
    assert len(state.interfaces) == 13
    mtus = Counter(i.mtu for i in state.interfaces.values())
    assert mtus == Counter({9214: 6, 1500: 5, 65535: 2})
    eth47, eth52 = state.interfaces["Ethernet47"], state.interfaces["Ethernet52"]
    assert (eth47.oper_up, eth47.speed_mbps, eth47.sources["mtu"].line) == (True, 1000, 4)
    assert (eth52.oper_up, eth52.speed_mbps, eth52.mtu) == (False, 10_000, 1500)
    assert state.interfaces["Port-Channel2"].speed_mbps == 2000
    assert state.interfaces["Port-Channel1"].speed_mbps is None
