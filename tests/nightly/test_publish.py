"""Publishing a night is all or nothing: when a rename fails half-way, the files already
renamed are put back (the previous report, `latest` and metrics kept), and the history rolls
back. A night killed outright between staging and publishing leaves staging files the next
night removes, and says so, but never those of a run that is alive right now."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fabriclint.nightly import delivery
from tests.nightly.conftest import ROOT, nightly
from tests.nightly.test_delivery import NOTHING, _dump, _first_night, _next_night_is_new, _temporary


def _contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("failing", ["report.md", "index.html"])
def test_a_failed_rename_puts_back_the_report_dir(
    fabric: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    report = tmp_path / "report"
    prom = tmp_path / "textfile" / "fabriclint.prom"
    args = ("--report-dir", str(report), "--metrics", str(prom))
    before = _first_night(fabric, *args)
    night1, metrics1 = _contents(report), prom.read_bytes()
    assert set(night1) == {"report.json", "report.md", "index.html"}
    replace = os.replace

    def refuse(src: str | Path, dst: str | Path) -> None:
        if Path(dst).name == failing and Path(src).name.startswith(f".{failing}."):
            raise OSError(5, "Input/output error")
        replace(src, dst)

    monkeypatch.setattr(os, "replace", refuse)
    code, doc, err = nightly(fabric, "--snapshot", "broken", *args)
    monkeypatch.undo()
    assert code == 3 and doc["run"]["id"] == 2  # shown on stdout before the files are renamed
    assert err.splitlines() == [
        f"error: {report / failing}: cannot write: Input/output error; {NOTHING}"
    ]
    assert _contents(report) == night1  # report.json was renamed, and put back
    assert prom.read_bytes() == metrics1
    assert _dump(fabric) == before
    assert not _temporary(report, prom.parent, fabric / "reports")
    _next_night_is_new(fabric, *args)
    assert _contents(report) != night1


def test_a_failed_last_rename_puts_back_latest_and_removes_the_night(
    fabric: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`latest` (renamed before the metrics) points at night 1 again; night 2's folder goes."""
    prom = tmp_path / "textfile" / "fabriclint.prom"
    before = _first_night(fabric, "--metrics", str(prom))
    reports = fabric / "reports"
    latest, metrics1 = os.readlink(reports / "latest"), prom.read_bytes()
    replace = os.replace

    def refuse(src: str | Path, dst: str | Path) -> None:
        if Path(dst) == prom:
            raise OSError(28, "No space left on device")
        replace(src, dst)

    monkeypatch.setattr(os, "replace", refuse)
    code, _, err = nightly(fabric, "--snapshot", "broken", "--metrics", str(prom))
    monkeypatch.undo()
    assert code == 3
    assert err.splitlines() == [f"error: {prom}: cannot write: No space left on device; {NOTHING}"]
    assert os.readlink(reports / "latest") == latest
    assert sorted(p.name for p in reports.iterdir()) == [latest, "latest"]
    assert prom.read_bytes() == metrics1 and _dump(fabric) == before
    assert not _temporary(reports, prom.parent)
    _next_night_is_new(fabric, "--metrics", str(prom))


_BLOCKED = """
import sys, time
from pathlib import Path
from fabriclint.nightly.run import NightlyOptions, run_nightly

def deliver(doc, where):
    Path(sys.argv[3]).write_text(str(where))
    time.sleep(600)

run_nightly(NightlyOptions(fabric_dir=Path(sys.argv[1]), snapshot="broken",
                           metrics=Path(sys.argv[2]), deliver=deliver))
"""


def _staging_night(fabric: Path, prom: Path, marker: Path) -> subprocess.Popen[bytes]:
    """A nightly stopped between staging its files and publishing them (in its deliver step)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _BLOCKED, str(fabric), str(prom), str(marker)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline
        time.sleep(0.2)
    return proc


def test_a_killed_nights_staging_files_are_swept_but_never_a_live_ones(
    fabric: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prom = tmp_path / "textfile" / "fabriclint.prom"
    _first_night(fabric, "--metrics", str(prom))
    reports = fabric / "reports"
    marker = tmp_path / "staged"
    proc = _staging_night(fabric, prom, marker)
    try:
        folder = Path(marker.read_text())
        staged = sorted(_temporary(reports, prom.parent))
        assert {p.name.split(".")[1] for p in staged} >= {"report", "index", "latest", "fabriclint"}
        monkeypatch.setattr(delivery, "GRACE", 0.0)  # old enough: only their lock keeps them
        # another nightly running now (its own history, the same folders): the live run's
        # staging files are left alone
        other = tmp_path / "other.sqlite"
        code, _, err = nightly(
            fabric, "-s", "broken", "--history", str(other), "--metrics", str(prom)
        )
        assert code == 1, err
        assert "stale" not in err
        assert all(p.exists() or p.is_symlink() for p in staged)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert all(p.exists() or p.is_symlink() for p in staged)  # SIGKILL: nothing cleaned up
    code, doc, err = nightly(fabric, "-s", "broken", "--metrics", str(prom))
    assert code == 1, err
    assert doc["run"]["id"] == 2 and doc["summary"]["new"] == doc["summary"]["open"] > 0
    removed = sorted(line for line in err.splitlines() if "killed night" in line)
    assert len(removed) == len(staged) + 1, err  # and the folder the killed night made
    assert f"nightly: removed a stale empty report folder a killed night left: {folder}" in removed
    assert not folder.exists()
    assert not _temporary(reports, prom.parent)
    assert os.readlink(reports / "latest").endswith("-run2")


def test_a_fresh_staging_file_is_left_alone(fabric: Path, tmp_path: Path) -> None:
    """Younger than GRACE: kept even when no lock says its run is alive (the instant between
    creating a file and locking it)."""
    _first_night(fabric)
    stray = fabric / "reports" / ".latest.12345678.tmp"
    stray.symlink_to("20000101T000000Z-run9")
    code, _, err = nightly(fabric, "-s", "broken")
    assert code == 1 and "stale" not in err
    assert stray.is_symlink()


def test_a_stale_file_that_cannot_be_removed_never_fails_the_night(
    fabric: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = tmp_path / "report"
    report.mkdir()
    stale = report / ".report.json.abcd1234.tmp"
    stale.write_text("{half")
    unlink = Path.unlink

    def refuse(self: Path, missing_ok: bool = False) -> None:
        if self == stale:
            raise PermissionError(13, "Permission denied", str(self))
        unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(delivery, "GRACE", 0.0)
    monkeypatch.setattr(Path, "unlink", refuse)
    code, doc, err = nightly(fabric, "-s", "baseline", "--report-dir", str(report))
    monkeypatch.undo()
    assert code == 0, err
    assert doc["run"]["id"] == 1 and (report / "report.json").is_file()
    assert stale.read_text() == "{half" and "stale" not in err


def test_the_sweep_never_removes_a_users_folder(tmp_path: Path) -> None:
    """A folder the user made for the metrics (beside the run folders, under reports/) is not
    a run folder a killed night made: emptied of a killed night's staging file, it is kept
    (removed, a night that then failed would leave the user without it; recreated, it would
    lose its mode and owner)."""
    reports = tmp_path / "reports"
    run = reports / "20261201T020000Z-run3"
    textfile = reports / "textfile"
    for folder in (run, textfile):
        folder.mkdir(parents=True)
    stale = [run / ".report.json.abcd1234.tmp", textfile / ".fabriclint.prom.abcd1234.tmp"]
    for path in stale:
        path.write_text("half")
        os.utime(path, (time.time() - 3600,) * 2)
    folders = {
        reports: {"latest"},
        run: set(delivery.REPORT_FILES),
        textfile: {"fabriclint.prom"},
    }
    old = delivery.GRACE
    try:
        delivery.GRACE = -1e9  # ctime cannot be set back: old enough whatever it says
        removed = delivery.sweep(folders, spare=reports / "20261202T020000Z-run4", made={run})
    finally:
        delivery.GRACE = old
    assert sorted(removed) == sorted([*stale, run])
    assert textfile.is_dir() and not run.exists()
