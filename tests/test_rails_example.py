"""Rails declared in inventories/roce-pod: CAB005 runs on the bundled example.

`lldp-rail-crossed` is `baseline` with the LLDP outputs of a pod in which gpu04's NIC1 (rail 1)
is plugged into leaf03 (rail 0): exactly its FAULTS.md findings, both ends located. Every other
snapshot keeps its results: no CAB005 anywhere else, although the rule now judges every cable
(the leaf-to-leaf patch cable of `lldp-miscabled` is no rail crossing).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fabriclint.engine import CheckOptions, CheckResult, run_check
from tests.examples import describe, load_inventory, matches, read_faults

ROOT = Path(__file__).resolve().parent.parent
FABRIC = ROOT / "inventories" / "roce-pod"
SNAPSHOTS = FABRIC / "snapshots"
FAULTS = read_faults(SNAPSHOTS / "lldp-rail-crossed" / "FAULTS.md")


def check(name: str) -> CheckResult:
    return run_check(CheckOptions(fabric_dir=FABRIC, snapshot=SNAPSHOTS / name))


def test_the_inventory_declares_a_rail_for_every_leaf_and_host_port() -> None:
    inventory = load_inventory(FABRIC)
    rails = {n: d.rail for n, d in inventory.devices.items() if d.role == "leaf"}
    assert rails == {"leaf01": 0, "leaf02": 1, "leaf03": 0, "leaf04": 1}
    for link in inventory.links:
        (a, a_port), (b, _) = link.ends()
        if a.startswith("gpu"):  # each planned host cable stays on its rail
            assert inventory.devices[a].rails[a_port] == inventory.devices[b].rail, link


def test_rail_crossed_gives_exactly_its_faults() -> None:
    result = check("lldp-rail-crossed")
    findings = result.report.findings
    assert result.exit_code == 1 and result.report.summary.complete
    assert (
        sorted(f.rule for f in findings) == sorted(f.rule for f in FAULTS) == ["CAB003", "CAB005"]
    )
    for fault in FAULTS:
        assert [f for f in findings if matches(fault, f)], (fault, [describe(f) for f in findings])
    crossing = next(f for f in findings if f.rule == "CAB005")
    assert (crossing.expected, crossing.actual) == (1, 0)
    where = "lldp-rail-crossed/leaf03/show_lldp_neighbors_detail_|_json.txt:"
    assert (
        where in crossing.message
        and "lldp-rail-crossed/gpu04/lldpctl_-f_json.txt:" in crossing.message
    )
    assert crossing.source is not None and where in f"{crossing.source}"
    assert "seen over LLDP: " in crossing.message


@pytest.mark.parametrize("name", ["baseline", "broken", "lldp-miscabled"])
def test_no_other_snapshot_crosses_a_rail(name: str) -> None:
    result = check(name)
    assert [describe(f) for f in result.report.findings if f.rule == "CAB005"] == []
    assert not [g for g in result.report.coverage if g.rule == "CAB005"]
