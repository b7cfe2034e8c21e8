"""A bounded pool of device jobs, each with its own deadline.

At most `workers` devices run at once, one daemon thread each, and at most `per_endpoint` of
them share an endpoint (`Job.endpoint`, the host:port connected to): two inventory names for
one device, or devices behind one port-forwarding address, never get more sessions at once
than that (SSH servers drop logins past a few concurrent ones: OpenSSH's MaxStartups begins
at 10). A job whose endpoint is busy waits without holding a worker; the next pending job
with a free endpoint starts instead. When a device passes its
deadline its connection is aborted (`Job.abort`); if its thread still has not finished after
a short grace period, the device is recorded as timed out and its slot is given to the next
device anyway. So a hung device never delays the others beyond its own timeout. Ctrl-C in the
main thread aborts every running device and propagates.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from fabriclint.collectors.base import DeviceResult

GRACE = 2.0
"""Seconds a device's thread gets to finish after its connection was aborted."""
PER_ENDPOINT = 1
"""Default sessions at once to one endpoint: one device is collected by one session."""


@dataclass
class Job:
    """One device to collect."""

    name: str
    platform: str
    run: Callable[[threading.Event], DeviceResult]
    """Collects the device; gets the event that is set when the device is aborted."""
    abort: Callable[[], None]
    """Cuts the device's connection (called from the pool's thread)."""
    timeout: float
    aborted: threading.Event = field(default_factory=threading.Event)
    endpoint: str | None = None
    """What the job connects to (host:port); None = no per-endpoint limit."""


@dataclass
class _Running:
    job: Job
    deadline: float
    cut_at: float | None = None


Listener = Callable[[str, str, DeviceResult | None], None]
"""(event 'start' | 'done', device name, result when done)."""


def _outcome(job: Job) -> DeviceResult:
    """Run `job` on this thread (named after its device); never raises."""
    threading.current_thread().name = job.name
    try:
        return job.run(job.aborted)
    except BaseException as exc:  # a bug in a job must not kill the run
        reason = f"internal error: {type(exc).__name__}"
        return DeviceResult(job.name, job.platform, "command-failed", reason)


IDLE = 2.0
"""Seconds a worker thread with nothing to do waits for another job before it ends."""


Work = tuple[Job, "queue.Queue[tuple[str, DeviceResult]]"]
"""A job and the queue its result goes to."""


class _Threads:
    """Worker threads kept from one job to the next.

    A thread started per device cost its start (and the pool's thread waited in
    `Thread.start` for the new thread to get the interpreter lock, with every session
    competing for it: no other device started meanwhile). A thread that finishes a job waits
    for the next one on its own hand-off queue; a new thread is started only when none is
    idle. An idle thread is taken off the idle list by the one call that hands it a job, so
    each hand-off reaches exactly one thread. A job that hangs keeps its thread (the pool gives
    its slot away, as before); idle threads end after IDLE seconds or when the run is over.
    """

    def __init__(self) -> None:
        self._idle: list[queue.SimpleQueue[Work | None]] = []
        self._lock = threading.Lock()

    def run(self, job: Job, done: queue.Queue[tuple[str, DeviceResult]]) -> None:
        """Run `job` on an idle thread, or a new one; its result goes to `done`."""
        with self._lock:
            inbox = self._idle.pop() if self._idle else None
        if inbox is not None:
            inbox.put((job, done))
            return
        inbox = queue.SimpleQueue()
        inbox.put((job, done))
        threading.Thread(target=self._loop, args=(inbox,), name=job.name, daemon=True).start()

    def close(self) -> None:
        """Let every idle thread end now (busy ones end when idle for IDLE seconds)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for inbox in idle:
            inbox.put(None)

    def _loop(self, inbox: queue.SimpleQueue[Work | None]) -> None:
        while (work := self._take(inbox)) is not None:
            job, done = work
            result = _outcome(job)
            with self._lock:  # idle before the pool hears of the result and starts another
                self._idle.append(inbox)
            done.put((job.name, result))

    def _take(self, inbox: queue.SimpleQueue[Work | None]) -> Work | None:
        """The next job for this thread, or None when it should end."""
        try:
            return inbox.get(timeout=IDLE)
        except queue.Empty:
            with self._lock:
                if inbox in self._idle:  # nobody is handing this thread a job: end it
                    self._idle.remove(inbox)
                    return None
            return inbox.get()  # taken off the idle list just now: its job is on the way


Feed = Callable[[int], "list[Job] | None"]
"""More jobs for a pool with `room` free slots: a list (maybe empty: none yet), None when no
more will ever come. Called from the pool's thread; must not block."""
FEED_POLL = 0.02
"""Seconds between asking a feed for jobs while it has none yet."""


def run_jobs(
    jobs: list[Job],
    workers: int,
    listener: Listener | None = None,
    per_endpoint: int = PER_ENDPOINT,
    feed: Feed | None = None,
) -> dict[str, DeviceResult]:
    """Run every job (and every job `feed` gives), at most `workers` at a time and
    `per_endpoint` per endpoint; results by device name."""
    pending = deque(jobs)
    running: dict[str, _Running] = {}
    results: dict[str, DeviceResult] = {}
    done: queue.Queue[tuple[str, DeviceResult]] = queue.Queue()
    notify = listener or (lambda *_: None)
    threads = _Threads()
    try:
        while pending or running or feed is not None:
            if feed is not None:
                more = feed(max(0, max(1, workers) - len(running) - len(pending)))
                feed = None if more is None else feed
                pending.extend(more or [])
            limits = (max(1, workers), max(1, per_endpoint))
            _start(pending, running, (threads, done), notify, limits)
            if running:
                _wait(done, running, results, notify, None if feed is None else FEED_POLL)
            elif feed is not None and not pending:
                time.sleep(FEED_POLL)
    except BaseException:
        for slot in running.values():
            slot.job.aborted.set()
            slot.job.abort()
        raise
    finally:
        threads.close()
    return results


def _start(
    pending: deque[Job],
    running: dict[str, _Running],
    runner: tuple[_Threads, queue.Queue[tuple[str, DeviceResult]]],
    notify: Listener,
    limits: tuple[int, int],
) -> None:
    """Start pending jobs while there are free workers (`limits`: workers, per endpoint)."""
    workers, per_endpoint = limits
    busy: Counter[str | None] = Counter(s.job.endpoint for s in running.values())
    while len(running) < workers and (job := _next(pending, busy, per_endpoint)):
        running[job.name] = _Running(job, time.monotonic() + job.timeout)
        busy[job.endpoint] += 1
        runner[0].run(job, runner[1])
        notify("start", job.name, None)


def _next(pending: deque[Job], busy: Counter[str | None], per_endpoint: int) -> Job | None:
    """Take the first pending job whose endpoint has a free session, if any."""
    for index, job in enumerate(pending):
        if job.endpoint is None or busy[job.endpoint] < per_endpoint:
            del pending[index]
            return job
    return None


def _wait(
    done: queue.Queue[tuple[str, DeviceResult]],
    running: dict[str, _Running],
    results: dict[str, DeviceResult],
    notify: Listener,
    cap: float | None = None,
) -> None:
    """Take the next finished device, or enforce deadlines when none finishes in time (at most
    `cap` seconds of waiting, when a feed may have new jobs)."""
    now = time.monotonic()
    marks = [s.cut_at + GRACE if s.cut_at else s.deadline for s in running.values()]
    wait = max(0.01, min(marks) - now)
    try:
        name, result = done.get(timeout=wait if cap is None else min(cap, wait))
    except queue.Empty:
        _enforce(running, results, notify)
        return
    if name in running:
        del running[name]
        results[name] = result
        notify("done", name, result)


def _enforce(
    running: dict[str, _Running], results: dict[str, DeviceResult], notify: Listener
) -> None:
    now = time.monotonic()
    for name, slot in list(running.items()):
        if slot.cut_at is None and now >= slot.deadline:
            slot.cut_at = now
            slot.job.aborted.set()
            slot.job.abort()
        elif slot.cut_at is not None and now >= slot.cut_at + GRACE:
            reason = (
                f"device time limit ({slot.job.timeout:g} s) reached; the session did not close"
            )
            result = DeviceResult(name, slot.job.platform, "timeout", reason)
            del running[name]
            results[name] = result
            notify("done", name, result)
