"""The InfiniBand example fabric, inventories/ib-cluster, checked end to end through the engine.

`baseline` must give exit 0 and no finding at all; `broken` must give exit 1 with every fault of
snapshots/broken/FAULTS.md reported by its rule, on its device and object, pointing at a source
line; the snapshots must be exactly what scripts/gen_ib_cluster.py renders, and the inventory
must list the generator's devices.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from fabriclint.engine import CheckOptions, CheckResult, run_check
from fabriclint.models.inventory import Inventory
from tests.examples import (
    SeededFault,
    describe,
    load_generator,
    matches,
    read_faults,
    snapshot_files,
)

ROOT = Path(__file__).resolve().parent.parent
FABRIC = ROOT / "inventories" / "ib-cluster"
SNAPSHOTS = FABRIC / "snapshots"
FAULTS_MD = SNAPSHOTS / "broken" / "FAULTS.md"
GEN_SCRIPT = ROOT / "scripts" / "gen_ib_cluster.py"


FAULTS = read_faults(FAULTS_MD)


def check(snapshot: Path) -> CheckResult:
    """Run the engine on the example fabric with `snapshot`."""
    return run_check(CheckOptions(fabric_dir=FABRIC, snapshot=snapshot))


@pytest.fixture(scope="module")
def baseline() -> CheckResult:
    return check(SNAPSHOTS / "baseline")


@pytest.fixture(scope="module")
def broken() -> CheckResult:
    return check(SNAPSHOTS / "broken")


def test_faults_table_covers_every_ib_rule_once() -> None:
    rules = [f.rule for f in FAULTS]
    assert len(set(rules)) == len(rules) >= 8, "each seeded fault must be caught by another rule"
    assert {f"IB{n:03d}" for n in range(1, 11)} <= set(rules)


def test_baseline_is_complete_and_clean(baseline: CheckResult) -> None:
    assert baseline.report.summary.complete, [
        d for d in baseline.report.devices if d.status != "ok"
    ]
    assert [describe(f) for f in baseline.report.findings] == []
    assert baseline.exit_code == 0


def test_broken_is_complete_and_fails(broken: CheckResult) -> None:
    assert broken.report.summary.complete
    assert broken.exit_code == 1


@pytest.mark.parametrize("fault", FAULTS, ids=[f"{f.rule}-{f.device}" for f in FAULTS])
def test_seeded_fault_is_found_with_its_line(broken: CheckResult, fault: SeededFault) -> None:
    hits = [f for f in broken.report.findings if matches(fault, f)]
    same_rule = [describe(f) for f in broken.report.findings if f.rule == fault.rule]
    assert hits, f"{fault.rule} on {fault.device} [{fault.object}] not reported; got {same_rule}"
    located = [f for f in hits if f.source is not None and f.source.line is not None]
    assert located, f"no source line in {[describe(f) for f in hits]}"


def test_every_broken_finding_comes_from_a_seeded_fault(broken: CheckResult) -> None:
    """No finding on a device that no fault touched (the false-positive guard for `broken`)."""
    touched = {f.device for f in FAULTS} | {"sm02"}  # IB004/IB005/DRIFT001 change both SMs
    assert {f.device for f in broken.report.findings} <= touched


def test_snapshots_are_what_the_generator_renders(tmp_path: Path) -> None:
    load_generator(GEN_SCRIPT).write(tmp_path)
    fresh, stored = snapshot_files(tmp_path), snapshot_files(SNAPSHOTS)
    assert sorted(fresh) == sorted(stored), "run: python scripts/gen_ib_cluster.py"
    stale = [name for name in fresh if fresh[name] != stored[name]]
    assert stale == [], "stale snapshot files; run: python scripts/gen_ib_cluster.py"


def test_inventory_lists_the_generated_devices() -> None:
    gen = load_generator(GEN_SCRIPT)
    cluster = gen.baseline()
    data = YAML(typ="safe").load((FABRIC / "inventory.yaml").read_text(encoding="utf-8"))
    inventory = Inventory.model_validate(data)
    devices = {n: d.platform for n, d in inventory.devices.items()}
    expected = dict.fromkeys(cluster.sms, "opensm") | dict.fromkeys(cluster.hosts, "mlnx-host")
    assert devices == expected
    assert inventory.links == []
