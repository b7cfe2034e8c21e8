"""Ctrl-C during a collection spread over worker processes: the workers are stopped, nothing is
written, the earlier snapshot is intact. The collector runs in a subprocess (a real SIGINT to
its whole process group, as a terminal sends it); the lab, slowed down, runs here."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.collectors.labkit import FAST, ROOT, copy_fabric, lab_for, write_overlay

WAIT = 90.0
SCRIPT = """
import multiprocessing, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from fabriclint.collectors.run import CollectOptions, collect
from fabriclint.collectors.base import Timeouts

def progress(event, name, result):
    if result is not None:
        print("done", name, flush=True)

if __name__ == "__main__":
    fabric, overlay, user, password = sys.argv[2:6]
    env = {"FABRICLINT_LAB_USER": user, "FABRICLINT_LAB_PASSWORD": password}
    options = CollectOptions(
        overlay=Path(overlay), env=env, workers=2, processes=2, listener=progress,
        timeouts=Timeouts(%r, %r, %r),
    )
    try:
        collect(Path(fabric), options)
    except KeyboardInterrupt:
        print("interrupted; worker processes left:", len(multiprocessing.active_children()))
        sys.exit(130)
    sys.exit(0)
"""


def test_sigint_stops_the_worker_processes_and_writes_nothing(tmp_path: Path) -> None:
    fabric = copy_fabric(tmp_path, "baseline")
    script = tmp_path / "collect_two.py"
    script.write_text(SCRIPT % (FAST.connect, FAST.command, FAST.device), encoding="utf-8")
    with lab_for(fabric / "snapshots" / "baseline", ["*=latency:0.3"]) as lab:
        env = lab.env()
        args = [sys.executable, str(script), str(ROOT), str(fabric)]
        args += [str(write_overlay(lab, tmp_path)), env["FABRICLINT_LAB_USER"]]
        args += [env["FABRICLINT_LAB_PASSWORD"]]
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True, start_new_session=True)
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(proc.stdout or []), daemon=True)
        reader.start()
        try:
            end = time.monotonic() + WAIT
            # two devices done (~6 s): by then the worker process has usually started too
            while sum(1 for line in list(lines) if line.startswith("done")) < 2:
                assert time.monotonic() < end and proc.poll() is None, lines
                time.sleep(0.05)
            os.killpg(proc.pid, signal.SIGINT)  # the whole group, as Ctrl-C on a terminal
            code = proc.wait(timeout=WAIT)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
        reader.join(timeout=WAIT)
    assert code == 130, lines
    assert lines[-1].strip() == "interrupted; worker processes left: 0"
    assert 0 < sum(1 for line in lines if line.startswith("done")) < 10
    names = sorted(p.name for p in (fabric / "snapshots").iterdir())
    assert names == ["baseline"]  # no new snapshot, no temp folder, no lock file
