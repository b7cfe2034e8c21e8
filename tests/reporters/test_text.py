"""The text report: causes with their consequences folded, quiet mode, suppressed findings,
statistics."""

from __future__ import annotations

from fabriclint.models.finding import DeviceSummary, Finding
from fabriclint.reporters import get_reporter
from fabriclint.reporters.text import statistics
from tests.reporters.fixtures import finding, pod_report, report_for, src

OK = [DeviceSummary(name="leaf01", platform="eos", role="leaf", status="ok")]


def _grouped() -> list[Finding]:
    cause = finding(
        "PFC002", "rdma-priority-not-lossless", "error", "leaf01", "qos",
        source=src("leaf01", "cfg", 506),
    )  # fmt: skip
    drift = finding("DRIFT001", "setting-drift", "error", "leaf01", "qos", path="a.dscp")
    fab = finding("FAB001", "dscp-map-inconsistent", "error", "leaf01", "qos", path="b.dscp")
    remote = finding("PFC007", "pfc-link-asymmetric", "error", "gpu01", "link x", path="c")
    for consequence in (drift, fab, remote):
        consequence.cause = cause.fingerprint
    lone = finding("FAB004", "os-version-skew", "warning", "leaf01", "device")
    return [cause, drift, fab, remote, lone]


def test_each_cause_once_with_its_consequences_folded() -> None:
    text = get_reporter("text")(report_for(_grouped(), OK))
    assert text.count("  error   PFC002 ") == 1 and "DRIFT001" not in text.split("+3")[0]
    assert "+3 consequence(s): DRIFT001 qos, FAB001 qos, gpu01 PFC007 link x" in text
    assert "4 error(s), 1 warning(s), 0 info from 2 cause(s)" in text


def test_quiet_keeps_failing_causes_and_the_summary() -> None:
    text = get_reporter("text", quiet=True)(report_for(_grouped(), OK))
    assert "PFC002" in text and "FAB004" not in text  # a warning does not fail at --fail-on error
    warn = get_reporter("text", quiet=True, fail_on="warning")(report_for(_grouped(), OK))
    assert "FAB004" in warn
    pod = get_reporter("text", quiet=True)(pod_report())
    assert "coverage: 1 rule gap(s)" in pod and "QOS008 not (fully)" not in pod
    assert "not checked: leaf02: unreachable" in pod  # what makes a run incomplete stays


def test_suppressed_findings_are_counted_unless_listed() -> None:
    text = get_reporter("text")(pod_report())
    assert "[suppressed:" not in text
    assert "1 suppressed finding(s) not listed (--show-suppressed)" in text
    listed = get_reporter("text", show_suppressed=True)(pod_report())
    assert "[suppressed: CNP queue is dwrr by design until the ASIC upgrade (NET-1234)]" in listed


def test_statistics_count_by_rule_and_by_cause() -> None:
    stats = statistics(report_for(_grouped(), OK))
    lines = stats.splitlines()
    assert lines[0].split() == ["findings", "causes", "rule", "name"]
    assert any(line.split() == ["1", "1", "PFC002", "rdma-priority-not-lossless"] for line in lines)
    assert any(line.split() == ["1", "0", "DRIFT001", "setting-drift"] for line in lines)
    assert "5 finding(s) from 2 cause(s):" in lines
    assert "  PFC002    leaf01 qos (+3 consequence(s))" in lines
