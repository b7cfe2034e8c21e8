"""Every reporter on the bundled example (roce-pod, snapshot broken): locations are real."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import unquote

import pytest

from fabriclint.engine import CheckOptions, run_check
from fabriclint.models.finding import Report
from fabriclint.reporters import FORMATS, get_reporter
from tests.reporters.test_junit import assert_counts_add_up, assert_names_unique
from tests.reporters.test_sarif import validate

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def report() -> Report:
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)  # sources are relative to the working directory, as a user types them
        opts = CheckOptions(fabric_dir=Path("inventories/roce-pod"), snapshot="broken")
        return run_check(opts).report


def _line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8", errors="replace").splitlines())


def test_sarif_validates_and_points_at_real_lines(report: Report) -> None:
    log = json.loads(get_reporter("sarif", anchor="inventories/roce-pod/inventory.yaml")(report))
    validate(log)
    results = log["runs"][0]["results"]
    assert len(results) == len(report.findings) > 0
    for result, finding in zip(results, report.findings, strict=True):
        physical = result["locations"][0]["physicalLocation"]
        artifact = physical["artifactLocation"]
        assert artifact["uriBaseId"] == "%SRCROOT%"
        path = ROOT / unquote(artifact["uri"])
        assert path.is_file(), artifact["uri"]
        assert finding.source is not None and path == ROOT / finding.source.file
        line = physical["region"]["startLine"]
        assert 1 <= line <= _line_count(path), (artifact["uri"], line)


def test_junit_parses_with_unique_names(report: Report) -> None:
    root = ET.fromstring(get_reporter("junit")(report).encode())
    assert_counts_add_up(root)
    assert_names_unique(root)
    assert len(list(root.iter("testsuite"))) == report.summary.devices
    assert int(root.get("failures", "0")) == report.summary.findings["error"]


def test_github_annotations_point_at_real_files(report: Report) -> None:
    lines = get_reporter("github")(report).splitlines()
    for line in lines[:-1]:
        if line.startswith("::notice title=") and " coverage::" in line:
            continue  # a coverage gap names a rule and devices, not a line
        props = dict(p.split("=", 1) for p in line.split("::")[1].split(" ", 1)[1].split(","))
        file = props["file"].replace("%3A", ":").replace("%2C", ",").replace("%25", "%")
        assert (ROOT / file).is_file(), file
        assert 1 <= int(props["line"]) <= _line_count(ROOT / file)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_renders_the_example(report: Report, fmt: str) -> None:
    text = get_reporter(fmt)(report)
    assert text.endswith("\n")
    assert fmt == "jsonl" or "roce-pod" in text
