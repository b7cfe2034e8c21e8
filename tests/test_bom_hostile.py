"""`fabriclint bom lock --out` never replaces a file of the fabric it reads."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app

ROCE_POD = Path(__file__).resolve().parents[1] / "inventories" / "roce-pod"
runner = CliRunner()


@pytest.mark.parametrize(
    "target",
    ["intent.yaml", "inventory.yaml", "./policy.yaml", "snapshots/bench-before/manifest.json"],
)
def test_the_lock_is_never_written_over_the_fabric(tmp_path: Path, target: str) -> None:
    """`--out FABRIC/intent.yaml` replaced the intent with the lock and exited 0."""
    fabric = tmp_path / "fabric"
    shutil.copytree(ROCE_POD, fabric, ignore=shutil.ignore_patterns("snapshots"))
    shutil.copytree(ROCE_POD / "snapshots" / "bench-before", fabric / "snapshots" / "bench-before")
    out = fabric / target
    before = out.read_bytes()
    args = ["bom", "lock", str(fabric), "--snapshot", "bench-before", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "a file of the fabric" in result.stderr
    assert out.read_bytes() == before
    args[-1] = str(fabric / "bom.lock.json")
    assert runner.invoke(app, args).exit_code == 0  # beside the YAML is fine
