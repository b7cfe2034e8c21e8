"""Four nights collected live from the project's lab on 127.0.0.1 (no --snapshot): night 1
clean, night 2 the broken pod (every finding new, with its cause), night 3 it persists, night 4
it is fixed (resolved)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.nightly.causes import NO_CHANGE
from tests.collectors.labkit import ROCE_POD, lab_for, write_overlay


def _live_night(
    fabric: Path, snapshot: str, tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, dict[str, Any]]:
    """Serve the snapshot from the lab and run `fabriclint nightly` (collecting) against it."""
    with lab_for(ROCE_POD / "snapshots" / snapshot) as lab:
        for name, value in lab.env().items():
            monkeypatch.setenv(name, value)
        overlay = write_overlay(lab, tmp)
        result = CliRunner().invoke(
            app, ["nightly", str(fabric), "--overlay", str(overlay), "--format", "json"]
        )
    assert result.stdout.lstrip().startswith("{"), result.output[-2000:]
    return result.exit_code, json.loads(result.stdout)


def test_four_lab_nights(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fabric = tmp_path / "pod"
    shutil.copytree(ROCE_POD, fabric, ignore=shutil.ignore_patterns("snapshots"))
    plan = ("baseline", "broken", "broken", "baseline")
    nights = [_live_night(fabric, snap, tmp_path, monkeypatch) for snap in plan]
    docs = [doc for _, doc in nights]
    changed = [
        (i["rule"], i["device"], i["status"])
        for doc in docs[2:]
        for i in doc["findings"]
        if i["status"] != "persisting"
    ]
    assert [code for code, _ in nights] == [0, 1, 0, 0], changed
    n = docs[1]["summary"]["new"]
    assert n > 0
    keys = ("new", "persisting", "resolved", "open")
    counts = [tuple(d["summary"][k] for k in keys) for d in docs]
    assert counts == [(0, 0, 0, 0), (n, 0, 0, n), (0, n, 0, n), (0, 0, n, 0)]
    new = [i for i in docs[1]["findings"] if i["status"] == "new"]
    assert all(i["cause"] and i["cause"] != NO_CHANGE for i in new)
    assert {i["nights_open"] for i in docs[2]["findings"]} == {2}
    assert len(list((fabric / "snapshots").iterdir())) == 4  # each night collected its own
    assert all(doc["run"]["collect_seconds"] > 0 for doc in docs)


@pytest.mark.parametrize("refused", ["empty-history", "metrics-folder", "limit"])
def test_a_night_that_would_be_refused_collects_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refused: str
) -> None:
    """An unusable history, a --metrics that is a folder or a --limit that selects no device
    is exit 2 before collecting: the lab is never asked, no snapshot is written."""
    fabric = tmp_path / "pod"
    shutil.copytree(ROCE_POD, fabric, ignore=shutil.ignore_patterns("snapshots"))
    empty = tmp_path / "history.sqlite"
    empty.write_bytes(b"")
    (tmp_path / "prom").mkdir()
    extra = {
        "empty-history": ["--history", str(empty)],
        "metrics-folder": ["--metrics", str(tmp_path / "prom")],
        "limit": ["--limit", "no-such-device*"],
    }[refused]
    expected = {
        "empty-history": f"error: {empty}: an empty file (0 bytes), not a history",
        "metrics-folder": f"error: --metrics {tmp_path / 'prom'}: cannot write",
        "limit": "error: --limit no-such-device* selects no device of the inventory",
    }[refused]
    with lab_for(ROCE_POD / "snapshots" / "baseline") as lab:
        for name, value in lab.env().items():
            monkeypatch.setenv(name, value)
        overlay = write_overlay(lab, tmp_path)
        result = CliRunner().invoke(
            app, ["nightly", str(fabric), "--overlay", str(overlay), *extra, "--format", "json"]
        )
    assert result.exit_code == 2, result.output[-2000:]
    assert result.stderr.startswith(expected), result.stderr
    assert "collect:" not in result.stderr  # not a device was contacted
    assert not (fabric / "snapshots").exists()
    assert empty.read_bytes() == b""
