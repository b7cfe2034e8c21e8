"""Focused tests of the Arista EOS parser: units, overrides, defaults, reporting, robustness."""

from __future__ import annotations

import random
from textwrap import dedent

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.resolve import resolve
from fabriclint.models.state import DeviceState, SchedulerMode, Trust
from fabriclint.parsers.eos import parse
from fabriclint.parsers.eos.nested import parse_ecn
from fabriclint.parsers.eos.tokens import speed_mbps, time_bytes

RC = "rc.txt"
SI = "si.txt"

PROFILE = """\
qos map dscp 26 to traffic-class 3
qos map dscp 48 to traffic-class 6
!
qos profile ROCE
   qos trust dscp
   !
   tx-queue 3
      no priority
      bandwidth percent 50
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 20
   !
   tx-queue 6
      priority strict
   !
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   priority-flow-control pause watchdog
!
"""


def run(config: str | None, show: str | None = None) -> DeviceState:
    outputs = {}
    if config is not None:
        outputs["show running-config"] = RawOutput(text=dedent(config), file=RC)
    if show is not None:
        outputs["show interfaces"] = RawOutput(text=dedent(show), file=SI)
    return parse(RawDevice(name="sw1", platform="eos", outputs=outputs))


def line_of(config: str, text: str) -> int:
    """1-based line number of the first line of `config` that contains `text`."""
    lines = dedent(config).splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line)


# ---- resolve end to end ------------------------------------------------------------------------


def test_resolve_roce_dscp_on_profiled_port() -> None:
    config = PROFILE + "interface Ethernet1\n   no switchport\n   service-profile ROCE\n!\n"
    state = run(config)
    res = resolve(state, "Ethernet1", 26)
    assert (res.tc, res.queue, res.priority, res.lossless) == (3, 3, 3, True)
    assert res.trust is Trust.DSCP
    assert res.ecn is not None and (res.ecn.min_bytes, res.ecn.max_bytes) == (150_000, 1_500_000)
    assert res.scheduler is not None and res.scheduler.scheduler is SchedulerMode.DWRR
    cnp = resolve(state, "Ethernet1", 48)
    assert cnp.tc == 6 and not cnp.lossless
    assert cnp.scheduler is not None and cnp.scheduler.scheduler is SchedulerMode.STRICT
    # The chain cites the map line and the PFC line.
    cited = [s.line for s in res.sources]
    assert line_of(config, "qos map dscp 26") in cited
    assert line_of(config, "priority-flow-control on") in cited


def test_default_dscp_and_cos_tables_fill_unmapped_values() -> None:
    state = run("qos map dscp 26 to traffic-class 3\n")
    dscp, cos = state.qos.dscp_to_tc or {}, state.qos.pcp_to_tc or {}
    assert len(dscp) == 64 and len(cos) == 8
    assert (dscp[0], dscp[8], dscp[46], dscp[48], dscp[26]) == (1, 0, 5, 6, 3)
    assert (cos[0], cos[1], cos[3]) == (1, 0, 3)
    assert state.qos.sources["dscp_to_tc.46"].line is None
    assert state.qos.sources["dscp_to_tc.26"].line == 1


# ---- units -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [
        ("150 kbytes", "1500 kbytes", (150_000, 1_500_000)),
        ("1 mbytes", "3 mbytes", (1_000_000, 3_000_000)),
        ("64000 bytes", "128000 bytes", (64_000, 128_000)),
        ("100 segments", "500 segments", (None, None)),
        ("3 milliseconds", "9 milliseconds", (None, None)),
    ],
)
def test_ecn_threshold_units(low: str, high: str, expected: tuple[int | None, ...]) -> None:
    words = f"minimum-threshold {low} maximum-threshold {high} max-mark-probability 7".split()
    ecn = parse_ecn(words)
    assert ecn is not None
    assert (ecn.min_bytes, ecn.max_bytes) == expected
    assert (ecn.min_raw, ecn.max_raw, ecn.probability_pct) == (low, high, 7.0)


def test_unknown_threshold_unit_is_reported_not_guessed() -> None:
    words = ["minimum-threshold", "1", "furlongs", "maximum-threshold", "2", "furlongs"]
    assert parse_ecn(words) is None


def test_time_thresholds_convert_at_each_port_speed() -> None:
    config = """\
    qos profile T
       uc-tx-queue 1
          random-detect ecn minimum-threshold 50 microseconds maximum-threshold 2 milliseconds
    !
    interface Ethernet1
       speed forced 100gfull
       service-profile T
    !
    interface Ethernet2
       service-profile T
    !
    interface Ethernet3
       service-profile T
    !
    """
    show = """\
    Ethernet2 is up, line protocol is up (connected)
      Ethernet MTU 9214 bytes, BW 25000000 kbit
    """
    state = run(config, show)

    def ecn_of(port: str) -> tuple[int | None, int | None, str | None]:
        qos = state.interfaces[port].qos
        assert qos is not None and qos.queues is not None
        ecn = qos.queues[1].ecn
        assert ecn is not None
        return ecn.min_bytes, ecn.max_bytes, ecn.min_raw

    assert ecn_of("Ethernet1") == (625_000, 25_000_000, "50 microseconds")
    assert ecn_of("Ethernet2") == (156_250, 6_250_000, "50 microseconds")
    assert ecn_of("Ethernet3") == (None, None, "50 microseconds")  # speed unknown: raw only


def test_time_bytes_and_speed_words() -> None:
    assert time_bytes("1 milliseconds", 400_000) == 50_000_000
    assert time_bytes("3 segments", 400_000) is None
    assert speed_mbps(["forced", "100gfull"]) == 100_000
    assert speed_mbps(["400g-8"]) == 400_000
    assert speed_mbps(["auto"]) is None
    assert speed_mbps(["forced", "10000full"]) == 10_000


def test_watchdog_seconds_become_milliseconds() -> None:
    config = PROFILE + (
        "priority-flow-control pause watchdog default timeout 0.05\n"
        "priority-flow-control pause watchdog default recovery-time 1.22\n"
        "interface Ethernet1\n   service-profile ROCE\n!\n"
    )
    qos = run(config).interfaces["Ethernet1"].qos
    assert qos is not None and qos.pfc is not None and qos.pfc.watchdog is not None
    dog = qos.pfc.watchdog
    assert (dog.enabled, dog.detection_ms, dog.restoration_ms) == (True, 50.0, 1220.0)
    assert dog.action == "errdisable" and dog.sources["action"].line is None


# ---- profiles and overrides --------------------------------------------------------------------


def test_interface_settings_override_profile_field_by_field() -> None:
    config = PROFILE + dedent(
        """\
        interface Ethernet1
           no switchport
           service-profile ROCE
           qos trust cos
           priority-flow-control priority 3 drop
           priority-flow-control priority 4 no-drop
           priority-flow-control pause watchdog port timer timeout 0.1 polling-interval auto recovery-time 0.4
           !
           tx-queue 3
              random-detect ecn minimum-threshold 100 kbytes maximum-threshold 200 kbytes
        !
        """
    )
    state = run(config)
    iface = state.interfaces["Ethernet1"]
    qos = iface.qos
    assert qos is not None and qos.pfc is not None and qos.queues is not None
    assert qos.trust is Trust.PCP
    assert qos.sources["trust"].line == line_of(config, "qos trust cos")
    assert qos.pfc.enabled and qos.pfc.priorities == [4]
    assert qos.pfc.watchdog is not None and qos.pfc.watchdog.detection_ms == 100.0
    queue = qos.queues[3]
    assert queue.ecn is not None and (queue.ecn.min_bytes, queue.ecn.max_bytes) == (
        100_000,
        200_000,
    )
    # Scheduler and weight still come from the profile's tx-queue 3.
    assert (queue.scheduler, queue.weight) == (SchedulerMode.DWRR, 50.0)
    assert queue.sources["weight"].line == line_of(config, "bandwidth percent 50")
    assert qos.queues[6].scheduler is SchedulerMode.STRICT
    assert qos.profile == "ROCE" and iface.profiles == ["ROCE"]
    assert resolve(state, "Ethernet1", 26).lossless is False  # priority 3 made lossy here


def test_no_priority_flow_control_on_interface_turns_profile_pfc_off() -> None:
    config = (
        PROFILE + "interface Ethernet1\n   service-profile ROCE\n   no priority-flow-control\n!\n"
    )
    qos = run(config).interfaces["Ethernet1"].qos
    assert qos is not None and qos.pfc is not None
    assert not qos.pfc.enabled
    assert qos.sources["pfc"].line == line_of(config, "no priority-flow-control")


def test_port_channel_members_follow_the_port_channel() -> None:
    config = PROFILE + dedent(
        """\
        interface Port-Channel10
           no switchport
           service-profile ROCE
        !
        interface Ethernet5
           channel-group 10 mode active
        !
        """
    )
    state = run(config)
    member = state.interfaces["Ethernet5"]
    assert member.routed is True and member.profiles == ["ROCE"]
    assert resolve(state, "Ethernet5", 26).lossless


def test_global_all_off_overrides_port_pfc_and_is_cited() -> None:
    config = (
        PROFILE + "priority-flow-control all off\ninterface Ethernet1\n   service-profile ROCE\n!\n"
    )
    state = run(config)
    qos = state.interfaces["Ethernet1"].qos
    assert qos is not None and qos.pfc is not None
    assert not qos.pfc.enabled and qos.pfc.priorities == [3]
    assert qos.sources["pfc"].line == line_of(config, "all off")
    assert not resolve(state, "Ethernet1", 26).lossless


def test_watchdog_needs_the_port_line_global_defaults_only_give_timers() -> None:
    config = """\
    priority-flow-control pause watchdog default timeout 0.2
    interface Ethernet1
       priority-flow-control on
       priority-flow-control priority 3 no-drop
    !
    """
    qos = run(config).interfaces["Ethernet1"].qos
    assert qos is not None and qos.pfc is not None and qos.pfc.watchdog is not None
    assert qos.pfc.watchdog.enabled is False
    assert qos.pfc.watchdog.detection_ms == 200.0


# ---- defaults ----------------------------------------------------------------------------------


def test_default_trust_routed_dscp_switched_cos_with_lineless_source() -> None:
    config = """\
    interface Ethernet1
       no switchport
    !
    interface Ethernet2
       description access
    !
    interface Ethernet3
       no qos trust
    !
    interface Management1
       ip address 192.0.2.1/24
    !
    """
    state = run(config)
    routed, switched, untrusted = (state.interfaces[f"Ethernet{n}"].qos for n in (1, 2, 3))
    assert routed is not None and routed.trust is Trust.DSCP
    assert routed.sources["trust"].line is None and routed.sources["trust"].file == RC
    assert switched is not None and switched.trust is Trust.PCP
    assert switched.sources["trust"].line is None
    assert untrusted is not None and untrusted.trust is Trust.NONE
    assert untrusted.sources["trust"].line == 8
    assert state.interfaces["Management1"].qos is None


def test_mtu_defaults_and_operational_value_wins() -> None:
    config = """\
    interface Ethernet1
       no switchport
    !
    interface Ethernet2
    !
    interface Ethernet3
       mtu 9214
       no switchport
    !
    """
    show = """\
    Ethernet3 is up, line protocol is up (connected)
      IP MTU 1500 bytes (default), BW 100000000 kbit
    """
    state = run(config, show)
    assert state.interfaces["Ethernet1"].mtu == 1500
    assert state.interfaces["Ethernet2"].mtu == 9214
    third = state.interfaces["Ethernet3"]
    assert third.mtu == 1500 and third.sources["mtu"].file == SI
    note = next(u for u in state.unparsed if u.text == "mtu 9214")
    assert note.source is not None and note.source.line == line_of(config, "mtu 9214")


# ---- reporting ---------------------------------------------------------------------------------


def test_unmodeled_qos_lines_are_reported_with_their_lines_and_others_ignored() -> None:
    config = """\
    hostname sw1
    qos rewrite dscp
    qos map traffic-class 3 to cos 3
    interface Ethernet1
       description shaped
       shape rate 10 percent
       ip address 10.0.0.1/31
       !
       tx-queue 3
          shape rate 40 percent
          random-detect ecn count
    !
    router bgp 65000
       neighbor 10.0.0.0 remote-as 65001
    !
    """
    state = run(config)
    reported = {(u.text, u.source.line if u.source else None) for u in state.unparsed}
    assert reported == {  # `qos rewrite dscp` is modelled (DscpRewrite)
        ("qos map traffic-class 3 to cos 3", 3),
        ("shape rate 10 percent", 6),
        ("shape rate 40 percent", 10),
        ("random-detect ecn count", 11),
    }


def test_map_conflicts_and_out_of_range_values_are_kept() -> None:
    state = run("qos map dscp 26 to traffic-class 3\nqos map dscp 26 70 to traffic-class 9\n")
    dscp = state.qos.dscp_to_tc or {}
    assert dscp[26] == 9 and dscp[70] == 9
    (conflict,) = state.qos.conflicts
    assert (conflict.map, conflict.key, conflict.values) == ("dscp_to_tc", 26, [3, 9])
    assert [s.line for s in conflict.sources] == [1, 2]


def test_definitions_and_references() -> None:
    config = """\
    class-map type qos match-any CM1
       match ip access-group A
    !
    policy-map type quality-of-service PM
       class CM1
          set traffic-class 3
       class CM2
          set traffic-class 4
       class class-default
    !
    policy-map type pbr PBR
       class C
          set nexthop 192.0.2.1
    !
    interface Ethernet1
       service-policy type qos input PM
       service-profile NOPE
    !
    """
    state = run(config)
    assert {(d.kind, d.name) for d in state.definitions} == {
        ("class-map", "CM1"),
        ("policy-map", "PM"),
    }
    assert {(r.kind, r.name, r.by) for r in state.references} == {
        ("class-map", "CM1", "policy-map PM"),
        ("class-map", "CM2", "policy-map PM"),
        ("policy-map", "PM", "interface Ethernet1"),
        ("qos-profile", "NOPE", "interface Ethernet1"),
    }
    assert state.interfaces["Ethernet1"].profiles == ["NOPE", "PM"]
    assert all("nexthop" not in u.text for u in state.unparsed)


def test_header_gives_os_version_and_model() -> None:
    state = run("! Command: show running-config\n! device: leaf9 (DCS-7050CX3-32S, EOS-4.28.3M)\n")
    assert state.os_version == "4.28.3M"
    assert state.facts["model"] == "DCS-7050CX3-32S"
    assert state.sources["os_version"].line == 2


# ---- bad input ---------------------------------------------------------------------------------


def test_missing_running_config_is_an_unparseable_problem() -> None:
    show = "Ethernet1 is up, line protocol is up (connected)\n  Ethernet MTU 9214 bytes\n"
    state = run(None, show)
    (problem,) = state.problems
    assert problem.kind == "unparseable" and "show running-config" in problem.message
    assert state.interfaces["Ethernet1"].mtu == 9214  # what could be read still is
    assert state.qos.dscp_to_tc is None  # no defaults invented for an unread config


def test_empty_running_config_is_an_unparseable_problem() -> None:
    (problem,) = run("   \n").problems
    assert problem.kind == "unparseable"


HEADER = "! Command: show running-config\n! device: leaf01 (DCS-7060X5-64S, EOS-4.31.2F)\n!\n"
CABLED = PROFILE + "interface Ethernet1\n   service-profile ROCE\n!\n"


@pytest.mark.parametrize(
    ("config", "cut_at"),
    [
        (HEADER + CABLED + "end\n", None),
        (HEADER + CABLED + "end\n\n\n", None),
        (HEADER + CABLED + "end\n!\n", None),  # edited after the device wrote it: not cut off
        ((HEADER + CABLED + "end\n").replace("\n", "\r\n"), None),
        (CABLED, None),  # a rendered config or fragment: no device header, not judged
        (HEADER + CABLED, (HEADER + CABLED).count("\n")),  # stops after a block's "!"
        (HEADER + CABLED + "interface Ether", (HEADER + CABLED).count("\n") + 1),  # mid-line
        (HEADER, 3),  # nothing past the header
    ],
)
def test_a_device_output_without_its_final_end_is_cut_off(config: str, cut_at: int | None) -> None:
    """The settings past the cut would be reported missing (PFC002...): incomplete instead."""
    problems = [p for p in run(config).problems if "cut off" in p.message]
    if cut_at is None:
        assert problems == []
        return
    (problem,) = problems
    assert problem.kind == "unparseable"
    assert problem.source is not None and (problem.source.file, problem.source.line) == (
        RC,
        cut_at,
    )


def test_banner_and_comment_blocks_are_not_configuration() -> None:
    config = """\
    banner motd
    priority-flow-control all off
    EOF
    interface Ethernet1
       priority-flow-control on
       comment
       priority-flow-control off
       EOF
    !
    """
    state = run(config)
    qos = state.interfaces["Ethernet1"].qos
    assert qos is not None and qos.pfc is not None and qos.pfc.enabled
    assert state.qos.pfc is None


def test_crlf_input_parses_like_lf() -> None:
    config = PROFILE + "interface Ethernet1\n   service-profile ROCE\n!\n"
    crlf = run(config.replace("\n", "\r\n"))
    assert crlf.model_dump() == run(config).model_dump()


def test_parse_is_pure_and_repeatable() -> None:
    config = PROFILE + "interface Ethernet1\n   service-profile ROCE\n!\n"
    raw = RawDevice(
        name="sw1",
        platform="eos",
        outputs={"show running-config": RawOutput(text=config, file=RC)},
    )
    before = raw.model_dump()
    assert parse(raw).model_dump() == parse(raw).model_dump()
    assert raw.model_dump() == before


def test_random_garbage_never_raises() -> None:
    rng = random.Random(7)
    words = [*PROFILE.split(), "interface", "tx-queue", "!", "EOF", "\t", "   ", "\x00", "é"]
    for _ in range(300):
        lines = [
            " " * rng.choice((0, 0, 3, 6, 9)) + " ".join(rng.choices(words, k=rng.randint(0, 8)))
            for _ in range(rng.randint(0, 40))
        ]
        state = run("\n".join(lines), "\n".join(lines))
        assert not [p for p in state.problems if "parser failed" in p.message]


def test_huge_lines_stay_linear() -> None:
    show = " MTU , line protocol is " * 100_000  # one 2.4 MB line full of markers
    config = "qos map dscp " + "1 " * 100_000 + "to traffic-class 3\n" + "x" * 1_000_000 + "\n"
    state = run(config, show)  # quadratic scanning would take minutes (speed: see benchmarks/)
    assert (state.qos.dscp_to_tc or {})[1] == 3


@pytest.mark.parametrize(
    ("command", "text"),
    [
        ("show running-config", "# fabriclint\n\nThis is a README, not a switch config.\n"),
        ("show running-config", '{"PORT_QOS_MAP": {"global": {}}}\n'),
        ("show running-config", "\x00\x01\x02 binary junk \xff\n"),
    ],
)
def test_text_that_is_not_eos_is_unparseable(command: str, text: str) -> None:
    raw = RawDevice(
        name="sw1", platform="eos", outputs={command: RawOutput(text=text, file="sw1.cfg")}
    )
    state = parse(raw)
    (problem,) = state.problems
    assert problem.kind == "unparseable" and problem.source is not None and problem.source.line == 1
    assert "does not look like an EOS configuration" in problem.message


def test_show_interfaces_junk_is_unparseable() -> None:
    outputs = {
        "show running-config": RawOutput(text="hostname sw1\n", file="rc.txt"),
        "show interfaces": RawOutput(text="% Invalid input\n", file="si.txt"),
    }
    state = parse(RawDevice(name="sw1", platform="eos", outputs=outputs))
    assert [(p.kind, p.source.file if p.source else None) for p in state.problems] == [
        ("unparseable", "si.txt")
    ]
