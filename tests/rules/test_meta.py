"""Data table for PARSE, DRIFT and INV rules."""

from __future__ import annotations

import pytest

from fabriclint.models.common import Source
from fabriclint.models.state import DeviceState, EcnConfig, InputProblem, Unparsed
from tests.rules.harness import ROCE_INTENT, Case, found, roce_qos, run_case, switch

LINK = [("leaf01:Ethernet1", "leaf02:Ethernet1")]


def _pair(**changes: object) -> list[DeviceState]:
    a, b = switch("leaf01"), switch("leaf02")
    for key, value in changes.items():
        setattr(a.interfaces["Ethernet1"], key, value)
    return [a, b]


def _with_unparsed() -> list[DeviceState]:
    s = switch("leaf01")
    s.unparsed.append(Unparsed(text="qos rewrite dscp", source=Source(file="r.txt", line=7)))
    return [s]


def _with_problem(kind: str) -> list[DeviceState]:
    s = switch("leaf01")
    s.problems.append(InputProblem(kind=kind, message="bad", source=Source(file="r.txt", line=3)))
    return [s]


def _ecn(min_bytes: int) -> list[DeviceState]:
    a, b = switch("leaf01"), switch("leaf02")
    qos = roce_qos()
    assert qos.queues is not None
    qos.queues[3].ecn = EcnConfig(min_bytes=min_bytes, max_bytes=1500000, probability_pct=100)
    a.qos = qos
    return [a, b]


def _no_ecn() -> list[DeviceState]:
    a, b = switch("leaf01"), switch("leaf02")
    assert a.qos.queues is not None
    a.qos.queues[3].ecn = None
    return [a, b]


CASES: list[Case] = [
    Case("unparsed-line", "PARSE001", _with_unparsed(), [("leaf01", "line 7: qos rewrite dscp")]),
    Case("no-unparsed", "PARSE001", [switch("leaf01")], []),
    Case("dup-key", "PARSE002", _with_problem("duplicate-key"), [("leaf01", "file r.txt")]),
    Case("dup-key-clean", "PARSE002", _with_problem("unparseable"), []),
    Case("unparseable", "PARSE003", _with_problem("unparseable"), [("leaf01", "file r.txt")]),
    Case("unparseable-clean", "PARSE003", [switch("leaf01")], []),
    Case(
        "no-checksums",
        "PARSE004",
        [switch("leaf01"), switch("leaf02")],
        [("leaf01", "manifest")],
        unverified={"leaf01": ["show_running-config.txt"], "leaf09": ["x.txt"]},
    ),
    Case("checksums", "PARSE004", [switch("leaf01")], []),
    Case(
        "mtu-drift",
        "DRIFT001",
        _pair(mtu=9100),
        [("leaf01", "interface Ethernet1")],
        LINK,
        ROCE_INTENT,
    ),
    Case("clean-drift", "DRIFT001", _pair(), [], LINK, ROCE_INTENT),
    Case("ecn-within-tolerance", "DRIFT001", _ecn(159744), [], LINK, ROCE_INTENT),
    Case(
        "ecn-outside-tolerance",
        "DRIFT001",
        _ecn(300000),
        [("leaf01", "interface Ethernet1")],
        LINK,
        ROCE_INTENT,
    ),
    Case("ecn-missing-is-not-drift", "DRIFT001", _no_ecn(), [], LINK, ROCE_INTENT),
    Case(
        "ecn-missing",
        "DRIFT002",
        _no_ecn(),
        [("leaf01", "interface Ethernet1")] * 2,
        LINK,
        ROCE_INTENT,
    ),
    Case(
        "mtu-missing",
        "DRIFT002",
        _pair(mtu=None),
        [("leaf01", "interface Ethernet1")],
        LINK,
        ROCE_INTENT,
    ),
    Case("nothing-missing", "DRIFT002", _pair(), [], LINK, ROCE_INTENT),
    Case("no-intent-no-drift", "DRIFT001", _pair(mtu=1500), [], LINK, None),
    Case(
        "unknown-port",
        "INV001",
        _pair(),
        [("leaf01", "interface Ethernet9")],
        [("leaf01:Ethernet9", "leaf02:Ethernet1")],
    ),
    Case("ports-exist", "INV001", _pair(), [], LINK, ROCE_INTENT),
    Case(
        "role-without-profile",
        "INV001",
        [switch("leaf01", role="storage")],
        [("leaf01", "device")],
        [],
        ROCE_INTENT,
    ),
    Case(
        "device-missing",
        "DRIFT003",
        [switch("leaf01")],
        [("leaf02", "device")],
        missing={"leaf02": "timeout"},
    ),
    Case("none-missing", "DRIFT003", [switch("leaf01")], []),
    Case(
        "device-unexpected",
        "DRIFT004",
        [switch("leaf01")],
        [("leaf09", "device")],
        unexpected={"leaf09": "eos"},
    ),
    Case("none-unexpected", "DRIFT004", [switch("leaf01")], []),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case) -> None:
    assert found(case) == sorted(case.expect)


def test_drift_finding_explains_and_locates() -> None:
    case = next(c for c in CASES if c.id == "ecn-outside-tolerance")
    (finding,) = run_case(case)
    assert finding.expected == 150000 and finding.actual == 300000
    assert finding.path == "interfaces.Ethernet1.roce_queue.ecn.min_bytes"
    assert "ECN minimum threshold" in finding.message


def test_drift_list_difference_explained_by_deepdiff() -> None:
    a, b = switch("leaf01"), switch("leaf02")
    assert a.qos.pfc is not None
    a.qos.pfc.priorities = [3, 4]
    findings = run_case(Case("x", "DRIFT001", [a, b], [], LINK, ROCE_INTENT))
    pfc = [f for f in findings if f.path.endswith("qos.pfc.priorities")]
    assert pfc and "added [4]" in pfc[0].message


def test_missing_device_message_names_the_reason() -> None:
    case = next(c for c in CASES if c.id == "device-missing")
    (finding,) = run_case(case)
    assert "timeout" in finding.message and finding.severity == "error"


def test_drift_from_one_line_on_many_ports_is_one_finding() -> None:
    a = switch("leaf01", {"Ethernet1": 9214, "Ethernet2": 9214})
    b = switch("leaf02", {"Ethernet1": 9214, "Ethernet2": 9214})
    a.qos.dscp_to_tc = {26: 1, 48: 6}
    a.qos.mark("dscp_to_tc.26", Source(file="leaf01.cfg", line=12))
    links = [("leaf01:Ethernet1", "leaf02:Ethernet1"), ("leaf01:Ethernet2", "leaf02:Ethernet2")]
    findings = run_case(Case("x", "DRIFT001", [a, b], [], links, ROCE_INTENT))
    (finding,) = [f for f in findings if f.device == "leaf01"]
    assert finding.object == "qos"
    assert finding.path == "interfaces.*.dscp.26.priority"
    assert "on 2 ports (Ethernet1, Ethernet2): 1, where intent has 3" in finding.message
    assert finding.source == Source(file="leaf01.cfg", line=12)


def test_threshold_in_segments_is_not_reported_missing() -> None:
    a, b = switch("leaf01"), switch("leaf02")
    assert a.qos.queues is not None
    a.qos.queues[3].ecn = EcnConfig(
        min_raw="320 segments", max_raw="640 segments", probability_pct=100
    )
    for code in ("DRIFT001", "DRIFT002"):
        assert run_case(Case("x", code, [a, b], [], LINK, ROCE_INTENT)) == []
    from tests.rules.hosts import skipped

    assert skipped(Case("x", "DRIFT002", [a, b], [], LINK, ROCE_INTENT)) == {"leaf01"}
