"""Data table for the ECN ramp-shape and unbound-profile rules (ECN006, ECN007)."""

from __future__ import annotations

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState, EcnConfig, EcnProfile
from fabriclint.parsers import junos
from tests.rules.harness import Case, found
from tests.rules.sonic_fixture import dropping, leaf07, setting
from tests.rules.test_ecn import ecn, marked
from tests.rules.test_pfc import leaf, run


def raw(low: str, high: str, probability: float = 100) -> EcnConfig:
    """ECN thresholds as written in a unit other than bytes."""
    return EcnConfig(min_raw=low, max_raw=high, probability_pct=probability)


def unbound(name: str, config: EcnConfig) -> EcnProfile:
    """A WRED_PROFILE `name` bound to no queue."""
    return EcnProfile(kind="WRED_PROFILE", name=name, ecn=config)


def with_profiles(*profiles: EcnProfile) -> DeviceState:
    """leaf01 defining `profiles`, bound to no queue."""
    state = leaf()
    state.unbound_ecn_profiles = list(profiles)
    return state


CASES: list[Case] = [
    # ECN006 ecn-ramp-step
    Case("ecn006-wide-bytes", "ECN006", [marked(ecn(150_000, 1_500_000))], []),
    Case("ecn006-narrow-bytes", "ECN006", [marked(ecn(150_000, 160_000))], [("leaf01", "queue 3")]),
    Case("ecn006-just-wide-enough", "ECN006", [marked(ecn(150_000, 150_000 + 92_160))], []),
    Case("ecn006-equal-is-ecn002s", "ECN006", [marked(ecn(150_000, 150_000))], []),
    Case("ecn006-swapped-is-ecn002s", "ECN006", [marked(ecn(1_500_000, 150_000))], []),
    Case(
        "ecn006-narrow-percent",
        "ECN006",
        [marked(raw("40 percent", "42 percent"))],
        [("leaf01", "queue 3")],
    ),
    Case("ecn006-wide-percent", "ECN006", [marked(raw("20 percent", "80 percent"))], []),
    Case(
        "ecn006-narrow-segments",
        "ECN006",
        [marked(raw("100 segments", "200 segments"))],
        [("leaf01", "queue 3")],
    ),
    Case("ecn006-wide-segments", "ECN006", [marked(raw("320 segments", "3200 segments"))], []),
    Case("ecn006-mixed-units", "ECN006", [marked(raw("100 segments", "110 percent"))], []),
    Case(
        "ecn006-option-floor",
        "ECN006",
        [marked(ecn(150_000, 160_000))],
        [],
        options={"min_span_bytes": 5_000},
    ),
    Case("ecn006-ecn-off", "ECN006", [marked(ecn(150_000, 160_000, enabled=False))], []),
    # ECN007 ecn-profile-inconsistent
    Case("ecn007-none", "ECN007", [leaf()], []),
    Case("ecn007-clean", "ECN007", [with_profiles(unbound("ROCE_SPARE", ecn()))], []),
    Case(
        "ecn007-min-above-max",
        "ECN007",
        [with_profiles(unbound("SPARE", ecn(2_000_000, 250_000)))],
        [("leaf01", "WRED_PROFILE SPARE")],
    ),
    Case(
        "ecn007-probability-high",
        "ECN007",
        [with_profiles(unbound("SPARE", ecn(probability_pct=150)))],
        [("leaf01", "WRED_PROFILE SPARE")],
    ),
    Case(
        "ecn007-probability-negative",
        "ECN007",
        [with_profiles(unbound("SPARE", ecn(probability_pct=-1)))],
        [("leaf01", "WRED_PROFILE SPARE")],
    ),
    Case(
        "ecn007-roce-named-ecn-off",
        "ECN007",
        [with_profiles(unbound("RoCE_v2", ecn(enabled=False)))],
        [("leaf01", "WRED_PROFILE RoCE_v2")],
    ),
    Case(
        "ecn007-lossless-named-ecn-off",
        "ECN007",
        [with_profiles(unbound("AZURE_LOSSLESS", ecn(enabled=False)))],
        [("leaf01", "WRED_PROFILE AZURE_LOSSLESS")],
    ),
    Case("ecn007-bulk-ecn-off", "ECN007", [with_profiles(unbound("BULK", ecn(enabled=False)))], []),
    Case(
        "ecn007-two-profiles",
        "ECN007",
        [with_profiles(unbound("A", ecn(9, 1)), unbound("B", ecn(probability_pct=101)))],
        [("leaf01", "WRED_PROFILE A"), ("leaf01", "WRED_PROFILE B")],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_rule(case: Case) -> None:
    assert found(case) == sorted(case.expect)


def test_ecn006_message_names_span_floor_and_probability() -> None:
    (finding,) = run(Case("m", "ECN006", [marked(ecn(150_000, 160_000))], []))[0]
    assert finding.severity == "warning"
    assert finding.path == "qos.queues.3.ecn"
    assert "span of 10000 B (under 92160 B) to 100% marking" in finding.message


def test_ecn006_time_units_are_a_coverage_gap() -> None:
    ctx = run(Case("t", "ECN006", [marked(raw("10 microseconds", "11 microseconds"))], []))[1]
    assert ctx.skipped_on("ECN006") == {"leaf01"}


def test_ecn007_finds_all_three_in_one_profile() -> None:
    bad = unbound("ROCE_SPARE", ecn(2_000_000, 250_000, probability_pct=200, enabled=False))
    findings = run(Case("a", "ECN007", [with_profiles(bad)], []))[0]
    paths = sorted(f.path for f in findings)
    assert paths == [
        "unbound_ecn_profiles.ROCE_SPARE.ecn.enabled",
        "unbound_ecn_profiles.ROCE_SPARE.ecn.min_bytes",
        "unbound_ecn_profiles.ROCE_SPARE.ecn.probability_pct",
    ]


# ---- the SONiC fixture: parsed, then judged ----------------------------------------------------


def test_fixture_is_clean() -> None:
    state = leaf07()
    for code in ("ECN006", "ECN007"):
        assert found(Case("f", code, [state], [])) == []
    assert [p.name for p in state.unbound_ecn_profiles] == ["AI_ROCE_ECN_400G"]


def test_fixture_narrow_ramp_on_the_bound_profile() -> None:
    state = leaf07(setting("WRED_PROFILE", "AI_ROCE_ECN", green_max_threshold="260000"))
    (finding,) = run(Case("n", "ECN006", [state], []))[0]
    assert finding.object == "queue 3"
    assert finding.source is not None and finding.source.line is not None
    assert "ramps from 250000 to 260000 B" in finding.message and "5% marking" in finding.message


def test_fixture_unbound_profile_checked_bound_one_not() -> None:
    swapped = {"green_min_threshold": "4194304", "green_max_threshold": "500000"}
    state = leaf07(
        setting("WRED_PROFILE", "AI_ROCE_ECN_400G", **swapped),
        setting("WRED_PROFILE", "AI_ROCE_ECN_400G", ecn="ecn_none"),
    )
    findings = run(Case("u", "ECN007", [state], []))[0]
    assert sorted(f.path for f in findings) == [
        "unbound_ecn_profiles.AI_ROCE_ECN_400G.ecn.enabled",
        "unbound_ecn_profiles.AI_ROCE_ECN_400G.ecn.min_bytes",
    ]
    (order,) = [f for f in findings if f.path.endswith("min_bytes")]
    assert order.source is not None and order.source.file == "leaf07/config_db.json"
    # Bound to a queue, the same profile is no longer ECN007's (ECN002 judges the queue).
    bound = leaf07(
        setting("WRED_PROFILE", "AI_ROCE_ECN_400G", **swapped),
        setting("QUEUE", "Ethernet0,Ethernet4|3", wred_profile="AI_ROCE_ECN_400G"),
    )
    assert bound.unbound_ecn_profiles[0].name == "AI_ROCE_ECN"
    assert found(Case("b", "ECN007", [bound], [])) == []
    assert found(Case("b2", "ECN002", [bound], [])) == [("leaf07", "queue 3")]


def test_fixture_without_wred_profiles_has_no_unbound() -> None:
    state = leaf07(dropping("WRED_PROFILE", "AI_ROCE_ECN_400G"))
    assert state.unbound_ecn_profiles == []


# ---- Junos: thresholds as percent fill levels ---------------------------------------------------

JUNOS_QFX = """\
class-of-service {
    classifiers {
        dscp ai-dscp {
            forwarding-class fc-roce {
                loss-priority low code-points [ 011000 011010 ];
            }
            forwarding-class fc-cnp {
                loss-priority low code-points 110000;
            }
        }
    }
    drop-profiles {
        dp-ai-roce {
            interpolate {
                fill-level [ FILL ];
                drop-probability [ 0 100 ];
            }
        }
    }
    forwarding-classes {
        class fc-roce queue-num 3 no-loss pfc-priority 3;
        class fc-cnp queue-num 6;
    }
    interfaces {
        et-0/0/0 {
            scheduler-map ai-map;
            unit 0 {
                classifiers {
                    dscp ai-dscp;
                }
            }
        }
    }
    scheduler-maps {
        ai-map {
            forwarding-class fc-roce scheduler sch-roce;
            forwarding-class fc-cnp scheduler sch-cnp;
        }
    }
    schedulers {
        sch-roce {
            transmit-rate percent 60;
            drop-profile-map loss-priority any protocol any drop-profile dp-ai-roce;
            explicit-congestion-notification;
        }
        sch-cnp {
            transmit-rate percent 5;
            priority strict-high;
        }
    }
}
"""


def _qfx(fill: str) -> DeviceState:
    """A QFX leaf (written for this test after Juniper's class-of-service layout) whose RoCE
    drop profile interpolates between the fill levels `fill`."""
    text = JUNOS_QFX.replace("FILL", fill)
    outputs = {"show configuration": RawOutput(text=text, file="qfx01/show_configuration.txt")}
    return junos.parse(RawDevice(name="qfx01", platform="junos", outputs=outputs))


@pytest.mark.parametrize(
    ("fill", "narrow"), [("40 42", True), ("49 50", True), ("20 80", False), ("30 40", False)]
)
def test_junos_percent_fill_ramp(fill: str, narrow: bool) -> None:
    findings = run(Case("j", "ECN006", [_qfx(fill)], []))[0]
    assert bool(findings) == narrow
    for finding in findings:
        low, high = fill.split()
        assert f"ramps from {low} to {high} percent" in finding.message
        assert finding.source is not None
        assert finding.source.file == "qfx01/show_configuration.txt"
