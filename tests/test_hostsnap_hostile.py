"""`host snapshot` with hostile output folders: nothing written through a link, and the
message names what is in the way."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from tests.collectors.labkit import ROCE_POD
from tests.hostkit import fake_tools

BASE = ROCE_POD / "snapshots" / "bench-before"

runner = CliRunner()


def test_a_dangling_link_in_place_of_the_host_folder_is_refused_by_name(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "gpu01").symlink_to(tmp_path / "elsewhere")
    result = runner.invoke(app, ["host", "snapshot", "--out", str(out), "--name", "gpu01"])
    assert result.exit_code == 2, result.output
    assert f"{out / 'gpu01'}: exists already" in result.output
    assert not (tmp_path / "elsewhere").exists()
    assert [p.name for p in out.iterdir()] == ["gpu01"]  # no partial folder left


def test_sigterm_stops_the_host_snapshot_and_its_command(tmp_path: Path) -> None:
    """srun's step cancel, `timeout`, a DaemonSet pod stopping: SIGTERM, not Ctrl-C."""
    bin_dir = fake_tools(tmp_path / "bin", (BASE / "gpu01").resolve())
    pidfile = tmp_path / "hung.pid"
    (bin_dir / "ibv_devinfo").write_text(f"#!/bin/sh\necho $$ > {pidfile}\nsleep 60\n")
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "fabriclint", "host", "snapshot", "--out", str(out)]
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin"}
    proc = subprocess.Popen([*argv, "--name", "gpu01"], env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not pidfile.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    pid = int(pidfile.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the hung tool was killed with fabriclint, not left running
    assert not out.exists() or not list(out.iterdir())
