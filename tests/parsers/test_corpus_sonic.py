"""The SONiC parser on the real public samples in ../shared/corpus/sonic (skipped when absent).

Every file must parse; the facts asserted below were checked by reading the files by hand.
Each file is fed as `config_db.json` (rendered qos.json/buffers.json samples are config_db
fragments; the swssconfig sample is a list of APP_DB operations).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.resolve import resolve
from fabriclint.models.state import DeviceState, SchedulerMode, Trust
from fabriclint.parsers.sonic import parse

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "sonic"
if not CORPUS.is_dir():
    pytest.skip(f"no SONiC corpus at {CORPUS}", allow_module_level=True)

FILES = sorted(CORPUS.glob("*.json"))
COUNTERPOLL = "sonic-utilities__counterpoll_input__config_db.json"
MOCK = "sonic-utilities__mock_tables__config_db.json"
QOS_INPUT = "sonic-utilities__qos_config_input__config_qos.json"
MIGRATOR = "sonic-utilities__db_migrator__mellanox-sn2700-t0-version_3_0_3.json"
ARISTA7050 = "sonic-buildimage__sample_output__qos-arista7050.json"
ARISTA7260 = "sonic-buildimage__sample_output__qos-arista7260-t1.json"
DELL9332 = "sonic-buildimage__sample_output__qos-dell9332.json"
MLNX4600 = "sonic-buildimage__sample_output__buffers-mellanox4600c-t1.json"
SWSS = "sonic-swss__swssconfig_sample__qos.config.json"


def load(name: str) -> DeviceState:
    path = CORPUS / name
    outputs = {"config_db.json": RawOutput(text=path.read_text(), file=path.name)}
    return parse(RawDevice(name=path.stem, platform="sonic", outputs=outputs))


def line_of(name: str, needle: str, start: int = 1) -> int:
    lines = (CORPUS / name).read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if n >= start and needle in line)


def reasons(state: DeviceState) -> str:
    return "\n".join(f"{u.text} | {u.reason}" for u in state.unparsed)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_corpus_file_parses(path: Path) -> None:
    state = load(path.name)
    assert not state.problems  # none of the samples has duplicate keys or broken JSON
    assert state.interfaces
    for item in state.unparsed:
        assert item.source is not None and item.source.line, item


# ---- counterpoll config_db (Dell S6000, nested form) -------------------------------------------


def test_counterpoll_azure_maps_make_dscp_3_and_4_lossless_not_26() -> None:
    state = load(COUNTERPOLL)
    assert state.facts["hwsku"] == "Force10-S6000"
    assert state.facts["config_db_version"] == "version_1_0_4"
    rdma = resolve(state, "Ethernet4", 3)
    assert (rdma.tc, rdma.queue, rdma.priority, rdma.lossless) == (3, 3, 3, True)
    assert rdma.ecn is not None and rdma.ecn.enabled
    assert (rdma.ecn.min_bytes, rdma.ecn.max_bytes, rdma.ecn.probability_pct) == (
        1048576,
        2097152,
        5.0,
    )
    assert rdma.scheduler is not None and rdma.scheduler.weight == 15.0
    # the usual RoCE DSCP 26 is best effort in the AZURE map (TC 1), line 2367
    roce = resolve(state, "Ethernet4", 26)
    assert (roce.tc, roce.lossless) == (1, False)
    assert roce.sources[0].line == 2367
    cnp = resolve(state, "Ethernet4", 48)
    assert (cnp.tc, cnp.queue) == (6, 6)
    assert cnp.scheduler is not None and cnp.scheduler.scheduler is SchedulerMode.DWRR
    assert cnp.scheduler.weight == 14.0  # below the lossless queues' 15, and not strict


def test_counterpoll_watchdog_off_and_ports_without_qos() -> None:
    state = load(COUNTERPOLL)
    pfc = state.interfaces["Ethernet4"].qos.pfc  # type: ignore[union-attr]
    assert pfc is not None and pfc.priorities == [3, 4]
    # default_pfcwd_status is "disable" and there is no PFC_WD table
    assert pfc.watchdog is not None and not pfc.watchdog.enabled
    assert pfc.watchdog.sources["enabled"].line == line_of(COUNTERPOLL, "default_pfcwd_status")
    # four ports have no PORT_QOS_MAP entry and no admin_status (portmgrd: down)
    for port in ("Ethernet0", "Ethernet100", "Ethernet104", "Ethernet108"):
        iface = state.interfaces[port]
        assert iface.admin_up is False and iface.mtu == 9100
        assert iface.qos is None or iface.qos.pfc is None
    assert state.interfaces["Ethernet4"].routed is False  # Vlan1000 member
    assert state.interfaces["Ethernet112"].routed is True  # PortChannel0001 member, routed


def test_counterpoll_buffers() -> None:
    state = load(COUNTERPOLL)
    assert state.qos.buffers is not None and state.qos.buffers.lossless_pool_bytes == 12766208
    buffers = state.interfaces["Ethernet4"].qos.buffers  # type: ignore[union-attr]
    assert buffers is not None
    pg = buffers.priority_groups[3]
    assert (pg.headroom_bytes, pg.xoff_bytes, pg.xon_bytes) == (56368, 55120, 18432)
    assert buffers.priority_groups[0].headroom_bytes == 0


# ---- sonic-utilities mock tables (flat TABLE|key form) ----------------------------------------


def test_mock_tables_dangling_port_scheduler_blocks_pfc_on_ethernet0() -> None:
    state = load(MOCK)
    ref = next(r for r in state.references if r.name == "port_scheduler")
    assert ref.kind == "SCHEDULER" and ref.by == "PORT_QOS_MAP|Ethernet0"
    assert ref.source is not None and ref.source.line == 2551
    assert ("SCHEDULER", "port_scheduler") not in {(d.kind, d.name) for d in state.definitions}
    pfc = state.interfaces["Ethernet0"].qos.pfc  # type: ignore[union-attr]
    assert pfc is not None and not pfc.enabled and pfc.sources["enabled"].line == 2551
    assert "orchagent retries the entry" in reasons(state)
    other = state.interfaces["Ethernet4"].qos.pfc  # type: ignore[union-attr]
    assert other is not None and other.enabled and other.priorities == [3, 4]


def test_mock_tables_watchdog_and_no_dscp_map() -> None:
    state = load(MOCK)
    dog = state.interfaces["Ethernet4"].qos.pfc.watchdog  # type: ignore[union-attr]
    assert dog is not None and dog.enabled
    assert (dog.detection_ms, dog.restoration_ms, dog.action) == (600.0, 600.0, "drop")
    assert dog.sources[""].line == line_of(MOCK, '"PFC_WD|Ethernet4"')
    assert "POLL_INTERVAL" in reasons(state)
    # there is no DSCP_TO_TC_MAP at all: every DSCP is traffic class 0
    res = resolve(state, "Ethernet4", 26)
    assert (res.tc, res.lossless, res.trust) == (0, False, Trust.NONE)


def test_mock_tables_dynamic_buffers_and_mixed_reference_styles() -> None:
    state = load(MOCK)
    assert state.qos.buffers is not None and state.qos.buffers.lossless_pool_bytes is None
    pg = state.interfaces["Ethernet0"].qos.buffers.priority_groups[3]  # type: ignore[union-attr]
    assert (pg.headroom_bytes, pg.xoff_bytes) == (None, None)  # "NULL": buffermgrd computes it
    queue = state.interfaces["Ethernet0"].qos.queues[3]  # type: ignore[union-attr,index]
    assert queue.scheduler is SchedulerMode.DWRR and queue.weight == 15.0  # [SCHEDULER|...]
    assert queue.ecn is not None and queue.ecn.enabled  # bare AZURE_LOSSLESS name
    assert all(i.mtu == 9100 for i in state.interfaces.values())


# ---- rendered qos.json samples ------------------------------------------------------------------


def test_arista7260_per_port_maps_and_pfc_sets() -> None:
    state = load(ARISTA7260)
    uplink, downlink = state.interfaces["Ethernet0"].qos, state.interfaces["Ethernet136"].qos
    assert uplink is not None and downlink is not None
    assert uplink.pfc is not None and uplink.pfc.priorities == [3, 4]
    assert downlink.pfc is not None and downlink.pfc.priorities == [2, 3, 4, 6]
    assert uplink.sources["dscp_to_tc"].line != downlink.sources["dscp_to_tc"].line
    # DSCP 2 and 6 are lossless on the AZURE (downlink) ports only
    assert resolve(state, "Ethernet136", 2).lossless and resolve(state, "Ethernet136", 6).lossless
    assert not resolve(state, "Ethernet0", 2).lossless and resolve(state, "Ethernet0", 2).tc == 1
    # CNP DSCP 48 is TC 7 in both maps (lines 76 and 142), a DWRR queue of weight 14
    cnp = resolve(state, "Ethernet0", 48)
    assert cnp.tc == 7 and cnp.sources[0].line == 142 and resolve(state, "Ethernet136", 48).tc == 7
    assert cnp.scheduler is not None and cnp.scheduler.weight == 14.0
    ecn = resolve(state, "Ethernet136", 3).ecn
    assert ecn is not None and (ecn.min_bytes, ecn.max_bytes) == (2000000, 10000000)
    assert "priorities [2, 6] have no watchdog (20 occurrences)" in reasons(state)
    # a rendered qos.json has no PFC_WD and no DEVICE_METADATA: the watchdog is unknown
    assert downlink.pfc.watchdog is None


def test_arista7050_and_dell9332_canonical_azure_qos() -> None:
    for name in (ARISTA7050, DELL9332):
        state = load(name)
        assert state.qos.trust is Trust.DSCP  # PORT_QOS_MAP|global binds AZURE
        port = next(p for p, i in state.interfaces.items() if i.qos and i.qos.pfc)
        res = resolve(state, port, 4)
        assert res.lossless and res.ecn is not None and res.ecn.enabled
    dell = load(DELL9332)
    queues = dell.interfaces["Ethernet0"].qos.queues  # type: ignore[union-attr]
    assert queues is not None
    assert (queues[3].weight, queues[4].weight, queues[0].weight) == (1.0, 100.0, 1.0)
    assert queues[4].sources["weight"].line == 117


def test_qos_config_input_defines_maps_but_applies_none() -> None:
    state = load(QOS_INPUT)
    used = {(r.kind, r.name) for r in state.references}
    maps = [(d.kind, d.name) for d in state.definitions if d.kind.endswith("MAP")]
    assert ("DSCP_TO_TC_MAP", "AZURE") in maps and ("MPLS_TC_TO_TC_MAP", "AZURE") in maps
    assert not any(m in used for m in maps)  # PORT_QOS_MAP and QUEUE are empty (lines 552-553)
    assert all(i.qos is None or i.qos.pfc is None for i in state.interfaces.values())
    assert "MPLS_TC_TO_TC_MAP|AZURE" in reasons(state)


# ---- buffer-only samples -----------------------------------------------------------------------


def test_db_migrator_shared_headroom_profiles() -> None:
    state = load(MIGRATOR)
    assert state.qos.buffers is not None and state.qos.buffers.lossless_pool_bytes == 5088768
    pg = state.interfaces["Ethernet4"].qos.buffers.priority_groups[3]  # type: ignore[union-attr]
    # size 19456 < xoff 22528: the xoff goes to the shared headroom pool (pool xoff 688128)
    assert (pg.headroom_bytes, pg.xoff_bytes, pg.xon_bytes) == (None, 22528, 19456)
    assert "shared headroom pool" in reasons(state)
    assert state.interfaces["Ethernet4"].speed_mbps == 10000


def test_mellanox4600c_zero_profiles_and_no_lossless_pgs() -> None:
    state = load(MLNX4600)
    assert state.qos.buffers is not None and state.qos.buffers.lossless_pool_bytes == 44130304
    assert state.qos.buffers.sources["lossless_pool_bytes"].line == line_of(
        MLNX4600, '"size": "44130304"'
    )
    groups = {
        n: sorted(i.qos.buffers.priority_groups if i.qos and i.qos.buffers else {})
        for n, i in state.interfaces.items()
    }
    assert len(groups) == 64 and all(g == [0] for g in groups.values())  # 3-4 left to buffermgrd
    used = {r.name for r in state.references if r.kind == "BUFFER_PROFILE"}
    assert "ingress_lossless_zero_profile" in used and "egress_lossy_zero_profile" in used


# ---- swssconfig (APP_DB list of operations) ----------------------------------------------------


def test_swssconfig_sample() -> None:
    state = load(SWSS)
    qos = state.interfaces["Ethernet4"].qos
    assert qos is not None and qos.dscp_to_tc == {7: 5, 6: 5, 3: 3, 8: 7, 9: 8}
    assert qos.sources["dscp_to_tc.9"].line == 15  # TC 8: out of range, kept for QOS003
    assert qos.tc_to_queue == {5: 1, 6: 1}  # TC 3 and 7 have no queue (QOS009)
    queue = (qos.queues or {})[1]
    assert queue.scheduler is SchedulerMode.DWRR and queue.weight == 44.0
    # WRED_PROFILE_TABLE:AZURE has thresholds but neither ecn nor wred_green_enable: inert
    assert queue.ecn is not None and not queue.ecn.enabled and not queue.wred_drop
    assert {(d.kind, d.name) for d in state.definitions} >= {("SCHEDULER", "SCAVENGER")}
