"""The Junos parser on the real public configs in ../shared/corpus/junos (skipped when absent).

Every file must parse; the facts asserted below were checked by reading the files by hand.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.resolve import effective_qos, resolve, tc_priority
from fabriclint.models.state import DeviceState, SchedulerMode, Trust
from fabriclint.parsers.junos import parse

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "junos"
if not CORPUS.is_dir():
    pytest.skip(f"no Junos corpus at {CORPUS}", allow_module_level=True)

FILES = sorted(p for p in CORPUS.iterdir() if p.suffix == ".conf")
AIML = "Juniper-jvd__aiml_multitenancy_backend__leaf1_qfx5240-64od.conf"
STORAGE = "Juniper-jvd__5stage_evpn_vxlan__storage-leaf1_qfx5130-32cd.conf"


def load(name: str) -> DeviceState:
    text = (CORPUS / name).read_text()
    outputs = {"show configuration": RawOutput(text=text, file=name)}
    return parse(RawDevice(name=Path(name).stem, platform="junos", outputs=outputs))


def unparsed_lines(state: DeviceState) -> list[int]:
    return [u.source.line for u in state.unparsed if u.source is not None and u.source.line]


def dangling(state: DeviceState) -> set[tuple[str, str]]:
    defined = {(d.kind, d.name) for d in state.definitions}
    return {(r.kind, r.name) for r in state.references} - defined


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_corpus_file_parses(path: Path) -> None:
    state = load(path.name)
    assert not state.problems
    assert state.interfaces and state.facts.get("hostname")


# ---- AI/ML backend leaf (QFX5240) --------------------------------------------------------------


def test_aiml_roce_and_cnp_on_a_gpu_port() -> None:
    state = load(AIML)
    assert state.facts["hostname"] == "GPU-R1-L1" and state.os_version is None
    roce = resolve(state, "et-0/0/12:0", 26)  # "VRF tenant-1 to H100-01"
    assert (roce.trust, roce.tc, roce.queue, roce.priority, roce.lossless) == (
        Trust.DSCP,
        4,
        4,
        3,
        True,
    )
    assert roce.ecn is not None and (roce.ecn.min_raw, roce.ecn.max_raw) == (
        "55 percent",
        "90 percent",
    )
    assert roce.ecn.probability_pct == 100.0 and roce.ecn.sources["min_raw"].line == 1139
    assert roce.scheduler is not None and roce.scheduler.weight is None  # s1 has no transmit-rate
    cnp = resolve(state, "et-0/0/12:0", 48)
    assert (cnp.queue, cnp.lossless) == (3, False)
    assert cnp.scheduler is not None and cnp.scheduler.scheduler is SchedulerMode.STRICT
    assert cnp.scheduler.weight == 5.0


def test_aiml_pfc_watchdog_and_wildcard_reach_every_et_port() -> None:
    state = load(AIML)
    with_pfc = [n for n, i in state.interfaces.items() if i.qos and i.qos.pfc and i.qos.pfc.enabled]
    assert len(with_pfc) == 87 and all(n.startswith("et-") for n in with_pfc)
    pfc = state.interfaces["et-0/0/33:1"].qos.pfc  # type: ignore[union-attr]
    assert pfc is not None and pfc.priorities == [3] and pfc.sources["priorities"].line == 1184
    dog = pfc.watchdog
    assert dog is not None and (dog.enabled, dog.detection_ms, dog.restoration_ms) == (
        True,
        200.0,
        200.0,
    )
    assert dog.sources["enabled"].line == 1180
    assert state.interfaces["et-0/0/12:0"].profiles == ["sm1", "cnp", "mydscp"]
    assert state.interfaces["irb"].qos is None and state.interfaces["lo0"].qos is None


def test_aiml_mtus() -> None:
    state = load(AIML)
    mtus = Counter(i.mtu for i in state.interfaces.values())
    # 16 fabric/GPU breakouts: `mtu 9216` + `family inet mtu 9170`; 2 tester ports `mtu 9192`.
    assert (mtus[9170], mtus[9178]) == (16, 2)
    assert state.interfaces["et-0/0/12:0"].sources["mtu"].line == 157
    assert state.interfaces["et-0/0/2"].mtu == 1500  # `family inet;` and no MTU: Junos default
    assert state.interfaces["irb"].mtu == 9000


def test_aiml_definitions_and_unparsed_buffers() -> None:
    state = load(AIML)
    assert not dangling(state)
    kinds = Counter(d.kind for d in state.definitions if d.source and d.source.line)
    assert kinds["forwarding-class"] == 2 and kinds["scheduler"] == 2
    # shared-buffer and dedicated-buffer percentages: no buffer size to convert them with.
    assert unparsed_lines(state) == [1147, 1148, 1151, 1154, 1159, 1162, 1168, 1171]
    assert state.qos.buffers is None


# ---- storage leaf (QFX5130, Junos OS Evolved) --------------------------------------------------


def test_storage_version_and_ports() -> None:
    state = load(STORAGE)
    assert state.os_version == "23.4R2-S3-202409180120.0-EVO"
    assert state.facts["hostname"] == "leaf002-001-1"
    # 229 ports and units, and the 51 irb SVIs of the `evpn-1` MAC-VRF's VLANs (l3-interface)
    assert len(state.interfaces) == 229 + 51
    assert sum(1 for i in state.interfaces.values() if i.admin_up is False) == 155


def test_storage_mac_vrf_vlans_number_the_trunks() -> None:
    """The JVD leaf's VLANs are all in routing instance `evpn-1` (instance-type mac-vrf): its
    trunks' `vlan members vn400 ...` are numbered from them, its irb units are their SVIs."""
    state = load(STORAGE)
    trunk = state.interfaces["ae1"].vlans
    assert isinstance(trunk, list) and len(trunk) == 50 and {400, 1400, 2809} <= set(trunk)
    irb = state.interfaces["irb.1400"]
    assert (irb.svi_vlan, irb.routed) == (1400, True)


def test_storage_spine_ports_classify_but_have_no_pfc() -> None:
    state = load(STORAGE)
    for port in ("et-0/0/0", "et-0/0/1"):
        iface = state.interfaces[port]
        assert iface.mtu == 9170 and iface.profiles == ["sm1", "dscp-classifier"]
        res = resolve(state, port, 26)  # `fc5`: code points 001000 011010
        assert (res.queue, res.priority, res.lossless) == (5, 5, False)
        assert res.ecn is not None and (res.ecn.min_raw, res.ecn.max_raw) == (
            "1 percent",
            "2 percent",
        )
        assert resolve(state, port, 48).queue == 7  # fc7, strict-high with a shaper


def test_storage_host_port_with_output_only_cnp() -> None:
    state = load(STORAGE)
    iface = state.interfaces["et-0/0/2"]
    assert (iface.mtu, iface.routed) == (9202, False)  # L2 trunk, `mtu 9216`
    qos = iface.qos
    assert qos is not None and qos.pfc is not None and not qos.pfc.enabled
    # Pause frames for priority 3 pause queue 5; queue 3 (fc3) no longer answers to priority 3.
    assert qos.tc_to_priority == {5: 3} and qos.sources["tc_to_priority.5"].line == 1935
    assert 3 in (effective_qos(state, "et-0/0/2").lossy_tcs or [])
    assert tc_priority(effective_qos(state, "et-0/0/2"), 3) is None  # priority 3 is queue 5's
    res = resolve(state, "et-0/0/2", 26)
    assert (res.queue, res.priority, res.lossless) == (5, 3, False)


def test_storage_other_host_ports_have_no_cos() -> None:
    state = load(STORAGE)
    for port in ("et-0/0/8:0", "ae1", "et-0/0/8:1"):
        iface = state.interfaces[port]
        assert iface.profiles == [] and iface.qos is not None and iface.qos.trust is Trust.PCP
        assert resolve(state, port, 26).queue == 0  # default classifier: best effort


def test_storage_zero_lossless_buffers_and_unparsed() -> None:
    state = load(STORAGE)
    buffers = state.qos.buffers
    assert buffers is not None and buffers.lossless_pool_bytes == 0
    assert buffers.sources["lossless_pool_bytes"].line == 1897
    assert buffers.priority_groups[3].headroom_bytes == 0
    assert 8 not in (state.qos.tc_to_queue or {})  # mcast-fc queue 8 is multicast
    assert not dangling(state)
    lines = unparsed_lines(state)
    assert len(lines) == 21 and {2041, 2047} <= set(lines)  # shaping
    # `unit 0 rewrite-rules dscp rw1` is modelled: forwarding class queue -> code point.
    assert not {1949, 1960, 1972, 1980, 1992} & set(lines)
    port = state.interfaces["et-0/0/0"].qos
    rewrite = port.rewrite if port is not None else None
    assert rewrite is not None and rewrite.by_tc == {0: 10, 1: 0, 5: 8, 6: 46, 7: 48}
    assert rewrite.sources[""].line == 1949 and rewrite.sources["by_tc.0"].line == 1980
