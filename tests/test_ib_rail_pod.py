"""inventories/ib-rail-pod: InfiniBand cabling (the subnet managers' `ibnetdiscover`) against
the plan, end to end.

`baseline` shows the plan's own cabling: exit 0, no finding, no CAB coverage gap, the leaf
switches (run by sm01) reported not-checked and the run complete. `broken` has one cable on
the wrong leaf: exactly the findings of its FAULTS.md, naming both ends with the ibnetdiscover
lines and the plan line. The files are what scripts/gen_ib_rail_pod.py renders.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fabriclint.collectors.run import CollectOptions, _devices
from fabriclint.engine import CheckOptions, CheckResult, run_check
from tests.examples import describe, load_generator, matches, read_faults

ROOT = Path(__file__).resolve().parent.parent
FABRIC = ROOT / "inventories" / "ib-rail-pod"
SNAPSHOTS = FABRIC / "snapshots"
FAULTS = read_faults(SNAPSHOTS / "broken" / "FAULTS.md")
GEN = load_generator(ROOT / "scripts" / "gen_ib_rail_pod.py")
LEAVES = [f"ibleaf{i:02d}" for i in range(1, 9)]


def check(name: str) -> CheckResult:
    return run_check(CheckOptions(fabric_dir=FABRIC, snapshot=SNAPSHOTS / name))


@pytest.fixture(scope="module")
def baseline() -> CheckResult:
    return check("baseline")


@pytest.fixture(scope="module")
def miscabled() -> CheckResult:
    return check("broken")


def test_baseline_is_clean_complete_and_fully_covered(baseline: CheckResult) -> None:
    report = baseline.report
    assert baseline.exit_code == 0 and report.summary.complete
    assert [describe(f) for f in report.findings] == []
    status = {d.name: d.status for d in report.devices}
    assert {n for n, s in status.items() if s == "not-checked"} == set(LEAVES)
    assert {n for n, s in status.items() if s == "ok"} == {"sm01", "sm02"} | set(GEN.HOSTS)
    assert [g for g in report.coverage if g.rule.startswith("CAB")] == []


def test_miscabled_gives_exactly_its_faults(miscabled: CheckResult) -> None:
    findings = miscabled.report.findings
    assert miscabled.exit_code == 1 and miscabled.report.summary.complete
    assert (
        sorted(f.rule for f in findings) == sorted(f.rule for f in FAULTS) == ["CAB003", "CAB005"]
    )
    for fault in FAULTS:
        assert [f for f in findings if matches(fault, f)], (fault, [describe(f) for f in findings])


def test_the_wrong_port_finding_names_both_ends_and_where_each_fact_is(
    miscabled: CheckResult,
) -> None:
    wrong = next(f for f in miscabled.report.findings if f.rule == "CAB003")
    text = (SNAPSHOTS / "broken" / "sm01" / "ibnetdiscover.txt").read_text().splitlines()
    leaf_line = 1 + next(i for i, line in enumerate(text) if line.startswith("[9]"))
    ca_line = 1 + next(
        i for i, line in enumerate(text) if line.startswith('Ca\t1 "H-0002c90300b00305"')
    )
    where = "inventories/ib-rail-pod/snapshots/broken/sm01/ibnetdiscover.txt"
    assert f"ibleaf05 sees gpu03:mlx5_5/1 on 9 ({where}:{leaf_line})" in wrong.message
    assert f"gpu03 sees ibleaf05:9 on mlx5_5/1 ({where}:{ca_line + 1})" in wrong.message
    plan = FABRIC.joinpath("inventory.yaml").read_text().splitlines()
    plan_line = 1 + plan.index('  - {a: "gpu03:mlx5_5/1", b: "ibleaf06:3"}')
    assert (
        f"the plan cables gpu03:mlx5_5/1 to ibleaf06:3 (inventories/ib-rail-pod/inventory.yaml:{plan_line})"
        in wrong.message
    )
    assert "sm02/ibnetdiscover.txt" not in wrong.message  # the same sighting is listed once
    rail = next(f for f in miscabled.report.findings if f.rule == "CAB005")
    assert (rail.expected, rail.actual) == (5, 4)
    # the subnet manager's ibnetdiscover showed that cable, not LLDP
    assert "seen over ibnetdiscover: " in rail.message and "LLDP" not in rail.message


def test_without_ibnetdiscover_the_cabling_is_a_coverage_gap_not_a_pass(tmp_path: Path) -> None:
    import shutil

    snap = tmp_path / "no-topology"
    shutil.copytree(SNAPSHOTS / "baseline", snap)
    manifest = json.loads((snap / "manifest.json").read_text())
    for sm in ("sm01", "sm02"):
        (snap / sm / "ibnetdiscover.txt").unlink()
        del manifest["devices"][sm]["files"]["ibnetdiscover"]
        del manifest["devices"][sm]["sha256"]["ibnetdiscover.txt"]
    (snap / "manifest.json").write_text(json.dumps(manifest))
    result = run_check(CheckOptions(fabric_dir=FABRIC, snapshot=snap))
    assert not [f for f in result.report.findings if f.rule.startswith("CAB")]
    gaps = [g for g in result.report.coverage if g.rule == "CAB003"]
    assert {d for g in gaps for d in g.devices} == {"sm01", "sm02"} | set(GEN.HOSTS)
    assert {g.missing for g in gaps if "sm01" in g.devices} == {
        "`ibnetdiscover` output (LLDP neighbours)"
    }
    # and an SM node whose HCA port only ibnetdiscover shows is a port fabriclint cannot find
    inv = sorted((f.rule, f.device) for f in result.report.findings)
    assert inv == [("INV001", "sm01"), ("INV001", "sm02")]


def test_collect_does_not_log_into_the_managed_switches() -> None:
    devices, _ = _devices(FABRIC, CollectOptions())
    assert set(devices) == {"sm01", "sm02"} | set(GEN.HOSTS)


def test_files_are_what_the_generator_renders() -> None:
    assert (FABRIC / "inventory.yaml").read_text() == GEN.render_inventory()
    assert (SNAPSHOTS / "broken" / "FAULTS.md").read_text() == GEN.faults_markdown()
    for name, miscabled in (("baseline", False), ("broken", True)):
        snap = SNAPSHOTS / name
        cas = GEN.read_cas(snap)
        for sm in GEN.SMS:
            text = (snap / sm / "ibnetdiscover.txt").read_text()
            assert text == GEN.render_ibnetdiscover(cas, miscabled, sm), f"{name}/{sm}: stale"


@pytest.mark.parametrize(
    ("manager", "message"),
    [("sm9", "managed_by names an unknown device"), ("ibleaf01", "managed_by names itself")],
)
def test_managed_by_must_name_another_device(tmp_path: Path, manager: str, message: str) -> None:
    import shutil

    from fabriclint.engine import option_models
    from fabriclint.loaders.fabric import FabricError, load_fabric

    fabric = tmp_path / "pod"
    shutil.copytree(FABRIC, fabric, ignore=shutil.ignore_patterns("snapshots"))
    text = (fabric / "inventory.yaml").read_text()
    old = "ibleaf01: {platform: ib-switch, role: ib-leaf, rail: 0, managed_by: sm01}"
    (fabric / "inventory.yaml").write_text(text.replace(old, old.replace("sm01", manager)))
    with pytest.raises(FabricError) as caught:
        load_fabric(fabric, option_models())
    found = [str(p) for p in caught.value.problems]
    assert len(found) == 1 and message in found[0], found
    line = 1 + text.splitlines().index(f"  {old}")
    assert found[0].startswith(f"{fabric / 'inventory.yaml'}:{line}:"), found
