"""inventories/roce-pod/snapshots/svi-mtu-faults: MTU005 and MTU006 end to end.

`svi-mtu-faults` is `baseline` plus a storage VLAN trunked over port-channels on leaf01 and
leaf02 (benchmarks/roce_pod_l2.py), with the two MTU faults of its FAULTS.md: exactly those two
findings, each at the line that sets the MTU. `baseline` (no VLAN, no port-channel) stays clean.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fabriclint.engine import CheckOptions, CheckResult, run_check
from tests.examples import describe, matches, read_faults

ROOT = Path(__file__).resolve().parent.parent
FABRIC = ROOT / "inventories" / "roce-pod"
SNAPSHOTS = FABRIC / "snapshots"
FAULTS = read_faults(SNAPSHOTS / "svi-mtu-faults" / "FAULTS.md")


def check(name: str) -> CheckResult:
    return run_check(CheckOptions(fabric_dir=FABRIC, snapshot=SNAPSHOTS / name))


@pytest.fixture(scope="module")
def faulty() -> CheckResult:
    return check("svi-mtu-faults")


def test_exactly_the_seeded_mtu_faults(faulty: CheckResult) -> None:
    assert faulty.report.summary.complete and faulty.exit_code == 1
    findings = faulty.report.findings
    assert sorted(f.rule for f in FAULTS) == ["MTU005", "MTU006"]
    assert sorted(f.rule for f in findings) == sorted(f.rule for f in FAULTS), [
        describe(f) for f in findings
    ]
    for fault in FAULTS:
        assert [f for f in findings if matches(fault, f)], (fault, [describe(f) for f in findings])


def test_findings_point_at_the_mtu_lines(faulty: CheckResult) -> None:
    by_rule = {f.rule: f for f in faulty.report.findings}
    svi, member = by_rule["MTU005"], by_rule["MTU006"]
    assert (svi.expected, svi.actual) == (1500, 9214)
    assert "Port-Channel100" in svi.message
    assert svi.source is not None and svi.source.file.endswith("leaf01/show_running-config.txt")
    config = (SNAPSHOTS / "svi-mtu-faults" / "leaf01" / "show_running-config.txt").read_text()
    lines = config.splitlines()
    assert lines[svi.source.line - 2 : svi.source.line] == [  # type: ignore[operator]
        "   description STORAGE_GATEWAY",
        "   mtu 9214",
    ]
    assert (member.expected, member.actual) == (9214, 1500)
    assert member.source is not None and member.source.file.endswith("leaf02/show_interfaces.txt")
    # a switched EOS port takes its MTU from `l2 mtu`, a routed one (the SVI) from `mtu`
    assert member.fix == "interface Ethernet62/1\n   l2 mtu 9214"
    assert svi.fix == "interface Vlan100\n   mtu 1500"


def test_baseline_has_no_mtu_finding_and_no_vlans() -> None:
    result = check("baseline")
    assert not [f for f in result.report.findings if f.rule in ("MTU005", "MTU006")]
    assert result.exit_code == 0
