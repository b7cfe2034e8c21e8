"""inventories/multivendor-pod/snapshots/remark-faults: QOS010 and QOS011 on the example pod.

`remark-faults` is `baseline` with the changes of its FAULTS.md (RoCE re-marked on egress by an
EOS `qos rewrite dscp`, storage DSCP 10 put in SONiC's RoCE class): the check must give exactly
those findings, each on its device and object with a source line, and the baseline none of them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fabriclint.engine import CheckOptions, CheckResult, run_check
from tests.examples import describe, read_faults

ROOT = Path(__file__).resolve().parent.parent
FABRIC = ROOT / "inventories" / "multivendor-pod"
SNAPSHOTS = FABRIC / "snapshots"
FAULTS = read_faults(SNAPSHOTS / "remark-faults" / "FAULTS.md")


def check(snapshot: str) -> CheckResult:
    """The engine on the pod with one of its snapshots."""
    return run_check(CheckOptions(fabric_dir=FABRIC, snapshot=SNAPSHOTS / snapshot))


@pytest.fixture(scope="module")
def remark() -> CheckResult:
    return check("remark-faults")


def test_faults_md_lists_one_fault_of_each_rule() -> None:
    assert sorted(f.rule for f in FAULTS) == ["QOS010", "QOS011"]


def test_exactly_the_seeded_findings(remark: CheckResult) -> None:
    assert remark.report.summary.complete and remark.exit_code == 1
    got = sorted((f.rule, f.device, f.object) for f in remark.report.findings)
    assert got == sorted((f.rule, f.device, f.object) for f in FAULTS), [
        describe(f) for f in remark.report.findings
    ]
    assert all(f.source is not None and f.source.line for f in remark.report.findings)


def test_findings_name_what_changed(remark: CheckResult) -> None:
    by_rule = {f.rule: f for f in remark.report.findings}
    assert "re-marked to DSCP 24" in by_rule["QOS010"].message
    assert by_rule["QOS010"].source is not None
    assert by_rule["QOS010"].source.file.endswith("leaf01/show_running-config.txt")
    assert by_rule["QOS011"].actual == {"10": 3}


def test_baseline_gives_neither_rule() -> None:
    result = check("baseline")
    assert [describe(f) for f in result.report.findings if f.rule in ("QOS010", "QOS011")] == []
