"""Ctrl-C during `fabriclint collect`: exit 130, no manifest, no temp folder, earlier snapshot intact.

The collector runs in a subprocess (so SIGINT is real); the lab, slowed down by latency, runs
here. Every wait is bounded.
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.collectors.labkit import ROOT, copy_fabric, lab_for, write_overlay

WAIT = 60.0
APP = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); "
    "from tests.collectors.labkit import cli_app; cli_app()()"
)


def _digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return digest.hexdigest()


def _wait_for(condition: object, what: str) -> None:
    end = time.monotonic() + WAIT
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.mark.parametrize("when", ["after-first-device", "while-connecting"])
def test_sigint_leaves_no_snapshot_and_keeps_the_old_one(tmp_path: Path, when: str) -> None:
    fabric = copy_fabric(tmp_path, "baseline")
    before = _digest(fabric / "snapshots")
    with lab_for(fabric / "snapshots" / "baseline", ["*=latency:0.3"]) as lab:
        args = [sys.executable, "-c", APP, str(ROOT), "collect", str(fabric)]
        args += ["--overlay", str(write_overlay(lab, tmp_path)), "--workers", "2"]
        env = {**os.environ, **lab.env()}
        proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True, env=env)
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(proc.stderr or []), daemon=True)
        reader.start()
        try:
            if when == "after-first-device":
                _wait_for(lambda: any(": ok (" in line for line in list(lines)), "a device")
            else:
                _wait_for(lambda: any(s.connections for s in lab.stats.values()), "a connection")
            proc.send_signal(signal.SIGINT)
            code = proc.wait(timeout=WAIT)
        finally:
            if proc.poll() is None:
                proc.kill()
        reader.join(timeout=WAIT)
    stderr = "".join(lines)
    assert code == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert sorted(p.name for p in (fabric / "snapshots").iterdir()) == ["baseline"]
    assert _digest(fabric / "snapshots") == before


ENTRY = "from fabriclint.cli import main; main()"


STARTING: dict[str, str] = {
    # `-X importtime` prints a line as each import ends: the signal is sent right after one
    "importing-typer": r"\|\s+typer\.colors$",
    "command-starting": r"\|\s+fabriclint\.cli\.app$",
}
"""(Later moments, while devices are contacted, are the tests above.)"""


@pytest.mark.parametrize("moment", list(STARTING))
def test_sigint_while_starting_exits_130_quietly(tmp_path: Path, moment: str) -> None:
    """The real entry point, interrupted while it imports, parses options, reads the fabric.

    (Before fabriclint's first line runs, Python itself is starting: that is not covered.)"""
    fabric = copy_fabric(tmp_path, "baseline")
    args = [sys.executable, "-X", "importtime", "-c", ENTRY, "collect", str(fabric)]
    args += ["--insecure-no-host-key-check", "--retries", "0"]
    proc = subprocess.Popen(args, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    lines: list[str] = []
    try:
        for line in proc.stderr or []:
            lines.append(line)
            if re.search(STARTING[moment], line.rstrip()):
                break
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=WAIT)[1], None
    finally:
        if proc.poll() is None:
            proc.kill()
    stderr = "".join(lines) + (rest or "")
    assert proc.returncode == 130, stderr[-2000:]
    assert "interrupted" in stderr and "Traceback" not in stderr and "Aborted" not in stderr
    assert sorted(p.name for p in (fabric / "snapshots").iterdir()) == ["baseline"]


@pytest.mark.parametrize("when", ["before-rename", "after-rename"])
def test_sigint_while_publishing_keeps_a_complete_snapshot_or_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """In-process, so the signal lands exactly at the publishing step."""
    from typer.testing import CliRunner

    from fabriclint.collectors.store import SnapshotWriter
    from fabriclint.snapshot import load_snapshot
    from tests.collectors.labkit import cli_app

    fabric = copy_fabric(tmp_path, "baseline")
    finish = SnapshotWriter.finish

    def interrupted_finish(self: SnapshotWriter, *args: object, **kwargs: object) -> Path:
        if when == "before-rename":
            signal.raise_signal(signal.SIGINT)
        path = finish(self, *args, **kwargs)  # type: ignore[arg-type]
        signal.raise_signal(signal.SIGINT)
        return path

    monkeypatch.setattr(SnapshotWriter, "finish", interrupted_finish)
    out = tmp_path / "live"
    with lab_for(fabric / "snapshots" / "baseline") as lab:
        args = ["collect", str(fabric), "--out", str(out), "--no-facts"]
        args += ["--overlay", str(write_overlay(lab, tmp_path))]
        result = CliRunner().invoke(cli_app(), args, env=lab.env())
    assert result.exit_code == 130, result.output
    assert "Traceback" not in result.output
    if when == "after-rename":
        assert f"{out} is complete" in result.output
        snap = load_snapshot(out)
        assert all(d.status == "ok" for d in snap.devices.values()) and len(snap.devices) == 10
    else:
        assert "nothing written" in result.output and not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
