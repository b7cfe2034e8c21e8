"""A night that cannot be delivered is not recorded: a report, `latest` or the metrics that
cannot be written, a closed stdout or a refused commit is exit 3 with one located line, leaves
no temporary file or half-written report, and the next night still reports its findings as
new. Compressing old snapshots comes after the commit: its failure is exit 3, retried."""

from __future__ import annotations

import errno
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine.base import Connection
from sqlalchemy.exc import OperationalError

from fabriclint.nightly.run import NightlyOptions, NotRecorded, run_nightly
from tests.nightly.conftest import nightly

NOTHING = "nothing recorded: the next night compares with the last night recorded"


def _dump(fabric: Path) -> dict[str, list[Any]]:
    """Every row of every history table."""
    with sqlite3.connect(fabric / ".fabriclint" / "history.sqlite") as conn:
        return {
            table: sorted(conn.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
            for table in ("runs", "run_devices", "findings", "run_findings")
        }


def _temporary(*folders: Path) -> list[Path]:
    """Files or folders a staging step leaves behind (dot-named temporaries)."""
    return [p for f in folders if f.exists() for p in f.rglob(".*") if p.name != ".fabriclint"]


def _first_night(fabric: Path, *args: str) -> dict[str, list[Any]]:
    code, _, _ = nightly(fabric, "--snapshot", "baseline", *args)
    assert code == 0
    return _dump(fabric)


def _next_night_is_new(fabric: Path, *args: str) -> dict[str, Any]:
    """The night after a failed one: run 2, compared with run 1, every broken finding new."""
    code, doc, err = nightly(fabric, "--snapshot", "broken", *args)
    assert code == 1, err
    assert doc["run"]["id"] == 2 and doc["run"]["previous_run"] == 1
    assert doc["summary"]["new"] == doc["summary"]["open"] > 0
    assert doc["summary"]["persisting"] == 0
    return doc


def test_latest_that_is_a_folder_records_nothing(fabric: Path) -> None:
    before = _first_night(fabric)
    reports = fabric / "reports"
    (reports / "latest").unlink()
    (reports / "latest").mkdir()
    (reports / "latest" / "notes.txt").write_text("someone's folder\n")
    code, doc, err = nightly(fabric, "--snapshot", "broken")
    assert code == 3 and doc == {}
    (line,) = err.splitlines()
    shown = re.escape(f"error: {reports / 'latest'}: cannot point it at ")
    assert re.fullmatch(f"{shown}\\d{{8}}T\\d{{6}}Z-run2: a folder is there; {NOTHING}", line)
    assert _dump(fabric) == before
    assert [p.name for p in reports.iterdir() if not p.name.endswith("run1")] == ["latest"]
    assert not _temporary(reports)
    (reports / "latest" / "notes.txt").unlink()
    (reports / "latest").rmdir()
    _next_night_is_new(fabric)


@pytest.mark.parametrize("failing", ["report.json", "index.html", "fabriclint.prom"])
def test_a_full_disk_while_writing_records_nothing(
    fabric: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    prom = tmp_path / "textfile" / "fabriclint.prom"
    before = _first_night(fabric, "--metrics", str(prom))
    night1_metrics = prom.read_text()
    latest = os.readlink(fabric / "reports" / "latest")
    fsync = os.fsync

    def full(fd: int) -> None:
        if os.readlink(f"/proc/self/fd/{fd}").split("/")[-1].startswith(f".{failing}."):
            raise OSError(errno.ENOSPC, "No space left on device")
        fsync(fd)

    monkeypatch.setattr(os, "fsync", full)
    code, doc, err = nightly(fabric, "--snapshot", "broken", "--metrics", str(prom))
    monkeypatch.undo()
    assert code == 3 and doc == {}
    (line,) = err.splitlines()
    assert line.startswith("error: ") and line.endswith(
        f"{failing}: cannot write: No space left on device; {NOTHING}"
    )
    assert _dump(fabric) == before
    assert os.readlink(fabric / "reports" / "latest") == latest
    assert prom.read_text() == night1_metrics
    assert sorted(p.name for p in (fabric / "reports").iterdir()) == [latest, "latest"]
    assert not _temporary(fabric / "reports", prom.parent)
    doc = _next_night_is_new(fabric, "--metrics", str(prom))
    errors = doc["summary"]["new_by_severity"]["error"]
    assert f'fabriclint_nightly_new_findings{{severity="error"}} {errors}\n' in prom.read_text()


def test_a_report_dir_that_is_a_file_records_nothing(fabric: Path, tmp_path: Path) -> None:
    before = _first_night(fabric)
    plain = tmp_path / "plain"
    plain.write_text("not a folder\n")
    code, doc, err = nightly(fabric, "--snapshot", "broken", "--report-dir", str(plain))
    assert code == 3 and doc == {}
    assert err.splitlines() == [
        f"error: {plain / 'report.json'}: cannot write: Not a directory; {NOTHING}"
    ]
    assert _dump(fabric) == before and plain.read_text() == "not a folder\n"


def test_a_closed_stdout_records_nothing(fabric: Path) -> None:
    before = _first_night(fabric)
    command = [sys.executable, "-m", "fabriclint", "nightly", str(fabric), "-s", "broken"]
    done = subprocess.run(
        ["sh", "-c", '"$@" >&-', "sh", *command], capture_output=True, text=True, check=False
    )
    assert done.returncode == 3
    assert "cannot write the report to stdout" in done.stderr
    assert "Traceback" not in done.stderr
    assert _dump(fabric) == before
    assert len(list((fabric / "reports").iterdir())) == 2  # night 1 and latest
    assert not _temporary(fabric / "reports")
    _next_night_is_new(fabric)


@pytest.mark.parametrize("words", ["disk I/O error", "database or disk is full"])
def test_a_full_disk_under_the_history_is_incomplete_not_a_usage_error(
    fabric: Path, monkeypatch: pytest.MonkeyPatch, words: str
) -> None:
    """sqlite refusing the night's rows for want of disk (seen with `ulimit -f 20` on the
    example: `disk I/O error`) was exit 2, the code of a user's mistake; it is exit 3 with
    nothing recorded, and the next night reports its findings as new."""
    before = _first_night(fabric)
    execute = Connection.execute

    def full(self: Connection, statement: Any, *args: Any, **kwargs: Any) -> Any:
        if "INSERT" in str(statement).upper():
            raise OperationalError("INSERT", {}, Exception(words))
        return execute(self, statement, *args, **kwargs)

    monkeypatch.setattr(Connection, "execute", full)
    code, doc, err = nightly(fabric, "--snapshot", "broken")
    monkeypatch.undo()
    assert code == 3 and doc == {}, err
    assert err.strip().endswith(f"history.sqlite: {words}; nothing recorded"), err
    assert _dump(fabric) == before
    _next_night_is_new(fabric)


def test_a_refused_commit_after_the_reports_went_out(
    fabric: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files are out but the history did not take the night: the next night announces
    its findings again (twice rather than never)."""
    before = _first_night(fabric)

    def refuse(self: Connection) -> None:
        raise OperationalError("COMMIT", {}, Exception("disk I/O error"))

    def deliver(doc: dict[str, Any], where: Path) -> None:
        monkeypatch.setattr(Connection, "_commit_impl", refuse)

    opts = NightlyOptions(fabric_dir=fabric, snapshot="broken", deliver=deliver)
    with pytest.raises(NotRecorded, match=f"disk I/O error; the reports went out but {NOTHING}"):
        run_nightly(opts)
    monkeypatch.undo()
    assert _dump(fabric) == before
    _next_night_is_new(fabric)


def test_compression_failing_after_the_commit_is_exit_3_and_retried(
    fabric: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshots = fabric / "snapshots"
    for night in (1, 2, 3):
        shutil.copytree(snapshots / "baseline", snapshots / f"night{night}")
    for n in (1, 2):
        assert nightly(fabric, "--snapshot", f"night{n}", "--keep-nights", "2")[0] == 0

    def full(self: tarfile.TarFile, *args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(tarfile.TarFile, "add", full)
    code, doc, err = nightly(fabric, "--snapshot", "night3", "--keep-nights", "2")
    monkeypatch.undo()
    assert code == 3 and doc["run"]["id"] == 3  # recorded, and said so on stdout
    assert err.splitlines() == [
        f"error: {(snapshots / 'night1').resolve()}: cannot compress the old snapshot: "
        "No space left on device"
    ]
    assert (snapshots / "night1" / "manifest.json").is_file()
    assert not (snapshots / "night1.tar.gz").exists() and not _temporary(snapshots)
    assert len(_dump(fabric)["runs"]) == 3
    code, _, err = nightly(fabric, "--snapshot", "night3", "--keep-nights", "2")
    assert code == 0 and "compressed an old snapshot into" in err
    assert not (snapshots / "night1").exists() and not _temporary(snapshots)
    with tarfile.open(snapshots / "night1.tar.gz") as tar:
        assert "night1/manifest.json" in tar.getnames()
