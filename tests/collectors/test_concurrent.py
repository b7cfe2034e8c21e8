"""Two `collect` runs at once: they never write the same snapshot name, and nothing is lost."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from fabriclint.collectors import run as run_module
from fabriclint.collectors.run import CollectOptions, CollectResult, CollectUsageError, collect
from fabriclint.snapshot import load_snapshot
from tests.collectors.labkit import FAST, copy_fabric, lab_for, write_overlay

SAME_SECOND = "2026-12-01T120000Z"


def _options(lab_overlay: Path, env: dict[str, str], out: Path | None) -> CollectOptions:
    return CollectOptions(out=out, overlay=lab_overlay, env=env, timeouts=FAST, workers=4)


def _both(fabric: Path, options: list[CollectOptions]) -> list[CollectResult | Exception]:
    """Run collect() for each options at the same time; results (or errors) in order."""
    results: list[CollectResult | Exception] = [Exception("not run")] * len(options)

    def one(index: int) -> None:
        try:
            results[index] = collect(fabric, options[index])
        except Exception as exc:  # the assertion below says which
            results[index] = exc

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(options))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


def test_two_runs_in_the_same_second_both_keep_their_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fabric = copy_fabric(tmp_path, "baseline")
    monkeypatch.setattr(run_module, "default_name", lambda now=None: SAME_SECOND)
    with lab_for(fabric / "snapshots" / "baseline", ["*=latency:0.2"]) as lab:
        overlay = write_overlay(lab, tmp_path)
        results = _both(fabric, [_options(overlay, lab.env(), None) for _ in range(2)])
    assert all(isinstance(r, CollectResult) and r.complete for r in results), results
    names = sorted(p.name for p in (fabric / "snapshots").iterdir())
    assert names == sorted(["baseline", SAME_SECOND, f"{SAME_SECOND}-2"])
    for name in (SAME_SECOND, f"{SAME_SECOND}-2"):
        snap = load_snapshot(fabric / "snapshots" / name)
        assert len(snap.devices) == 10 and all(d.status == "ok" for d in snap.devices.values())


def test_a_second_run_to_the_same_out_fails_before_contacting_any_device(tmp_path: Path) -> None:
    fabric = copy_fabric(tmp_path, "baseline")
    out = tmp_path / "live"
    with lab_for(fabric / "snapshots" / "baseline", ["*=latency:0.2"]) as lab:
        overlay = write_overlay(lab, tmp_path)
        results = _both(fabric, [_options(overlay, lab.env(), out) for _ in range(2)])
        connections = sum(s.connections for s in lab.stats.values())
    done = [r for r in results if isinstance(r, CollectResult)]
    refused = [r for r in results if isinstance(r, CollectUsageError)]
    assert len(done) == 1 and len(refused) == 1, results
    assert "being collected by another fabriclint run" in str(refused[0])
    assert connections == 10  # one run's worth: the refused one contacted nothing
    assert load_snapshot(out).devices.keys() == done[0].devices.keys()
