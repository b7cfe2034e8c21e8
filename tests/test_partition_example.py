"""inventories/ib-cluster/snapshots/partition-faults: IB011 and IB012 end to end.

`partition-faults` is `baseline` with tenant isolation undone (scripts/gen_ib_cluster.py
PARTITION_FAULTS): sm01's partitions.conf opens every partition to every HCA, and both SMs run
`part_enforce off`. Exactly the rows of its FAULTS.md are reported, each at its line; `baseline`,
whose intent declares the tenants, stays clean (its tenant partitions list their own ports).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fabriclint.engine import CheckOptions, CheckResult, run_check
from tests.examples import describe, matches, read_faults

ROOT = Path(__file__).resolve().parent.parent
FABRIC = ROOT / "inventories" / "ib-cluster"
SNAPSHOTS = FABRIC / "snapshots"
FAULTS = read_faults(SNAPSHOTS / "partition-faults" / "FAULTS.md")


def check(name: str) -> CheckResult:
    return run_check(CheckOptions(fabric_dir=FABRIC, snapshot=SNAPSHOTS / name))


@pytest.fixture(scope="module")
def faulty() -> CheckResult:
    return check("partition-faults")


def test_exactly_the_seeded_partition_faults(faulty: CheckResult) -> None:
    assert faulty.report.summary.complete and faulty.exit_code == 1
    findings = faulty.report.findings
    assert sorted(f.rule for f in FAULTS) == ["IB011", "IB012", "IB012"]
    assert sorted(f.rule for f in findings) == sorted(f.rule for f in FAULTS), [
        describe(f) for f in findings
    ]
    for fault in FAULTS:
        assert [f for f in findings if matches(fault, f)], (fault, [describe(f) for f in findings])


def test_findings_point_at_the_lines(faulty: CheckResult) -> None:
    for finding in faulty.report.findings:
        assert finding.source is not None and finding.source.line, describe(finding)
        text = (ROOT / finding.source.file).read_text().splitlines()[finding.source.line - 1]
        wanted = "part_enforce off" if finding.rule == "IB012" else "Default=0x7fff"
        assert text.startswith(wanted), (describe(finding), text)


def test_baseline_declares_tenants_and_stays_clean() -> None:
    result = check("baseline")
    assert result.exit_code == 0 and result.report.findings == []
