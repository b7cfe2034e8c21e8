"""`fabriclint collect` onto a full disk: exit 3 with the reason, nothing half-written left."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.collectors import store
from tests.collectors.labkit import cli_app, copy_fabric, lab_for, write_overlay


def test_a_full_disk_is_incomplete_with_its_reason_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENOSPC while outputs are written was an "internal error, please report it"."""

    def full(self: store.SnapshotWriter, result: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(self.temp / "leaf01"))

    monkeypatch.setattr(store.SnapshotWriter, "add", full)
    fabric = copy_fabric(tmp_path, "baseline")
    out = tmp_path / "live"
    with lab_for(fabric / "snapshots" / "baseline") as lab:
        args = ["collect", str(fabric), "--overlay", str(write_overlay(lab, tmp_path))]
        args += ["--limit", "leaf01", "--insecure-no-host-key-check", "--out", str(out)]
        result = CliRunner(env=lab.env()).invoke(cli_app(), args)
    assert result.exit_code == 3, result.stderr
    assert "cannot write the snapshot (" in result.stderr
    assert "No space left on device); nothing written" in result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.output
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == [
        "overlay.yaml",
        "roce-pod",
    ]
