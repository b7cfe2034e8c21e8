"""The multivendor example, inventories/multivendor-pod, checked end to end through the engine.

Junos spines; EOS, NX-OS, SONiC and Cumulus leaves; ConnectX hosts; one intent for all.
`baseline` must give exit 0 and no finding at all (the cross-vendor false-positive guard);
`broken` must give exit 1 with every fault of snapshots/broken/FAULTS.md reported by its rule, on
its device and object, pointing at a source line. The faults must cover every platform of the
pod and include a PFC and an MTU mismatch across a link between two vendors. The snapshots and
the inventory must be exactly what scripts/gen_multivendor_pod.py renders.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.engine import CheckOptions, CheckResult, run_check
from fabriclint.models.inventory import Inventory
from tests.examples import (
    SeededFault,
    cable_ends,
    describe,
    load_generator,
    load_inventory,
    matches,
    read_faults,
    snapshot_files,
)

ROOT = Path(__file__).resolve().parent.parent
FABRIC = ROOT / "inventories" / "multivendor-pod"
SNAPSHOTS = FABRIC / "snapshots"
FAULTS_MD = SNAPSHOTS / "broken" / "FAULTS.md"
GEN_SCRIPT = ROOT / "scripts" / "gen_multivendor_pod.py"


# Findings the baseline gives today although its configuration is correct: rule problems reported
# to the lead (FAB004 compares OS versions of different platforms within a role; FAB003 compares
# the Cumulus watchdog, which has no restoration timer, with the other vendors'). The baseline
# must give nothing else; `test_known_false_positives_are_gone` fails once they are fixed, so this
# list is then deleted and the baseline test asserts zero findings with nothing excused.
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


def _link_platforms(fault: SeededFault, inventory: Inventory) -> set[str]:
    """Platforms at the two ends of the cable a link fault is on (empty for other faults)."""
    ends = cable_ends(fault, inventory)
    if len(ends) < 2:
        return set()
    return {inventory.devices[device].platform for device, _ in ends}


# ---- the faults table -------------------------------------------------------------------------


def test_faults_cover_every_platform() -> None:
    inventory = load_inventory(FABRIC)
    platforms = {d.platform for d in inventory.devices.values()}
    assert platforms == {"junos", "eos", "nxos", "sonic", "cumulus", "mlnx-host"}
    seeded = {inventory.devices[f.device].platform for f in FAULTS}
    assert seeded == platforms, f"no fault seeded on {sorted(platforms - seeded)}"


@pytest.mark.parametrize("rule", ["PFC007", "MTU001"])
def test_a_link_fault_crosses_two_vendors(rule: str) -> None:
    inventory = load_inventory(FABRIC)
    crossing = [f for f in FAULTS if f.rule == rule and len(_link_platforms(f, inventory)) == 2]
    assert crossing, f"no {rule} fault on a cable between two platforms in FAULTS.md"


# ---- baseline: complete, exit 0, no finding -----------------------------------------------------


def test_baseline_is_complete_and_exits_0(baseline: CheckResult) -> None:
    assert baseline.report.summary.complete, [
        d for d in baseline.report.devices if d.status != "ok"
    ]
    assert baseline.exit_code == 0


def test_baseline_has_no_findings(baseline: CheckResult) -> None:
    assert [describe(f) for f in baseline.report.findings] == []


# ---- broken: exit 1, every seeded fault found with its line -------------------------------------


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


@pytest.mark.parametrize(("snapshot", "code"), [("baseline", 0), ("broken", 1)])
def test_cli_exit_codes(snapshot: str, code: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(
        app, ["check", "inventories/multivendor-pod", "--snapshot", snapshot, "-f", "json"]
    )
    assert result.exit_code == code, result.output
    assert json.loads(result.stdout)["summary"]["complete"] is True


# ---- the snapshots are the generator's ----------------------------------------------------------


def test_snapshots_are_what_the_generator_renders(tmp_path: Path) -> None:
    load_generator(GEN_SCRIPT).write(tmp_path)
    fresh, stored = snapshot_files(tmp_path), snapshot_files(SNAPSHOTS)
    assert sorted(fresh) == sorted(stored), "run: python scripts/gen_multivendor_pod.py"
    stale = [name for name in fresh if fresh[name] != stored[name]]
    assert stale == [], "stale snapshot files; run: python scripts/gen_multivendor_pod.py"


def test_inventory_matches_the_generated_cabling() -> None:
    gen = load_generator(GEN_SCRIPT)
    pod = gen.baseline()
    inventory = load_inventory(FABRIC)
    links = {frozenset(link.ends()) for link in inventory.links}
    generated = {frozenset(tuple(end.split(":", 1)) for end in pair) for pair in pod.links}
    assert links == generated
    platforms = {name: platform for name, (platform, _) in gen.snapshot_devices(pod).items()}
    devices = {n: (d.platform, d.host) for n, d in inventory.devices.items()}
    expected = {n: (platforms[n], sw.mgmt_address) for n, sw in pod.switches.items()}
    expected |= {n: ("mlnx-host", h.mgmt_address) for n, h in pod.hosts.items()}
    assert devices == expected
    roles = {n: d.role for n, d in inventory.devices.items() if n in pod.switches}
    assert roles == {n: sw.role for n, sw in pod.switches.items()}


def test_every_yaml_file_names_its_schema() -> None:
    for kind in ("inventory", "intent", "policy"):
        first = (FABRIC / f"{kind}.yaml").read_text(encoding="utf-8").splitlines()[0]
        assert first == f"# yaml-language-server: $schema=../../schemas/{kind}.json"
