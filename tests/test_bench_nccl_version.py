"""The NCCL version in the BOM: `bom lock --results` locks a reference run's, `bench run`
records each results file's in the bundle and names a change as a BOM reason."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.ncclresults import version_text
from tests.collectors.labkit import ROCE_POD
from tests.test_bench import BASE, STANDIN, gate, judged

runner = CliRunner()


@pytest.mark.parametrize(
    ("code", "text"),
    [(22703, "2.27.3"), (21805, "2.18.5"), (2804, "2.8.4"), (None, None), (0, None)],
)
def test_version_codes(code: int | None, text: str | None) -> None:
    assert version_text(code) == text


def _standin_json(path: Path, version: int | None = None) -> Path:
    subprocess.run([sys.executable, str(STANDIN), "-J", str(path)], check=True, capture_output=True)
    if version is not None:
        data = json.loads(path.read_text())
        data["nccl_version"] = version
        path.write_text(json.dumps(data))
    return path


def test_bom_lock_takes_the_nccl_version_of_a_reference_run(tmp_path: Path) -> None:
    ref = _standin_json(tmp_path / "ref.json")
    out = tmp_path / "lock.json"
    args = ["bom", "lock", str(ROCE_POD), "--snapshot", str(BASE), "--out", str(out)]
    result = runner.invoke(app, [*args, "--results", str(ref)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["nccl_version"] == "2.27.3"
    other = _standin_json(tmp_path / "other.json", 21805)
    mixed = runner.invoke(app, [*args, "--results", str(ref), "--results", str(other)])
    assert mixed.exit_code == 2 and "different NCCL versions" in mixed.output


def test_a_run_on_another_nccl_is_not_trusted_and_judge_agrees(tmp_path: Path) -> None:
    ref = _standin_json(tmp_path / "ref.json", 21805)
    lock = tmp_path / "lock.json"
    args = ["bom", "lock", str(ROCE_POD), "--snapshot", str(BASE), "--out", str(lock)]
    assert runner.invoke(app, [*args, "--results", str(ref)]).exit_code == 0
    bundle, verdict = gate(tmp_path, lock)
    wanted = "BOM: NCCL version 2.18.5 -> 2.27.3 (results/00-results.json): rerun the benchmark"
    assert verdict.reasons == [wanted]
    saved = json.loads((bundle / "verdict.json").read_text())
    assert saved["nccl_versions"] == {"results/00-results.json": "2.27.3"}
    code, out = judged(bundle)
    assert code == 1 and wanted in out
