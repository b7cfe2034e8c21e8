"""Parsing devices in worker processes: `fabriclint check --jobs N`.

The parse stage is the one stage whose work is per device and needs nothing from the others,
so `parse_in_workers` hands the devices out in chunks to a pool of spawned processes; each
worker reads a chunk's files, parses them exactly as `engine.parse_input` does in one process,
and returns each device's DeviceState with its ledger entries (status, why it is missing, a
contained failure). The parent merges them in inventory order, so annotate, the rules and the
reports see what a one-process run sees: the reports are the same byte for byte.

A worker that dies (killed, out of memory) takes its pool down: the devices it did not return
are parsed again one at a time in a one-worker pool, so the device that kills a worker is
found and reported unchecked (INTERNAL001, exit 3) while the others are parsed. Ctrl-C (or any
exception in the parent) terminates the workers before it propagates.

Workers cost a process start and fabriclint's imports (~0.85 s of CPU each) and the parsed
states are pickled back (docs/performance.md, "--jobs"): `choose_jobs` starts none for small checks.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from fabriclint.engine import DeviceInput, Ledger, Readout
    from fabriclint.models.state import DeviceState

BREAK_EVEN_DEVICES = 400
"""Below this many devices to parse, `--jobs` left to choose parses in one process: the pool's
start (spawn + imports) and the pickling would cost about what the workers save
(docs/performance.md, "--jobs")."""

MIN_CORES = 3
"""On fewer cores `--jobs` left to choose parses in one process: measured on 2 cores, two
workers took more CPU, memory and wall time than one process (docs/performance.md)."""

CHUNKS_PER_WORKER = 4
"""Chunks handed to each worker: enough that a slow chunk does not leave a worker idle, few
enough that each task's pickling overhead stays small."""

MAX_CRASHES = 3
"""Workers that may die in the one-at-a-time retries before the devices still unparsed are all
given up as unchecked (a fabric whose inputs keep killing workers)."""

WORKER_SETUP: Callable[[], None] | None = None
"""Run by each worker as it starts (tests make parsers fail in the workers with it)."""

Item = tuple[str, "DeviceInput", int]
"""A device to parse: its name, its input, and how many link ends the cabling plan gives it."""


@dataclass
class Outcome:
    """What a worker returns for one device: what `engine.parse_input` left."""

    name: str
    state: DeviceState | None
    ledger: Ledger
    """The device's own entries: status, missing, failures."""
    found: DeviceInput
    """The input as parsing left it (its files read, the texts no later stage reads dropped)."""


def cores() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def choose_jobs(requested: int | None, devices: int) -> int:
    """How many processes parse `devices` devices: the `--jobs` asked for (never more than the
    devices), or when not asked, 1 on fewer than MIN_CORES, else one per core but at most one
    per BREAK_EVEN_DEVICES devices (each worker's start, ~0.85 s of CPU and ~41 MB, stays a small
    share of the parsing it takes on: 64 cores do not start 64 workers for 400 devices)."""
    if requested is not None:
        return max(1, min(requested, devices))
    if cores() < MIN_CORES:
        return 1
    return max(1, min(cores(), devices // BREAK_EVEN_DEVICES))


def parse_in_workers(
    readout: Readout, jobs: int, progress: Callable[[str], None] | None = None
) -> dict[str, DeviceState]:
    """Parse `readout`'s devices in `jobs` worker processes; each device's ledger entries go to
    `readout.ledger` and its states are returned, both in inventory order as `engine.parse`."""
    from fabriclint.snapshot import settle

    ledger = readout.ledger
    items = [
        (name, found, ledger.cabled_count.get(name, 0)) for name, found in readout.inputs.items()
    ]
    outcomes: dict[str, Outcome] = {}
    _parse_all(items, jobs, outcomes, progress or _silent)
    states: dict[str, DeviceState] = {}
    for name, found in readout.inputs.items():
        outcome = outcomes[name]
        _adopt(found, outcome.found, settle)
        ledger.status.update(outcome.ledger.status)
        ledger.missing.update(outcome.ledger.missing)
        ledger.failures.extend(outcome.ledger.failures)
        if outcome.state is not None:
            states[name] = outcome.state
    return states


def _silent(_name: str) -> None:
    """No progress display."""


def _adopt(found: DeviceInput, parsed: DeviceInput, settle: Callable[[Any, Any], None]) -> None:
    """Make the parent's input what parsing left in the worker: a lazily loaded device read (its
    snapshot entry too: suppression and the reports read it), the texts dropped as there."""
    if found.loaded is not None and parsed.loaded is not None:
        settle(found.loaded, parsed.loaded)
        if found.loaded.raw is not None:
            found.raw = found.loaded.raw
        return
    for key, output in found.raw.outputs.items():
        kept = parsed.raw.outputs.get(key)
        if kept is not None:
            output.text = kept.text


def _parse_all(
    items: list[Item], jobs: int, outcomes: dict[str, Outcome], progress: Callable[[str], None]
) -> None:
    """Every item's outcome into `outcomes`: in chunks over `jobs` workers, then what a dead
    worker did not return one device at a time (a device that kills its worker is unchecked)."""
    size = max(1, -(-len(items) // (jobs * CHUNKS_PER_WORKER)))
    chunks = [items[start : start + size] for start in range(0, len(items), size)]
    lost = _round(chunks, jobs, outcomes, progress)
    crashes = 0
    while lost and crashes < MAX_CRASHES:
        lost = _one_by_one(lost, outcomes, progress)
        crashes += 1
    for name, _found, _cabled in lost:
        _give_up(outcomes, name, RuntimeError(f"{MAX_CRASHES} worker processes died"))


def _round(
    chunks: list[list[Item]],
    workers: int,
    outcomes: dict[str, Outcome],
    progress: Callable[[str], None],
) -> list[Item]:
    """One pool over `chunks`: their outcomes into `outcomes`; the items of every chunk that did
    not come back (a worker died: the pool fails every chunk not returned yet; or a result that
    does not pickle)."""
    lost: list[Item] = []
    with _pool(workers) as pool:
        futures = [(chunk, _submit(pool, parse_chunk, chunk)) for chunk in chunks]
        for chunk, future in futures:
            try:
                returned = _result(future)
            except Exception:
                lost.extend(chunk)
                continue
            _record(returned, outcomes, progress)
    return lost


def _one_by_one(
    items: list[Item], outcomes: dict[str, Outcome], progress: Callable[[str], None]
) -> list[Item]:
    """Parse `items` in one worker, one at a time, so a worker that dies names its device:
    that device is given up (unchecked) and the items after it are returned for a new worker."""
    from concurrent.futures.process import BrokenProcessPool

    with _pool(1) as pool:
        for index, item in enumerate(items):
            try:
                returned = _result(_submit(pool, parse_chunk, [item]))
            except BrokenProcessPool as exc:
                _give_up(outcomes, item[0], exc)
                return items[index + 1 :]
            except Exception as exc:  # its state does not pickle: this device is unchecked
                _give_up(outcomes, item[0], exc)
                continue
            _record(returned, outcomes, progress)
    return []


def _record(
    returned: list[Outcome], outcomes: dict[str, Outcome], progress: Callable[[str], None]
) -> None:
    """A chunk's outcomes kept, each device shown as parsed."""
    for outcome in returned:
        outcomes[outcome.name] = outcome
        progress(outcome.name)


def _result(future: Future[list[Outcome]]) -> list[Outcome]:
    """A chunk's outcomes (raises what the worker raised, or BrokenProcessPool)."""
    return future.result()


def _give_up(outcomes: dict[str, Outcome], name: str, exc: Exception) -> None:
    """`name` could not be parsed in a worker: unchecked (INTERNAL001), as any contained bug."""
    from fabriclint.engine import DeviceInput, Ledger
    from fabriclint.models.raw import RawDevice

    ledger = Ledger()
    ledger.fail(name, "parsing the device in a worker process", exc)
    placeholder = DeviceInput(platform="", raw=RawDevice(name=name, platform="", outputs={}))
    outcomes[name] = Outcome(name, None, ledger, placeholder)


@contextmanager
def _pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A pool of spawned workers (no fork of a parent holding threads and a half-built run).
    On any exception in the parent, Ctrl-C included, its workers are terminated first."""
    pool = new_pool(workers)
    try:
        yield pool
    except BaseException:
        with _interrupts_held():  # a second Ctrl-C must not cut the clean-up short
            _terminate(pool)
        raise
    pool.shutdown(wait=True)


def _submit(pool: ProcessPoolExecutor, run: Callable[[Any], Any], arg: Any) -> Future[Any]:
    """`pool.submit`, with Ctrl-C held until it returns: submit spawns a worker, then lists it
    in the pool, then starts the pool's manager thread. A Ctrl-C in between left a worker the
    clean-up did not know of: still running after the run, or, cut before it had its start-up
    data, printing "EOFError: Ran out of input" under fabriclint's "interrupted"."""
    from fabriclint import interrupts

    with interrupts.deferred():
        return pool.submit(run, arg)


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """Ctrl-C ignored while the block runs (the run is already ending), in the main thread
    only (the only one that may set a signal handler)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def new_pool(workers: int) -> ProcessPoolExecutor:
    """`workers` spawned processes, each set up by `_start_worker`."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start_worker,
        initargs=(WORKER_SETUP,),
    )


TERMINATE_WAIT = 5.0
"""Seconds to wait for each terminated worker, then for the pool's manager thread."""


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop `pool` now: pending chunks cancelled, running workers killed and reaped, and the
    pool's manager thread finished.

    That last wait is what makes Ctrl-C exit cleanly: `shutdown(wait=False)` leaves the manager
    thread running, and once it sees the killed workers it closes the pool's wake-up pipe. The
    interpreter's exit hook for the pool (`concurrent.futures.process._python_exit`) writes to
    that pipe without the pool's lock, so an exit racing the manager wrote to a closed pipe
    ("Exception ignored in threading ... Bad file descriptor", about 1 Ctrl-C in 10). Once the
    manager has ended, the pipe is marked closed and the hook skips it."""
    # The executor has no public API for its processes or its manager thread.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=TERMINATE_WAIT)
    if manager is not None:
        _join_started(manager, TERMINATE_WAIT)


def _join_started(thread: Any, wait: float) -> None:
    """Join `thread`, also one whose `start()` a Ctrl-C cut short: `submit` spawns the workers,
    then starts the manager thread, and `Thread.start` waits for the new thread to run. On a
    loaded machine the Ctrl-C landed in that wait; `join` then refused the thread ("cannot
    join thread before it is started": an internal error, exit 3, instead of 130). It is
    waited for to start (it runs a moment later), then joined, `wait` seconds in all."""
    import time

    deadline = time.monotonic() + wait
    while True:
        try:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
            return
        except RuntimeError:  # not started yet (or never: its start was cut before it began)
            if time.monotonic() >= deadline:
                return
            time.sleep(0.01)


def _start_worker(setup: Callable[[], None] | None) -> None:
    """A worker's set-up: Ctrl-C is the parent's to handle (it terminates the workers), and the
    cyclic collector stays off while parsing, as in the parent (`engine.gc_paused`)."""
    import gc
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.disable()
    if setup is not None:
        setup()


def parse_chunk(chunk: list[Item]) -> list[Outcome]:
    """In a worker: each device of `chunk` parsed as `engine.parse` parses it in one process."""
    from fabriclint.engine import Ledger, parse_input

    outcomes: list[Outcome] = []
    for name, found, cabled in chunk:
        ledger = Ledger(cabled_count={name: cabled})
        state = parse_input(ledger, name, found)
        ledger.cabled_count = {}
        outcomes.append(Outcome(name, state, ledger, found))
    return outcomes
