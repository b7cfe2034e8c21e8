"""SARIF 2.1.0 for GitHub code scanning and GitLab: rules from the catalog, a result per finding."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Iterable
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import quote

from fabriclint.models.finding import Finding, Report
from fabriclint.reporters import gap_text, unchecked, why
from fabriclint.rules.registry import ALL_RULES

SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
FINGERPRINT_KEY = "fabriclint/v1"
SRCROOT = "%SRCROOT%"
INFORMATION_URI: str | None = None
"""The project's home page (driver.informationUri); omitted while the project has none to name."""

LEVEL = {"error": "error", "warning": "warning", "info": "note"}

Json = dict[str, Any]


def _text(text: str) -> Json:
    return {"text": text}


def _markdown(doc: str) -> str:
    """Docstrings introduce examples reST-style (`Failing::`); Markdown wants one colon."""
    return re.sub(r"::$", ":", doc, flags=re.MULTILINE)


def _catalog_descriptor(rule: Any) -> Json:
    """A reportingDescriptor from a registry rule: its docstring is the help."""
    doc = inspect.cleandoc(rule.__doc__ or rule.summary)
    first = " ".join(doc.split("\n\n", 1)[0].split())
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": _text(rule.summary),
        "fullDescription": _text(first),
        "help": {"text": doc, "markdown": f"**{rule.code} {rule.name}**\n\n{_markdown(doc)}"},
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
        "properties": {"tags": [re.sub(r"\d+$", "", rule.code).lower()]},
    }


def _site_descriptor(finding: Finding) -> Json:
    """A reportingDescriptor for a rule the catalog does not know (a site rule from policy.yaml)."""
    summary = f"Site rule {finding.name}, defined in the fabric's policy"
    help_text = (
        f"{finding.rule} {finding.name} is a site rule: a JSON Schema in the fabric's policy.yaml "
        "applied to the normalized state of the devices it selects. See that policy for its intent."
    )
    return {
        "id": finding.rule,
        "name": finding.name,
        "shortDescription": _text(summary),
        "fullDescription": _text(summary),
        "help": {"text": help_text, "markdown": help_text},
        "defaultConfiguration": {"level": LEVEL[finding.severity]},
        "properties": {"tags": ["site-rule"]},
    }


def rule_descriptors(findings: Iterable[Finding]) -> list[Json]:
    """Every catalog rule in catalog order, then rules only the findings name, by code."""
    rules = [_catalog_descriptor(rule) for rule in ALL_RULES]
    known = {rule.code for rule in ALL_RULES}
    extra: dict[str, Finding] = {}
    for finding in findings:
        if finding.rule not in known:
            extra.setdefault(finding.rule, finding)
    return rules + [_site_descriptor(extra[code]) for code in sorted(extra)]


def artifact_location(file: str) -> Json:
    """A relative path as a %SRCROOT%-based URI reference; an absolute one as a file: URI."""
    posix = file.replace("\\", "/")
    if PureWindowsPath(file).is_absolute():
        return {"uri": PureWindowsPath(file).as_uri()}
    if posix.startswith("/"):
        return {"uri": PurePosixPath(posix).as_uri()}
    while posix.startswith("./"):
        posix = posix[2:]
    return {"uri": quote(posix, safe="/"), "uriBaseId": SRCROOT}


def _logical(finding: Finding) -> list[Json]:
    where = [{"kind": "device", "name": finding.device}] if finding.device else []
    qualified = f"{finding.device}/{finding.object}" if finding.device else finding.object
    return [*where, {"kind": "object", "name": finding.object, "fullyQualifiedName": qualified}]


def _location(finding: Finding, anchor: str | None) -> Json:
    """Its source line, else the anchor file (GitHub needs a file), else only logical locations."""
    location: Json = {"logicalLocations": _logical(finding)}
    source = finding.source
    file = source.file if source is not None else anchor
    if file:
        physical: Json = {"artifactLocation": artifact_location(file)}
        if source is not None and source.line is not None and source.line >= 1:
            physical["region"] = {"startLine": source.line}
        location["physicalLocation"] = physical
    return location


def _related(finding: Finding, cause: Finding | None, anchor: str | None) -> list[Json]:
    """A consequence points at its cause (SARIF relatedLocations), so a viewer can jump there."""
    if cause is None or cause is finding:
        return []
    related = _location(cause, anchor)
    related["id"] = 1
    related["message"] = _text(f"caused by {cause.rule} on {cause.device}: {cause.message}")
    return [related]


def _result(finding: Finding, index: int, anchor: str | None, cause: Finding | None = None) -> Json:
    result: Json = {
        "ruleId": finding.rule,
        "ruleIndex": index,
        "level": LEVEL[finding.severity],
        "message": _text(finding.message),
        "locations": [_location(finding, anchor)],
        "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint},
        "properties": {
            "device": finding.device,
            "object": finding.object,
            "path": finding.path,
            "expected": finding.expected,
            "actual": finding.actual,
            "cause": finding.cause,
            "fix": finding.fix,
        },
    }
    related = _related(finding, cause, anchor)
    if related:
        result["relatedLocations"] = related
    if finding.suppressed is not None:
        result["suppressions"] = [
            {"kind": "external", "status": "accepted", "justification": finding.suppressed}
        ]
    return result


def _invocation(report: Report) -> Json:
    """Successful only when every device was checked: an incomplete check cannot be trusted."""
    notes = [
        {"level": "error", "message": _text(f"{d.name} was not checked: {why(d)}")}
        for d in unchecked(report)
    ]
    notes += [
        {"level": "error", "message": _text(f"internal error: {text}")}
        for text in report.internal_errors
    ]
    notes += [
        {
            "level": "note",
            "message": _text(gap_text(gap, limit=len(gap.devices))),
            "associatedRule": {"id": gap.rule},
        }
        for gap in report.coverage
    ]
    invocation: Json = {"executionSuccessful": report.summary.complete}
    if notes:
        invocation["toolExecutionNotifications"] = notes
    return invocation


def _driver(report: Report) -> Json:
    driver: Json = {
        "name": "fabriclint",
        "version": report.fabriclint,
        "semanticVersion": report.fabriclint,
        "rules": rule_descriptors(report.findings),
    }
    if INFORMATION_URI:
        driver["informationUri"] = INFORMATION_URI
    return driver


def build(report: Report, anchor: str | None = None) -> Json:
    """The SARIF log as a dict (see `render`)."""
    driver = _driver(report)
    index = {rule["id"]: i for i, rule in enumerate(driver["rules"])}
    by_print = {f.fingerprint: f for f in report.findings}
    results = [_result(f, index[f.rule], anchor, by_print.get(f.cause)) for f in report.findings]
    properties = {
        "fabric": report.fabric,
        "snapshot": report.snapshot,
        "summary": report.summary.model_dump(mode="json"),
        "coverage": [gap.model_dump(mode="json") for gap in report.coverage],
    }
    run = {
        "tool": {"driver": driver},
        "invocations": [_invocation(report)],
        "results": results,
        "properties": properties,
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render(report: Report, anchor: str | None = None) -> str:
    """SARIF 2.1.0 JSON, keys sorted, no timestamps: the same report always gives the same bytes.

    `anchor` is a file (the fabric's inventory.yaml, say) that findings without a source point
    at: GitHub refuses a whole upload when one result has no physical location.
    """
    return json.dumps(build(report, anchor), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
