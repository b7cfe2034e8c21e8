"""The NX-OS parser on the real public samples in ../shared/corpus/nxos (skipped when absent).

Every file must parse; the facts asserted below were checked by reading the files by hand.
`.cfg` files are fed as `show running-config`, `.raw` files as `show interface`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.resolve import resolve
from fabriclint.models.state import DeviceState, SchedulerMode, Trust
from fabriclint.parsers.nxos import parse

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "nxos"
if not CORPUS.is_dir():
    pytest.skip(f"no NX-OS corpus at {CORPUS}", allow_module_level=True)

FILES = sorted(p for p in CORPUS.iterdir() if p.suffix in (".cfg", ".raw"))
N3K = "microsoft-SDN__Nexus3132-TOR2.cfg"
AZURE = "ms-AzureStack_Network_Switch_Config_Generator__std_cisco_nxos_switched__expected_full_config.cfg"
SHOW_9 = "ntc-templates__cisco_nxos_show_interface9.raw"
SHOW_01 = "ntc-templates__cisco_nxos_show_interface_01.raw"


def load(name: str) -> DeviceState:
    path = CORPUS / name
    command = "show running-config" if path.suffix == ".cfg" else "show interface"
    outputs = {command: RawOutput(text=path.read_text(), file=path.name)}
    return parse(RawDevice(name=path.stem, platform="nxos", outputs=outputs))


def unparsed_lines(state: DeviceState) -> set[int]:
    return {u.source.line for u in state.unparsed if u.source is not None and u.source.line}


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_corpus_file_parses(path: Path) -> None:
    state = load(path.name)
    assert not [p for p in state.problems if "parser failed" in p.message]
    assert state.interfaces


# ---- Microsoft SDN Nexus 3132 TOR2 (6.0(2)U6(1)) ------------------------------------------------


def test_n3k_version_classification_and_no_drop_class() -> None:
    state = load(N3K)
    assert (state.os_version, state.facts["hostname"]) == ("6.0(2)U6(1)", "TOR2")
    qos = state.qos
    # system qos: QOS_MARKING classifies `match cos 3` into qos-group 3 (line 138).
    assert qos.trust is Trust.PCP and qos.sources["trust"].line == 138
    assert qos.pcp_to_tc == {0: 0, 1: 0, 2: 0, 3: 3, 4: 0, 5: 0, 6: 0, 7: 0}
    assert qos.dscp_to_tc == {}
    # network-qos RDMA (match qos-group 3): `pause no-drop` -> CoS 3 from the qos class.
    assert qos.tc_to_priority == {3: 3} and qos.sources["tc_to_priority.3"].line == 131
    assert qos.pfc is not None and qos.pfc.priorities == [3] and not qos.pfc.enabled
    assert qos.pfc.watchdog is None  # no watchdog anywhere in this config


def test_n3k_queues_and_class_mtu() -> None:
    queues = load(N3K).qos.queues or {}
    assert sorted(queues) == [0, 3]
    rdma, default = queues[3], queues[0]
    assert (rdma.scheduler, rdma.weight, rdma.mtu) == (SchedulerMode.DWRR, 50.0, 2240)
    assert (default.scheduler, default.weight, default.mtu) == (SchedulerMode.DWRR, 50.0, 9216)
    assert rdma.sources["mtu"].line == 130 and rdma.ecn is None and not rdma.wred_drop


def test_n3k_breakout_ports_pfc_buffers_and_mtu() -> None:
    state = load(N3K)
    breakout = [n for n in state.interfaces if n.count("/") == 2]
    assert len(breakout) == 32
    for name in breakout:
        iface = state.interfaces[name]
        qos = iface.qos
        assert qos is not None and qos.pfc is not None and qos.pfc.enabled
        assert qos.buffers is not None and iface.profiles == ["INPUT_QUEUING"]
        pg = qos.buffers.priority_groups[3]
        assert (pg.headroom_bytes, pg.xoff_bytes, pg.xon_bytes) == (55_120, 46_800, 34_320)
        # Switchports of a Nexus 3000 release take the network-qos class-default MTU (line 133).
        assert iface.mtu == 9216 and iface.sources["mtu"].line == 133
    assert state.interfaces["Ethernet1/3/1"].speed_mbps == 10_000
    res = resolve(state, "Ethernet1/3/1", 26)  # CoS-classified: DSCP 26 is not classified
    assert (res.trust, res.tc, res.lossless) == (Trust.PCP, None, False)


def test_n3k_ports_uplinks_and_admin_state() -> None:
    state = load(N3K)
    assert len(state.interfaces) == 67
    uplinks = [f"Ethernet1/{n}" for n in (27, 28, 29, 30)]
    assert all(state.interfaces[n].routed and state.interfaces[n].mtu == 9100 for n in uplinks)
    # `system default switchport shutdown` (line 37): unconfigured switchports are down.
    spare = state.interfaces["Ethernet1/11"]
    assert (spare.admin_up, spare.sources["admin_up"].line) == (False, 37)
    assert state.interfaces["Ethernet1/3/1"].admin_up
    assert state.interfaces["Vlan1"].admin_up is False and state.interfaces["Vlan7"].admin_up


def test_n3k_references_and_unparsed() -> None:
    state = load(N3K)
    defined = {(d.kind, d.name) for d in state.definitions}
    used = {(r.kind, r.name) for r in state.references}
    assert used <= defined  # everything referenced is defined
    assert defined - used == {
        ("network-qos-class", "Scavenger-1"),
        ("network-qos-policy-map", "jumbo-queuing"),
        ("system-qos", "system qos"),
    }
    # Only the MMU buffer reservation is QoS and not modeled; CoPP is not data-plane QoS.
    assert unparsed_lines(state) == {260}


# ---- Azure Local generated ToR config (Nexus 93180YC-FX template) ------------------------------


def test_azure_network_qos_classes_are_undefined_so_nothing_is_lossless() -> None:
    state = load(AZURE)
    assert state.os_version is None and state.facts["hostname"] == "s46-r21-93180hl-24-1a"
    assert unparsed_lines(state) == {59, 121, 124, 126}
    dangling = {(r.kind, r.name) for r in state.references} - {
        (d.kind, d.name) for d in state.definitions
    }
    assert {n for k, n in dangling if k == "network-qos-class"} == {
        "AZLOCAL-NWQOS-RDMA",
        "AZLOCAL-NWQOS-DEFAULT",
        "AZLOCAL-NWQOS-CLUSTER",
    }
    assert state.qos.pfc is None and state.qos.tc_to_priority is None


def test_azure_egress_queues() -> None:
    queues = load(AZURE).qos.queues or {}
    assert sorted(queues) == [0, 3, 7]
    rdma = queues[3]
    assert (rdma.scheduler, rdma.weight) == (SchedulerMode.DWRR, 50.0)
    assert rdma.ecn is not None and (rdma.ecn.min_bytes, rdma.ecn.max_bytes) == (300_000, 300_000)
    assert rdma.ecn.probability_pct == 100.0 and rdma.ecn.sources[""].line == 145
    assert (queues[0].weight, queues[7].weight) == (48.0, 2.0)
    assert all(q.mtu is None for q in queues.values())


def test_azure_interface_ranges_overrides_and_policies() -> None:
    state = load(AZURE)
    assert len(state.interfaces) == 79
    assert Counter(i.mtu for i in state.interfaces.values()) == Counter({9216: 79})
    compute, storage = state.interfaces["Ethernet1/1"], state.interfaces["Ethernet1/17"]
    for iface in (compute, storage, state.interfaces["Ethernet1/49"]):
        assert iface.qos is not None and iface.qos.pfc is not None
        assert (iface.qos.pfc.enabled, iface.qos.pfc.priorities) == (True, [])
    assert compute.qos is not None and compute.qos.trust is None  # device default: none
    assert state.qos.trust is Trust.NONE
    assert storage.qos is not None and storage.qos.trust is Trust.PCP
    assert storage.qos.pcp_to_tc is not None and (
        storage.qos.pcp_to_tc[3],
        storage.qos.pcp_to_tc[7],
    ) == (3, 7)
    assert storage.profiles == ["AZLOCAL-QOS-MAP"]
    # The first range block (line 506) shuts every port; later blocks say `no shutdown`.
    down = sorted(n for n, i in state.interfaces.items() if i.admin_up is False)
    assert down == [f"Ethernet1/{n}" for n in (*range(33, 41), 43, 44, 45, 46, 52, 53, 54)]
    assert state.interfaces["Ethernet1/33"].sources["admin_up"].line == 515
    assert state.interfaces["Ethernet1/47"].routed and state.interfaces["port-channel50"].routed


# ---- ntc-templates show interface ---------------------------------------------------------------


def test_show_interface_9() -> None:
    state = load(SHOW_9)
    (problem,) = state.problems  # no running-config given with it
    assert problem.kind == "unparseable"
    assert list(state.interfaces) == [
        "port-channel1",
        "port-channel13",
        "port-channel35",
        "port-channel46",
        "loopback0",
        "Vlan1",
    ]
    po1, po13 = state.interfaces["port-channel1"], state.interfaces["port-channel13"]
    assert (po1.mtu, po1.oper_up, po1.speed_mbps) == (9216, False, None)  # no members: no speed
    assert (po13.mtu, po13.oper_up, po13.speed_mbps) == (9216, True, 25_000)
    assert state.interfaces["port-channel35"].mtu == 1500
    assert state.interfaces["Vlan1"].admin_up is False


def test_show_interface_01() -> None:
    state = load(SHOW_01)
    eth, sub = state.interfaces["Ethernet2/1"], state.interfaces["port-channel12.548"]
    assert (eth.mtu, eth.speed_mbps, eth.routed, eth.sources["mtu"].line) == (9100, 10_000, True, 6)
    assert (sub.mtu, sub.routed) == (1550, True)
    down = state.interfaces["Ethernet1/1"]
    assert (down.oper_up, down.admin_up, down.mtu, down.routed) == (False, True, 1500, False)
    assert state.interfaces["Ethernet12/4"].speed_mbps == 40_000
