"""`fabriclint check --live` against the lab equals the offline check of the same snapshot."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from tests.collectors.labkit import ROCE_POD, check, lab_for, write_overlay

runner = CliRunner()


def test_check_live_equals_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fabric = tmp_path / "pod"
    shutil.copytree(ROCE_POD, fabric, ignore=shutil.ignore_patterns("snapshots"))
    original = ROCE_POD / "snapshots" / "broken"
    with lab_for(original) as lab:
        for name, value in lab.env().items():
            monkeypatch.setenv(name, value)
        overlay = write_overlay(lab, tmp_path)
        result = runner.invoke(
            app, ["check", str(fabric), "--live", "--overlay", str(overlay), "-f", "json"]
        )
    assert result.exit_code == 1, result.output[-2000:]
    report = json.loads(result.output[result.output.index("{") :])
    offline = check(ROCE_POD, original)
    live = sorted(
        (f["fingerprint"], f["rule"], f["device"], f["object"]) for f in report["findings"]
    )
    assert live == sorted(
        (f.fingerprint, f.rule, f.device, f.object) for f in offline.report.findings
    )
    assert report["summary"]["complete"] is True
    assert len(list((fabric / "snapshots").iterdir())) == 1  # the collected snapshot was kept


def test_live_excludes_snapshot(tmp_path: Path) -> None:
    result = runner.invoke(app, ["check", str(ROCE_POD), "--live", "--snapshot", "broken"])
    assert result.exit_code == 2 and "--live collects its own snapshot" in result.output
