"""LocalSession (`host snapshot`'s commands run here): an interrupted command leaves nothing
running behind it."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from fabriclint.collectors.local import LocalSession


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_ctrl_c_during_a_command_kills_its_whole_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    # the shell's child (not the shell) is what a hung nvidia-smi or mlxlink would be
    command = f"sh -c 'echo $$ > {pidfile}; sleep 60'; true"

    def interrupt(signum: int, frame: FrameType | None) -> None:
        # Ctrl-C once the command's child runs (a fixed 1 s stood for that: on a loaded
        # machine the child had not written its pid yet, or not even been started)
        if pidfile.is_file() and pidfile.read_text().strip():
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.05, 0.05)
    try:
        with pytest.raises(KeyboardInterrupt):
            LocalSession().send(command, timeout=30)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(pid), "the interrupted command's process group is still running"


def test_ctrl_c_as_the_command_starts_still_kills_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C (or SIGTERM) raised inside `Popen` once the child had started, or just after it
    returned, left a command nobody knew of running after fabriclint exited: on a loaded
    machine the parent runs again only when the command already runs
    (test_sigterm_stops_the_host_snapshot_and_its_command failed so, 1 run in 3)."""

    real = subprocess.Popen
    started: list[subprocess.Popen[bytes]] = []

    def popen_then_ctrl_c(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        proc = real(*args, **kwargs)
        started.append(proc)
        signal.raise_signal(signal.SIGINT)  # lands before Popen has returned to send()
        return proc

    monkeypatch.setattr(subprocess, "Popen", popen_then_ctrl_c)
    try:
        with pytest.raises(KeyboardInterrupt):
            LocalSession().send("sleep 60", timeout=30)
        monkeypatch.undo()
        assert started, "the command was not started"
        assert _gone(started[0].pid), "the interrupted command is still running"
    finally:
        for proc in started:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
