"""Collection sharded over several processes: the same snapshot as one process, every endpoint's
devices in one shard, and no device left unreported when a worker process dies."""

from __future__ import annotations

import json
import queue
import threading
from pathlib import Path
from typing import Any

import pytest

from fabriclint.collectors.base import DeviceResult, SshPolicy, Target
from fabriclint.collectors.credentials import Scrubber
from fabriclint.collectors.device import Settings
from fabriclint.collectors.shards import (
    ShardSpec,
    _drain,
    _Remote,
    default_processes,
    shard,
    split_workers,
)
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


def test_several_processes_write_the_same_snapshot_as_one(tmp_path: Path) -> None:
    fabric = copy_fabric(tmp_path, "baseline")
    with lab_for(fabric / "snapshots" / "baseline", FAULTS) as lab:
        one = collect_from(lab, fabric, tmp_path / "one", processes=1, retries=0)
        three = collect_from(lab, fabric, tmp_path / "three", processes=3, retries=0)
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


SHARDS = [
    # (device -> endpoint, shards asked, expected shard sizes)
    ({f"d{i}": f"h{i}" for i in range(10)}, 3, [4, 3, 3]),
    ({f"d{i}": f"h{i}" for i in range(4)}, 8, [1, 1, 1, 1]),  # never an empty shard
    ({"a": "h1", "b": "h1", "c": "h1", "d": "h2", "e": "h3"}, 2, [3, 2]),
    ({"a": "h1", "b": "h1"}, 2, [2]),  # one endpoint: one shard, whatever is asked
    ({f"d{i}": "jump" if i % 2 else f"h{i}" for i in range(9)}, 2, [4, 5]),
]


@pytest.mark.parametrize(("endpoints", "count", "sizes"), SHARDS)
def test_shards_keep_endpoints_together_and_are_balanced(
    endpoints: dict[str, str], count: int, sizes: list[int]
) -> None:
    targets = [_target(name, host) for name, host in endpoints.items()]
    parts = shard(targets, count)
    assert sorted(len(p) for p in parts) == sorted(sizes)
    assert sorted(t.name for p in parts for t in p) == sorted(endpoints)
    owner = {f"{t.host}:{t.port}": i for i, p in enumerate(parts) for t in p}
    assert all(owner[f"{t.host}:{t.port}"] == i for i, p in enumerate(parts) for t in p)
    order = list(endpoints)
    assert all([t.name for t in p] == sorted((t.name for t in p), key=order.index) for p in parts)


@pytest.mark.parametrize(
    ("workers", "sizes", "expected"),
    [(64, [250, 250], [32, 32]), (10, [300, 100], [8, 2]), (2, [5, 5, 5], [1, 1, 1])],
)
def test_workers_are_split_by_shard_size(
    workers: int, sizes: list[int], expected: list[int]
) -> None:
    assert split_workers(workers, sizes) == expected


@pytest.mark.parametrize(("devices", "cpus", "expected"), [(10, 8, 1), (250, 8, 2), (5000, 4, 4)])
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
    targets = [_target(f"d{i}", f"h{i}") for i in range(3)]
    spec = ShardSpec(targets, Settings(), SshPolicy(known_hosts=None), Scrubber(), 2, 1, 1)
    remote = _Remote(spec, _DeadProcess(), 0.0)
    inbox: queue.Queue[tuple[str, str, DeviceResult | None]] = queue.Queue()
    inbox.put(("start", "d0", None))
    inbox.put(("done", "d0", DeviceResult("d0", "eos", outputs={"show version": "x\n"})))
    seen: list[tuple[str, str, str | None]] = []
    results: dict[str, DeviceResult] = {}

    def notify(event: str, name: str, result: DeviceResult | None) -> None:
        seen.append((event, name, result.status if result else None))

    _drain(inbox, [remote], results, notify, threading.Event())
    assert results["d0"].status == "ok"
    assert {n: (r.status, r.reason) for n, r in results.items() if n != "d0"} == {
        "d1": ("command-failed", "internal error: the collector process exited (code -9)"),
        "d2": ("command-failed", "internal error: the collector process exited (code -9)"),
    }
    assert seen == [
        ("start", "d0", None),
        ("done", "d0", "ok"),
        ("done", "d1", "command-failed"),
        ("done", "d2", "command-failed"),
    ]
