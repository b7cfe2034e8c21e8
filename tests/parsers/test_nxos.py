"""Focused tests of the Cisco NX-OS parser: the qos-group chain, PFC, watchdog, units, defaults."""

from __future__ import annotations

import random
from textwrap import dedent

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.resolve import resolve
from fabriclint.models.state import DeviceState, SchedulerMode, Trust
from fabriclint.parsers.nxos import parse
from fabriclint.parsers.nxos.tokens import interface_names, parse_values
from tests.rules.harness import Case, found

RC = "rc.txt"
SI = "si.txt"

ROCE = """\
version 10.3(4a)
hostname leaf01
priority-flow-control watch-dog-interval on
class-map type qos match-any ROCE
  match dscp 26
class-map type qos match-any CNP
  match dscp 48
policy-map type qos CLASSIFY
  class ROCE
    set qos-group 3
  class CNP
    set qos-group 6
policy-map type queuing EGRESS
  class type queuing c-out-8q-q6
    priority level 1
  class type queuing c-out-8q-q3
    bandwidth remaining percent 60
    random-detect minimum-threshold 150 kbytes maximum-threshold 1500 kbytes drop-probability 7 weight 0 ecn
  class type queuing c-out-8q-q-default
    bandwidth remaining percent 40
policy-map type network-qos NQ
  class type network-qos c-8q-nq3
    mtu 9216
    pause pfc-cos 3
  class type network-qos c-8q-nq-default
    mtu 9216
system qos
  service-policy type network-qos NQ
  service-policy type queuing output EGRESS
"""

PORT = """\
interface Ethernet1/1
  no switchport
  mtu 9216
  priority-flow-control mode on
  service-policy type qos input CLASSIFY
"""


def run(config: str | None, show: str | None = None) -> DeviceState:
    outputs = {}
    if config is not None:
        outputs["show running-config"] = RawOutput(text=dedent(config), file=RC)
    if show is not None:
        outputs["show interface"] = RawOutput(text=dedent(show), file=SI)
    return parse(RawDevice(name="sw1", platform="nxos", outputs=outputs))


def line_of(config: str, text: str) -> int:
    """1-based line number of the first line of `config` that contains `text`."""
    lines = dedent(config).splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line)


def unparsed(state: DeviceState) -> dict[int, str]:
    return {u.source.line: u.reason for u in state.unparsed if u.source and u.source.line}


# ---- resolve end to end ------------------------------------------------------------------------


def test_resolve_roce_and_cnp_through_qos_group_chain() -> None:
    config = ROCE + PORT
    state = run(config)
    res = resolve(state, "Ethernet1/1", 26)
    assert (res.trust, res.tc, res.queue, res.priority, res.lossless) == (Trust.DSCP, 3, 3, 3, True)
    assert res.ecn is not None and (res.ecn.min_bytes, res.ecn.max_bytes) == (150_000, 1_500_000)
    assert res.ecn.probability_pct == 7.0
    assert res.scheduler is not None and res.scheduler.scheduler is SchedulerMode.DWRR
    assert res.scheduler.weight == 60.0 and res.scheduler.mtu == 9216
    cited = [s.line for s in res.sources]
    assert cited == [
        line_of(config, "set qos-group 3"),
        line_of(config, "pause pfc-cos 3"),
        line_of(config, "priority-flow-control mode on"),
    ]
    cnp = resolve(state, "Ethernet1/1", 48)
    assert (cnp.tc, cnp.queue, cnp.priority, cnp.lossless) == (6, 6, 6, False)
    assert cnp.scheduler is not None and cnp.scheduler.scheduler is SchedulerMode.STRICT
    other = resolve(state, "Ethernet1/1", 10)  # unmatched: class-default, qos-group 0
    assert (other.tc, other.queue, other.lossless) == (0, 0, False)


def test_no_type_qos_policy_puts_everything_in_qos_group_0() -> None:
    state = run(ROCE + "interface Ethernet1/1\n  priority-flow-control mode on\n")
    qos = state.qos
    assert qos.trust is Trust.NONE and qos.sources["trust"].line is None
    assert set((qos.dscp_to_tc or {}).values()) == {0} and len(qos.dscp_to_tc or {}) == 64
    assert set((qos.pcp_to_tc or {}).values()) == {0}
    res = resolve(state, "Ethernet1/1", 26)
    assert (res.tc, res.priority, res.lossless) == (0, 0, False)


def test_system_qos_input_policy_is_device_wide_and_same_policy_on_port_inherits() -> None:
    config = ROCE + "  service-policy type qos input CLASSIFY\n" + PORT
    state = run(config)
    assert state.qos.trust is Trust.DSCP and (state.qos.dscp_to_tc or {})[26] == 3
    assert state.qos.sources["trust"].line == line_of(config, "type qos input CLASSIFY")
    port = state.interfaces["Ethernet1/1"].qos
    assert port is not None and port.trust is None and port.dscp_to_tc is None  # inherited
    assert state.interfaces["Ethernet1/1"].profiles == ["CLASSIFY"]
    assert resolve(state, "Ethernet1/1", 26).lossless


def test_first_matching_class_wins_and_the_conflict_is_kept_with_its_lines() -> None:
    config = """\
    class-map type qos match-any A
      match dscp 24-26,af41
    class-map type qos match-any B
      match dscp 26 cs6
    policy-map type qos P
      class A
        set qos-group 3
      class B
        set qos-group 5
      class class-default
        set qos-group 1
    system qos
      service-policy type qos input P
    """
    state = run(config)
    dscp = state.qos.dscp_to_tc or {}
    assert (dscp[24], dscp[26], dscp[34], dscp[48], dscp[0]) == (3, 3, 3, 5, 1)
    assert state.qos.sources["dscp_to_tc.0"].line == line_of(config, "set qos-group 1")
    (conflict,) = state.qos.conflicts
    assert (conflict.map, conflict.key, conflict.values) == ("dscp_to_tc", 26, [3, 5])
    assert [s.line for s in conflict.sources] == [
        line_of(config, "set qos-group 3"),
        line_of(config, "set qos-group 5"),
    ]


def test_cos_policy_on_port_trusts_pcp_and_does_not_inherit_the_system_dscp_map() -> None:
    config = (
        ROCE
        + "  service-policy type qos input CLASSIFY\n"
        + """\
class-map type qos match-all RDMA_COS
  match cos 3
policy-map type qos BY_COS
  class RDMA_COS
    set qos-group 3
interface Ethernet1/5
  switchport
  priority-flow-control mode on
  service-policy type qos input BY_COS
"""
    )
    state = run(config)
    qos = state.interfaces["Ethernet1/5"].qos
    assert qos is not None and qos.trust is Trust.PCP
    assert qos.dscp_to_tc == {} and (qos.pcp_to_tc or {})[3] == 3 and (qos.pcp_to_tc or {})[5] == 0
    res = resolve(state, "Ethernet1/5", 26)
    assert res.tc is None and not res.lossless  # the DSCP does not classify on this port
    assert qos.sources["dscp_to_tc.26"].line == line_of(config, "policy-map type qos BY_COS")


# ---- PFC ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "enabled"),
    [
        ("priority-flow-control mode on", True),
        ("priority-flow-control mode on send-tlv", True),
        ("priority-flow-control mode auto", False),
        ("priority-flow-control mode off", False),
        ("no priority-flow-control mode on", False),
    ],
)
def test_pfc_mode_per_port(line: str, enabled: bool) -> None:
    config = ROCE + f"interface Ethernet1/1\n  {line}\n"
    state = run(config)
    qos = state.interfaces["Ethernet1/1"].qos
    assert qos is not None and qos.pfc is not None
    assert (qos.pfc.enabled, qos.pfc.priorities) == (enabled, [3])
    assert qos.pfc.sources["enabled"].line == line_of(config, line)
    assert resolve(state, "Ethernet1/1", 26).lossless is False  # no classification here


def test_port_without_pfc_line_inherits_the_default_auto_which_is_not_lossless() -> None:
    state = run(ROCE + "interface Ethernet1/2\n  service-policy type qos input CLASSIFY\n")
    device = state.qos.pfc
    assert device is not None and not device.enabled and device.priorities == [3]
    assert device.sources["enabled"].line is None
    assert not resolve(state, "Ethernet1/2", 26).lossless


def test_pfc_on_without_a_no_drop_class_has_no_priority() -> None:
    state = run("interface Ethernet1/1\n  priority-flow-control mode on\n")
    qos = state.interfaces["Ethernet1/1"].qos
    assert qos is not None and qos.pfc is not None
    assert (qos.pfc.enabled, qos.pfc.priorities) == (True, [])


def test_pause_no_drop_takes_the_cos_of_the_classes_that_feed_the_qos_group() -> None:
    config = """\
    version 6.0(2)U6(1)
    class-map type qos match-all RDMA
      match cos 3
    policy-map type qos MARK
      class RDMA
        set qos-group 3
    class-map type network-qos RDMA
      match qos-group 3
    class-map type network-qos LONELY
      match qos-group 5
    policy-map type network-qos NQ
      class type network-qos RDMA
        mtu 2240
        pause no-drop
      class type network-qos LONELY
        pause no-drop
      class type network-qos class-default
        mtu 9216
    system qos
      service-policy type qos input MARK
      service-policy type network-qos NQ
    interface Ethernet1/3/1
      priority-flow-control mode on
    """
    state = run(config)
    assert state.qos.tc_to_priority == {3: 3, 5: 5}
    assert state.qos.pfc is not None and state.qos.pfc.priorities == [3, 5]
    reason = unparsed(state)[line_of(config, "pause no-drop") + 2]
    assert "qos-group 5" in reason and "taken as 5" in reason
    queues = state.qos.queues or {}
    assert (queues[3].mtu, queues[0].mtu) == (2240, 9216)
    # Nexus 3000 release: the switchport takes the class-default MTU of the network-qos policy.
    eth = state.interfaces["Ethernet1/3/1"]
    assert eth.mtu == 9216 and eth.sources["mtu"].line == line_of(config, "mtu 9216")


def test_pfc_cos_different_from_qos_group_maps_tc_to_priority() -> None:
    config = ROCE.replace("pause pfc-cos 3", "pause pfc-cos 4") + PORT
    state = run(config)
    assert state.qos.tc_to_priority == {3: 4}
    res = resolve(state, "Ethernet1/1", 26)
    assert (res.tc, res.queue, res.priority, res.lossless) == (3, 3, 4, True)


# ---- watchdog ----------------------------------------------------------------------------------


def test_watchdog_global_on_with_default_timers_and_port_off_override() -> None:
    config = (
        ROCE
        + PORT
        + "interface Ethernet1/2\n  priority-flow-control mode on\n"
        + "  priority-flow-control watch-dog-interval off\n"
    )
    state = run(config)
    on = state.interfaces["Ethernet1/1"].qos
    off = state.interfaces["Ethernet1/2"].qos
    assert on is not None and on.pfc is not None and on.pfc.watchdog is not None
    dog = on.pfc.watchdog
    assert (dog.enabled, dog.detection_ms, dog.restoration_ms, dog.action) == (
        True,
        100.0,
        1000.0,
        "drop",
    )
    assert dog.sources["enabled"].line == line_of(config, "watch-dog-interval on")
    assert dog.sources["detection_ms"].line is None  # platform default
    assert off is not None and off.pfc is not None and off.pfc.watchdog is not None
    assert off.pfc.watchdog.enabled is False
    assert off.pfc.watchdog.sources["enabled"].line == line_of(config, "watch-dog-interval off")


@pytest.mark.parametrize(
    ("timers", "expected"),
    [
        ("priority-flow-control watch-dog interval 200\n", (200.0, 2000.0)),
        (
            "priority-flow-control watch-dog interval 200\n"
            "priority-flow-control watch-dog shutdown-multiplier 3\n"
            "priority-flow-control auto-restore multiplier 5\n",
            (600.0, 1000.0),
        ),
        (
            "priority-flow-control auto-restore multiplier 5\n"
            "priority-flow-control fixed-restore multiplier 20\n",
            (100.0, 2000.0),
        ),
    ],
)
def test_watchdog_timers_are_interval_times_multipliers(
    timers: str, expected: tuple[float, float]
) -> None:
    state = run(timers + "interface Ethernet1/1\n  priority-flow-control watch-dog-interval on\n")
    qos = state.interfaces["Ethernet1/1"].qos
    assert qos is not None and qos.pfc is not None and qos.pfc.watchdog is not None
    assert (qos.pfc.watchdog.detection_ms, qos.pfc.watchdog.restoration_ms) == expected
    assert qos.pfc.watchdog.enabled
    assert state.qos.pfc is not None and state.qos.pfc.watchdog is not None
    assert not state.qos.pfc.watchdog.enabled  # not turned on globally


def test_no_watchdog_configured_means_none() -> None:
    state = run(ROCE.replace("priority-flow-control watch-dog-interval on\n", "") + PORT)
    qos = state.interfaces["Ethernet1/1"].qos
    assert qos is not None and qos.pfc is not None and qos.pfc.watchdog is None


# ---- queues, ECN units, buffers ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("minimum-threshold 150 kbytes maximum-threshold 1500 kbytes", (150_000, 1_500_000)),
        ("minimum-threshold 100000 bytes maximum-threshold 2 mbytes", (100_000, 2_000_000)),
        ("minimum-threshold 1.5 mbytes maximum-threshold 3 mbytes", (1_500_000, 3_000_000)),
    ],
)
def test_ecn_threshold_units(line: str, expected: tuple[int, int]) -> None:
    config = ROCE.replace("minimum-threshold 150 kbytes maximum-threshold 1500 kbytes", line)
    queue = (run(config).qos.queues or {})[3]
    assert queue.ecn is not None and (queue.ecn.min_bytes, queue.ecn.max_bytes) == expected
    assert not queue.wred_drop


def test_unknown_unit_is_reported_and_wred_without_ecn_is_drop() -> None:
    config = """\
    policy-map type queuing Q
      class type queuing c-out-8q-q3
        random-detect minimum-threshold 10 furlongs maximum-threshold 20 furlongs ecn
      class type queuing c-out-8q-q-default
        random-detect minimum-threshold 50 kbytes maximum-threshold 500 kbytes drop-probability 10 weight 0
      class type queuing c-out-8q-q4
        random-detect threshold burst-optimized ecn
      class type queuing c-out-8q-q5
        afd queue-desired 600 kbytes ecn
    system qos
      service-policy type queuing output Q
    """
    state = run(config)
    queues = state.qos.queues or {}
    assert queues[3].ecn is None and "random-detect form" in unparsed(state)[3]
    assert queues[0].wred_drop and queues[0].ecn is None
    assert queues[0].sources["wred_drop"].line == 5
    assert queues[4].ecn is not None and queues[4].ecn.min_raw == "burst-optimized"
    assert queues[4].ecn.min_bytes is None
    assert queues[5].ecn is not None and queues[5].ecn.min_raw == "afd queue-desired 600 kbytes"


def test_port_queuing_policy_replaces_queues_but_keeps_network_qos_mtu() -> None:
    config = (
        ROCE
        + """\
policy-map type queuing OTHER
  class type queuing c-out-8q-q3
    bandwidth percent 80
interface Ethernet1/7
  service-policy type queuing output OTHER
interface Ethernet1/8
  service-policy type queuing output NOT_DEFINED
"""
    )
    state = run(config)
    qos = state.interfaces["Ethernet1/7"].qos
    assert qos is not None and qos.queues is not None
    assert (qos.queues[3].weight, qos.queues[3].ecn, qos.queues[3].mtu) == (80.0, None, 9216)
    assert state.interfaces["Ethernet1/8"].qos is None  # an undefined policy is not applied
    assert state.interfaces["Ethernet1/8"].profiles == ["NOT_DEFINED"]


def test_input_pause_buffer_gives_headroom_xoff_xon_per_qos_group() -> None:
    config = """\
    class-map type queuing RDMA
      match qos-group 3
    policy-map type queuing IN
      class type queuing RDMA
        pause buffer-size 101920 pause-threshold 46800 resume-threshold 34320
    interface Ethernet1/1
      service-policy type queuing input IN
    """
    qos = run(config).interfaces["Ethernet1/1"].qos
    assert qos is not None and qos.buffers is not None and qos.tc_to_pg is not None
    pg = qos.buffers.priority_groups[3]
    assert (pg.headroom_bytes, pg.xoff_bytes, pg.xon_bytes) == (55_120, 46_800, 34_320)
    assert qos.tc_to_pg[3] == 3 and pg.sources["xoff_bytes"].line == 5


# ---- interfaces --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ethernet1/1", ["Ethernet1/1"]),
        ("Ethernet 1/1-1/3", ["Ethernet1/1", "Ethernet1/2", "Ethernet1/3"]),
        ("eth1/1-2, Eth1/9", ["Ethernet1/1", "Ethernet1/2", "Ethernet1/9"]),
        ("Ethernet1/3/1-2", ["Ethernet1/3/1", "Ethernet1/3/2"]),
        ("vlan6", ["Vlan6"]),
        ("port-channel12.548", ["port-channel12.548"]),
        ("po20", ["port-channel20"]),
        ("Ethernet1/1-1/9999", None),
        ("Ethernet1/1-2/4", None),
    ],
)
def test_interface_names_and_ranges(text: str, expected: list[str] | None) -> None:
    assert interface_names(text) == expected


def test_parse_values_lists_ranges_and_names() -> None:
    assert parse_values(["24-26,af41", "cs6", "ef"], {"af41": 34, "cs6": 48, "ef": 46}) == [
        24,
        25,
        26,
        34,
        48,
        46,
    ]
    assert parse_values(["twenty"]) is None


def test_range_blocks_apply_to_every_port_and_later_blocks_override() -> None:
    config = ROCE + (
        "interface Ethernet1/1-3\n  mtu 9216\n  priority-flow-control mode on\n  shutdown\n"
        "interface Ethernet1/2\n  priority-flow-control mode off\n  no shutdown\n"
    )
    state = run(config)
    one, two, three = (state.interfaces[f"Ethernet1/{n}"] for n in (1, 2, 3))
    assert (one.mtu, one.admin_up, two.admin_up, three.mtu) == (9216, False, True, 9216)
    assert one.qos is three.qos  # one range block: one shared object
    assert two.qos is not None and two.qos.pfc is not None and not two.qos.pfc.enabled


def test_port_channel_members_follow_the_port_channel() -> None:
    config = ROCE + (
        "interface port-channel20\n  no switchport\n  mtu 9216\n  priority-flow-control mode on\n"
        "  service-policy type qos input CLASSIFY\n"
        "interface Ethernet1/20\n  channel-group 20 mode active\n"
    )
    state = run(config)
    member = state.interfaces["Ethernet1/20"]
    assert (member.mtu, member.routed, member.profiles) == (9216, True, ["CLASSIFY"])
    assert resolve(state, "Ethernet1/20", 26).lossless


def test_mtu_defaults_and_operational_value_wins() -> None:
    config = "interface Ethernet1/1\n  mtu 9216\ninterface Ethernet1/2\ninterface Vlan10\n"
    show = """\
    Ethernet1/1 is up
    admin state is up, Dedicated Interface
      MTU 1500 bytes, BW 100000000 Kbit , DLY 10 usec
      Port mode is routed
    """
    state = run(config, show)
    one = state.interfaces["Ethernet1/1"]
    assert (one.mtu, one.sources["mtu"].file, one.speed_mbps, one.routed) == (
        1500,
        SI,
        100_000,
        True,
    )
    assert "operational MTU 1500" in unparsed(state)[2]
    two = state.interfaces["Ethernet1/2"]
    assert (two.mtu, two.sources["mtu"].line, two.admin_up) == (1500, None, True)
    assert state.interfaces["Vlan10"].admin_up is False  # SVIs are created shut down


def test_system_default_switchport_settings() -> None:
    config = (
        "no system default switchport\nsystem default switchport shutdown\n"
        "interface Ethernet1/1\ninterface Ethernet1/2\n  switchport\n"
    )
    state = run(config)
    one, two = state.interfaces["Ethernet1/1"], state.interfaces["Ethernet1/2"]
    assert (one.routed, one.admin_up, one.sources["routed"].line) == (True, True, 1)
    assert (two.routed, two.admin_up, two.sources["admin_up"].line) == (False, False, 2)


# ---- reporting, references, robustness --------------------------------------------------------


def test_unmodeled_qos_lines_are_reported_and_others_ignored() -> None:
    config = """\
    hardware qos ns-buffer-profile mesh
    logging level ipqosmgr 7
    policy-map type qos P
      class class-default
        set dscp 10
    control-plane
      service-policy input copp-system-policy
    interface Ethernet1/1
      description priority ports
      bandwidth 10000000
      flowcontrol receive on
      priority-flow-control priority 3 no-drop
      hsrp 10
        priority 150
    """
    assert set(unparsed(run(config))) == {1, 5, 11, 12}


def test_definitions_references_and_predefined_system_classes() -> None:
    state = run(ROCE + PORT + "policy-map type queuing UNUSED\n")
    defined = {(d.kind, d.name) for d in state.definitions}
    used = {(r.kind, r.name) for r in state.references}
    assert ("network-qos-policy-map", "NQ") in defined & used
    assert ("queuing-class", "c-out-8q-q3") in used - defined  # predefined by NX-OS
    assert ("queuing-policy-map", "UNUSED") in defined - used
    state.role = "leaf"
    assert found(Case("refs", "QOS005", [state], [])) == []
    assert found(Case("unused", "QOS006", [state], [])) == [("sw1", "queuing-policy-map UNUSED")]


def test_undefined_network_qos_class_is_reported_and_not_applied() -> None:
    config = """\
    policy-map type network-qos NQ
      class type network-qos MY_RDMA
        pause pfc-cos 3
        mtu 9216
    system qos
      service-policy type network-qos NQ
    """
    state = run(config)
    assert state.qos.pfc is None and state.qos.queues is None
    assert "MY_RDMA is not defined" in unparsed(state)[2]
    state.role = "leaf"
    assert found(Case("dangling", "QOS005", [state], [])) == [("sw1", "network-qos-class MY_RDMA")]


def test_version_hostname_and_banner() -> None:
    config = "version 9.3(12) Bios:version 05.47\nbanner motd #\nhostname evil\n#\nhostname leaf9\n"
    state = run(config)
    assert (state.os_version, state.facts, state.sources["os_version"].line) == (
        "9.3(12)",
        {"hostname": "leaf9"},
        1,
    )


def test_missing_and_empty_running_config_are_unparseable() -> None:
    (problem,) = run(None, "Ethernet1/1 is up\n  MTU 9216 bytes, BW 1000 Kbit\n").problems
    assert problem.kind == "unparseable" and "no 'show running-config'" in problem.message
    (empty,) = run("\n\n").problems
    assert empty.kind == "unparseable" and empty.source is not None


@pytest.mark.parametrize(
    ("text", "line", "why"),
    [
        ('{"PORT_QOS_MAP": {}}\n', 1, "JSON"),
        ("\n# README\nThis is not a switch config.\n", 2, "no line"),
        ("! Command: show running-config\n! device: sw (DCS-7050, EOS-4.30.1F)\n", 2, "EOS"),
        ("\x00\x01 binary \xff\n", 1, "no line"),
    ],
)
def test_text_that_is_not_nxos_is_unparseable_at_a_line(text: str, line: int, why: str) -> None:
    state = run(text)
    (problem,) = state.problems
    assert problem.kind == "unparseable" and problem.source is not None
    assert problem.source.line == line and why in problem.message
    assert not state.interfaces and not state.unparsed


def test_show_interface_junk_is_unparseable() -> None:
    state = run("hostname sw1\n", "% Invalid command at '^' marker.\n")
    assert [(p.kind, p.source.file if p.source else None) for p in state.problems] == [
        ("unparseable", SI)
    ]


def test_crlf_input_parses_like_lf() -> None:
    config = ROCE + PORT
    show = "Ethernet1/1 is up\nadmin state is up,\n  MTU 9216 bytes, BW 1000 Kbit\n"
    crlf = run(config.replace("\n", "\r\n"), show.replace("\n", "\r\n"))
    assert crlf.model_dump() == run(config, show).model_dump()


def test_parse_is_pure_and_repeatable() -> None:
    raw = RawDevice(
        name="sw1", platform="nxos", outputs={"show running-config": RawOutput(text=ROCE, file=RC)}
    )
    before = raw.model_dump()
    assert parse(raw).model_dump() == parse(raw).model_dump()
    assert raw.model_dump() == before


def test_random_garbage_never_raises() -> None:
    rng = random.Random(11)
    words = [*(ROCE + PORT).split(), "interface", "class", "banner", "#", "-", ",", "\t", "é"]
    for _ in range(300):
        lines = [
            " " * rng.choice((0, 0, 2, 4, 6)) + " ".join(rng.choices(words, k=rng.randint(0, 8)))
            for _ in range(rng.randint(0, 40))
        ]
        state = run("\n".join(lines), "\n".join(lines))
        assert not [p for p in state.problems if "parser failed" in p.message]


def test_huge_lines_stay_linear() -> None:
    config = (
        "class-map type qos match-any A\n  match dscp " + "1," * 100_000 + "2\n"
        "policy-map type qos P\n  class A\n    set qos-group 3\n"
        "system qos\n  service-policy type qos input P\n" + "x" * 1_000_000 + "\n"
    )
    show = "  MTU " * 200_000
    state = run(config, show)
    assert (state.qos.dscp_to_tc or {})[1] == 3
