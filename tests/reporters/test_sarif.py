"""SARIF: schema validity, rule metadata from the real catalog, locations, suppressions."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from fabriclint.models.common import Source
from fabriclint.reporters import sarif
from fabriclint.rules.registry import ALL_RULES
from tests.reporters.fixtures import CASES, empty_report, finding, pod_report, report_for

SCHEMAS = Path(__file__).resolve().parents[2].parent / "shared" / "schemas"
SCHEMA = SCHEMAS / "sarif-schema-2.1.0.json"


def sarif_log(report: Any, anchor: str | None = None) -> dict[str, Any]:
    return json.loads(sarif.render(report, anchor=anchor))  # type: ignore[no-any-return]


def validate(log: dict[str, Any]) -> None:
    """Validate against the OASIS schema (draft-04) when ../shared/schemas is present."""
    if not SCHEMA.is_file():
        pytest.skip(f"{SCHEMA} not present")
    from jsonschema import Draft4Validator

    errors = sorted(Draft4Validator(json.loads(SCHEMA.read_text())).iter_errors(log), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("anchor", [None, "fabric/inventory.yaml"])
def test_validates_against_the_schema(case: str, anchor: str | None) -> None:
    validate(sarif_log(CASES[case](), anchor))


def test_rules_come_from_the_catalog_then_from_findings() -> None:
    run = sarif_log(pod_report())["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules[: len(ALL_RULES)]] == [r.code for r in ALL_RULES]
    pfc002 = next(r for r in rules if r["id"] == "PFC002")
    doc = inspect.cleandoc(next(r for r in ALL_RULES if r.code == "PFC002").__doc__ or "")
    assert pfc002["name"] == "rdma-priority-not-lossless"
    assert pfc002["help"]["text"] == doc
    assert pfc002["fullDescription"]["text"] == doc.split("\n\n")[0].replace("\n", " ")
    assert "Failing (EOS" in pfc002["help"]["markdown"]
    assert pfc002["defaultConfiguration"] == {"level": "error"}
    levels = {r["id"]: r["defaultConfiguration"]["level"] for r in rules}
    assert levels["QOS006"] == "note" and levels["PFC001"] == "warning"
    site = rules[-1]
    assert site["id"] == "SITE001" and site["name"] == "gpu-mtu-9000"
    assert site["defaultConfiguration"] == {"level": "warning"}
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]


def test_every_catalog_rule_has_help() -> None:
    for rule in sarif_log(empty_report())["runs"][0]["tool"]["driver"]["rules"]:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["text"] and rule["help"]["markdown"]


def _result(run: dict[str, Any], rule: str, device: str | None) -> dict[str, Any]:
    return next(
        r for r in run["results"] if r["ruleId"] == rule and r["properties"]["device"] == device
    )


def test_results_point_at_file_and_line() -> None:
    run = sarif_log(pod_report())["runs"][0]
    pfc = _result(run, "PFC002", "gpu01")
    location = pfc["locations"][0]
    assert location["physicalLocation"] == {
        "artifactLocation": {
            "uri": "snapshots/candidate/gpu01/mlnx_qos_-i_ens1np0.txt",
            "uriBaseId": "%SRCROOT%",
        },
        "region": {"startLine": 9},
    }
    assert location["logicalLocations"][0] == {"kind": "device", "name": "gpu01"}
    assert pfc["partialFingerprints"] == {"fabriclint/v1": pod_report().findings[1].fingerprint}
    assert pfc["properties"]["expected"] == [3] and pfc["properties"]["actual"] == []
    no_line = _result(run, "QOS006", "leaf01")["locations"][0]["physicalLocation"]
    assert "region" not in no_line


def test_a_finding_without_source_uses_the_anchor_or_only_logical_locations() -> None:
    bare = _result(sarif_log(pod_report())["runs"][0], "DRIFT003", "leaf02")["locations"][0]
    assert "physicalLocation" not in bare
    assert bare["logicalLocations"][1]["fullyQualifiedName"] == "leaf02/device"
    anchored = sarif_log(pod_report(), anchor="lab/inventory.yaml")["runs"][0]
    for result in anchored["results"]:  # GitHub rejects an upload with a location-less result
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    loc = _result(anchored, "DRIFT003", "leaf02")["locations"][0]["physicalLocation"]
    assert loc == {"artifactLocation": {"uri": "lab/inventory.yaml", "uriBaseId": "%SRCROOT%"}}


def test_suppressed_finding_carries_its_reason() -> None:
    run = sarif_log(pod_report())["runs"][0]
    assert _result(run, "QOS004", "spine01")["suppressions"] == [
        {
            "kind": "external",
            "status": "accepted",
            "justification": "CNP queue is dwrr by design until the ASIC upgrade (NET-1234)",
        }
    ]
    assert sum("suppressions" in r for r in run["results"]) == 1


def test_invocation_and_summary_report_incompleteness() -> None:
    run = sarif_log(pod_report())["runs"][0]
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False
    assert "leaf02" in invocation["toolExecutionNotifications"][0]["message"]["text"]
    assert run["properties"]["summary"]["complete"] is False
    clean = sarif_log(empty_report())["runs"][0]
    assert clean["invocations"] == [{"executionSuccessful": True}] and clean["results"] == []


@pytest.mark.parametrize(
    ("file", "expected"),
    [
        ("./snap/leaf01/show run.txt", {"uri": "snap/leaf01/show%20run.txt", "uriBaseId": "%SRCROOT%"}),
        ("snap\\leaf01\\a.txt", {"uri": "snap/leaf01/a.txt", "uriBaseId": "%SRCROOT%"}),
        ("snap/gpu01/grep_%2Fsys.txt", {"uri": "snap/gpu01/grep_%252Fsys.txt", "uriBaseId": "%SRCROOT%"}),
        ("c:leaf.cfg", {"uri": "c%3Aleaf.cfg", "uriBaseId": "%SRCROOT%"}),
        ("/srv/fabric/leaf01.cfg", {"uri": "file:///srv/fabric/leaf01.cfg"}),
        ("C:\\fabric\\leaf01.cfg", {"uri": "file:///C:/fabric/leaf01.cfg"}),
    ],
)  # fmt: skip
def test_artifact_location(file: str, expected: dict[str, str]) -> None:
    assert sarif.artifact_location(file) == expected


def test_source_line_zero_has_no_region() -> None:
    bad = finding("PARSE001", "unrecognized-qos-config", "info", "leaf01", "line 0: x",
                  source=Source(file="a.cfg", line=0))  # fmt: skip
    report = report_for([bad], [])
    physical = sarif_log(report)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert physical == {"artifactLocation": {"uri": "a.cfg", "uriBaseId": "%SRCROOT%"}}


def test_a_consequence_points_at_its_cause() -> None:
    from tests.reporters.fixtures import report_for
    from tests.reporters.test_text import OK, _grouped

    findings = _grouped()
    results = sarif.build(report_for(findings, OK))["runs"][0]["results"]
    by_rule = {r["ruleId"]: r for r in results}
    assert by_rule["DRIFT001"]["properties"]["cause"] == findings[0].fingerprint
    related = by_rule["DRIFT001"]["relatedLocations"]
    assert related[0]["physicalLocation"]["region"]["startLine"] == 506
    assert related[0]["message"]["text"].startswith("caused by PFC002 on leaf01")
    assert "relatedLocations" not in by_rule["PFC002"]
