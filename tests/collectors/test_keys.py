"""Key-based login: the inventory's `ssh_key` (no password), and a missing key file."""

from __future__ import annotations

from pathlib import Path

import asyncssh
import pytest
import yaml

from fabriclint.collectors.run import CollectUsageError
from fabriclint.lab.device import load_snapshot_devices
from fabriclint.lab.server import USER_ENV, Lab
from tests.collectors.labkit import ROCE_POD, collect_from, write_overlay


def _key_overlay(lab: Lab, folder: Path, key: Path) -> Path:
    folder.mkdir(exist_ok=True)
    path = write_overlay(lab, folder)
    data = yaml.safe_load(path.read_text())
    for entry in data["devices"].values():
        entry["credentials"] = {"username_env": USER_ENV, "ssh_key": str(key)}
    path.write_text(yaml.safe_dump(data))
    return path


def test_login_with_the_inventory_key(tmp_path: Path) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    key_path = tmp_path / "id_lab"
    key.write_private_key(str(key_path))
    devices = [
        d for d in load_snapshot_devices(ROCE_POD / "snapshots" / "baseline") if d.name == "gpu01"
    ]
    with Lab(devices, password="unused-password", client_keys=[key]) as lab:
        overlay = _key_overlay(lab, tmp_path / "keys", key_path)
        env = {USER_ENV: lab.username}
        result = collect_from(
            lab, ROCE_POD, tmp_path / "live", overlay=overlay, env=env, limit=["gpu01"]
        )
        assert lab.stats["gpu01"].logins >= 1
    assert result.complete, [(r.name, r.reason) for r in result.failed]


def test_missing_key_file_is_a_usage_error(tmp_path: Path) -> None:
    devices = load_snapshot_devices(ROCE_POD / "snapshots" / "baseline")[:1]
    with Lab(devices) as lab:
        overlay = _key_overlay(lab, tmp_path / "keys", tmp_path / "nope")
        with pytest.raises(CollectUsageError, match="ssh_key file not found"):
            collect_from(
                lab,
                ROCE_POD,
                tmp_path / "live",
                overlay=overlay,
                env={USER_ENV: "x"},
                limit=[devices[0].name],
            )
        assert all(s.connections == 0 for s in lab.stats.values())
