"""A collection killed outright (SIGKILL, the OOM killer, a power cut) leaves its hidden
`.NAME.partial-XXXXXXXX` folder in FABRIC/snapshots: the next collection (and a nightly that
collects) removes it and says so, while the folder of a collection running at the same time,
which holds a lock on it, is kept, and so is whatever only looks like one (another name, a
link, a file, a folder outside FABRIC/snapshots).

The killed and the concurrent collections are real `fabriclint collect` processes against
the project's lab on 127.0.0.1; the collection that sweeps runs here, with the grace period
(leftovers.GRACE: a minute) set to 0 so that only the locks tell the folders apart.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint import leftovers
from fabriclint.cli.app import app
from fabriclint.collectors.store import PARTIAL, sweep_partials
from fabriclint.snapshot import load_snapshot
from tests.collectors.labkit import ROCE_POD, ROOT, cli_app, lab_for, write_overlay

WAIT = 60.0
APP = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); "
    "from tests.collectors.labkit import cli_app; cli_app()()"
)
REMOVED = "collect: removed a stale partial snapshot folder a killed collection left: "


def _fabric(tmp: Path) -> Path:
    fabric = tmp / "pod"
    shutil.copytree(ROCE_POD, fabric, ignore=shutil.ignore_patterns("snapshots"))
    (fabric / "snapshots").mkdir()
    return fabric


def _wait_for(condition: object, what: str) -> None:
    end = time.monotonic() + WAIT
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.05)


def _partials(fabric: Path) -> list[Path]:
    return sorted(p for p in (fabric / "snapshots").iterdir() if PARTIAL.fullmatch(p.name))


def _visible(fabric: Path) -> list[Path]:
    return sorted(p for p in (fabric / "snapshots").iterdir() if not p.name.startswith("."))


class _Collection:
    """`fabriclint collect FABRIC` in a subprocess against the lab, its stderr read aside."""

    def __init__(self, fabric: Path, overlay: Path, env: dict[str, str], workers: int) -> None:
        args = [sys.executable, "-c", APP, str(ROOT), "collect", str(fabric)]
        args += ["--overlay", str(overlay), "--workers", str(workers)]
        self.proc = subprocess.Popen(
            args, stderr=subprocess.PIPE, text=True, env={**os.environ, **env}
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(
            target=lambda: self.lines.extend(self.proc.stderr or []), daemon=True
        )
        self._reader.start()

    def wait_for_a_device(self) -> None:
        _wait_for(lambda: any(": ok (" in line for line in list(self.lines)), "a device")

    def finish(self) -> tuple[int, str]:
        try:
            code = self.proc.wait(timeout=WAIT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        self._reader.join(timeout=WAIT)
        return code, "".join(self.lines)


def _collect_here(
    fabric: Path, overlay: Path, monkeypatch: pytest.MonkeyPatch, *extra: str
) -> tuple[int, str]:
    """The next collection, in this process, with no grace period: only locks keep folders."""
    monkeypatch.setattr(leftovers, "GRACE", 0.0)
    result = CliRunner().invoke(
        cli_app(), ["collect", str(fabric), "--overlay", str(overlay), *extra]
    )
    return result.exit_code, result.output


def test_a_killed_collections_folder_is_removed_by_the_next_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fabric = _fabric(tmp_path)
    with lab_for(ROCE_POD / "snapshots" / "baseline", ["*=latency:0.3"]) as lab:
        overlay = write_overlay(lab, tmp_path)
        killed = _Collection(fabric, overlay, lab.env(), workers=2)
        killed.wait_for_a_device()
        killed.proc.send_signal(signal.SIGKILL)
        code, _ = killed.finish()
        assert code == -signal.SIGKILL
        left = _partials(fabric)
        assert len(left) == 1 and any(left[0].iterdir())  # the killed run's, with a device
        for name, value in lab.env().items():
            monkeypatch.setenv(name, value)
        code, output = _collect_here(fabric, overlay, monkeypatch, "--limit", "leaf01")
    assert code == 0, output[-2000:]
    assert f"{REMOVED}{left[0]}\n" in output
    assert output.count(REMOVED) == 1
    assert not os.path.lexists(left[0])
    assert _partials(fabric) == []
    (snapshot,) = _visible(fabric)  # the new snapshot (the killed run's name lock is kept)
    assert list(load_snapshot(snapshot).devices) == ["leaf01"]


def test_a_concurrent_collections_folder_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a collection runs, the next one removes a dead run's folder (no process holds
    it) and keeps the running one's, which then finishes its snapshot whole."""
    fabric = _fabric(tmp_path)
    dead = fabric / "snapshots" / ".2026-12-01T020000Z.partial-0badf00d"
    (dead / "leaf01").mkdir(parents=True)
    (dead / "leaf01" / "show_running-config.txt").write_text("hostname leaf01\n")
    with lab_for(ROCE_POD / "snapshots" / "baseline", ["*=latency:0.15"]) as lab:
        overlay = write_overlay(lab, tmp_path)
        running = _Collection(fabric, overlay, lab.env(), workers=1)  # ~20 s
        running.wait_for_a_device()
        live = [p for p in _partials(fabric) if p != dead]
        assert len(live) == 1
        for name, value in lab.env().items():
            monkeypatch.setenv(name, value)
        code, output = _collect_here(fabric, overlay, monkeypatch, "--limit", "leaf01")
        assert live[0].is_dir(), "the running collection's folder was removed"
        assert running.proc.poll() is None  # still collecting when the sweep ran
        other, stderr = running.finish()
    assert code == 0, output[-2000:]
    assert f"{REMOVED}{dead}\n" in output and output.count(REMOVED) == 1
    assert other == 0, stderr[-2000:]
    assert "removed a stale" not in stderr  # the sweep's own folder was locked too
    assert not os.path.lexists(dead) and _partials(fabric) == []
    assert sorted(len(load_snapshot(p).devices) for p in _visible(fabric)) == [1, 10]


def test_what_only_looks_like_a_partial_folder_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """By name pattern only, inside FABRIC/snapshots, never through a link: the one real
    dead folder goes, the rest stays byte for byte."""
    fabric = _fabric(tmp_path)
    snapshots = fabric / "snapshots"
    outside = tmp_path / "precious"
    outside.mkdir()
    (outside / "keep.txt").write_text("not fabriclint's\n")
    dead = snapshots / ".monday.partial-0badf00d"
    lookalikes = [
        snapshots / ".monday.partial-0BADF00D",  # not the hex digits a run makes
        snapshots / ".monday.partial-0badf00",  # seven
        snapshots / ".monday.partial-0badf00d0",  # nine
        snapshots / "monday.partial-0badf00d",  # not hidden
        snapshots / "..partial-0badf00d",  # no name
        snapshots / ".monday.partial-0badf00d.bak",
        snapshots / ".monday.tmp-0badf00d",
        fabric / ".monday.partial-0badf00d",  # not in FABRIC/snapshots
        tmp_path / ".monday.partial-0badf00d",  # beside the fabric
    ]
    for folder in [dead, *lookalikes]:
        (folder / "leaf01").mkdir(parents=True)
        (folder / "leaf01" / "x.txt").write_text("x\n")
    linked = snapshots / ".tuesday.partial-cafebabe"  # a link named like ours, to a folder
    linked.symlink_to(outside, target_is_directory=True)
    dangling = snapshots / ".wednesday.partial-cafebabe"
    dangling.symlink_to(tmp_path / "nowhere")
    a_file = snapshots / ".thursday.partial-feedface"
    a_file.write_text("a file, not a folder\n")
    with lab_for(ROCE_POD / "snapshots" / "baseline") as lab:
        overlay = write_overlay(lab, tmp_path)
        for name, value in lab.env().items():
            monkeypatch.setenv(name, value)
        code, output = _collect_here(fabric, overlay, monkeypatch, "--limit", "leaf01")
    assert code == 0, output[-2000:]
    assert [line for line in output.splitlines() if "removed" in line] == [f"{REMOVED}{dead}"]
    assert not os.path.lexists(dead)
    for folder in lookalikes:
        assert (folder / "leaf01" / "x.txt").read_text() == "x\n", folder
    assert linked.is_symlink() and (outside / "keep.txt").read_text() == "not fabriclint's\n"
    assert dangling.is_symlink()
    assert a_file.read_text() == "a file, not a folder\n"


def test_a_link_named_snapshots_is_not_swept_by_a_run_writing_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FABRIC/snapshots a link (a PR's fabric folder pointing elsewhere) and the snapshot
    going to --out: the link is not followed; a run writing into it follows it anyway."""
    fabric = _fabric(tmp_path)
    (fabric / "snapshots").rmdir()
    elsewhere = tmp_path / "elsewhere"
    dead = elsewhere / ".monday.partial-0badf00d"
    dead.mkdir(parents=True)
    (fabric / "snapshots").symlink_to(elsewhere, target_is_directory=True)
    with lab_for(ROCE_POD / "snapshots" / "baseline") as lab:
        overlay = write_overlay(lab, tmp_path)
        for name, value in lab.env().items():
            monkeypatch.setenv(name, value)
        out = ["--out", str(tmp_path / "snap"), "--limit", "leaf01"]
        code, output = _collect_here(fabric, overlay, monkeypatch, *out)
        assert code == 0, output[-2000:]
        assert dead.is_dir() and "removed" not in output
        code, output = _collect_here(fabric, overlay, monkeypatch, "--limit", "leaf01")
    assert code == 0, output[-2000:]
    assert f"{REMOVED}{fabric / 'snapshots' / dead.name}\n" in output
    assert not os.path.lexists(dead)


def test_a_dead_folder_younger_than_the_grace_period_is_kept(tmp_path: Path) -> None:
    """The instant between a run making its folder and locking it: a minute's grace."""
    young = tmp_path / ".monday.partial-0badf00d"
    young.mkdir()
    assert sweep_partials(tmp_path) == []
    assert young.is_dir()


def test_a_night_that_collects_removes_a_killed_collections_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`fabriclint nightly` without --snapshot collects as `collect` does: it sweeps too."""
    fabric = _fabric(tmp_path)
    dead = fabric / "snapshots" / ".2026-12-01T020000Z.partial-0badf00d"
    dead.mkdir()
    monkeypatch.setattr(leftovers, "GRACE", 0.0)
    with lab_for(ROCE_POD / "snapshots" / "baseline") as lab:
        for name, value in lab.env().items():
            monkeypatch.setenv(name, value)
        overlay = write_overlay(lab, tmp_path)
        result = CliRunner().invoke(app, ["nightly", str(fabric), "--overlay", str(overlay)])
    assert result.exit_code == 0, result.output[-2000:]
    assert f"{REMOVED}{dead}\n" in result.output
    assert not os.path.lexists(dead)
