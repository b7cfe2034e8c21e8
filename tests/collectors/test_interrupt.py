"""Ctrl-C during `fabriclint collect`: exit 130, no manifest, no temp folder, earlier snapshot intact.

The collector runs in a subprocess (so SIGINT is real); the lab, slowed down by latency, runs
here. Every wait is bounded.
"""

from __future__ import annotations

import hashlib
import os
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
