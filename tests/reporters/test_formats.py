"""The format table, lazy imports, and JSON Lines."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fabriclint.models.finding import Finding
from fabriclint.reporters import FORMATS, get_reporter, jsonl
from tests.reporters.fixtures import empty_report, pod_report, special_report


def test_every_format_has_a_reporter_module() -> None:
    assert set(FORMATS) == {"text", "json", "jsonl", "sarif", "junit", "markdown", "github"}
    for fmt in FORMATS:
        assert isinstance(get_reporter(fmt)(empty_report()), str)


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


def test_jsonl_is_one_finding_per_line_and_nothing_else() -> None:
    for report in (pod_report(), special_report()):
        lines = jsonl.render(report).splitlines()
        assert len(lines) == len(report.findings)
        for line, finding in zip(lines, report.findings, strict=True):
            assert Finding.model_validate_json(line) == finding
            assert json.loads(line) == finding.model_dump(mode="json")
    assert jsonl.render(empty_report()) == ""
