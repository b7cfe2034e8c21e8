"""inventories/multivendor-pod/snapshots/buffer-faults: the buffer and ECN-shape rules on the SONiC
leaf of the multivendor example, end to end through the engine.

`buffer-faults` is `baseline` with leaf03's config_db edited (scripts/gen_multivendor_pod.py
BUFFER_FAULTS): it must give exactly the findings its FAULTS.md lists, each with a source line,
and the baseline must give none of the new rules' findings (it gives no finding at all:
tests/test_multivendor_pod.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fabriclint.engine import CheckOptions, CheckResult, run_check
from tests.examples import describe, read_faults

ROOT = Path(__file__).resolve().parent.parent
FABRIC = ROOT / "inventories" / "multivendor-pod"
SNAPSHOT = FABRIC / "snapshots" / "buffer-faults"
FAULTS = read_faults(SNAPSHOT / "FAULTS.md")
NEW_RULES = {"BUF001", "BUF002", "BUF003", "ECN006", "ECN007"}


@pytest.fixture(scope="module")
def result() -> CheckResult:
    return run_check(CheckOptions(fabric_dir=FABRIC, snapshot=SNAPSHOT))


def test_faults_table_names_each_new_rule_but_buf003() -> None:
    # BUF003 (an empty pool besides the one QOS008 judges) has no fault here: the pod's SONiC
    # leaf binds no BUFFER_QUEUE profiles, so no other pool is drawn from by lossless traffic.
    assert NEW_RULES - {f.rule for f in FAULTS} == {"BUF003"}


def test_complete_and_fails(result: CheckResult) -> None:
    assert result.report.summary.complete
    assert result.exit_code == 1


def test_gives_exactly_the_listed_findings(result: CheckResult) -> None:
    got = sorted((f.rule, f.device, f.object) for f in result.report.findings)
    assert got == sorted((f.rule, f.device, f.object) for f in FAULTS), [
        describe(f) for f in result.report.findings
    ]


def test_every_finding_points_at_a_line_of_the_leaf_config(result: CheckResult) -> None:
    for finding in result.report.findings:
        assert finding.source is not None and finding.source.line, describe(finding)
        assert finding.source.file.endswith("leaf03/config_db.json.txt"), describe(finding)


def test_buf002_points_at_the_profile_pool_line(result: CheckResult) -> None:
    (finding,) = [f for f in result.report.findings if f.rule == "BUF002"]
    assert finding.source is not None and finding.source.line is not None
    lines = Path(finding.source.file).read_text(encoding="utf-8").splitlines()
    line = lines[finding.source.line - 1]
    assert '"pool": "egress_lossless_pool"' in line
    assert "egress_lossless_profile" in lines[finding.source.line - 2]


def test_the_only_changes_are_on_the_sonic_leaf() -> None:
    base = FABRIC / "snapshots" / "baseline"
    for device in sorted(p.name for p in base.iterdir() if p.is_dir()):
        for path in (base / device).iterdir():
            same = path.read_text() == (SNAPSHOT / device / path.name).read_text()
            assert same == (device != "leaf03"), path
    edited = json.loads((SNAPSHOT / "leaf03" / "config_db.json.txt").read_text())
    assert "Ethernet240|3" not in edited["BUFFER_PG"]


def test_baseline_gives_none_of_the_new_rules() -> None:
    base = run_check(CheckOptions(fabric_dir=FABRIC, snapshot=FABRIC / "snapshots" / "baseline"))
    assert [describe(f) for f in base.report.findings if f.rule in NEW_RULES] == []
