"""The JSON report of docs/architecture.md, end to end through the CLI on the bundled example fabric."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
POD = ROOT / "inventories" / "roce-pod"
runner = CliRunner()

FINDING_KEYS = {
    "rule", "name", "severity", "device", "object", "path", "expected", "actual",
    "message", "source", "fingerprint", "suppressed", "cause", "fix",
}  # fmt: skip


def check_json(*args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    result = runner.invoke(app, ["check", *args, "--format", "json"])
    return result.exit_code, json.loads(result.output)


def test_broken_report_matches_the_contract() -> None:
    code, report = check_json(str(POD), "--snapshot", "broken")
    assert code == 1
    assert {"fabriclint", "fabric", "snapshot", "summary", "devices", "findings"} <= set(report)
    assert report["fabric"] == "roce-pod"
    summary = report["summary"]
    assert summary["devices"] == 10 and summary["complete"] is True and summary["suppressed"] == 0
    assert set(summary["findings"]) == {"error", "warning", "info"}
    assert summary["findings"]["error"] == sum(f["severity"] == "error" for f in report["findings"])
    assert {d["name"]: d["status"] for d in report["devices"]}["leaf01"] == "ok"
    for finding in report["findings"]:
        assert set(finding) == FINDING_KEYS
        assert re.fullmatch(r"[0-9a-f]{64}", finding["fingerprint"])
        assert finding["source"] is None or set(finding["source"]) == {"file", "line"}
    by_fingerprint = {f["fingerprint"]: f for f in report["findings"]}
    for finding in report["findings"]:  # every cause is a finding that is its own cause
        assert by_fingerprint[finding["cause"]]["cause"] == finding["cause"]
    pfc002 = next(
        f for f in report["findings"] if f["rule"] == "PFC002" and f["device"] == "leaf01"
    )
    assert pfc002["name"] == "rdma-priority-not-lossless" and pfc002["severity"] == "error"
    assert pfc002["source"]["file"].endswith("snapshots/broken/leaf01/show_running-config.txt")
    assert isinstance(pfc002["source"]["line"], int)


def test_fingerprints_ignore_line_numbers(tmp_path: Path) -> None:
    copy = tmp_path / "pod"
    shutil.copytree(POD, copy)
    _, before = check_json(str(copy), "--snapshot", "broken", "--select", "PFC002,ECN002")
    config = copy / "snapshots" / "broken" / "leaf01" / "show_running-config.txt"
    config.write_text("!\n!\n" + config.read_text())  # every line moves down by two
    manifest = copy / "snapshots" / "broken" / "manifest.json"
    data = json.loads(manifest.read_text())
    data["devices"]["leaf01"]["sha256"] = {}
    manifest.write_text(json.dumps(data))
    _, after = check_json(str(copy), "--snapshot", "broken", "--select", "PFC002,ECN002")
    assert {f["fingerprint"] for f in before["findings"]} == {
        f["fingerprint"] for f in after["findings"]
    }
    lines = {f["device"]: f["source"]["line"] for f in after["findings"] if f["device"] == "leaf01"}
    old = {f["device"]: f["source"]["line"] for f in before["findings"] if f["device"] == "leaf01"}
    assert lines["leaf01"] == old["leaf01"] + 2


@pytest.mark.parametrize(
    ("args", "rules"),
    [
        (["--select", "NIC"], {"NIC001", "NIC002", "NIC003", "NIC004", "NIC005", "NIC006"}),
        (
            ["--select", "NIC", "--ignore", "NIC006"],
            {"NIC001", "NIC002", "NIC003", "NIC004", "NIC005"},
        ),
        (["--select", "MTU001,FAB004"], {"MTU001", "FAB004"}),
    ],
)
def test_cli_selection(args: list[str], rules: set[str]) -> None:
    _, report = check_json(str(POD), "--snapshot", "broken", *args)
    assert {f["rule"] for f in report["findings"]} == rules


def test_fail_on_and_policy_pack(tmp_path: Path) -> None:
    code, _ = check_json(str(POD), "--snapshot", "broken", "--select", "FAB004")
    assert code == 0  # FAB004 is a warning; errors fail by default
    code, _ = check_json(
        str(POD), "--snapshot", "broken", "--select", "FAB004", "--fail-on", "warning"
    )
    assert code == 1
    copy = tmp_path / "pod"
    shutil.copytree(POD, copy)
    (copy / "policy.yaml").write_text("extends: [strict]\n")
    code, report = check_json(str(copy), "--snapshot", "broken", "--select", "FAB004")
    assert code == 1 and {f["severity"] for f in report["findings"]} == {"error"}


def test_site_rule_from_policy(tmp_path: Path) -> None:
    copy = tmp_path / "pod"
    shutil.copytree(POD, copy)
    (copy / "policy.yaml").write_text(
        "extends: [default]\n"
        "site_rules:\n"
        "  - code: SITE001\n"
        "    name: leaf-host-port-mtu\n"
        "    message: host-facing leaf ports must have MTU 9214\n"
        "    select: {roles: [leaf]}\n"
        "    schema:\n"
        "      properties:\n"
        "        interfaces:\n"
        "          additionalProperties:\n"
        "            if: {properties: {role: {const: host-facing}}, required: [role]}\n"
        "            then: {properties: {mtu: {const: 9214}}}\n"
    )
    code, report = check_json(str(copy), "--snapshot", "broken", "--select", "SITE")
    assert code == 1
    site = [(f["device"], f["object"], f["source"]["line"] > 0) for f in report["findings"]]
    assert site == [("leaf03", "interface Ethernet2/1", True)]
    code, report = check_json(str(copy), "--snapshot", "baseline", "--select", "SITE")
    assert code == 0 and report["findings"] == []


@pytest.mark.parametrize(
    ("fabric", "snapshot"),
    [("roce-pod", "broken"), ("multivendor-pod", "broken"), ("ib-cluster", "broken"), ("roce-pod", "baseline")],
)  # fmt: skip
def test_json_report_validates_against_its_published_schema(fabric: str, snapshot: str) -> None:
    import jsonschema

    schema = json.loads((ROOT / "schemas" / "report.json").read_text())
    _code, report = check_json(str(ROOT / "inventories" / fabric), "--snapshot", snapshot)
    jsonschema.Draft202012Validator(schema).validate(report)
    broken = dict(report, findings=[{"rule": "PFC002"}])
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(broken))


def test_policy_schema_names_the_rule_catalog() -> None:
    import jsonschema

    validator = jsonschema.Draft202012Validator(
        json.loads((ROOT / "schemas" / "policy.json").read_text())
    )
    assert not list(validator.iter_errors({"select": ["PFC002", "ECN", "ALL", "SITE001"]}))
    for typo in (["PFC99"], ["QOS9"], ["NIC0077"]):
        assert list(validator.iter_errors({"select": typo})), typo
    assert list(validator.iter_errors({"severity": {"PFC99": "error"}}))
