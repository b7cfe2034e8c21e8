"""Collection over several processes: the same snapshot as one process, devices handed out by
whole endpoints within the run's sessions, and no device left unreported when a worker process
dies."""

from __future__ import annotations

import json
import queue
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from fabriclint.collectors import shards
from fabriclint.collectors.base import DeviceResult, SshPolicy, Target
from fabriclint.collectors.credentials import Scrubber
from fabriclint.collectors.device import Settings
from fabriclint.collectors.shards import Dispatcher, ShardSpec, _Remote, _Run, default_processes
from tests.collectors.labkit import LAB_PASSWORD, all_text, collect_from, copy_fabric, lab_for

FAULTS = ["spine02=wrong-password", "gpu01=fail-command", "leaf02=refuse"]
"""A failed login, a failed command and a refused connection."""


def _snapshot(folder: Path) -> tuple[dict[str, Any], dict[str, bytes], dict[str, Any]]:
    """(manifest without its creation time, every file's bytes, collect.json's devices without
    timings)."""
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest.pop("created")
    files = {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name not in ("manifest.json", "collect.json")
    }
    record = json.loads((folder / "collect.json").read_text(encoding="utf-8"))
    devices = {n: {**d, "seconds": None} for n, d in record["devices"].items()}
    return manifest, files, {"devices": devices, "processes": record["processes"]}


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_several_processes_write_the_same_snapshot_as_one(
    tmp_path: Path, method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the lab runs on a thread of this process, so `start_method` would spawn: fork is forced
    # (the children never touch the lab's loop)
    started: list[str] = []

    def chosen() -> str:
        started.append(method)
        return method

    monkeypatch.setattr(shards, "start_method", chosen)
    fabric = copy_fabric(tmp_path, "baseline")
    with lab_for(fabric / "snapshots" / "baseline", FAULTS) as lab:
        one = collect_from(lab, fabric, tmp_path / "one", processes=1, retries=0)
        three = collect_from(lab, fabric, tmp_path / "three", processes=3, retries=0)
    assert started == [method]  # only the run with worker processes asked
    manifest1, files1, record1 = _snapshot(one.snapshot)
    manifest3, files3, record3 = _snapshot(three.snapshot)
    assert (record1.pop("processes"), record3.pop("processes")) == (1, 3)
    assert manifest3 == manifest1
    assert files3 == files1 and len(files1) > 30
    assert record3 == record1
    statuses = {name: d["status"] for name, d in manifest1["devices"].items()}
    assert statuses["spine02"] == "auth-failed" and statuses["leaf02"] == "unreachable"
    assert statuses["gpu01"] == "command-failed"
    assert not one.complete and not three.complete
    assert {r.name for r in three.failed} == {"spine02", "leaf02", "gpu01"}
    # the password crossed to the worker processes in memory only, never into the snapshot
    assert LAB_PASSWORD not in all_text(three.snapshot)
    assert not list(tmp_path.glob(".three*"))  # no temp folder or lock left


def _target(name: str, host: str, port: int = 22) -> Target:
    return Target(name=name, platform="eos", host=host, port=port, username="u")


def test_worker_processes_are_forked_only_while_no_other_thread_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert shards.start_method() == "spawn"  # a lock it holds would stay held in a child
    finally:
        release.set()
        other.join()
    # earlier tests may leave idle pool threads for a while: this thread alone is simulated
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    assert shards.start_method() == "fork"
    monkeypatch.setattr(sys, "platform", "darwin")
    assert shards.start_method() == "spawn"


def test_every_endpoint_goes_to_one_process_whole() -> None:
    hosts = ["h0", "jump", "h2", "jump", "h4", "jump", "h6"]
    targets = [_target(f"d{i}", host) for i, host in enumerate(hosts)]
    dispatcher = Dispatcher(targets, workers=4)
    first = dispatcher.take(0, 2)
    assert first is not None and [t.name for t in first] == ["d0", "d1", "d3", "d5"]
    assert dispatcher.take(0, 2) == []  # four out: the run's four sessions
    dispatcher.finished(0, 3)
    rest = dispatcher.take(0, 4)
    assert rest is not None and [t.name for t in rest] == ["d2", "d4", "d6"]
    assert dispatcher.take(0, 4) is None and not dispatcher.left()


def test_a_process_that_starts_late_gets_its_share_as_devices_finish() -> None:
    targets = [_target(f"d{i}", f"h{i}") for i in range(20)]
    dispatcher = Dispatcher(targets, workers=8)
    assert len(dispatcher.take(0, 8) or []) == 8  # alone at first: every session
    dispatcher.join(1)
    assert dispatcher.take(1, 8) == []  # all eight sessions are out
    dispatcher.finished(0, 2)
    assert len(dispatcher.take(1, 8) or []) == 2  # what finished goes to the newcomer
    assert dispatcher.take(0, 8) == []  # this process is past its share (4) until it drains
    dispatcher.finished(0, 4)
    assert len(dispatcher.take(1, 8) or []) == 2  # the newcomer up to its share of four
    assert len(dispatcher.take(0, 8) or []) == 2  # this process back up to its share
    assert dispatcher.take(1, 8) == []


@pytest.mark.parametrize(
    ("devices", "cpus", "expected"),
    [(10, 8, 1), (250, 8, 2), (5000, 4, 4), (500, 3, 3), (500, 2, 2), (5000, 1, 1)],
)
def test_default_processes(
    devices: int, cpus: int, expected: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: cpus)
    assert default_processes(devices) == expected


class _DeadProcess:
    """A worker process that was killed after reporting some of its devices."""

    exitcode = -9

    def is_alive(self) -> bool:
        return False

    def kill(self) -> None:
        raise AssertionError("a dead process is not killed again")

    def join(self, timeout: float | None = None) -> None:
        return None


def test_a_dead_worker_process_leaves_its_unreported_devices_failed() -> None:
    targets = [_target(f"d{i}", f"h{i}") for i in range(5)]
    dispatcher = Dispatcher(targets, workers=3)
    dispatcher.join(1)
    held = dispatcher.take(1, 3) or []
    spec = ShardSpec(Settings(), SshPolicy(known_hosts=None), Scrubber(), 3, 1, 1)
    remote = _Remote(spec, _DeadProcess(), queue.Queue(), 0.0, {t.name: t for t in held})
    remote.ready = True
    inbox: queue.Queue[tuple[str, str, DeviceResult | None]] = queue.Queue()
    inbox.put(("start", "d0", None))
    inbox.put(("done", "d0", DeviceResult("d0", "eos", outputs={"show version": "x\n"})))
    seen: list[tuple[str, str, str | None]] = []

    def notify(event: str, name: str, result: DeviceResult | None) -> None:
        seen.append((event, name, result.status if result else None))

    run = _Run(dispatcher, notify)
    run.drain(inbox, [remote])
    assert run.results["d0"].status == "ok"
    assert {n: (r.status, r.reason) for n, r in run.results.items() if n != "d0"} == {
        "d1": ("command-failed", "internal error: the collector process exited (code -9)"),
        "d2": ("command-failed", "internal error: the collector process exited (code -9)"),
    }
    assert seen == [
        ("start", "d0", None),
        ("done", "d0", "ok"),
        ("done", "d1", "command-failed"),
        ("done", "d2", "command-failed"),
    ]
    # the devices it never got are still there for the others
    rest = dispatcher.take(0, 5)
    assert rest is not None and [t.name for t in rest] == ["d3", "d4"]


@pytest.mark.parametrize(
    ("ready", "started_ago", "heard_ago", "overdue"),
    [
        (False, 10.0, None, False),  # still importing
        (False, 130.0, None, True),  # never started
        (True, 3600.0, 5.0, False),  # a long run that keeps reporting is never cut
        (True, 3600.0, 40.0, False),  # a device may take its whole limit (30 s here)
        (True, 60.0, 50.0, True),  # silent past any device's limit: stuck
    ],
)
def test_a_worker_process_is_given_up_only_when_stuck(
    ready: bool, started_ago: float, heard_ago: float | None, overdue: bool
) -> None:
    from fabriclint.collectors.base import Timeouts

    settings = Settings(Timeouts(connect=5.0, command=10.0, device=30.0))
    spec = ShardSpec(settings, SshPolicy(known_hosts=None), Scrubber(), 3, 1, 1)
    now = time.monotonic()
    remote = _Remote(spec, _DeadProcess(), queue.Queue(), now - started_ago)
    remote.ready = ready
    if heard_ago is not None:
        remote.heard = now - heard_ago
    assert remote.overdue() is overdue
