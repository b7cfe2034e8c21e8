"""Collection in several processes: devices sharded across them, results streamed back.

One collector process runs on about one core: its threads share one interpreter lock, and a
device costs ~15 ms of its CPU (SSH handshake and packets in paramiko, pattern reads,
redaction). Past a few thousand devices per minute (devices that answer fast), more threads
only wait for that lock. `run_sharded` splits the devices into shards, runs the first in this
process and each other one in a worker process (a fresh interpreter: `spawn`, so no lock
another thread of this process holds, e.g. the progress display's, is copied into it), each
with its own thread pool, and hands every result to the same listener as it arrives: the
caller writes it into the one snapshot, exactly as with one process.

What one process guarantees holds for every shard: each runs the same `collect_device`
(allowlist before anything is typed, host-key checks against the run's known_hosts,
redaction and secret scrubbing before a result leaves the process, per-command and
per-device time limits enforced by its own pool). All devices of one endpoint (host:port)
are in one shard, so the per-endpoint session cap holds across processes. A worker process
that dies, or outlives every device's time limit, leaves no device unreported: the ones it
did not report are failed (`command-failed`, an internal error), so the run is incomplete.
A worker process ignores Ctrl-C; the parent stops the workers when it is interrupted.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import queue
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from fabriclint.collectors.base import Collector, DeviceResult, SshPolicy, Target
from fabriclint.collectors.credentials import Scrubber
from fabriclint.collectors.device import Settings, collect_device
from fabriclint.collectors.pool import GRACE, Job, Listener, run_jobs

MIN_SHARD = 100
"""Devices below which another process is not worth its start (~1.5 s of CPU importing
netmiko, paramiko and napalm)."""
POOL_SLACK = 0.5
"""The pool cuts a device this long after its own budget, so the device reports first."""
START_ALLOWANCE = 120.0
"""Seconds a worker process may take to start (imports on a loaded machine) before its
unreported devices are given up."""


def device_job(collector: Collector, target: Target, settings: Settings, scrub: Scrubber) -> Job:
    """The pool job that collects `target` (in this process or a worker process)."""
    return Job(
        name=target.name,
        platform=target.platform,
        run=lambda aborted: collect_device(collector, target, settings, scrub, aborted),
        abort=lambda: collector.abort(target),
        timeout=settings.timeouts.device + POOL_SLACK,
        endpoint=f"{target.host}:{target.port}",
    )


def default_processes(devices: int) -> int:
    """Collector processes for `devices`: one per CPU, and one per MIN_SHARD devices at most."""
    return max(1, min(os.cpu_count() or 1, devices // MIN_SHARD))


def shard(targets: list[Target], count: int) -> list[list[Target]]:
    """`targets` in `count` shards of about equal size (fewer when there are fewer endpoints),
    every endpoint's devices in one shard, inventory order kept within each."""
    groups: dict[str, list[Target]] = {}
    for target in targets:
        groups.setdefault(f"{target.host}:{target.port}", []).append(target)
    shards: list[list[Target]] = [[] for _ in range(max(1, min(count, len(groups))))]
    for group in sorted(groups.values(), key=len, reverse=True):  # largest first: balanced
        min(shards, key=len).extend(group)
    order = {target.name: index for index, target in enumerate(targets)}
    return [sorted(part, key=lambda t: order[t.name]) for part in shards if part]


def split_workers(workers: int, sizes: list[int]) -> list[int]:
    """The run's `workers` (sessions at once, in all) split over shards of `sizes` devices."""
    total = max(1, sum(sizes))
    return [max(1, round(workers * size / total)) for size in sizes]


@dataclass
class ShardSpec:
    """What a worker process needs to collect its shard (pickled to it over a pipe)."""

    targets: list[Target]
    settings: Settings
    policy: SshPolicy
    scrub: Scrubber
    workers: int
    per_endpoint: int
    index: int = 0


@dataclass
class _Remote:
    """A worker process and what it has reported."""

    spec: ShardSpec
    process: Any
    started: float
    reported: set[str] = field(default_factory=set)
    ended: bool = False

    def limit(self) -> float:
        """When the process has had every device's time limit, shard by shard."""
        rounds = math.ceil(len(self.spec.targets) / max(1, self.spec.workers))
        per_device = self.spec.settings.timeouts.device + POOL_SLACK + 2 * GRACE
        return self.started + START_ALLOWANCE + rounds * per_device


def run_sharded(
    local: list[Job], remote: list[ShardSpec], workers: int, listener: Listener, per_endpoint: int
) -> dict[str, DeviceResult]:
    """Run `local` jobs in this process and each of `remote` in a worker process; results by
    device name, each handed to `listener` (from one thread at a time) as it arrives."""
    lock = threading.Lock()
    stopped = threading.Event()

    def serial(event: str, name: str, result: DeviceResult | None) -> None:
        with lock:
            if not stopped.is_set():  # nothing is written once the run is being abandoned
                listener(event, name, result)

    context = multiprocessing.get_context("spawn")
    inbox: Any = context.Queue()
    remotes = [_start(context, spec, inbox) for spec in remote]
    results: dict[str, DeviceResult] = {}
    args = (inbox, remotes, results, serial, stopped)
    drain = threading.Thread(target=_drain, args=args, name="collect-shards", daemon=True)
    drain.start()
    try:
        results |= run_jobs(local, workers, serial, per_endpoint)
        drain.join()
    except BaseException:
        with lock:
            stopped.set()
        raise
    finally:
        for entry in remotes:
            _stop(entry.process)
    return results


def _start(context: Any, spec: ShardSpec, inbox: Any) -> _Remote:
    process = context.Process(
        target=collect_shard, args=(spec, inbox), name=f"fabriclint-collect-{spec.index}"
    )
    process.daemon = True  # never outlives the run
    process.start()
    return _Remote(spec, process, time.monotonic())


def _stop(process: Any) -> None:
    """End a worker process that is still running (after an interrupt or a give-up)."""
    if process.is_alive():
        process.kill()
    process.join(timeout=5)


def _drain(
    inbox: Any,
    remotes: list[_Remote],
    results: dict[str, DeviceResult],
    notify: Listener,
    stopped: threading.Event,
) -> None:
    """Hand on every message of the worker processes until each has ended or is given up."""
    by_index = {entry.spec.index: entry for entry in remotes}
    by_device = {t.name: entry for entry in remotes for t in entry.spec.targets}
    while not stopped.is_set() and any(not entry.ended for entry in remotes):
        try:
            event, name, result = inbox.get(timeout=0.5)
        except queue.Empty:
            for entry in remotes:
                if not entry.ended:
                    _check(entry, results, notify)
            continue
        if event == "end":
            by_index[int(name)].ended = True
        elif event == "done" and result is not None:
            owner = by_device[name]
            if name not in owner.reported:  # a late result of a device given up is dropped
                owner.reported.add(name)
                results[name] = result
                notify(event, name, result)
        elif event == "start":
            notify(event, name, None)


def _check(entry: _Remote, results: dict[str, DeviceResult], notify: Listener) -> None:
    """Give up a worker process that died, or that outlived every device's time limit."""
    alive = entry.process.is_alive()
    if alive and time.monotonic() < entry.limit():
        return
    if alive:
        _stop(entry.process)
        why = "internal error: the collector process outlived every device's time limit"
    else:
        why = f"internal error: the collector process exited (code {entry.process.exitcode})"
    for target in entry.spec.targets:
        if target.name not in entry.reported:
            entry.reported.add(target.name)
            results[target.name] = DeviceResult(target.name, target.platform, "command-failed", why)
            notify("done", target.name, results[target.name])
    entry.ended = True


def collect_shard(spec: ShardSpec, outbox: Any) -> None:
    """A worker process: collect `spec.targets` with the netmiko collector, sending every
    start and result to `outbox`, then `end`. Ctrl-C is the parent's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from fabriclint.collectors.netmiko_ssh import NetmikoCollector

    if spec.policy.allow_legacy:
        from fabriclint.collectors.legacy import allow_legacy_algorithms

        allow_legacy_algorithms()
    collector = NetmikoCollector(spec.policy, spec.scrub)

    def send(event: str, name: str, result: DeviceResult | None) -> None:
        outbox.put((event, name, result))

    try:
        jobs = [device_job(collector, t, spec.settings, spec.scrub) for t in spec.targets]
        run_jobs(jobs, spec.workers, send, spec.per_endpoint)
    finally:
        outbox.put(("end", str(spec.index), None))
        outbox.close()
        outbox.join_thread()  # every result is in the pipe before the process ends
