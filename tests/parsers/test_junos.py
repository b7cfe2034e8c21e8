"""Focused tests of the Junos parser: both input forms, resolve(), PFC, MTU, defaults, robustness."""

from __future__ import annotations

import random
from pathlib import Path
from textwrap import dedent

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.resolve import resolve
from fabriclint.models.state import DeviceState, SchedulerMode, Trust
from fabriclint.parsers import junos
from fabriclint.parsers.junos import parse
from fabriclint.parsers.junos.text import read_config, tokens

GOLDEN = Path(__file__).parent / "golden" / "junos"
ROCE = (GOLDEN / "roce_leaf" / "show_configuration.txt").read_text()
EDGE = (GOLDEN / "set_form_overrides" / "show_configuration_display_set.txt").read_text()
CFG = "cfg.txt"


def run(text: str, command: str = "show configuration") -> DeviceState:
    outputs = {command: RawOutput(text=dedent(text), file=CFG)}
    return parse(RawDevice(name="leaf1", platform="junos", outputs=outputs))


def line_of(text: str, needle: str) -> int:
    """1-based line of the first line of `text` containing `needle`."""
    return next(n for n, line in enumerate(dedent(text).splitlines(), 1) if needle in line)


def as_set(text: str) -> str:
    """The `display set` form of a brace-form configuration (leaf statements only)."""
    out = []
    for st in read_config(text).statements:
        if not st.opens:
            out.append("set " + " ".join(f'"{w}"' if " " in w else w for w in st.words))
    return "\n".join(out) + "\n"


# ---- resolve end to end ------------------------------------------------------------------------


def test_roce_dscp_resolves_to_lossless_priority_3_with_ecn() -> None:
    state = run(ROCE)
    res = resolve(state, "et-0/0/0", 26)
    assert (res.trust, res.tc, res.queue, res.priority, res.lossless) == (Trust.DSCP, 3, 3, 3, True)
    assert res.ecn is not None and res.ecn.enabled
    assert (res.ecn.min_raw, res.ecn.max_raw, res.ecn.probability_pct) == (
        "10 percent",
        "60 percent",
        20.0,
    )
    assert res.ecn.min_bytes is None  # percent of the queue buffer: no byte value without a size
    assert res.scheduler is not None and res.scheduler.weight == 50.0
    assert [s.line for s in res.sources[:2]] == [
        line_of(ROCE, "code-points 011010"),
        line_of(ROCE, "class roce queue-num"),
    ]


def test_cnp_dscp_resolves_to_strict_priority_6() -> None:
    res = resolve(run(ROCE), "et-0/0/31", 48)
    assert (res.tc, res.queue, res.priority, res.lossless) == (6, 6, 6, False)
    assert res.scheduler is not None and res.scheduler.scheduler is SchedulerMode.STRICT
    assert res.scheduler.sources["scheduler"].line == line_of(ROCE, "strict-high")


def test_pfc_and_watchdog_of_the_congestion_notification_profile() -> None:
    qos = run(ROCE).interfaces["et-0/0/1"].qos
    assert qos is not None and qos.pfc is not None
    assert (qos.pfc.enabled, qos.pfc.priorities) == (True, [3])
    assert qos.pfc.sources["priorities"].line == line_of(ROCE, "pfc;")
    assert qos.sources["pfc"].line == line_of(ROCE, "congestion-notification-profile roce-cnp;")
    dog = qos.pfc.watchdog
    assert dog is not None and dog.enabled
    # detection 4 polls x poll-interval 50 ms; recovery 400 ms.
    assert (dog.detection_ms, dog.restoration_ms, dog.action) == (200.0, 400.0, "drop")


def test_brace_and_set_forms_give_the_same_state() -> None:
    brace, flat = run(ROCE), run(as_set(ROCE), "show configuration | display set")
    assert not flat.problems
    for name in ("et-0/0/0", "et-0/0/31"):
        assert brace.interfaces[name].mtu == flat.interfaces[name].mtu
        for dscp in (0, 26, 48):
            a, b = resolve(brace, name, dscp), resolve(flat, name, dscp)
            assert (a.tc, a.queue, a.priority, a.lossless) == (
                b.tc,
                b.queue,
                b.priority,
                b.lossless,
            )
            assert a.ecn == b.ecn or (a.ecn and b.ecn and a.ecn.min_raw == b.ecn.min_raw)
    assert {(d.kind, d.name) for d in brace.definitions} == {
        (d.kind, d.name) for d in flat.definitions
    }
    assert flat.os_version == brace.os_version == "23.4R2-S3.9-EVO"


# ---- traffic classes and priorities ------------------------------------------------------------

AIML = """\
class-of-service {
    classifiers {
        dscp mydscp {
            forwarding-class CNP {
                loss-priority low code-points 110000;
            }
            forwarding-class NO-LOSS {
                loss-priority low code-points 011010;
            }
        }
    }
    forwarding-classes {
        class CNP queue-num 3;
        class NO-LOSS queue-num 4 no-loss pfc-priority 3;
    }
    congestion-notification-profile {
        cnp {
            pfc-watchdog;
            input {
                dscp {
                    code-point 011010 {
                        pfc;
                    }
                }
            }
        }
    }
    interfaces {
        et-* {
            congestion-notification-profile cnp;
            unit * {
                classifiers {
                    dscp mydscp;
                }
            }
        }
    }
}
interfaces {
    et-0/0/1 {
        unit 0 {
            family inet;
        }
    }
}
"""


def test_dscp_pfc_priority_is_the_forwarding_class_pfc_priority() -> None:
    state = run(AIML)
    roce = resolve(state, "et-0/0/1", 26)
    assert (roce.tc, roce.queue, roce.priority, roce.lossless) == (4, 4, 3, True)
    # CNP sits in queue 3, a lossy class: it must not resolve to lossless priority 3.
    cnp = resolve(state, "et-0/0/1", 48)
    assert (cnp.tc, cnp.queue, cnp.lossless) == (3, 3, False)
    assert cnp.priority is None  # a lossy routed class carries no 802.1p priority (documented)
    # No null in the maps: the lossy class is declared in lossy_tcs, sourced at its class line.
    assert state.qos.tc_to_priority == {4: 3} and state.qos.lossy_tcs == [0, 1, 2, 3, 7]
    assert state.qos.sources["lossy_tcs.3"].line == line_of(AIML, "class CNP queue-num")


def test_watchdog_without_options_uses_the_defaults() -> None:
    pfc = run(AIML).interfaces["et-0/0/1"].qos.pfc  # type: ignore[union-attr]
    assert pfc is not None and pfc.watchdog is not None
    dog = pfc.watchdog
    assert (dog.enabled, dog.detection_ms, dog.restoration_ms, dog.action) == (
        True,
        200.0,
        200.0,
        "drop",
    )
    assert dog.sources["enabled"].line == line_of(AIML, "pfc-watchdog;")
    assert dog.sources["detection_ms"].line is None


def test_dscp_pfc_without_pfc_priority_is_reported() -> None:
    text = AIML.replace(" no-loss pfc-priority 3", "")
    state = run(text)
    pfc = state.interfaces["et-0/0/1"].qos.pfc  # type: ignore[union-attr]
    assert pfc is not None and (pfc.enabled, pfc.priorities) == (True, [])
    (item,) = state.unparsed
    assert item.source is not None and item.source.line == line_of(text, "pfc;")
    assert "pfc-priority" in item.reason


def test_ieee_pfc_and_flow_control_queue_priorities() -> None:
    text = """\
    class-of-service {
        forwarding-classes {
            class roce queue-num 5 no-loss;
        }
        classifiers {
            dscp d {
                forwarding-class roce {
                    loss-priority low code-points af31;
                }
            }
        }
        congestion-notification-profile {
            p {
                input {
                    ieee-802.1 {
                        code-point 011 {
                            pfc;
                        }
                    }
                }
                output {
                    ieee-802.1 {
                        code-point 011 {
                            flow-control-queue 5;
                        }
                    }
                }
            }
        }
        interfaces {
            xe-0/0/1 {
                congestion-notification-profile p;
                classifiers {
                    dscp d;
                }
            }
        }
    }
    """
    state = run(text)
    res = resolve(state, "xe-0/0/1", 26)  # af31
    assert (res.tc, res.queue, res.priority, res.lossless) == (5, 5, 3, True)
    qos = state.interfaces["xe-0/0/1"].qos
    assert qos is not None and qos.sources["tc_to_priority.5"].line == line_of(
        text, "flow-control-queue 5"
    )


def test_flow_control_queue_disagreeing_with_pfc_priority_is_a_conflict() -> None:
    text = AIML.replace(
        "            pfc-watchdog;\n",
        "            pfc-watchdog;\n            output {\n                ieee-802.1 {\n"
        "                    code-point 100 {\n                        flow-control-queue 4;\n"
        "                    }\n                }\n            }\n",
    )
    qos = run(text).interfaces["et-0/0/1"].qos
    assert qos is not None
    (conflict,) = qos.conflicts
    assert (conflict.map, conflict.key, conflict.values) == ("tc_to_priority", 4, [3, 4])


# ---- per-port differences, wildcards, LAGs -----------------------------------------------------


def test_explicit_interface_block_overrides_only_what_it_sets() -> None:
    state = run(EDGE, "show configuration | display set")
    legacy = resolve(state, "et-0/0/0", 26)
    assert (legacy.queue, legacy.lossless) == (0, False)  # its own classifier: legacy
    # It sets no congestion notification profile, so it inherits et-*'s (statement by statement).
    pfc = state.interfaces["et-0/0/0"].qos.pfc  # type: ignore[union-attr]
    assert pfc is not None and pfc.sources[""].line == line_of(EDGE, "et-* congestion-notification")
    wild = resolve(state, "et-0/0/2", 26)
    assert (wild.queue, wild.priority, wild.lossless) == (4, 4, True)
    assert wild.scheduler is not None and wild.scheduler.wred_drop  # drop profile, no ECN


def test_lag_members_follow_the_lag() -> None:
    state = run(EDGE, "show configuration | display set")
    for name in ("ae0", "et-0/0/3", "et-0/0/4"):
        iface = state.interfaces[name]
        assert iface.mtu == 9100 - 14 and iface.routed
        assert iface.qos is not None and iface.qos.trust is Trust.BOTH
        assert iface.qos.pfc is not None and iface.qos.pfc.priorities == [4]
    assert state.interfaces["et-0/0/3"].sources["mtu"].line == line_of(EDGE, "ae0 mtu 9100")


def test_port_without_cos_uses_the_default_classifier() -> None:
    state = run(EDGE, "show configuration | display set")
    assert resolve(state, "xe-0/0/5", 48).queue == 7  # cs6 -> network-control
    assert resolve(state, "xe-0/0/5", 26).queue == 0  # everything else best effort
    iface = state.interfaces["xe-0/0/5"]
    assert iface.speed_mbps == 25_000 and iface.qos is not None and iface.qos.trust is Trust.DSCP
    assert iface.qos.sources["trust"].line is None


def test_deactivated_statement_is_ignored_and_reported() -> None:
    state = run(EDGE, "show configuration | display set")
    # et-0/0/1's own (deactivated) profile is absent, so et-*'s applies
    pfc = state.interfaces["et-0/0/1"].qos.pfc  # type: ignore[union-attr]
    assert pfc is not None and pfc.sources[""].line == line_of(EDGE, "et-* congestion-notification")
    inactive = [u for u in state.unparsed if u.reason.startswith("inactive")]
    assert [u.source.line for u in inactive if u.source] == [line_of(EDGE, "deactivate")]


def test_inactive_brace_statement_is_ignored() -> None:
    text = AIML.replace(
        "            congestion-notification-profile cnp;",
        "            inactive: congestion-notification-profile cnp;",
    )
    state = run(text)
    assert state.interfaces["et-0/0/1"].qos.pfc is None  # type: ignore[union-attr]
    assert (
        state.unparsed[0].text
        == "class-of-service interfaces et-* congestion-notification-profile cnp"
    )


def test_classifier_conflict_aliases_and_import_default() -> None:
    state = run(EDGE, "show configuration | display set")
    qos = state.interfaces["et-0/0/2"].qos
    assert qos is not None and qos.dscp_to_tc is not None
    (conflict,) = qos.conflicts
    assert (conflict.map, conflict.key, conflict.values) == ("dscp_to_tc", 10, [0, 4])
    assert [s.line for s in conflict.sources] == [
        line_of(EDGE, "[ be af11 ]"),
        line_of(EDGE, "af99"),
    ]
    assert qos.dscp_to_tc[26] == 4  # user alias roce-v2 = 011010
    assert qos.dscp_to_tc[56] == 7  # not listed: `import default` sends cs7 to network-control
    assert qos.dscp_to_tc[46] == 0
    assert state.interfaces["ae0"].qos.pcp_to_tc[4] == 4  # type: ignore[union-attr,index]


# ---- MTU ---------------------------------------------------------------------------------------


def test_mtu_is_the_ip_mtu() -> None:
    state = run(EDGE, "show configuration | display set")
    mtus = {name: iface.mtu for name, iface in state.interfaces.items()}
    assert mtus["et-0/0/0"] == 9000  # family inet mtu
    assert mtus["et-0/0/1"] == 9216 - 18  # vlan-tagging: header and one tag
    assert mtus["et-0/0/2"] == 1500  # default media MTU 1514
    assert state.interfaces["et-0/0/2"].sources["mtu"].line is None
    assert run(ROCE).interfaces["et-0/0/0"].mtu == 9202  # physical 9216 - 14


# ---- definitions, references, unparsed ---------------------------------------------------------


def test_dangling_and_unused_names() -> None:
    state = run(EDGE, "show configuration | display set")
    defined = {(d.kind, d.name) for d in state.definitions}
    dangling = {(r.kind, r.name) for r in state.references if (r.kind, r.name) not in defined}
    assert dangling == {("forwarding-class", "gold"), ("scheduler", "s-missing")}
    used = {(r.kind, r.name) for r in state.references}
    assert ("dscp-classifier", "unused") in defined - used
    assert ("forwarding-class", "best-effort") in defined  # platform default
    assert ("forwarding-class", "roce") in used  # also by the firewall filter


def test_unmodeled_statements_are_reported_with_lines() -> None:
    state = run(EDGE, "show configuration | display set")
    reported = {u.source.line: u.reason for u in state.unparsed if u.source and u.source.line}
    for needle in (
        "flow-control",
        "interface-range HOSTS mtu",
        "af99",
        "detection fast",
        "mru 9216",
        "transmit-rate 10g",
        "unit 200",
        "apply-groups",
        "then forwarding-class",
        "dcbx",
        "code-point roce-v2 pfc",  # et-0/0/0 inherits dscp-pfc; its legacy classifier has no
    ):  # pfc-priority for that code point
        assert line_of(EDGE, needle) in reported, needle
    assert len(state.unparsed) == 12


def test_shared_buffer_zero_lossless_is_modeled_other_percentages_reported() -> None:
    text = """\
    class-of-service {
        shared-buffer {
            ingress {
                buffer-partition lossless {
                    percent 0;
                }
                buffer-partition lossless-headroom {
                    percent 24;
                }
            }
        }
    }
    """
    state = run(text)
    assert state.qos.buffers is not None and state.qos.buffers.lossless_pool_bytes == 0
    assert state.qos.buffers.sources["lossless_pool_bytes"].line == 5
    assert [u.source.line for u in state.unparsed if u.source] == [8]


# ---- input problems and robustness -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("", 1),
        ("hostname leaf1\ninterface Ethernet1\n   mtu 9214\n", 1),
        ("interfaces {\n    et-0/0/0 {\n        mtu 9216;\n", 3),
        ("interfaces {\n}\n}\n", 3),
        ('{\n    "configuration" : {\n', 1),
        ("set interfaces et-0/0/0 mtu 9216\nhostname x\n", 2),
        ('system {\n    host-name "unterminated;\n}\n', 3),
    ],
)
def test_text_that_is_not_junos_is_unparseable_at_its_line(text: str, line: int) -> None:
    state = run(text)
    (problem,) = state.problems
    assert problem.kind == "unparseable"
    assert problem.source is not None and problem.source.line == line


def test_missing_output_is_an_unparseable_problem() -> None:
    state = parse(RawDevice(name="x", platform="junos", outputs={}))
    (problem,) = state.problems
    assert problem.kind == "unparseable" and "show configuration" in problem.message


def test_parser_errors_become_problems(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*_: object) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr(junos, "parse_text", boom)
    (problem,) = run(ROCE).problems
    assert problem.kind == "unparseable" and "RuntimeError" in problem.message


def test_quotes_annotations_comments_and_banners() -> None:
    text = """\
    {master:0}
    admin@leaf1> show configuration
    /* managed by
       the fabric team */
    system {
        host-name leaf1; ## local name
        login {
            message "a { b ; c } # d";
        }
    }
    interfaces {
        /* uplink */
        et-0/0/0 {
            description "spine { 1 }";
            mtu 9216;
        }
    }
    """
    state = run(text)
    assert not state.problems and state.facts == {"hostname": "leaf1"}
    assert state.interfaces["et-0/0/0"].mtu == 9202
    assert state.interfaces["et-0/0/0"].sources["mtu"].line == line_of(text, "mtu 9216")
    assert tokens('a "b c" [ d ]; # x') == ["a", "b c", "[", "d", "]", ";"]


def test_crlf_input_parses_like_lf() -> None:
    assert run(ROCE.replace("\n", "\r\n")).model_dump() == run(ROCE).model_dump()


def test_random_garbage_never_raises() -> None:
    rng = random.Random(7)
    alphabet = 'ab {};"[]#/*\n set'
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))
        state = run(text)
        assert not [p for p in state.problems if "parser failed" in p.message]


def test_parse_is_pure_and_repeatable() -> None:
    raw = RawDevice(
        name="a", platform="junos", outputs={"show configuration": RawOutput(text=ROCE, file=CFG)}
    )
    assert parse(raw).model_dump() == parse(raw).model_dump()
