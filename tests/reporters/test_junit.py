"""JUnit: parseable, counts that add up, unique stable names, severities mapped as documented."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter

from fabriclint.reporters import junit
from tests.reporters.fixtures import (
    CASES,
    empty_report,
    finding,
    pod_report,
    report_for,
    special_report,
)


def parse(text: str) -> ET.Element:
    return ET.fromstring(text.encode())


def assert_counts_add_up(root: ET.Element) -> None:
    totals: Counter[str] = Counter()
    for suite in root.iter("testsuite"):
        cases = suite.findall("testcase")
        counted = {
            "tests": len(cases),
            "failures": sum(c.find("failure") is not None for c in cases),
            "errors": sum(c.find("error") is not None for c in cases),
            "skipped": sum(c.find("skipped") is not None for c in cases),
        }
        assert {k: int(suite.get(k, "-1")) for k in counted} == counted, suite.get("name")
        totals.update(counted)
    totals.pop("skipped", None)  # junit-10.xsd has no `skipped` on testsuites
    assert {k: int(root.get(k, "-1")) for k in totals} == dict(totals)


def assert_names_unique(root: ET.Element) -> None:
    ids = [(c.get("classname"), c.get("name")) for c in root.iter("testcase")]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]


def test_every_case_parses_with_right_counts_and_unique_names() -> None:
    for make in CASES.values():
        root = parse(junit.render(make()))
        assert_counts_add_up(root)
        assert_names_unique(root)


def test_one_suite_per_device_with_a_checked_case() -> None:
    root = parse(junit.render(pod_report()))
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert list(suites) == ["spine01", "leaf01", "leaf02", "leaf03", "gpu01", "gpu02", "(fabric)"]
    clean = suites["leaf03"].findall("testcase")
    assert [(c.get("name"), list(c)) for c in clean] == [("checked", [])]
    error = suites["leaf02"].find("testcase[@name='checked']/error")
    assert error is not None and error.get("type") == "incomplete"
    assert error.get("message") == "not checked: unreachable: timed out after 30 s"
    outside = suites["gpu02"].find("testcase[@name='checked']/skipped")
    assert outside is not None and suites["gpu02"].get("errors") == "0"


def test_severity_mapping_and_suppression() -> None:
    root = parse(junit.render(pod_report()))
    case = {c.get("name"): c for c in root.iter("testcase") if c.get("name") != "checked"}
    failure = case["PFC002 interface ens1np0"].find("failure")
    assert failure is not None and failure.get("type") == "error"
    assert "expected: [3]  actual: []" in (failure.text or "")
    warning = case["FAB003 qos"]
    assert warning.find("failure") is None and "warning FAB003" in (
        warning.findtext("system-out") or ""
    )
    skipped = case["QOS004 qos-profile ROCE"].find("skipped")
    assert skipped is not None and "NET-1234" in (skipped.get("message") or "")


def test_fail_on_warning_turns_warnings_into_failures() -> None:
    root = parse(junit.render(pod_report(), fail_on="warning"))
    failures = [f.get("type") for f in root.iter("failure")]
    assert Counter(failures) == {"error": 6, "warning": 2}
    assert all(
        c.find("failure") is None for c in root.iter("testcase") if "QOS006" in c.get("name", "")
    )


def test_same_rule_and_object_are_told_apart_by_path_then_number() -> None:
    twins = [
        finding("DRIFT001", "setting-drift", "error", "leaf01", "qos", path="a"),
        finding("DRIFT001", "setting-drift", "error", "leaf01", "qos", path="b"),
        finding("DRIFT001", "setting-drift", "error", "leaf01", "qos", path="b"),
        finding("DRIFT001", "setting-drift", "error", "leaf02", "qos", path="a"),
    ]
    assert junit.testcase_names(twins) == [
        "DRIFT001 qos (a)",
        "DRIFT001 qos (b)",
        "DRIFT001 qos (b) #2",
        "DRIFT001 qos",
    ]


def test_names_are_stable_across_runs_when_findings_move() -> None:
    report = pod_report()
    before = {c.get("name") for c in parse(junit.render(report)).iter("testcase")}
    for f in report.findings:
        if f.source is not None and f.source.line:
            f.source = f.source.model_copy(update={"line": f.source.line + 40})
    after = {c.get("name") for c in parse(junit.render(report)).iter("testcase")}
    assert before == after


def test_hostile_text_still_parses() -> None:
    root = parse(junit.render(special_report()))
    failure = next(root.iter("failure"))
    assert failure.get("message", "").startswith("error QOS005 dangling-reference: a|b *bold*")
    assert "\x1b" not in ET.tostring(root, encoding="unicode")
    assert next(root.iter("testcase")).get("classname") == "fabriclint.leaf_01_dc1"


def test_empty_report() -> None:
    root = parse(junit.render(empty_report()))
    assert root.attrib == {
        "name": "fabriclint lab-pod", "tests": "1", "failures": "0", "errors": "0",
    }  # fmt: skip
    no_devices = parse(junit.render(report_for([], [])))
    assert no_devices.get("tests") == "0" and list(no_devices) == []


# The strict Jenkins xunit schema (junit-10.xsd): which attributes each element may carry, which
# are required, and which children it may have.
_ALLOWED = {
    "testsuites": ({"name", "time", "tests", "failures", "errors"}, set(), {"testsuite"}),
    "testsuite": (
        {"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp",
         "hostname", "id", "package", "file", "log", "url"},
        {"name", "tests", "failures", "errors"},
        {"testsuite", "properties", "testcase", "system-out", "system-err"},
    ),
    "testcase": (
        {"name", "time", "classname", "group"},
        {"name"},
        {"skipped", "error", "failure", "system-out", "system-err"},
    ),
    "failure": ({"type", "message"}, set(), set()),
    "error": ({"type", "message"}, set(), set()),
    "skipped": ({"type", "message"}, set(), set()),
    "system-out": (set(), set(), set()),
}  # fmt: skip


def _strict(element: ET.Element) -> None:
    allowed, required, children = _ALLOWED[element.tag]
    assert set(element.attrib) <= allowed, (element.tag, set(element.attrib) - allowed)
    assert required <= set(element.attrib), (element.tag, required - set(element.attrib))
    for child in element:
        assert child.tag in children, (element.tag, child.tag)
        _strict(child)


def test_output_fits_the_strict_jenkins_schema() -> None:
    from tests.reporters.fixtures import empty_report, special_report

    for report in (pod_report(), special_report(), empty_report()):
        _strict(ET.fromstring(junit.render(report).split("\n", 1)[1]))
