"""Optics in the BOM lock: `mlxlink -d HCA -m --json` read onto each HCA port's module, locked
per NIC, and compared by `bom verify` (not shown on one side is no change)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fabriclint import bom
from fabriclint.commands import derive, is_allowed
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.parsers.mlnx_host import parse
from fabriclint.snapshot import load_snapshot
from tests.examples import baseline_with

ROOT = Path(__file__).resolve().parents[1]
POD = ROOT / "inventories" / "roce-pod"
BASELINE = POD / "snapshots" / "baseline"
KEY = "mlxlink -d mlx5_0 -m --json"


def module_json(serial: str = "MT2412FT01234", firmware: str = "47.153.1400") -> str:
    """mlxlink -m --json of a 400G OSFP transceiver (written after mlxlink(1); the envelope
    and field names as MFT prints them, values of a typical part)."""
    return json.dumps(
        {
            "result": {
                "output": {
                    "Operational Info": {"State": "Active", "Speed": "400G"},
                    "Module Info": {
                        "Identifier": "OSFP",
                        "Cable Type": "Optical Module (separated)",
                        "Vendor Name": "NVIDIA",
                        "Vendor Part Number": "MMA4Z00-NS400",
                        "Vendor Serial Number": serial,
                        "Rev": "A3",
                        "FW Version": firmware,
                        "Wavelength [nm]": 850,
                    },
                },
                "status": {"code": 0, "message": "Success"},
            }
        },
        indent=2,
    )


def _ports(extra: dict[str, str]) -> dict[str, Any]:
    base = load_snapshot(BASELINE).devices["gpu01"].raw
    assert base is not None
    outputs = dict(base.outputs)
    for key, text in extra.items():
        outputs[key] = RawOutput(text=text, file=f"gpu01/{key}.txt")
    state = parse(RawDevice(name="gpu01", platform="mlnx-host", outputs=outputs))
    return {n: (p.module, len(state.unparsed)) for n, p in sorted(state.rdma.items())}


FULL = {
    "firmware": "47.153.1400",
    "part_number": "MMA4Z00-NS400",
    "serial": "MT2412FT01234",
    "vendor": "NVIDIA",
}


@pytest.mark.parametrize(
    ("text", "module", "unparsed"),
    [
        (module_json(), FULL, 0),
        (module_json(firmware="N/A"), {k: v for k, v in FULL.items() if k != "firmware"}, 0),
        (json.dumps({"Module Info": {"Vendor Name": "NVIDIA"}}), {"vendor": "NVIDIA"}, 0),
        (json.dumps({"result": {"output": {}}}), None, 0),
        ("-E- Failed to open device mlx5_0\n", None, 1),
    ],
    ids=["osfp", "firmware-na", "flat", "no-module", "not-json"],
)
def test_module_facts(text: str, module: dict[str, str] | None, unparsed: int) -> None:
    ports = _ports({KEY: text})
    assert ports["ens1np0"] == (module, unparsed)
    assert ports["ens2np0"][0] is None  # mlx5_1 had no mlxlink output


def test_mlxlink_is_derived_per_hca_and_allowlisted() -> None:
    snap = load_snapshot(BASELINE).devices["gpu01"].raw
    assert snap is not None
    keys = [spec.key for spec in derive("mlnx-host", {k: o.text for k, o in snap.outputs.items()})]
    assert "mlxlink -d mlx5_0 -m --json" in keys and "mlxlink -d mlx5_1 -m --json" in keys
    assert is_allowed("mlnx-host", "mlxlink -d mlx5_0 -m --json")
    assert not is_allowed("mlnx-host", "mlxlink -d mlx5_0 --port_type PCIE -a TG")
    assert not is_allowed("mlnx-host", "mlxlink -d mlx5_0;reboot -m --json")


def _snapshot(tmp: Path, name: str, text: str | None) -> Path:
    """The baseline snapshot, gpu01 with `text` as its mlxlink output (None: none)."""
    return baseline_with(tmp, POD, name, {} if text is None else {"gpu01": {KEY: text}})


def test_a_swapped_transceiver_is_named_and_not_shown_is_no_change(tmp_path: Path) -> None:
    locked = bom.take(POD, _snapshot(tmp_path, "a", module_json())).lock
    assert locked.hosts["gpu01"].nics["mlx5_0"].module == FULL
    swapped = bom.take(POD, _snapshot(tmp_path, "b", module_json(serial="MT2413FT09999")))
    assert bom.verify(locked, swapped).changes == [
        "gpu01 mlx5_0 module serial MT2412FT01234 -> MT2413FT09999: rerun the benchmark"
    ]
    without = bom.take(POD, _snapshot(tmp_path, "c", None))
    assert bom.verify(locked, without).changes == []
    assert bom.verify(without.lock, swapped).changes == []
