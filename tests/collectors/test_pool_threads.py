"""Worker threads are kept between devices; devices start longest plan first."""

from __future__ import annotations

import threading

import pytest

from fabriclint.collectors.base import DeviceResult, Target
from fabriclint.collectors.device import Settings
from fabriclint.collectors.pool import Job, run_jobs
from fabriclint.collectors.run import longest_first


def _recording_job(name: str, threads: list[int], work: float = 0.0) -> Job:
    def run(aborted: threading.Event) -> DeviceResult:
        threads.append(threading.get_ident())
        assert threading.current_thread().name == name  # named after the device it collects
        aborted.wait(work)
        return DeviceResult(name, "eos", "ok")

    return Job(name=name, platform="eos", run=run, abort=lambda: None, timeout=10.0)


@pytest.mark.parametrize(("workers", "jobs", "most_threads"), [(1, 12, 1), (3, 30, 6)])
def test_threads_are_reused_from_one_job_to_the_next(
    workers: int, jobs: int, most_threads: int
) -> None:
    threads: list[int] = []
    results = run_jobs([_recording_job(f"d{i}", threads, 0.01) for i in range(jobs)], workers)
    assert sorted(results) == sorted(f"d{i}" for i in range(jobs))
    assert len(threads) == jobs
    assert len(set(threads)) <= most_threads  # a thread per job before


def test_a_hung_job_keeps_its_thread_and_the_others_run_on_new_ones() -> None:
    release, returned = threading.Event(), threading.Event()
    threads: list[int] = []

    def hang(aborted: threading.Event) -> DeviceResult:
        release.wait(120)  # ignores the abort, as a stuck library call would
        returned.set()
        return DeviceResult("hung", "eos", "ok")

    hung = Job(name="hung", platform="eos", run=hang, abort=lambda: None, timeout=0.1)
    try:
        results = run_jobs([hung] + [_recording_job(f"d{i}", threads) for i in range(5)], 1)
        hung_when_done = not returned.is_set()
    finally:
        release.set()
    assert results["hung"].status == "timeout"
    assert all(results[f"d{i}"].status == "ok" for i in range(5))
    assert hung_when_done  # the run ended after the grace period, not after the hang


def _target(name: str, platform: str) -> Target:
    return Target(name=name, platform=platform, host="192.0.2.1", port=22, username="u")


def test_longest_plans_start_first_in_inventory_order_among_equals() -> None:
    targets = [
        _target("sw1", "eos"),
        _target("gpu1", "mlnx-host"),
        _target("sw2", "eos"),
        _target("spine1", "junos"),
        _target("gpu2", "mlnx-host"),
    ]
    ordered = [t.name for t in longest_first(targets, Settings())]
    # mlnx-host plans 10 commands, eos 6, junos 2
    assert ordered == ["gpu1", "gpu2", "sw1", "sw2", "spine1"]


def test_no_job_is_lost_when_idle_threads_end_as_jobs_are_handed_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("fabriclint.collectors.pool.IDLE", 0.0005)  # threads end all the time
    threads: list[int] = []
    jobs = [_recording_job(f"d{i}", threads, 0.001 * (i % 3)) for i in range(300)]
    results = run_jobs(jobs, workers=8)
    assert len(results) == 300
    # a lost hand-off never runs its job: it would be a timeout at the job's deadline
    assert all(r.status == "ok" for r in results.values())
    assert len(threads) == 300  # every job ran, once
