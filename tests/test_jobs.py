"""`check --jobs N`: devices parsed in worker processes give the one-process reports, byte for
byte; a dead or failing worker is a per-device incomplete result; small checks start nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fabriclint import engine, jobs
from fabriclint.cli.app import app
from fabriclint.engine import CheckOptions, run_check
from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.internal import never_raises

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = sorted(ROOT.glob("inventories/*/snapshots/*/manifest.json"))
VICTIM = "leaf01"
"""The roce-pod device the broken workers fail on."""


def _reports(fabric: Path, snapshot: str, out: Path, *extra: str) -> tuple[int, str, str]:
    """The exit code and the text and JSON reports of one `check` run through the CLI."""
    out.mkdir(parents=True, exist_ok=True)
    args = ["check", str(fabric), "--snapshot", snapshot, "--no-color", *extra]
    args += ["-f", "text", "-o", str(out / "r.txt"), "-f", "json", "-o", str(out / "r.json")]
    result = CliRunner().invoke(app, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, (out / "r.txt").read_text(), (out / "r.json").read_text()


@pytest.fixture(scope="module")
def one_pool() -> Iterator[ProcessPoolExecutor]:
    """One pool of two workers serves every `--jobs 2` run of the snapshot test (a pool per run
    would spend most of the test starting interpreters)."""
    pool = jobs.new_pool(2)
    yield pool
    pool.shutdown()


@pytest.mark.parametrize("manifest", SNAPSHOTS, ids=lambda m: f"{m.parts[-4]}/{m.parts[-2]}")
def test_every_example_snapshot_reports_the_same_with_workers(
    manifest: Path, tmp_path: Path, one_pool: ProcessPoolExecutor, monkeypatch: pytest.MonkeyPatch
) -> None:
    @contextmanager
    def shared(_workers: int) -> Iterator[ProcessPoolExecutor]:
        yield one_pool

    monkeypatch.setattr(jobs, "_pool", shared)
    fabric, snapshot = manifest.parents[2], manifest.parent.name
    one = _reports(fabric, snapshot, tmp_path / "one", "--jobs", "1")
    two = _reports(fabric, snapshot, tmp_path / "two", "--jobs", "2")
    assert two == one
    assert '"findings"' in one[2]


def test_generated_fabric_reports_the_same_with_workers(tmp_path: Path) -> None:
    from benchmarks.check_scale import generate

    shape = generate(6, 8, tmp_path / "fabric", case="goal")
    assert shape["devices"] >= 12
    one = _reports(tmp_path / "fabric", "bench", tmp_path / "one", "--jobs", "1")
    three = _reports(tmp_path / "fabric", "bench", tmp_path / "three", "--jobs", "3")
    assert three == one
    assert one[0] == 1  # the goal shape seeds faults: the equality covers findings


def _kill_victim(parse: Callable[[RawDevice], DeviceState], raw: RawDevice) -> DeviceState:
    """A parser that kills its worker process on the victim (an out-of-memory kill, a crash)."""
    if raw.name == VICTIM:
        os._exit(9)
    return parse(raw)


def _raise_on_victim(parse: Callable[[RawDevice], DeviceState], raw: RawDevice) -> DeviceState:
    """A parser with a bug the victim's input reaches."""
    if raw.name == VICTIM:
        raise RuntimeError("parser bug")
    return parse(raw)


def kill_on_victim() -> None:
    """Worker set-up (runs in each worker): parsers die on the victim."""
    _wrap_parsers(_kill_victim)


def raise_on_victim() -> None:
    """Worker set-up (runs in each worker, or here for the one-process run): parsers raise on
    the victim, inside `never_raises` as every real parser."""
    _wrap_parsers(_raise_on_victim)


def _wrap_parsers(fault: Callable[[Callable[[RawDevice], DeviceState], RawDevice], Any]) -> None:
    real = vars(engine)["get_parser"]

    def get_parser(platform: str) -> Any:
        parse = real(platform)
        if parse is None:
            return None
        return never_raises(platform, platform)(lambda raw: fault(parse, raw))

    vars(engine)["get_parser"] = get_parser


def _check(jobs_: int) -> engine.CheckResult:
    return run_check(
        CheckOptions(fabric_dir=ROOT / "inventories/roce-pod", snapshot="broken", jobs=jobs_)
    )


def test_a_worker_that_dies_leaves_only_its_device_unchecked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clean = _check(1)
    monkeypatch.setattr(jobs, "WORKER_SETUP", kill_on_victim)
    broken = _check(2)
    assert broken.exit_code == engine.ExitCode.INCOMPLETE
    status = {d.name: d.status for d in broken.report.devices}
    assert status[VICTIM] == "internal-error"
    assert {n: s for n, s in status.items() if n != VICTIM} == {
        d.name: d.status for d in clean.report.devices if d.name != VICTIM
    }
    internal = [f for f in broken.report.findings if f.rule == "INTERNAL001"]
    assert [f.device for f in internal] == [VICTIM]
    assert "worker process" in internal[0].message
    assert set(broken.states) == set(clean.states) - {VICTIM}


def test_a_parser_exception_in_a_worker_is_the_one_process_result(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(jobs, "WORKER_SETUP", raise_on_victim)
    fabric = ROOT / "inventories/roce-pod"
    two = _reports(fabric, "broken", tmp_path / "two", "--jobs", "2")
    monkeypatch.setattr(engine, "get_parser", vars(engine)["get_parser"])  # restored after
    raise_on_victim()  # now in this process too
    one = _reports(fabric, "broken", tmp_path / "one", "--jobs", "1")
    assert two == one
    assert two[0] == engine.ExitCode.INCOMPLETE
    assert "parser failed on this input" in two[1]


@pytest.mark.parametrize(
    ("requested", "devices", "cpus", "expected"),
    [
        (None, 10, 64, 1),  # small: no pool
        (None, jobs.BREAK_EVEN_DEVICES, 2, 1),  # two cores: measured not to pay
        (None, jobs.BREAK_EVEN_DEVICES - 1, 8, 1),  # below the break-even: no pool
        (None, jobs.BREAK_EVEN_DEVICES, 8, 1),  # one worker's worth: parse here
        (None, 2 * jobs.BREAK_EVEN_DEVICES, 64, 2),  # many cores, few devices: few workers
        (None, 5000, 16, 12),
        (None, 50_000, 16, 16),  # never more than the cores
        (1, 5000, 16, 1),  # today's path
        (4, 3, 16, 3),  # never more workers than devices
        (2, 1000, 1, 2),  # asked for: given
    ],
)
def test_choose_jobs(
    monkeypatch: pytest.MonkeyPatch, requested: int | None, devices: int, cpus: int, expected: int
) -> None:
    monkeypatch.setattr(jobs, "cores", lambda: cpus)
    assert jobs.choose_jobs(requested, devices) == expected


def test_the_example_check_starts_no_process(monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocessing.process

    from fabriclint.cli import fast

    started: list[str] = []
    monkeypatch.setattr(
        multiprocessing.process.BaseProcess, "start", lambda s: started.append("mp")
    )
    monkeypatch.setattr(subprocess.Popen, "__init__", lambda s, *a, **k: started.append("popen"))
    monkeypatch.setattr(os, "fork", lambda: started.append("fork"))
    args = ["check", str(ROOT / "inventories/roce-pod"), "--snapshot", "broken", "-q"]
    with pytest.raises(SystemExit) as exited:
        fast.run_check(args)
    assert exited.value.code == engine.ExitCode.FINDINGS
    assert started == []


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(c) for c in (task / "children").read_text().split()}
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_forever(_chunk: object = None) -> None:
    """A chunk that keeps its worker busy until it is terminated."""
    time.sleep(600)


def test_an_interrupted_pool_is_fully_stopped_before_the_interrupt_goes_on() -> None:
    """The Ctrl-C flake's cause: the pool's manager thread was still running when the
    interpreter's exit hook wrote to its wake-up pipe, which the manager was closing."""
    from concurrent.futures import process as executor_internals

    with pytest.raises(KeyboardInterrupt), jobs._pool(2) as pool:
        running = [pool.submit(_wait_forever) for _ in range(3)]
        deadline = time.monotonic() + 120
        while not any(f.running() for f in running) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert any(f.running() for f in running), "no worker started"
        processes = list(vars(pool)["_processes"].values())
        manager = vars(pool)["_executor_manager_thread"]
        raise KeyboardInterrupt
    assert not manager.is_alive()
    assert not [p for p in processes if p.is_alive()]
    wakeups = dict(vars(executor_internals)["_threads_wakeups"])
    assert manager not in wakeups or vars(wakeups[manager])["_closed"]


def test_a_ctrl_c_while_the_pools_manager_thread_starts_is_an_interrupt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`submit` spawns the workers, then starts the pool's manager thread; `Thread.start` waits
    for the new thread to run, and on a loaded machine Ctrl-C landed in that wait (the thread
    ran a moment later). The clean-up's join refused the not-yet-started thread: "internal
    error: RuntimeError: cannot join thread before it is started", exit 3 instead of 130
    (test_ctrl_c_leaves_no_worker, 1 run in 3 on a loaded 2-core machine)."""
    import threading
    from concurrent.futures import process as executor_internals

    started: list[threading.Thread] = []
    processes: list[Any] = []

    def interrupted_start(self: threading.Thread) -> None:
        started.append(self)
        processes.extend(vars(self)["processes"].values())  # the workers, spawned already
        threading.Timer(0.3, threading.Thread.start, (self,)).start()  # it runs, but later
        raise KeyboardInterrupt

    monkeypatch.setattr(executor_internals._ExecutorManagerThread, "start", interrupted_start)
    with pytest.raises(KeyboardInterrupt), jobs._pool(2) as pool:
        pool.submit(_wait_forever)
    assert processes
    assert started and not started[0].is_alive()  # waited for, then joined
    assert not [p for p in processes if p.is_alive()]


def test_a_ctrl_c_as_a_worker_is_spawned_stops_that_worker_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`submit` spawns a worker and only then lists it in the pool: a Ctrl-C in between left
    a worker the clean-up did not know of, running after the run (or, cut before it had its
    start-up data, printing "EOFError: Ran out of input": test_ctrl_c_leaves_no_worker, 1 run
    in 10 on the loaded machine after the manager-thread fix)."""
    import signal as signals
    from multiprocessing import popen_spawn_posix

    spawned: list[Any] = []
    launch = getattr(popen_spawn_posix.Popen, "_launch")  # noqa: B009 (mypy does not know the private name)

    def launch_then_ctrl_c(self: Any, process_obj: Any) -> None:
        launch(self, process_obj)
        spawned.append(self)
        signals.raise_signal(signals.SIGINT)  # before the pool has listed the worker

    monkeypatch.setattr(popen_spawn_posix.Popen, "_launch", launch_then_ctrl_c)
    try:
        with pytest.raises(KeyboardInterrupt), jobs._pool(2) as pool:
            jobs._submit(pool, _wait_forever, None)
        monkeypatch.undo()
        assert spawned
        assert all(p.poll() is not None for p in spawned)  # terminated and reaped with the rest
    finally:
        for proc in spawned:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc (Linux)")
def test_ctrl_c_leaves_no_worker(tmp_path: Path) -> None:
    from benchmarks.check_scale import generate

    generate(40, 8, tmp_path / "fabric", case="goal")
    cmd = [sys.executable, "-m", "fabriclint", "check", str(tmp_path / "fabric")]
    proc = subprocess.Popen(  # Ctrl-C as from a terminal: tests/conftest.py
        [*cmd, "--snapshot", "bench", "--jobs", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    workers: set[int] = set()
    deadline = time.monotonic() + 120
    while len(workers) < 2 and proc.poll() is None and time.monotonic() < deadline:
        workers |= _children(proc.pid)
        time.sleep(0.05)
    assert len(workers) >= 2, "the workers never started"
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err == b"fabriclint: interrupted\n"  # one line, no traceback
    deadline = time.monotonic() + 10
    while any(map(_alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if _alive(pid)]
