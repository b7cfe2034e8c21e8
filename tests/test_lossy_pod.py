"""The lossy-RoCE example, inventories/lossy-pod, checked end to end through the engine.

RoCE runs ECN-only (intent `roce.mode: lossy`, `pfc: {priorities: []}`): no switch or NIC has PFC.
`baseline` must give exit 0, no finding and no coverage gap a lossless rule would invent;
`broken` must give exit 1 with every fault of snapshots/broken/FAULTS.md reported by its rule, on
its device and object, pointing at a source line: PFC on the RoCE priority of a switch and of a
NIC (PFC009), ECN missing on a switch's RoCE queue (ECN005), a CNP DSCP mismatch (NIC003), and
the CNP queue and ECN drift faults a lossless fabric has too. The inventory and snapshots must
be exactly what scripts/gen_lossy_pod.py writes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.engine import CheckOptions, CheckResult, run_check
from tests.examples import (
    SeededFault,
    describe,
    load_generator,
    load_inventory,
    matches,
    read_faults,
    snapshot_files,
)

ROOT = Path(__file__).resolve().parent.parent
FABRIC = ROOT / "inventories" / "lossy-pod"
SNAPSHOTS = FABRIC / "snapshots"
FAULTS = read_faults(SNAPSHOTS / "broken" / "FAULTS.md")
GEN_SCRIPT = ROOT / "scripts" / "gen_lossy_pod.py"


def check(snapshot: str) -> CheckResult:
    """Run the engine on the example fabric with one of its snapshots."""
    return run_check(CheckOptions(fabric_dir=FABRIC, snapshot=SNAPSHOTS / snapshot))


@pytest.fixture(scope="module")
def baseline() -> CheckResult:
    return check("baseline")


@pytest.fixture(scope="module")
def broken() -> CheckResult:
    return check("broken")


def test_faults_cover_the_lossy_mistakes() -> None:
    inventory = load_inventory(FABRIC)
    seeded = {(f.rule, inventory.devices[f.device].platform) for f in FAULTS}
    assert {("PFC009", "eos"), ("PFC009", "mlnx-host"), ("ECN005", "eos")} <= seeded
    assert ("NIC003", "mlnx-host") in seeded


def test_baseline_is_complete_clean_and_exits_0(baseline: CheckResult) -> None:
    assert baseline.report.summary.complete
    assert baseline.exit_code == 0
    assert [describe(f) for f in baseline.report.findings] == []


def test_baseline_has_no_lossless_coverage_gap(baseline: CheckResult) -> None:
    """Nothing is lossless, so no rule may say it lacked a lossless class's settings."""
    gaps = {gap.rule for gap in baseline.report.coverage}
    assert not gaps & {"MTU004", "QOS008", "PFC002"}, gaps


def test_baseline_has_no_pfc_line(baseline: CheckResult) -> None:
    for config in (SNAPSHOTS / "baseline").glob("*/show_running-config.txt"):
        assert "priority-flow-control" not in config.read_text(encoding="utf-8"), config


def test_broken_is_complete_and_fails(broken: CheckResult) -> None:
    assert broken.report.summary.complete
    assert broken.exit_code == 1


@pytest.mark.parametrize("fault", FAULTS, ids=[f"{f.rule}-{f.device}" for f in FAULTS])
def test_seeded_fault_is_found_with_its_line(broken: CheckResult, fault: SeededFault) -> None:
    inventory = load_inventory(FABRIC)
    hits = [f for f in broken.report.findings if matches(fault, f, inventory)]
    same_rule = [describe(f) for f in broken.report.findings if f.rule == fault.rule]
    assert hits, f"{fault.rule} on {fault.device} [{fault.object}] not reported; got {same_rule}"
    assert any(f.source is not None and f.source.line is not None for f in hits)


def test_pfc002_never_fires_on_the_lossy_pod(broken: CheckResult) -> None:
    assert [describe(f) for f in broken.report.findings if f.rule == "PFC002"] == []


@pytest.mark.parametrize(("snapshot", "code"), [("baseline", 0), ("broken", 1)])
def test_cli_exit_codes(snapshot: str, code: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(
        app, ["check", "inventories/lossy-pod", "--snapshot", snapshot, "-f", "json"]
    )
    assert result.exit_code == code, result.output
    assert json.loads(result.stdout)["summary"]["complete"] is True


def test_files_are_what_the_generator_writes(tmp_path: Path) -> None:
    gen = load_generator(GEN_SCRIPT)
    gen.write(tmp_path)
    fresh, stored = snapshot_files(tmp_path), snapshot_files(SNAPSHOTS)
    assert sorted(fresh) == sorted(stored), "run: python scripts/gen_lossy_pod.py"
    assert [n for n in fresh if fresh[n] != stored[n]] == [], "run: python scripts/gen_lossy_pod.py"
    assert (FABRIC / "inventory.yaml").read_text(encoding="utf-8") == gen.inventory_yaml()


def test_every_yaml_file_names_its_schema() -> None:
    for kind in ("inventory", "intent", "policy"):
        first = (FABRIC / f"{kind}.yaml").read_text(encoding="utf-8").splitlines()[0]
        assert first == f"# yaml-language-server: $schema=../../schemas/{kind}.json"
