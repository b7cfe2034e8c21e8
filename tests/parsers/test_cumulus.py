"""Focused tests of the Cumulus Linux parser: NVUE, `nv show qos roce`, traffic.conf and NCLU."""

from __future__ import annotations

import random
from pathlib import Path
from textwrap import dedent

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.resolve import resolve
from fabriclint.models.state import DeviceState, SchedulerMode, Trust
from fabriclint.parsers.cumulus import parse
from fabriclint.parsers.cumulus.blockyaml import Unsupported, read_block
from fabriclint.parsers.cumulus.text import _compose, _convert, load
from fabriclint.parsers.cumulus.tokens import expand_ports, numbers, parse_bytes
from tests.rules.harness import Case, run_case

NVUE = "nv config show -o yaml"
SHOW = "nv show qos roce -o json"
TRAFFIC = "/etc/cumulus/datapath/traffic.conf"
NCLU = "net show configuration commands"
FILES = {NVUE: "nv.yaml", SHOW: "roce.json", TRAFFIC: "traffic.conf", NCLU: "nclu.txt"}
GOLDEN = Path(__file__).parent / "golden" / "cumulus"

ROCE = """\
- header:
    version: Cumulus Linux 5.9.1
- set:
    interface:
      swp1:
        link:
          mtu: 9216
        type: swp
      swp2:
        type: swp
    qos:
      roce:
        enable: on
        mode: lossless
"""


def run(**texts: str) -> DeviceState:
    """Parse the given inputs: nvue=, show=, traffic=, nclu= (dedented)."""
    keys = {"nvue": NVUE, "show": SHOW, "traffic": TRAFFIC, "nclu": NCLU}
    outputs = {
        keys[name]: RawOutput(text=dedent(text), file=FILES[keys[name]])
        for name, text in texts.items()
    }
    return parse(RawDevice(name="sw1", platform="cumulus", outputs=outputs))


def line_of(text: str, needle: str, start: int = 1) -> int:
    """1-based number of the first line at or after `start` containing `needle`."""
    lines = dedent(text).splitlines()
    return next(n for n, line in enumerate(lines, 1) if n >= start and needle in line)


# ---- NVUE: `qos roce` and its defaults -----------------------------------------------------------


def test_roce_lossless_resolves_roce_and_cnp_end_to_end() -> None:
    state = run(nvue=ROCE)
    roce = resolve(state, "swp1", 26)
    assert (roce.tc, roce.queue, roce.priority, roce.lossless) == (3, 3, 3, True)
    assert roce.trust is Trust.BOTH
    assert roce.ecn is not None and roce.ecn.enabled
    assert (roce.ecn.min_bytes, roce.ecn.max_bytes, roce.ecn.probability_pct) == (
        150_000,
        1_500_000,
        100.0,
    )
    assert roce.scheduler is not None and roce.scheduler.scheduler is SchedulerMode.DWRR
    assert roce.scheduler.weight == 50.0
    cnp = resolve(state, "swp1", 48)
    assert (cnp.tc, cnp.queue, cnp.priority, cnp.lossless) == (6, 6, 6, False)
    assert cnp.scheduler is not None and cnp.scheduler.scheduler is SchedulerMode.STRICT
    # Other switch priorities share queue 0 with best effort.
    assert resolve(state, "swp1", 10).queue == 0
    # What RoCE implies is cited at the `mode` line.
    assert state.qos.sources["dscp_to_tc.26"].line == line_of(ROCE, "mode: lossless")
    assert state.os_version == "5.9.1"


def test_roce_lossy_has_no_pfc() -> None:
    state = run(nvue=ROCE.replace("mode: lossless", "mode: lossy"))
    assert state.qos.pfc is None
    assert not resolve(state, "swp1", 26).lossless


def test_without_roce_the_platform_defaults_apply() -> None:
    state = run(nvue=ROCE.replace("      roce:\n        enable: on\n        mode: lossless\n", ""))
    assert state.qos.trust is Trust.PCP and state.qos.pfc is None
    assert state.qos.sources["trust"].line is None
    queues = state.qos.queues or {}
    assert [queues[q].weight for q in range(8)] == [12, 13, 12, 13, 12, 13, 12, 13]
    assert queues[0].ecn is not None and queues[3].ecn is None
    assert resolve(state, "swp1", 26).tc == 3  # the class-selector map, even untrusted


def test_roce_disabled_applies_no_roce_defaults() -> None:
    state = run(nvue=ROCE.replace("enable: on", "enable: off"))
    assert state.qos.trust is Trust.PCP and state.qos.pfc is None


def test_default_global_profiles_override_roce_key_by_key() -> None:
    nvue = ROCE + (
        "      mapping:\n"
        "        default-global:\n"
        "          dscp:\n"
        "            '26':\n"
        "              switch-priority: 2\n"
        "          trust: l3\n"
        "      pfc:\n"
        "        default-global:\n"
        "          switch-priority:\n"
        "            '2': {}\n"
        "      egress-queue-mapping:\n"
        "        default-global:\n"
        "          switch-priority:\n"
        "            '2':\n"
        "              traffic-class: 3\n"
    )
    state = run(nvue=nvue)
    roce = resolve(state, "swp1", 26)
    assert (roce.tc, roce.priority, roce.queue, roce.lossless) == (2, 2, 3, True)
    assert state.qos.trust is Trust.DSCP
    assert resolve(state, "swp1", 27).tc == 3  # untouched entries keep the RoCE map
    assert state.qos.sources["dscp_to_tc.26"].line == line_of(nvue, "switch-priority: 2")
    assert state.qos.pfc is not None and state.qos.pfc.priorities == [2]


# ---- NVUE: interfaces and per-port profiles -----------------------------------------------------

PROFILES = """\
- set:
    interface:
      swp1-3,swp5:
        type: swp
      swp1:
        qos:
          mapping:
            profile: HOST
          congestion-control:
            profile: ECN_HOST
          pfc-watchdog: {}
      swp2:
        qos:
          pfc:
            profile: PFC34
          pfc-watchdog:
            state: disable
      swp3:
        qos:
          pfc:
            profile: MISSING
    qos:
      congestion-control:
        ECN_HOST:
          traffic-class:
            '3':
              ecn: enable
              min-threshold: 100000
              max-threshold: 400000
              red: enable
        SPARE:
          traffic-class:
            '1':
              min-threshold: 40000
      mapping:
        HOST:
          pcp:
            '3':
              switch-priority: 3
          trust: l2
      pfc:
        PFC34:
          switch-priority:
            '3': {}
            '4': {}
          port-buffer: 60000
          xoff-threshold: 20000
          xon-threshold: 5000
      pfc-watchdog:
        polling-interval: 200
        robustness: 5
      roce:
        mode: lossless
"""


def test_port_ranges_in_keys_expand() -> None:
    state = run(nvue=PROFILES)
    assert {"swp1", "swp2", "swp3", "swp5"} <= set(state.interfaces)
    assert "swp4" not in state.interfaces


def test_per_port_profiles_override_the_device_wide_settings() -> None:
    state = run(nvue=PROFILES)
    swp1 = state.interfaces["swp1"]
    assert swp1.qos is not None and swp1.qos.trust is Trust.PCP
    assert swp1.profiles == ["HOST", "ECN_HOST"]
    assert (swp1.qos.pcp_to_tc or {})[3] == 3
    res = resolve(state, "swp1", 26)
    assert res.trust is Trust.PCP and res.lossless
    # The port's congestion profile replaces the device's ECN set; scheduling stays the device's.
    assert res.ecn is not None and (res.ecn.min_bytes, res.ecn.max_bytes) == (100_000, 400_000)
    assert res.scheduler is not None and res.scheduler.wred_drop
    assert res.scheduler.weight == 50.0
    assert (swp1.qos.queues or {}).get(0) is not None
    assert (swp1.qos.queues or {})[0].ecn is None
    # swp5 names no profile: it inherits everything.
    assert state.interfaces["swp5"].qos is None
    assert resolve(state, "swp5", 26).trust is Trust.BOTH


def test_pfc_profile_buffers_and_watchdog_timers() -> None:
    state = run(nvue=PROFILES)
    swp2 = state.interfaces["swp2"].qos
    assert swp2 is not None and swp2.pfc is not None
    assert swp2.pfc.priorities == [3, 4]
    assert swp2.pfc.watchdog is not None and not swp2.pfc.watchdog.enabled
    assert swp2.buffers is not None
    pg = swp2.buffers.priority_groups[3]
    assert (pg.headroom_bytes, pg.xoff_bytes, pg.xon_bytes) == (40_000, 20_000, 15_000)
    swp1 = state.interfaces["swp1"].qos
    assert swp1 is not None and swp1.pfc is not None and swp1.pfc.watchdog is not None
    dog = swp1.pfc.watchdog
    assert dog.enabled and dog.detection_ms == 1000.0 and dog.restoration_ms is None
    assert dog.action == "drop"
    assert swp1.pfc.priorities == [3]  # the device's PFC, now watched
    assert dog.sources["enabled"].line == line_of(PROFILES, "pfc-watchdog: {}")


def test_profiles_are_definitions_and_uses_are_references() -> None:
    state = run(nvue=PROFILES)
    defined = {(d.kind, d.name) for d in state.definitions}
    assert ("congestion-control-profile", "SPARE") in defined
    assert ("pfc-profile", "MISSING") not in defined
    used = {(r.kind, r.name, r.by) for r in state.references}
    assert ("pfc-profile", "MISSING", "interface swp3") in used
    missing = next(r for r in state.references if r.name == "MISSING")
    assert missing.source is not None
    assert missing.source.line == line_of(PROFILES, "profile: MISSING")
    # A dangling profile changes nothing on the port: it keeps the device-wide PFC.
    assert resolve(state, "swp3", 26).lossless


def test_default_global_profile_counts_as_used() -> None:
    state = run(
        nvue=ROCE
        + "      pfc:\n        default-global:\n          switch-priority:\n            '3': {}\n"
    )
    assert ("pfc-profile", "default-global") in {(r.kind, r.name) for r in state.references}


def test_mtu_written_default_and_malformed() -> None:
    nvue = ROCE.replace(
        "      swp2:\n        type: swp\n",
        "      swp2:\n        type: swp\n      swp3:\n        link:\n          mtu: big\n      bond1:\n        type: bond\n      eth0:\n        type: eth\n",
    )
    state = run(nvue=nvue)
    assert state.interfaces["swp1"].mtu == 9216
    assert state.interfaces["swp1"].sources["mtu"].line == line_of(nvue, "mtu: 9216")
    assert state.interfaces["swp2"].mtu == 9216  # ifupdown2 default, no line
    assert state.interfaces["swp2"].sources["mtu"].line is None
    assert state.interfaces["bond1"].mtu == 9216
    assert state.interfaces["eth0"].mtu is None
    assert state.interfaces["swp3"].mtu is None
    assert [u.text for u in state.unparsed] == ["interface swp3 link mtu big"]


def test_ports_that_are_not_asic_ports_carry_no_pfc() -> None:
    nvue = ROCE.replace(
        "      swp2:\n",
        "      bond1:\n        type: bond\n      swp2.100:\n        type: sub\n      swp2:\n",
    )
    state = run(nvue=nvue)
    for name in ("bond1", "swp2.100"):
        qos = state.interfaces[name].qos
        assert qos is not None and qos.pfc is not None and not qos.pfc.enabled
    assert resolve(state, "swp2", 26).lossless


def test_bridged_ports_are_switched_others_routed() -> None:
    nvue = ROCE.replace(
        "      swp2:\n        type: swp\n",
        "      swp2:\n        bridge:\n          domain:\n            br_default: {}\n        type: swp\n",
    )
    state = run(nvue=nvue)
    assert state.interfaces["swp1"].routed is True
    assert state.interfaces["swp2"].routed is False


# ---- NVUE: input problems ------------------------------------------------------------------------


def test_duplicate_keys_are_parse002_at_their_line() -> None:
    nvue = ROCE.replace("          mtu: 9216\n", "          mtu: 9216\n          mtu: 1500\n")
    state = run(nvue=nvue)
    (problem,) = state.problems
    assert problem.kind == "duplicate-key" and "'mtu'" in problem.message
    assert problem.source is not None and problem.source.line == line_of(nvue, "mtu: 1500")
    assert state.interfaces["swp1"].mtu == 1500  # the loader keeps the last one


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("interface Ethernet1\n   mtu 9214\n   qos trust dscp\n", 1),
        ("hostname leaf01\ninterface Ethernet1\n   mtu: 9214\n", 3),
        ("# fabriclint\n\nThis is a README, not a switch config.\n", 3),
        ('{"PORT_QOS_MAP": {"global": {}}}\n', 1),
        ("- set:\n    interface: [\n", 2),
        ("\x00\x01 binary junk\n", 1),
    ],
)
def test_text_that_is_not_nvue_is_unparseable(text: str, line: int) -> None:
    state = run(nvue=text)
    (problem,) = state.problems
    assert problem.kind == "unparseable" and problem.source is not None
    assert problem.source.line == line
    assert state.qos.dscp_to_tc is None  # no defaults are invented for an unread config


def test_no_input_at_all_is_unparseable() -> None:
    state = parse(RawDevice(name="sw1", platform="cumulus", outputs={}))
    assert [p.kind for p in state.problems] == ["unparseable"]


# ---- `nv show qos roce -o json` -----------------------------------------------------------------

SHOW_JSON = """\
{
  "enable": "on",
  "mode": "lossless",
  "pfc": {"pfc-priority": "4", "rx-enabled": "enabled", "tx-enabled": "enabled"},
  "congestion-control": {
    "congestion-mode": "ECN",
    "enabled-tc": "3",
    "min-threshold": "146.48 KB",
    "max-threshold": "1.43 MB",
    "probability": 100
  },
  "trust": {"trust-mode": "dscp"},
  "prio-map": {"4": {"pcp": 4, "dscp": "26,34", "switch-prio": 4}},
  "tc-map": {"4": {"switch-prio": 4, "traffic-class": 3, "scheduler-weight": "DWRR-60%"}}
}
"""


def test_operational_roce_state_wins_over_the_configuration() -> None:
    state = run(nvue=ROCE, show=SHOW_JSON)
    res = resolve(state, "swp1", 26)
    assert (res.tc, res.priority, res.queue, res.lossless) == (4, 4, 3, True)
    assert res.trust is Trust.DSCP
    assert res.ecn is not None and res.ecn.min_raw == "146.48 KB"
    assert (res.ecn.min_bytes, res.ecn.max_bytes) == (149_996, 1_499_464)  # KB = 1024 B
    assert res.scheduler is not None and res.scheduler.weight == 60.0
    assert state.qos.sources["dscp_to_tc.26"].file == "roce.json"
    assert state.qos.sources["dscp_to_tc.26"].line == line_of(SHOW_JSON, '"switch-prio": 4')
    assert resolve(state, "swp1", 27).tc == 3  # rows the table does not list keep the defaults


def test_operational_state_alone_is_enough_to_resolve() -> None:
    state = run(show=SHOW_JSON)
    assert resolve(state, None, 26).lossless and state.interfaces == {}


def test_truncated_operational_json_is_unparseable() -> None:
    state = run(nvue=ROCE, show='{"mode": "lossless",\n "pfc": {')
    assert [(p.kind, p.source.line if p.source else None) for p in state.problems] == [
        ("unparseable", 2)
    ]
    assert resolve(state, "swp1", 26).lossless  # the configuration still stands


# ---- legacy traffic.conf ----------------------------------------------------------------------

TRAFFIC_CONF = """\
traffic.packet_priority_source_set = [802.1p,dscp]
traffic.port_default_priority = 1
traffic.cos_3.priority_source.dscp = [24-27]
traffic.cos_4.priority_source.dscp = [26]
traffic.cos_6.priority_source.dscp = [48]
traffic.cos_3.priority_source.8021p = [3]
traffic.packet_priority_remark_set = []
traffic.priority_group_list = [control, bulk]
priority_group.control.cos_list = [6]
priority_group.bulk.cos_list = [0,1,2,3,4,5,7]
priority_group.control.weight = 0
priority_group.bulk.weight = 16
priority_group.service.cos_list = [4]
pfc.port_group_list = [roce]
pfc.roce.cos_list = [3]
pfc.roce.port_set = swp1-swp4,swp50s0-swp50s1
pfc.roce.port_buffer_bytes = 50000
ecn.port_group_list = [everywhere]
ecn.everywhere.cos_list = [3]
ecn.everywhere.port_set = allports
ecn.everywhere.min_threshold_bytes = 150000
ecn.everywhere.max_threshold_bytes = 1500000
pfc_watchdog.port_group_list = [wd]
pfc_watchdog.wd.port_set = swp1
"""


def test_traffic_conf_maps_trust_and_conflicts() -> None:
    state = run(traffic=TRAFFIC_CONF)
    qos = state.qos
    assert qos.trust is Trust.BOTH
    dscp = qos.dscp_to_tc or {}
    assert (dscp[24], dscp[26], dscp[48], dscp[0]) == (3, 4, 6, 1)  # unmapped: default priority
    (conflict,) = qos.conflicts
    assert (conflict.map, conflict.key, conflict.values) == ("dscp_to_tc", 26, [3, 4])
    assert [s.line for s in conflict.sources] == [3, 4]
    assert (qos.pcp_to_tc or {})[3] == 3 and (qos.pcp_to_tc or {})[0] == 1
    assert [u.text for u in state.unparsed] == ["priority_group.service.cos_list = [4]"]


def test_traffic_conf_priority_group_weights_become_percents() -> None:
    queues = run(traffic=TRAFFIC_CONF).qos.queues or {}
    assert queues[6].scheduler is SchedulerMode.STRICT
    assert {queues[q].weight for q in (0, 1, 2, 3, 4, 5, 7)} == {14.28}  # 16/112 of the link
    assert sum(q.weight or 0 for q in queues.values()) <= 100


def test_traffic_conf_port_groups_apply_to_their_port_sets() -> None:
    state = run(traffic=TRAFFIC_CONF)
    ports = ["swp1", "swp2", "swp3", "swp4", "swp50s0", "swp50s1"]
    assert [p for p in state.interfaces if p.startswith("swp")] == ports
    swp1 = state.interfaces["swp1"].qos
    assert swp1 is not None and swp1.pfc is not None and swp1.pfc.priorities == [3]
    assert swp1.pfc.watchdog is not None and swp1.pfc.watchdog.enabled
    swp2 = state.interfaces["swp2"].qos
    assert swp2 is not None and swp2.pfc is not None and swp2.pfc.watchdog is None
    assert swp2.buffers is not None
    pg = swp2.buffers.priority_groups[3]
    # port_buffer_bytes written, xoff_size from the documented default (10000)
    assert (pg.headroom_bytes, pg.xoff_bytes) == (40_000, 10_000)
    assert pg.sources["xoff_bytes"].line is None
    # allports: device-wide ECN on the queue of cos 3
    res = resolve(state, "swp2", 24)
    assert res.lossless and res.ecn is not None and res.ecn.min_bytes == 150_000
    assert state.qos.pfc is None and not resolve(state, None, 24).lossless


# NVIDIA's traffic.conf PFC port group (Cumulus Linux 4.x "Buffer and Queue Management"), with the
# priority list emptied but pause generation and reception still switched on.
PFC_ON_NO_COS = """\
traffic.packet_priority_source_set = [dscp]
traffic.cos_3.priority_source.dscp = [26]
pfc.port_group_list = [pfc_port_group]
pfc.pfc_port_group.cos_list = []
pfc.pfc_port_group.port_set = swp1-swp4
pfc.pfc_port_group.port_buffer_bytes = 70000
pfc.pfc_port_group.xoff_size = 18000
pfc.pfc_port_group.xon_delta = 0
pfc.pfc_port_group.tx_enable = true
pfc.pfc_port_group.rx_enable = true
"""


@pytest.mark.parametrize(
    ("tx", "rx", "enabled"),
    [("true", "true", True), ("false", "true", True), ("false", "false", False)],
)
def test_traffic_conf_pfc_switched_on_with_an_empty_cos_list(
    tx: str, rx: str, enabled: bool
) -> None:
    text = PFC_ON_NO_COS.replace("tx_enable = true", f"tx_enable = {tx}")
    state = run(traffic=text.replace("rx_enable = true", f"rx_enable = {rx}"))
    qos = state.interfaces["swp1"].qos
    assert qos is not None and qos.pfc is not None
    assert (qos.pfc.enabled, qos.pfc.priorities) == (enabled, [])
    findings = run_case(Case("x", "PFC006", [state], []))
    assert [(f.object, f.source.line if f.source else None) for f in findings] == (
        [("pfc-profile pfc_port_group", 4)] if enabled else []
    )


def test_traffic_conf_group_names_must_match_the_list() -> None:
    text = TRAFFIC_CONF.replace("pfc.port_group_list = [roce]", "pfc.port_group_list = [ROCE]")
    state = run(traffic=text)
    assert ("pfc-profile", "ROCE") in {(r.kind, r.name) for r in state.references}
    assert ("pfc-profile", "roce") in {(d.kind, d.name) for d in state.definitions}
    assert "swp2" not in state.interfaces  # switchd ignores an unlisted group


def test_traffic_conf_repeated_key_and_junk() -> None:
    state = run(traffic=TRAFFIC_CONF + "traffic.cos_6.priority_source.dscp = [46]\nnot a setting\n")
    assert [(p.kind, p.source.line if p.source else 0) for p in state.problems] == [
        ("duplicate-key", 25)
    ]
    dscp = state.qos.dscp_to_tc or {}
    assert (dscp[46], dscp[48]) == (6, 1)  # the last assignment wins
    assert "not a setting" in [u.text for u in state.unparsed]


def test_traffic_conf_that_is_not_one_is_unparseable() -> None:
    state = run(traffic="<html>404</html>\n")
    assert [(p.kind, p.source.line if p.source else 0) for p in state.problems] == [
        ("unparseable", 1)
    ]


QOS_FEATURES = """\
traffic.packet_priority_source_set = [dscp]
traffic.cos_3.priority_source.dscp = [26]
traffic.cos_6.priority_source.dscp = [48]
default_ecn_red_conf.egress_queue_list = [3]
default_ecn_red_conf.ecn_enable = true
default_ecn_red_conf.red_enable = false
default_ecn_red_conf.min_threshold_bytes = 150000
default_ecn_red_conf.max_threshold_bytes = 1500000
default_ecn_red_conf.probability = 100
default_egress_sched.egr_queue_0.bw_percent = 50
default_egress_sched.egr_queue_3.bw_percent = 50
default_egress_sched.egr_queue_6.bw_percent = 0
egress_sched.port_group_list = [uplinks]
egress_sched.uplinks.port_set = swp31-swp32
egress_sched.uplinks.egr_queue_3.bw_percent = 70
egress_sched.uplinks.egr_queue_0.bw_percent = 30
source.port_group_list = [hosts]
source.hosts.packet_priority_source_set = [802.1p]
source.hosts.port_set = swp1
source.hosts.cos_3.priority_source.8021p = [3]
pfc.port_group_list = [default-global]
pfc.default-global.port_set = allports
pfc.default-global.cos_list = [3]
"""


def test_qos_features_conf_globals_and_groups() -> None:
    state = run(traffic=QOS_FEATURES)
    assert state.unparsed == []
    res = resolve(state, "swp2", 26)  # swp2 is named by no group: the global settings
    assert res.lossless and res.ecn is not None and res.ecn.max_bytes == 1_500_000
    assert res.scheduler is not None and res.scheduler.weight == 50.0
    cnp = resolve(state, None, 48)
    assert cnp.scheduler is not None and cnp.scheduler.scheduler is SchedulerMode.STRICT
    uplink = resolve(state, "swp31", 26)
    assert uplink.scheduler is not None and uplink.scheduler.weight == 70.0
    assert uplink.ecn is not None  # the group replaces the scheduler only
    host = state.interfaces["swp1"].qos
    assert host is not None and host.trust is Trust.PCP and (host.pcp_to_tc or {})[3] == 3
    assert "swp2" not in state.interfaces


# ---- NCLU ------------------------------------------------------------------------------------------

NCLU_TEXT = """\
net add hostname leaf9
net add bgp neighbor swp31 interface peer-group ISL
net add interface swp1-32,swp49 mtu 9216
net add interface swp50s0-3 mtu 9000
net add bridge bridge ports swp1,swp2
net add bond bond1 bond slaves swp3,swp4
net add vlan 10 ip address 10.0.0.1/24
net add roce lossless
net commit
"""


def test_nclu_mtu_ranges_membership_and_roce() -> None:
    state = run(nclu=NCLU_TEXT)
    ifaces = state.interfaces
    assert [ifaces[f"swp{n}"].mtu for n in (1, 16, 32, 49)] == [9216] * 4
    assert "swp33" not in ifaces
    assert [ifaces[f"swp50s{n}"].mtu for n in range(4)] == [9000] * 4
    assert ifaces["swp1"].sources["mtu"].line == 3
    assert (ifaces["swp1"].routed, ifaces["swp3"].routed, ifaces["swp31"].routed) == (
        False,
        None,
        True,
    )
    assert "vlan10" in ifaces and state.facts["hostname"] == "leaf9"
    assert resolve(state, "swp31", 26).lossless  # `net add roce lossless` defaults


def test_nclu_that_is_not_nclu_is_unparseable() -> None:
    state = run(nclu='{"swp1": {"mtu": 9216}}\n')
    assert [p.kind for p in state.problems] == ["unparseable"]


# ---- token helpers and the YAML readers ----------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("swp1-3", ["swp1", "swp2", "swp3"]),
        ("swp1-swp3,swp9", ["swp1", "swp2", "swp3", "swp9"]),
        ("swp50s0-swp50s2", ["swp50s0", "swp50s1", "swp50s2"]),
        ("swp1s2-3", ["swp1s2", "swp1s3"]),
        ("[swp1, swp3]", ["swp1", "swp3"]),
        ("peerlink.4094", ["peerlink.4094"]),
        ("swp3-1", None),
        ("swp1-bond4", None),
        ("swp1-999999", None),
    ],
)
def test_expand_ports(spec: str, expected: list[str] | None) -> None:
    assert expand_ports(spec) == expected


def test_number_lists_and_sizes() -> None:
    assert numbers("[0,1,2]") == [0, 1, 2] and numbers("0-3,7") == [0, 1, 2, 3, 7]
    assert numbers("[]") == [] and numbers("three") is None and numbers(3) == [3]
    assert parse_bytes("150000") == 150_000 and parse_bytes("40000 B") == 40_000
    assert parse_bytes("146.48 KB") == 149_996 and parse_bytes("2 furlongs") is None


def _tree(item: object) -> object:
    value = getattr(item, "value", None)
    line = getattr(item, "line", None)
    if isinstance(value, dict):
        return ("map", line, {k: _tree(v) for k, v in value.items()})
    if isinstance(value, list):
        return ("seq", line, [_tree(v) for v in value])
    return (repr(value), line)


TRICKY = """\
# comment
- header:
    version: 'Cumulus Linux 5.9.1'
- set:
    interface:
      swp1:
        ip:
          address:
            2001:db8::1/64: {}
            10.0.0.1/31: {}
        link:
          mtu: 9216
          mtu: 0x10
      "swp2":
        description: "a b"
        list:
        - one
        - two: 2
          three: ~
        empty: []
        flag: true
        on_word: on
        ratio: 1.5
      swp3:
"""


@pytest.mark.parametrize("name", ["roce_leaf", "per_port_profiles", "malformed_duplicates"])
def test_block_reader_matches_a_full_yaml_reader(name: str) -> None:
    text = (GOLDEN / name / "nv_config_show.yaml").read_text()
    _same_as_libyaml(text)


def test_block_reader_on_tricky_yaml() -> None:
    _same_as_libyaml(TRICKY)
    _same_as_libyaml(TRICKY.replace("\n", "\r\n"))
    item = load(TRICKY).root
    assert item is not None


def _same_as_libyaml(text: str) -> None:
    fast_dups: list[tuple[str, int, int]] = []
    fast = read_block(text, fast_dups)
    slow_dups: list[tuple[str, int, int]] = []
    node = _compose(text)
    slow = _convert(node, node.start_mark.line + 1, slow_dups, 0)
    assert _tree(fast) == _tree(slow)
    assert fast_dups == slow_dups


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}\n',
        "a: &x 1\nb: *x\n",
        "a: |\n  text\n",
        "a: 1 # trailing comment\n",
        "a: b\n  c\n",
        "a: 'it''s'\n",
        "---\na: 1\n",
    ],
)
def test_block_reader_leaves_other_yaml_to_libyaml(text: str) -> None:
    with pytest.raises(Unsupported):
        read_block(text, [])
    assert load(text).error is None or "c" in text  # libyaml reads (or rejects) it instead


# ---- robustness and purity -------------------------------------------------------------------------


def test_parse_is_pure_and_repeatable() -> None:
    raw = RawDevice(
        name="sw1",
        platform="cumulus",
        outputs={
            NVUE: RawOutput(text=PROFILES, file="nv.yaml"),
            TRAFFIC: RawOutput(text=TRAFFIC_CONF, file="t"),
        },
    )
    before = raw.model_dump()
    assert parse(raw).model_dump() == parse(raw).model_dump()
    assert raw.model_dump() == before


def test_random_garbage_never_raises() -> None:
    rng = random.Random(11)
    words = [
        *PROFILES.split(),
        *TRAFFIC_CONF.split(),
        "-",
        ":",
        "{}",
        "'",
        '"',
        "\t",
        "\x00",
        "net",
        "add",
    ]
    for _ in range(200):
        lines = [
            " " * rng.choice((0, 2, 4, 6, 8)) + " ".join(rng.choices(words, k=rng.randint(0, 6)))
            for _ in range(rng.randint(0, 30))
        ]
        text = "\n".join(lines)
        state = run(nvue=text, show=text, traffic=text, nclu=text)
        assert not [p for p in state.problems if "parser failed" in p.message]


def test_huge_inputs_stay_linear() -> None:
    nvue = "- set:\n    interface:\n" + "".join(
        f"      swp{n}:\n        link:\n          mtu: 9216\n" for n in range(1, 4001)
    )
    traffic = "traffic.cos_0.priority_source.dscp = [" + ",".join(["0"] * 200_000) + "]\n"
    state = run(nvue=nvue, traffic=traffic)
    assert len(state.interfaces) == 4000 and (state.qos.dscp_to_tc or {})[0] == 0


# ---- NVIDIA's stock `qos roce` against a DSCP intent ---------------------------------------------

# `nv set qos roce` with nothing else, and what `nv show qos roce -o json` prints for it: the RoCE
# chapter's "Default RoCE Configuration" (trust pcp,dscp; PFC and ECN on switch priority 3; CNP on
# 6 strict).
STOCK_ROCE_SHOW = """\
{
  "enable": "on",
  "mode": "lossless",
  "pfc": {"pfc-priority": "3", "rx-enabled": "enabled", "tx-enabled": "enabled"},
  "congestion-control": {
    "congestion-mode": "ECN",
    "enabled-tc": "0,3",
    "min-threshold": 150000,
    "max-threshold": 1500000,
    "probability": 100
  },
  "trust": {"trust-mode": "pcp,dscp"}
}
"""

STOCK_INTENT = {
    "profiles": {
        "roce": {
            "trust": "dscp",
            "roce": {"dscp": [26], "priority": 3},
            "cnp": {"dscp": 48, "priority": 6, "strict": True},
            "pfc": {"priorities": [3]},
            "ecn": {"min_bytes": 150000, "max_bytes": 1500000, "probability_pct": 100},
            "scheduler": {3: {"mode": "dwrr", "weight": 50}, 6: {"mode": "strict"}},
            "mtu": {"switch_port": 9216},
        }
    },
    "roles": {"leaf": {"profile": "roce"}},
}


def stock_leaf(name: str) -> DeviceState:
    """A Cumulus 5.x leaf with NVIDIA's stock `qos roce` and routed RDMA ports swp1, swp2."""
    state = run(nvue=ROCE, show=STOCK_ROCE_SHOW)
    state.name = name
    return state


@pytest.mark.parametrize("code", ["DRIFT001", "QOS001", "PFC002", "ECN001", "QOS004"])
def test_stock_qos_roce_checks_clean_against_a_dscp_intent(code: str) -> None:
    leaves = [stock_leaf("leaf01"), stock_leaf("leaf02")]
    assert resolve(leaves[0], "swp1", 26).lossless
    assert leaves[0].qos.trust is Trust.BOTH
    links = [("leaf01:swp1", "leaf02:swp1"), ("leaf01:swp2", "leaf02:swp2")]
    case = Case("stock", code, leaves, [], links=links, intent=STOCK_INTENT)
    assert [f.message for f in run_case(case)] == []


def test_trust_pcp_still_drifts_from_a_dscp_intent() -> None:
    leaves = [stock_leaf("leaf01"), stock_leaf("leaf02")]
    leaves[0].qos.trust = Trust.PCP
    links = [("leaf01:swp1", "leaf02:swp1")]
    case = Case("pcp", "DRIFT001", leaves, [], links=links, intent=STOCK_INTENT)
    assert [(f.device, f.actual) for f in run_case(case)] == [("leaf01", "pcp")]
