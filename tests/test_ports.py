"""Cabling-plan port names are matched to the device's own spelling."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fabriclint.engine import CheckOptions, canonical_port, run_check
from fabriclint.models.state import DeviceState, Interface

ROOT = Path(__file__).resolve().parents[1]


def _state(*names: str) -> DeviceState:
    return DeviceState(name="sw1", platform="eos", interfaces={n: Interface(name=n) for n in names})


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("Ethernet1/1", "Ethernet1/1"),
        ("ethernet1/1", "Ethernet1/1"),
        ("Et1/1", "Ethernet1/1"),
        ("Eth1/1", "Ethernet1/1"),
        ("Po10", "Port-Channel10"),
        ("Et1", "Et1"),  # no Ethernet1 on this device: left as written (INV001 reports it)
        ("Ethernet1/2", "Ethernet1/2"),
    ],
)
def test_canonical_port(written: str, expected: str) -> None:
    assert (
        canonical_port(_state("Ethernet1/1", "Ethernet11/1", "Port-Channel10"), written) == expected
    )


def test_abbreviated_cabling_plan_keeps_cross_device_checks(tmp_path: Path) -> None:
    pod = tmp_path / "pod"
    shutil.copytree(ROOT / "inventories" / "roce-pod", pod)
    inv = pod / "inventory.yaml"
    text = inv.read_text()
    assert "b: leaf02:Ethernet1/1}" in text
    inv.write_text(text.replace("b: leaf02:Ethernet1/1}", "b: leaf02:et1/1}"))
    result = run_check(CheckOptions(fabric_dir=pod, snapshot="broken", select=["PFC007", "INV001"]))
    found = {(f.rule, f.device, f.object) for f in result.report.findings}
    assert ("PFC007", "gpu01", "link gpu01:ens2np0 - leaf02:Ethernet1/1") in found
    assert not any(rule == "INV001" for rule, _, _ in found)
