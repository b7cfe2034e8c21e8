"""The Cumulus parser on the real public samples in ../shared/corpus/cumulus (skipped when absent).

Every file must parse; the facts asserted below were checked by reading the files by hand.
`traffic.conf` is fed as `/etc/cumulus/datapath/traffic.conf`, the `.txt` NCLU command lists as
`net show configuration commands`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.resolve import resolve
from fabriclint.models.state import DeviceState, SchedulerMode, Trust
from fabriclint.parsers.cumulus import parse

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "cumulus"
if not CORPUS.is_dir():
    pytest.skip(f"no Cumulus corpus at {CORPUS}", allow_module_level=True)

TRAFFIC = "microsoft-SDN__Cumulus__traffic.conf"
TOR1 = "microsoft-SDN__Cumulus__MLXSN2700_cumulus_TOR1.txt"
SPINE1 = "microsoft-SDN__Cumulus__MLXSN2700_cumulus_SPINE1.txt"
FILES = sorted(p for p in CORPUS.iterdir() if p.suffix in (".conf", ".txt"))


def key_of(path: Path) -> str:
    if path.suffix == ".conf":
        return "/etc/cumulus/datapath/traffic.conf"
    return "net show configuration commands"


def load(*names: str) -> DeviceState:
    outputs = {
        key_of(CORPUS / name): RawOutput(text=(CORPUS / name).read_text(), file=name)
        for name in names
    }
    return parse(RawDevice(name="sw", platform="cumulus", outputs=outputs))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_corpus_file_parses(path: Path) -> None:
    state = load(path.name)
    assert state.problems == [] or all(p.kind != "unparseable" for p in state.problems)
    assert state.interfaces


# ---- traffic.conf (CL 3.7, SN2700) -----------------------------------------------------------------


def test_traffic_conf_classification() -> None:
    qos = load(TRAFFIC).qos
    assert qos.trust is Trust.BOTH and qos.sources["trust"].line == 8
    # PCP 3 (the hosts' RDMA priority) lands in switch priority 4: cos 3 is left for the CPU.
    assert qos.pcp_to_tc == {0: 0, 1: 1, 2: 2, 3: 4, 4: 5, 5: 5, 6: 6, 7: 7}
    dscp = qos.dscp_to_tc or {}
    assert dscp[42] == 4 and {dscp[d] for d in range(64) if d != 42} == {0}
    # cos_0 lists every DSCP, 42 included, and cos_4 lists 42 again (lines 25 and 29).
    (conflict,) = qos.conflicts
    assert (conflict.key, conflict.values, [s.line for s in conflict.sources]) == (
        42,
        [0, 4],
        [25, 29],
    )
    assert qos.tc_to_queue == {n: n for n in range(8)}


def test_traffic_conf_scheduling() -> None:
    queues = load(TRAFFIC).qos.queues or {}
    assert queues[7].scheduler is SchedulerMode.STRICT  # control group, weight 0
    # service [4] and bulk [0,1,2,3,5,6] both weigh 16: seven equal DWRR queues
    assert {queues[q].weight for q in (0, 1, 2, 3, 4, 5, 6)} == {14.28}
    assert queues[4].sources["weight"].line == 160  # priority_group.service.weight


def test_traffic_conf_pfc_and_ecn_on_swp1_to_swp32() -> None:
    state = load(TRAFFIC)
    assert [n for n in state.interfaces] == [f"swp{n}" for n in range(1, 33)]
    qos = state.interfaces["swp17"].qos
    assert qos is not None and qos.pfc is not None
    assert (qos.pfc.enabled, qos.pfc.priorities, qos.pfc.watchdog) == (True, [4], None)
    assert qos.buffers is not None
    pg = qos.buffers.priority_groups[4]
    assert (pg.headroom_bytes, pg.xoff_bytes, pg.xon_bytes) == (52_000, 18_000, 18_000)
    ecn = (qos.queues or {})[4].ecn
    assert ecn is not None and (ecn.min_bytes, ecn.max_bytes, ecn.probability_pct) == (
        153_600,
        1_536_000,
        100.0,
    )
    assert not (qos.queues or {})[4].wred_drop
    assert state.qos.pfc is None  # PFC only where the port group puts it
    assert {(d.kind, d.name, d.source.line if d.source else 0) for d in state.definitions} == {
        ("pfc-profile", "pfc_port_group", 109),
        ("congestion-control-profile", "ecn_red_port_group", 145),
    }
    assert state.unparsed == []


def test_traffic_conf_resolves_roce_off_the_lossless_class() -> None:
    state = load(TRAFFIC)
    roce = resolve(state, "swp1", 26)  # NVIDIA's RoCE DSCP: best effort on this switch
    assert (roce.tc, roce.priority, roce.lossless) == (0, 0, False)
    smb = resolve(state, "swp1", 42)  # the DSCP this design gives RDMA
    assert (smb.tc, smb.queue, smb.priority, smb.lossless) == (4, 4, 4, True)
    assert smb.ecn is not None and smb.ecn.min_bytes == 153_600
    cnp = resolve(state, "swp1", 48)
    assert cnp.queue == roce.queue == 0


# ---- NCLU command lists ---------------------------------------------------------------------------


def test_tor1_mtu_and_port_roles() -> None:
    state = load(TOR1)
    ifaces = state.interfaces
    assert state.facts["hostname"] == "TOR1"
    jumbo = [f"swp{n}" for n in (*range(1, 19), 31, 32)]
    assert all(ifaces[name].mtu == 9216 for name in jumbo)
    assert ifaces["swp1"].sources["mtu"].line == 47
    assert all(ifaces[f"swp{n}"].mtu is None for n in range(19, 31))  # no mtu line
    assert [ifaces[f"swp{n}"].routed for n in (1, 16, 17, 18, 31, 32)] == [
        False,
        False,
        None,
        None,
        True,
        True,
    ]
    assert {"eth0", "lo", "peerlink", "peerlink.4094", "vlan7", "vlan11"} <= set(ifaces)
    assert state.unparsed == [] and state.problems == []


def test_spine1_mtu() -> None:
    state = load(SPINE1)
    assert state.facts["hostname"] == "SPINE1"
    assert [state.interfaces[p].mtu for p in ("swp1", "swp2")] == [9216, 9216]
    assert state.interfaces["swp1"].sources["mtu"].line == 32
    assert state.interfaces["swp1"].routed is True


def test_tor1_with_its_traffic_conf() -> None:
    state = load(TRAFFIC, TOR1)
    swp31 = state.interfaces["swp31"]
    assert swp31.mtu == 9216 and swp31.profiles == ["pfc_port_group", "ecn_red_port_group"]
    assert resolve(state, "swp31", 42).lossless
    assert state.inputs == ["/etc/cumulus/datapath/traffic.conf", "net show configuration commands"]
