"""inventories/roce-pod/snapshots/lldp-miscabled: the cabling plan against LLDP, end to end.

`lldp-miscabled` is `baseline` with the LLDP outputs of a pod in which one pair of cables is
swapped and one unplanned cable added (its FAULTS.md): exactly those two CAB findings, each
naming both ends with the LLDP line of each and the plan's lines. `baseline` holds the LLDP
outputs of the plan's own cabling: no CAB finding and no CAB coverage gap. `broken` has no LLDP
output: no CAB finding, and a CAB coverage gap for every cabled device (never a pass).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fabriclint.engine import CheckOptions, CheckResult, run_check
from tests.examples import describe, matches, read_faults

ROOT = Path(__file__).resolve().parent.parent
FABRIC = ROOT / "inventories" / "roce-pod"
SNAPSHOTS = FABRIC / "snapshots"
FAULTS = read_faults(SNAPSHOTS / "lldp-miscabled" / "FAULTS.md")


def check(name: str) -> CheckResult:
    return run_check(CheckOptions(fabric_dir=FABRIC, snapshot=SNAPSHOTS / name))


@pytest.fixture(scope="module")
def miscabled() -> CheckResult:
    return check("lldp-miscabled")


def test_miscabled_gives_exactly_the_two_cabling_findings(miscabled: CheckResult) -> None:
    assert miscabled.report.summary.complete
    assert miscabled.exit_code == 1
    findings = miscabled.report.findings
    assert len(FAULTS) == 2
    assert sorted(f.rule for f in findings) == sorted(f.rule for f in FAULTS), [
        describe(f) for f in findings
    ]
    for fault in FAULTS:
        assert [f for f in findings if matches(fault, f)], (fault, [describe(f) for f in findings])


def test_each_cabling_finding_locates_both_ends(miscabled: CheckResult) -> None:
    by_rule = {f.rule: f for f in miscabled.report.findings}
    swap, extra = by_rule["CAB004"], by_rule["CAB002"]
    for device in ("leaf01", "gpu01", "gpu02"):
        lldp = (
            "show_lldp_neighbors_detail_|_json.txt" if device == "leaf01" else "lldpctl_-f_json.txt"
        )
        assert f"lldp-miscabled/{device}/{lldp}:" in swap.message, swap.message
    plan = (FABRIC / "inventory.yaml").read_text().splitlines()
    for cable in (
        "{a: gpu01:ens1np0, b: leaf01:Ethernet1/1}",
        "{a: gpu02:ens1np0, b: leaf01:Ethernet2/1}",
    ):
        assert f"inventory.yaml:{plan.index(f'  - {cable}') + 1}" in swap.message
    for device in ("leaf01", "leaf02"):
        assert f"lldp-miscabled/{device}/show_lldp_neighbors_detail_|_json.txt:35" in extra.message
    assert extra.source is not None and extra.source.line == 35


def test_baseline_lldp_gives_no_cabling_finding_nor_gap() -> None:
    result = check("baseline")
    assert result.exit_code == 0
    assert not [f for f in result.report.findings if f.rule.startswith("CAB")]
    assert not [g for g in result.report.coverage if g.rule.startswith("CAB")]


def test_no_lldp_output_is_a_gap_never_a_pass() -> None:
    result = check("broken")
    assert not [f for f in result.report.findings if f.rule.startswith("CAB")]
    gaps = [g for g in result.report.coverage if g.rule.startswith("CAB")]
    assert {g.rule for g in gaps} == {"CAB001", "CAB002", "CAB003", "CAB004"}
    cab001 = {g.missing: set(g.devices) for g in gaps if g.rule == "CAB001"}
    assert cab001["`show lldp neighbors detail | json` output (LLDP neighbours)"] == {
        "spine01",
        "spine02",
        "leaf01",
        "leaf02",
        "leaf03",
        "leaf04",
    }
    assert cab001["`lldpctl -f json` output (LLDP neighbours)"] == {
        "gpu01",
        "gpu02",
        "gpu03",
        "gpu04",
    }


def test_truncated_lldp_output_makes_the_run_incomplete(tmp_path: Path) -> None:
    """An LLDP output that is there but cut off is unreadable input: the device, and the run, are
    incomplete (exit 3) with the file named, never a complete run with a quiet coverage gap."""
    import shutil

    from fabriclint.snapshot_import import rehash

    fabric = tmp_path / "roce-pod"
    shutil.copytree(FABRIC, fabric, ignore=shutil.ignore_patterns("snapshots"))
    snap = fabric / "snapshots" / "baseline"
    shutil.copytree(SNAPSHOTS / "baseline", snap)
    lldp = next((snap / "leaf01").glob("show_lldp_neighbors*"))
    lldp.write_text(lldp.read_text()[:200])
    rehash(snap)  # a deliberate edit: checksums refreshed, so only the truncation counts
    result = run_check(CheckOptions(fabric_dir=fabric, snapshot=snap))
    assert result.exit_code == 3
    leaf01 = next(d for d in result.report.devices if d.name == "leaf01")
    assert leaf01.status == "unparseable"
    problems = [f for f in result.report.findings if f.device == "leaf01" and "LLDP" in f.message]
    assert problems and problems[0].source is not None
    assert problems[0].source.file.endswith(lldp.name)
