"""The format table, lazy imports, and JSON Lines."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from fabriclint.models.finding import Finding
from fabriclint.reporters import FORMATS, get_reporter, jsonl
from tests.reporters.fixtures import empty_report, pod_report, special_report


def test_every_format_has_a_reporter_module() -> None:
    assert set(FORMATS) == {
        "text", "json", "jsonl", "sarif", "junit", "markdown", "github", "gitlab", "html",
    }  # fmt: skip
    for fmt in FORMATS:
        assert isinstance(get_reporter(fmt)(empty_report()), str)


def test_the_cli_offers_exactly_the_formats() -> None:
    """`--format` choices come from the same list: a format missing there could not be chosen."""
    from typer.testing import CliRunner

    from fabriclint.cli.app import app

    result = CliRunner().invoke(app, ["check", ".", "--format", "xml"])
    assert result.exit_code == 2
    offered = re.findall(r"'([a-z]+)'", result.output.split("is not one of", 1)[1])
    assert offered == list(FORMATS)


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        get_reporter("xml")


def test_options_reach_their_reporters() -> None:
    report = pod_report()
    assert "<failure" in get_reporter("junit", fail_on="info")(report).split("QOS006")[1]
    anchored = json.loads(get_reporter("sarif", anchor="f/inventory.yaml")(report))
    assert all("physicalLocation" in r["locations"][0] for r in anchored["runs"][0]["results"])
    assert "\x1b[" in get_reporter("text", color=True)(report)


def test_reporters_are_imported_only_when_chosen() -> None:
    code = (
        "import sys, fabriclint.reporters as r\n"
        "print(sorted(m for m in sys.modules if m.startswith('fabriclint.reporters.')))\n"
        "r.get_reporter('junit')\n"
        "print(sorted(m for m in sys.modules if m.startswith('fabriclint.reporters.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["[]", "['fabriclint.reporters.junit']"]


def test_jsonl_records_findings_then_coverage_gaps_unchecked_devices_and_summary() -> None:
    for report in (pod_report(), special_report()):
        records = [json.loads(line) for line in jsonl.render(report).splitlines()]
        kinds = [r.pop("record") for r in records]
        findings = [r for r, k in zip(records, kinds, strict=True) if k == "finding"]
        assert [Finding.model_validate(r) for r in findings] == report.findings
        gaps = [r for r, k in zip(records, kinds, strict=True) if k == "coverage"]
        assert gaps == [g.model_dump(mode="json") for g in report.coverage]
        unchecked = [r["name"] for r, k in zip(records, kinds, strict=True) if k == "device"]
        assert unchecked == [
            d.name for d in report.devices if d.status not in ("ok", "not-checked")
        ]
        assert kinds[-1] == "summary" and kinds.count("summary") == 1
        assert records[-1]["complete"] == report.summary.complete
    pod = [json.loads(line) for line in jsonl.render(pod_report()).splitlines()]
    assert any(r["record"] == "coverage" and r["rule"] == "QOS008" for r in pod)
    empty = [json.loads(line) for line in jsonl.render(empty_report()).splitlines()]
    assert [r["record"] for r in empty] == ["summary"]
