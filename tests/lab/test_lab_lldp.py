"""The lab answers each platform's LLDP command from the snapshot's LLDP files (docs/cabling.md)."""

from __future__ import annotations

from pathlib import Path

from fabriclint import platforms
from fabriclint.lab.device import load_snapshot_devices

SNAPSHOTS = Path(__file__).resolve().parents[2] / "inventories" / "roce-pod" / "snapshots"


def test_lab_serves_lldp_outputs_of_the_snapshot() -> None:
    devices = {d.name: d for d in load_snapshot_devices(SNAPSHOTS / "lldp-miscabled")}
    leaf, host = devices["leaf01"], devices["gpu01"]
    leaf_cmd = platforms.get("eos").lldp  # type: ignore[union-attr]
    host_cmd = platforms.get("mlnx-host").lldp  # type: ignore[union-attr]
    assert leaf_cmd is not None and host_cmd is not None
    stored = (
        SNAPSHOTS / "lldp-miscabled" / "leaf01" / "show_lldp_neighbors_detail_|_json.txt"
    ).read_text()
    assert leaf.answer(leaf_cmd) == stored
    assert '"leaf01"' in host.answer(f"sudo -n {host_cmd}")


def test_lab_without_lldp_files_answers_an_error() -> None:
    """`broken` has no LLDP outputs: the command fails as on a device without it (optional)."""
    devices = {d.name: d for d in load_snapshot_devices(SNAPSHOTS / "broken")}
    assert devices["leaf01"].answer("show lldp neighbors detail | json") == "% Invalid input"
