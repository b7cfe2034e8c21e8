"""The worker pool: bounded concurrency, per-device deadlines, a hung job never blocks others."""

from __future__ import annotations

import threading

import pytest

from fabriclint.collectors.base import DeviceResult
from fabriclint.collectors.pool import Job, run_jobs
from fabriclint.snapshot import DeviceStatus


def _job(name: str, work: float, timeout: float, gauge: list[int], peak: list[int]) -> Job:
    lock = threading.Lock()

    def run(aborted: threading.Event) -> DeviceResult:
        with lock:
            gauge[0] += 1
            peak[0] = max(peak[0], gauge[0])
        aborted.wait(work)
        with lock:
            gauge[0] -= 1
        status: DeviceStatus = "timeout" if aborted.is_set() else "ok"
        return DeviceResult(name, "eos", status)

    return Job(name=name, platform="eos", run=run, abort=lambda: None, timeout=timeout)


def test_at_most_workers_run_at_once() -> None:
    gauge, peak = [0], [0]
    jobs = [_job(f"d{i}", 0.05, 10.0, gauge, peak) for i in range(12)]
    results = run_jobs(jobs, workers=3)
    assert sorted(results) == sorted(j.name for j in jobs)
    assert all(r.status == "ok" for r in results.values())
    assert 1 <= peak[0] <= 3


def test_a_job_past_its_deadline_is_aborted_and_others_finish() -> None:
    gauge, peak = [0], [0]
    hung = _job("hung", 60.0, 0.3, gauge, peak)
    aborted: list[str] = []
    hung.abort = lambda: aborted.append("hung")
    others = [_job(f"d{i}", 0.01, 10.0, gauge, peak) for i in range(5)]
    events: list[tuple[str, str]] = []
    results = run_jobs([hung, *others], workers=2, listener=lambda e, n, r: events.append((e, n)))
    assert results["hung"].status == "timeout" and aborted == ["hung"]
    assert all(results[j.name].status == "ok" for j in others)
    assert ("done", "hung") in events and len([e for e in events if e[0] == "start"]) == 6


def test_a_job_that_ignores_abort_is_given_up_after_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    from fabriclint.collectors import pool

    stuck = threading.Event()

    def never(aborted: threading.Event) -> DeviceResult:
        stuck.wait(30)  # ignores `aborted`, like a library call that does not return
        return DeviceResult("stuck", "eos")

    job = Job(name="stuck", platform="eos", run=never, abort=lambda: None, timeout=0.2)
    monkeypatch.setattr(pool, "GRACE", 0.2)
    try:
        results = run_jobs([job], workers=1)
    finally:
        stuck.set()
    assert results["stuck"].status == "timeout"
    assert "did not close" in (results["stuck"].reason or "")


def test_a_crashing_job_becomes_a_failed_device() -> None:
    def boom(aborted: threading.Event) -> DeviceResult:
        raise RuntimeError("password=hunter2")

    job = Job(name="x", platform="eos", run=boom, abort=lambda: None, timeout=5)
    result = run_jobs([job], workers=1)["x"]
    assert result.status == "command-failed" and "hunter2" not in (result.reason or "")


def _tracked(name: str, endpoint: str, live: dict[str, int], peak: dict[str, int]) -> Job:
    """A 50 ms job that records how many jobs of its endpoint run at once."""
    lock = threading.Lock()

    def run(aborted: threading.Event) -> DeviceResult:
        with lock:
            live[endpoint] = live.get(endpoint, 0) + 1
            peak[endpoint] = max(peak.get(endpoint, 0), live[endpoint])
        aborted.wait(0.05)
        with lock:
            live[endpoint] -= 1
        return DeviceResult(name, "eos")

    return Job(name, "eos", run, abort=lambda: None, timeout=10.0, endpoint=endpoint)


def test_one_endpoint_gets_one_session_at_a_time_while_others_run() -> None:
    live: dict[str, int] = {}
    peak: dict[str, int] = {}
    same = [_tracked(f"alias{i}", "10.0.0.1:22", live, peak) for i in range(4)]
    others = [_tracked(f"d{i}", f"10.0.0.{i + 2}:22", live, peak) for i in range(6)]
    order: list[str] = []
    results = run_jobs(
        [*same, *others],
        workers=4,
        listener=lambda e, n, r: order.append(n) if e == "start" else None,
    )
    assert all(r.status == "ok" for r in results.values()) and len(results) == 10
    assert peak["10.0.0.1:22"] == 1
    # the blocked aliases did not hold workers: the other devices started before them
    assert order.index("d0") < order.index("alias1")


def test_the_endpoint_limit_can_be_raised() -> None:
    live: dict[str, int] = {}
    peak: dict[str, int] = {}
    jobs = [_tracked(f"alias{i}", "10.0.0.1:22", live, peak) for i in range(6)]
    run_jobs(jobs, workers=6, per_endpoint=3)
    assert peak["10.0.0.1:22"] == 3


def test_a_hung_job_given_up_frees_its_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    from fabriclint.collectors import pool

    stuck = threading.Event()

    def never(aborted: threading.Event) -> DeviceResult:
        stuck.wait(30)
        return DeviceResult("stuck", "eos")

    hung = Job("stuck", "eos", never, abort=lambda: None, timeout=0.2, endpoint="10.0.0.1:22")
    live: dict[str, int] = {}
    after = _tracked("alias", "10.0.0.1:22", live, {})
    monkeypatch.setattr(pool, "GRACE", 0.2)
    try:
        results = run_jobs([hung, after], workers=2)
    finally:
        stuck.set()
    assert results["stuck"].status == "timeout" and results["alias"].status == "ok"
