"""Every finding of the seeded example fabrics has a device and a source line in that device's
own input (a missing setting points at the block it belongs in), so PR annotations land."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabriclint.engine import CheckOptions, run_check

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("fabric", ["roce-pod", "multivendor-pod", "ib-cluster"])
def test_every_broken_finding_has_a_device_and_a_line_in_its_own_input(fabric: str) -> None:
    result = run_check(CheckOptions(fabric_dir=ROOT / "inventories" / fabric, snapshot="broken"))
    assert result.report.findings
    for finding in result.report.findings:
        where = f"{finding.rule} {finding.device} {finding.object}"
        assert finding.device is not None, where
        assert finding.source is not None and finding.source.line, where
        assert f"/{finding.device}/" in finding.source.file.replace("\\", "/"), where
        lines = (ROOT / finding.source.file).read_text().count("\n") + 1
        assert 1 <= finding.source.line <= lines, where


def test_a_missing_setting_points_at_the_classification_that_needed_it() -> None:
    pod = ROOT / "inventories" / "multivendor-pod"
    result = run_check(CheckOptions(fabric_dir=pod, snapshot="broken"))
    missing = [f for f in result.report.findings if f.rule == "DRIFT002" and f.device == "leaf01"]
    source = missing[0].source
    assert source is not None and source.line is not None
    line = (ROOT / source.file).read_text().splitlines()[source.line - 1]
    assert "26" in line  # the DSCP 26 classification whose queue has no ECN


def test_readme_example_output_is_what_the_example_prints() -> None:
    """The README's console block is real output: each line shown is printed, in that order."""
    import re
    import subprocess
    import sys

    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```console\n\$ (fabriclint check [^\n]+)\n(.*?)```", readme, re.S)
    assert block
    args = block.group(1).split()[1:]
    done = subprocess.run(
        [sys.executable, "-c", "from fabriclint.cli.app import main; main()", *args],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    printed = done.stdout.splitlines()
    position = 0
    for line in block.group(2).splitlines():
        if line == "...":
            continue
        assert line in printed[position:], line
        position = printed.index(line, position) + 1
