"""Collection in several processes: devices handed out to them as they have room, results
streamed back into the one snapshot.

One collector process runs on about one core: its threads share one interpreter lock, and a
device costs ~15 ms of its CPU (SSH handshake and packets in paramiko, pattern reads,
redaction). `run_sharded` collects in this process and in worker processes, each with its
own thread pool: forked while this process runs no other thread (they share its imported
modules), else fresh interpreters (`spawn`, so no lock another thread of this process holds,
e.g. the progress display's, is copied into one): `start_method`. The devices are not split
up front: a spawned worker process takes ~1 s of CPU to start (importing netmiko, paramiko,
napalm), so this process starts at once with every session the run allows, and a
`Dispatcher` hands each process more devices as it has room, sharing the run's sessions
(`workers`) evenly between the processes that have started. Every result goes to the same listener as it
arrives: the caller writes it into the one snapshot, exactly as with one process.

What one process guarantees holds in every one: each runs the same `collect_device`
(allowlist before anything is typed, host-key checks against the run's known_hosts,
redaction and secret scrubbing before a result leaves the process, per-command and
per-device time limits enforced by its own pool). Devices are handed out by endpoint
(host:port): all of one endpoint's go to one process together, so the per-endpoint session
cap holds across processes. A worker process that dies, or outlives every device's time limit,
leaves no device unreported: the ones it had and did not report are failed (`command-failed`,
an internal error), so the run is incomplete. A worker process ignores Ctrl-C; the parent
stops the workers when it is interrupted. Credentials reach a worker process through its pipe
(spawned) or in the memory it was forked with, never a file.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import queue
import signal
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from fabriclint.collectors.base import Collector, DeviceResult, SshPolicy, Target
from fabriclint.collectors.credentials import Scrubber
from fabriclint.collectors.device import Settings, collect_device
from fabriclint.collectors.pool import GRACE, Job, Listener, run_jobs

MIN_SHARD = 100
"""Devices per collector process at least (a spawned process costs ~1 s of CPU to start, a
forked one little: `start_method`)."""
POOL_SLACK = 0.5
"""The pool cuts a device this long after its own budget, so the device reports first."""
START_ALLOWANCE = 120.0
"""Seconds a worker process may take to start (imports on a loaded machine) before the
devices it holds are given up."""
SILENCE_SLACK = 10.0
"""Seconds past a device's time limit a working process may stay silent (a loaded machine)."""
POLL = 0.05
"""Seconds between looks at the worker processes while none of them reports."""


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
    """Collector processes for `devices`: one per CPU, and one per MIN_SHARD devices at most.

    One process needs ~10-20 ms of CPU per device (~4,000 devices per minute per core), so a
    second one pays when a core is free for it: on 2 idle CPUs (benchmarks/collect_scale.py,
    500 lab devices, the lab on the same cores) two spawned processes took 8.95-9.34 s against
    9.10-10.75 s for one; with the cores busy with other work one spawned process was faster
    (10.5-13.4 s against 8.8-9.8 s), and two forked ones about as fast (8.5-11.2 s against
    8.1-11.6 s), which `--processes 1` chooses (docs/performance.md)."""
    cpus = os.cpu_count() or 1
    return max(1, min(cpus, devices // MIN_SHARD))


def endpoint_groups(targets: list[Target]) -> list[list[Target]]:
    """`targets` grouped by endpoint (host:port), in inventory order of each group's first."""
    groups: dict[str, list[Target]] = {}
    for target in targets:
        groups.setdefault(f"{target.host}:{target.port}", []).append(target)
    return list(groups.values())


class Dispatcher:
    """Hands out endpoint groups to processes (0 = this one) as they have room: at most
    `workers` devices out at once in all, and at most an even share of them per started
    process (a process that started late gets sessions as the others' devices finish)."""

    def __init__(self, targets: list[Target], workers: int) -> None:
        self._groups = deque(endpoint_groups(targets))
        self._workers = max(1, workers)
        self._out: dict[int, int] = {0: 0}
        self._lock = threading.Lock()

    def join(self, process: int) -> None:
        """A worker process has started: it takes its share from now on."""
        with self._lock:
            self._out.setdefault(process, 0)

    def take(self, process: int, room: int) -> list[Target] | None:
        """Devices for `process`, which can start `room` more; None when none are left."""
        with self._lock:
            if not self._groups:
                return None
            share = math.ceil(self._workers / len(self._out))
            allowed = min(room, share - self._out[process], self._workers - sum(self._out.values()))
            given: list[Target] = []
            while self._groups and len(given) < allowed:
                given += self._groups.popleft()  # a whole endpoint: its cap holds across processes
            self._out[process] += len(given)
            return given

    def left(self) -> bool:
        """True while some devices have not been handed out."""
        with self._lock:
            return bool(self._groups)

    def finished(self, process: int, count: int = 1) -> None:
        """`count` devices of `process` reported (or were given up)."""
        with self._lock:
            if process in self._out:  # a process given up before it started holds none
                self._out[process] -= count


@dataclass
class ShardSpec:
    """What a worker process needs besides its devices (pickled to it over a pipe)."""

    settings: Settings
    policy: SshPolicy
    scrub: Scrubber
    workers: int
    per_endpoint: int
    index: int = 1


@dataclass
class _Remote:
    """A worker process, the pipe that feeds it devices, and what it holds."""

    spec: ShardSpec
    process: Any
    work: Any
    started: float
    held: dict[str, Target] = field(default_factory=dict)
    """Devices handed to it and not yet reported."""
    heard: float = 0.0
    """When it last sent anything (monotonic seconds)."""
    ready: bool = False
    fed: bool = False
    """Told that no more devices will come."""
    ended: bool = False

    def overdue(self) -> bool:
        """True when the process is stuck: not started within START_ALLOWANCE, or silent for
        longer than any device may take (every device it holds reports or is cut by its own
        pool within its time limit, so a working process is never silent that long)."""
        now = time.monotonic()
        if not self.ready:
            return now > self.started + START_ALLOWANCE
        limit = self.spec.settings.timeouts.device + POOL_SLACK + 2 * GRACE + SILENCE_SLACK
        return now > self.heard + limit

    def hear(self) -> None:
        """The process sent something: it is alive and working."""
        self.heard = time.monotonic()


def run_sharded(
    collector: Collector,
    targets: list[Target],
    spec: ShardSpec,
    processes: int,
    listener: Listener,
) -> dict[str, DeviceResult]:
    """Collect `targets` in this process (with `collector`) and `processes - 1` worker
    processes; results by device name, each handed to `listener` (one call at a time)."""
    dispatcher = Dispatcher(targets, spec.workers)
    run = _Run(dispatcher, listener)
    context = multiprocessing.get_context(start_method())
    if context.get_start_method() == "fork":
        preload()
    inbox: Any = context.Queue()
    remotes = [_start(context, spec, index, inbox) for index in range(1, processes)]
    drain = threading.Thread(
        target=run.drain, args=(inbox, remotes), name="collect-processes", daemon=True
    )
    drain.start()

    def feed(room: int) -> list[Job] | None:
        given = dispatcher.take(0, room)
        return (
            None
            if given is None
            else [device_job(collector, t, spec.settings, spec.scrub) for t in given]
        )

    try:
        local = run_jobs([], spec.workers, run.local, spec.per_endpoint, feed)
        drain.join()
    except BaseException:
        run.stop()
        raise
    finally:
        for remote in remotes:
            _stop(remote.process)
    results = local | run.results
    for target in targets:  # never a device without a result (that would read as complete)
        if target.name not in results:
            why = "internal error: no result from the collector processes"
            results[target.name] = DeviceResult(target.name, target.platform, "command-failed", why)
            listener("done", target.name, results[target.name])
    return results


class _Run:
    """The parent's side of a sharded run: one listener for every process's results."""

    def __init__(self, dispatcher: Dispatcher, listener: Listener) -> None:
        self.dispatcher = dispatcher
        self.results: dict[str, DeviceResult] = {}
        self._listener = listener
        self._lock = threading.Lock()
        self._stopped = False

    def notify(self, event: str, name: str, result: DeviceResult | None) -> None:
        """Hand one event on (nothing once the run is being abandoned)."""
        with self._lock:
            if not self._stopped:
                self._listener(event, name, result)

    def stop(self) -> None:
        """The run is abandoned (interrupted): no more results are handed on."""
        with self._lock:
            self._stopped = True

    def local(self, event: str, name: str, result: DeviceResult | None) -> None:
        """This process's pool's listener."""
        if event == "done":
            self.dispatcher.finished(0)
        self.notify(event, name, result)

    def drain(self, inbox: Any, remotes: list[_Remote]) -> None:
        """Feed the worker processes and hand on their messages until each has ended."""
        by_index = {remote.spec.index: remote for remote in remotes}
        while not self._stopped and any(not r.ended for r in remotes):
            try:
                event, name, result = inbox.get(timeout=POLL)
            except queue.Empty:  # all that was sent is read: now a dead process is dead
                for remote in remotes:
                    self._check(remote)
                event, name, result = "", "", None
            sender = by_index.get(int(name)) if event in ("ready", "end") else None
            if sender is not None:
                sender.hear()
            if event == "ready" and sender is not None:
                sender.ready = True
                self.dispatcher.join(sender.spec.index)
            elif event == "end" and sender is not None:
                self._give_up(sender, "internal error: the collector process ended early")
            elif event in ("start", "done"):
                self._device(remotes, event, name, result)
            for remote in remotes:
                self._feed(remote)

    def _device(
        self, remotes: list[_Remote], event: str, name: str, result: DeviceResult | None
    ) -> None:
        owner = next((r for r in remotes if name in r.held), None)
        if owner is None:  # a late message of a device given up: dropped
            return
        owner.hear()
        if event == "done" and result is not None:
            del owner.held[name]
            self.dispatcher.finished(owner.spec.index)
            self.results[name] = result
        self.notify(event, name, result)

    def _check(self, remote: _Remote) -> None:
        """Give up a worker process that died or outlived its devices' time limits, or that has
        not started and is no longer needed."""
        if remote.ended:
            return
        if not remote.process.is_alive() or remote.overdue():
            code = remote.process.exitcode
            why = (
                f"internal error: the collector process exited (code {code})"
                if code is not None
                else "internal error: the collector process stopped answering (past the device "
                "time limit)"
            )
            self._give_up(remote, why)
        elif not remote.ready and not self.dispatcher.left():
            self._give_up(remote, "")  # nothing left for it (it holds none): not waited for

    def _feed(self, remote: _Remote) -> None:
        """Hand a started worker process more devices, or tell it none are left."""
        if remote.ended or not remote.ready or remote.fed:
            return
        given = self.dispatcher.take(remote.spec.index, remote.spec.workers - len(remote.held))
        if given is None:
            remote.fed = True
            remote.work.put(None)
        elif given:
            remote.held |= {t.name: t for t in given}
            remote.work.put(given)

    def _give_up(self, remote: _Remote, why: str) -> None:
        """Stop `remote`; the devices it still held are failed with `why`."""
        _stop(remote.process)
        remote.ended = True
        self.dispatcher.finished(remote.spec.index, len(remote.held))
        for target in remote.held.values():
            failed = DeviceResult(target.name, target.platform, "command-failed", why)
            self.results[target.name] = failed
            self.notify("done", target.name, failed)
        remote.held.clear()


def start_method() -> str:
    """How worker processes start: `fork` on Linux while this process runs no other thread,
    else `spawn` (a fresh interpreter).

    A spawned process imports netmiko, paramiko and napalm again: ~1 s of CPU each, ~2 ms per
    device of a 500-device run, on the cores the sessions need. A forked one shares the
    parent's imported modules. Forking is only safe before any other thread exists: a lock
    another thread holds (the progress display's, a pool's) would stay locked in the child
    forever. `run_sharded` starts its worker processes before any thread of its own, so the
    check holds for all of them; with a progress bar on a terminal (its refresh thread) they
    are spawned as before. macOS and Windows always spawn (fork is unsafe or absent there)."""
    if sys.platform.startswith("linux") and threading.active_count() == 1:
        return "fork"
    return "spawn"


def preload() -> None:
    """Import what a worker process collects with (netmiko's SSH connection, napalm's EOS
    driver) before forking, so every child has them already: the parent needs them anyway
    for its own sessions."""
    from fabriclint.collectors.facts import warm
    from fabriclint.collectors.netmiko_ssh import warm_imports

    warm_imports()
    warm()


def _start(context: Any, spec: ShardSpec, index: int, inbox: Any) -> _Remote:
    work = context.Queue()
    own = ShardSpec(spec.settings, spec.policy, spec.scrub, spec.workers, spec.per_endpoint, index)
    process = context.Process(
        target=collect_shard, args=(own, work, inbox), name=f"fabriclint-collect-{index}"
    )
    process.daemon = True  # never outlives the run
    process.start()
    return _Remote(own, process, work, time.monotonic())


def _stop(process: Any) -> None:
    """End a worker process that is still running (after an interrupt or a give-up)."""
    if process.is_alive():
        process.kill()
    process.join(timeout=5)


def collect_shard(spec: ShardSpec, work: Any, outbox: Any) -> None:
    """A worker process: collect the devices `work` brings (lists; None = no more) with the
    netmiko collector, sending `ready`, every start and result, then `end`, to `outbox`.
    Ctrl-C is the parent's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # a forked process has the parent's handlers; SIGTERM is the parent's to handle too, but
    # a worker told to end by it ends (the CLI's handler would raise in the worker instead)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    from fabriclint.collectors.netmiko_ssh import NetmikoCollector

    if spec.policy.allow_legacy:
        from fabriclint.collectors.legacy import allow_legacy_algorithms

        allow_legacy_algorithms()
    collector = NetmikoCollector(spec.policy, spec.scrub)
    parent = os.getppid()

    def feed(room: int) -> list[Job] | None:
        if os.getppid() != parent:  # the run is gone (killed): take nothing more, end
            return None
        try:
            given = work.get_nowait()
        except queue.Empty:
            return []
        return (
            None
            if given is None
            else [device_job(collector, t, spec.settings, spec.scrub) for t in given]
        )

    def send(event: str, name: str, result: DeviceResult | None) -> None:
        outbox.put((event, name, result))

    outbox.put(("ready", str(spec.index), None))
    try:
        run_jobs([], spec.workers, send, spec.per_endpoint, feed)
    finally:
        outbox.put(("end", str(spec.index), None))
        outbox.close()
        outbox.join_thread()  # every result is in the pipe before the process ends
