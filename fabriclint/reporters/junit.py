"""JUnit XML for Jenkins and GitLab: a testsuite per device, a testcase per (rule, device, object).

Every device gets a testcase `checked` (passing, or an `<error>` when the device could not be
checked), so a device with no findings still counts as a test. A finding at or above `fail_on`
(the CLI's `--fail-on`, default error) is a `<failure>`; below it the testcase passes and carries
the finding in `<system-out>`; a suppressed finding is `<skipped>` with its reason; a rule that
could not be evaluated on the device is a `<skipped>` testcase naming the missing input.

Only the elements and attributes of the strict Jenkins xunit schema (junit-10.xsd) are written:
the source file and line are in the testcase's text, not in a `file` attribute, and the root
carries no `skipped` count (each testsuite has one).
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable

from fabriclint.models.finding import SEVERITY_RANK, DeviceSummary, Finding, Gap, Report
from fabriclint.models.policy import Severity
from fabriclint.reporters import NOT_CHECKED, why

FABRIC_SUITE = "(fabric)"
"""Suite of findings that belong to no device."""

# XML 1.0 forbids most C0 controls even when escaped; a message carrying one would make the file
# unparseable for Jenkins, so they are replaced.
_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text: str) -> str:
    return _ILLEGAL.sub("\N{REPLACEMENT CHARACTER}", text)


def _classname(device: str) -> str:
    """Jenkins splits a classname at dots into packages: keep a device FQDN in one piece."""
    return "fabriclint." + _clean(device).replace(".", "_")


def testcase_names(findings: Iterable[Finding]) -> list[str]:
    """`RULE object`, with the model path appended (then #n) where that is not unique per device."""
    items = list(findings)
    base = [_clean(f"{f.rule} {f.object}") for f in items]
    clashes = Counter((f.device, name) for f, name in zip(items, base, strict=True))
    names = [
        f"{name} ({f.path})" if clashes[(f.device, name)] > 1 else name
        for f, name in zip(items, base, strict=True)
    ]
    seen: Counter[tuple[str | None, str]] = Counter()
    unique = []
    for f, name in zip(items, names, strict=True):
        seen[(f.device, name)] += 1
        count = seen[(f.device, name)]
        unique.append(name if count == 1 else f"{name} #{count}")
    return unique


def _details(finding: Finding) -> str:
    """What a CI log reader needs below the headline: where, what was expected, and the id."""
    lines = [
        f"device: {finding.device or '-'}",
        f"object: {finding.object}",
        f"path: {finding.path}",
    ]
    if finding.expected is not None or finding.actual is not None:
        lines.append(f"expected: {_json(finding.expected)}  actual: {_json(finding.actual)}")
    lines.append(f"at: {finding.source or '(no source)'}")
    lines.append(f"fingerprint: {finding.fingerprint}")
    return "\n".join(lines)


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _case(suite: ET.Element, device: str, name: str) -> ET.Element:
    return ET.SubElement(suite, "testcase", {"classname": _classname(device), "name": _clean(name)})


def _finding_case(suite: ET.Element, finding: Finding, name: str, fail_on: Severity) -> str:
    """Add the testcase; return its outcome: failure, skipped or passed."""
    case = _case(suite, finding.device or FABRIC_SUITE, name)
    label = f"{finding.severity} {finding.rule} {finding.name}: {finding.message}"
    if finding.suppressed is not None:
        ET.SubElement(case, "skipped", {"message": _clean(f"suppressed: {finding.suppressed}")})
        ET.SubElement(case, "system-out").text = _clean(f"{label}\n{_details(finding)}")
        return "skipped"
    if SEVERITY_RANK[finding.severity] >= SEVERITY_RANK[fail_on]:
        failure = ET.SubElement(
            case, "failure", {"message": _clean(label), "type": finding.severity}
        )
        failure.text = _clean(f"{finding.message}\n{_details(finding)}")
        return "failure"
    ET.SubElement(case, "system-out").text = _clean(f"{label}\n{_details(finding)}")
    return "passed"


def _checked_case(suite: ET.Element, device: DeviceSummary) -> str:
    """The device's own testcase: passed, skipped (outside this check) or error (incomplete)."""
    case = _case(suite, device.name, "checked")
    if device.status == "ok":
        return "passed"
    if device.status == NOT_CHECKED:
        ET.SubElement(case, "skipped", {"message": _clean(why(device))})
        return "skipped"
    attrs = {"message": _clean(f"not checked: {why(device)}"), "type": "incomplete"}
    ET.SubElement(case, "error", attrs)
    return "error"


def _gap_case(suite: ET.Element, device: str, gap: Gap) -> str:
    """A rule that could not be evaluated on the device: a skipped testcase naming the input."""
    case = _case(suite, device, f"{gap.rule} not evaluated")
    ET.SubElement(case, "skipped", {"message": _clean(f"missing {gap.missing}")})
    return "skipped"


def _suite(
    suite_name: str,
    device: DeviceSummary | None,
    findings: list[Finding],
    fail_on: Severity,
    gaps: list[Gap],
) -> ET.Element:
    suite = ET.Element("testsuite", {"name": _clean(suite_name)})
    counts = Counter[str]()
    if device is not None:
        counts[_checked_case(suite, device)] += 1
    for finding, name in zip(findings, testcase_names(findings), strict=True):
        counts[_finding_case(suite, finding, name, fail_on)] += 1
    for gap in gaps:
        counts[_gap_case(suite, suite_name, gap)] += 1
    suite.set("tests", str(len(suite)))
    for key, attr in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
        suite.set(attr, str(counts[key]))
    return suite


_Group = tuple[str, DeviceSummary | None, list[Finding]]


def _groups(report: Report) -> list[_Group]:
    """(suite name, device or None, findings): the report's devices first, in report order."""
    by_device: dict[str | None, list[Finding]] = {}
    for finding in report.findings:
        by_device.setdefault(finding.device, []).append(finding)
    groups: list[_Group] = [(d.name, d, by_device.pop(d.name, [])) for d in report.devices]
    fabric = by_device.pop(None, [])
    groups += [
        (name, None, by_device[name]) for name in sorted(n for n in by_device if n is not None)
    ]
    if fabric:
        groups.append((FABRIC_SUITE, None, fabric))
    return groups


def render(report: Report, fail_on: Severity = "error") -> str:
    """JUnit XML (UTF-8), deterministic: no timestamps, no durations, stable order."""
    root = ET.Element("testsuites", {"name": _clean(f"fabriclint {report.fabric}")})
    gaps: dict[str, list[Gap]] = {}
    for gap in report.coverage:
        for name in gap.devices:
            gaps.setdefault(name, []).append(gap)
    for name, device, findings in _groups(report):
        root.append(_suite(name, device, findings, fail_on, gaps.get(name, [])))
    for attr in ("tests", "failures", "errors"):  # junit-10.xsd: no `skipped` on testsuites
        root.set(attr, str(sum(int(s.get(attr, "0")) for s in root)))
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"
