"""The bundled example fabric, inventories/roce-pod, checked end to end through the engine.

`baseline` must give exit 0 and no finding at all (the false-positive guard); `broken` must give
exit 1 with every fault of snapshots/broken/FAULTS.md reported by its rule, on its device and
object, pointing at a source line; a snapshot with an unreachable device must give exit 3. The
snapshots and the inventory must be exactly what scripts/gen_roce_pod.py renders.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

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
FABRIC = ROOT / "inventories" / "roce-pod"
SNAPSHOTS = FABRIC / "snapshots"
FAULTS_MD = SNAPSHOTS / "broken" / "FAULTS.md"
GEN_SCRIPT = ROOT / "scripts" / "gen_roce_pod.py"


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


def test_faults_table_lists_distinct_rules() -> None:
    rules = [f.rule for f in FAULTS]
    assert len(rules) >= 12
    assert len(set(rules)) == len(rules), "each seeded fault must be caught by a different rule"


def test_baseline_is_complete_and_clean(baseline: CheckResult) -> None:
    assert baseline.report.summary.complete, [
        d for d in baseline.report.devices if d.status != "ok"
    ]
    assert [describe(f) for f in baseline.report.findings] == []
    assert baseline.exit_code == 0


def test_broken_is_complete_and_fails(broken: CheckResult) -> None:
    assert broken.report.summary.complete, [d for d in broken.report.devices if d.status != "ok"]
    assert broken.exit_code == 1


@pytest.mark.parametrize("fault", FAULTS, ids=[f"{f.rule}-{f.device}" for f in FAULTS])
def test_seeded_fault_is_found_with_its_line(broken: CheckResult, fault: SeededFault) -> None:
    inventory = load_inventory(FABRIC)
    hits = [f for f in broken.report.findings if matches(fault, f, inventory)]
    same_rule = [describe(f) for f in broken.report.findings if f.rule == fault.rule]
    assert hits, (
        f"{fault.rule} on {fault.device} [{fault.object}] not reported; {fault.rule} gave {same_rule}"
    )
    located = [f for f in hits if f.source is not None and f.source.line is not None]
    assert located, f"no source line in {[describe(f) for f in hits]}"
    assert all(f.suppressed is None for f in located)


def test_unreachable_device_makes_the_check_incomplete(tmp_path: Path) -> None:
    snapshot = tmp_path / "partial"
    shutil.copytree(SNAPSHOTS / "baseline", snapshot)
    manifest_path = snapshot / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["devices"]["gpu03"] = {
        "platform": "mlnx-host",
        "status": "unreachable",
        "error": "ssh: connect to host 192.0.2.18 port 22: Connection timed out",
        "files": {},
        "sha256": {},
    }
    manifest_path.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    shutil.rmtree(snapshot / "gpu03")

    result = check(snapshot)

    assert result.exit_code == 3
    assert not result.report.summary.complete
    status = {d.name: d.status for d in result.report.devices}
    assert "unreachable" in status["gpu03"]
    assert all(s == "ok" for name, s in status.items() if name != "gpu03")


def test_snapshots_are_what_the_generator_renders(tmp_path: Path) -> None:
    load_generator(GEN_SCRIPT).write(tmp_path)
    fresh, stored = snapshot_files(tmp_path), snapshot_files(SNAPSHOTS)
    assert sorted(fresh) == sorted(stored), "run: python scripts/gen_roce_pod.py"
    stale = [name for name in fresh if fresh[name] != stored[name]]
    assert stale == [], "stale snapshot files; run: python scripts/gen_roce_pod.py"


def test_inventory_matches_the_generated_cabling() -> None:
    gen = load_generator(GEN_SCRIPT)
    fabric = gen.baseline()
    inventory = load_inventory(FABRIC)
    links = {frozenset(link.ends()) for link in inventory.links}
    generated = {frozenset(tuple(end.split(":", 1)) for end in pair) for pair in fabric.links}
    assert links == generated
    devices = {n: (d.platform, d.role, d.host) for n, d in inventory.devices.items()}
    expected = {n: ("eos", s.role, s.mgmt_address) for n, s in fabric.switches.items()}
    expected |= {n: ("mlnx-host", h.role, h.mgmt_address) for n, h in fabric.hosts.items()}
    assert devices == expected
