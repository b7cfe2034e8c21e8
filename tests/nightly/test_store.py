"""The history store: migrations match the schema, one night is one transaction (a failure
rolls it back), and overlapping runs serialize or refuse, never corrupt."""

from __future__ import annotations

import datetime as dt
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect, text
from sqlalchemy.engine import make_url

from fabriclint.history.schema import metadata
from fabriclint.history.store import HistoryBusy, _engine, history_url, open_store
from fabriclint.nightly import report
from fabriclint.nightly.run import NightlyOptions, run_nightly
from tests.nightly.conftest import nightly


def _dump(database: Path) -> dict[str, list[Any]]:
    """Every row of every history table."""
    with sqlite3.connect(database) as conn:
        return {
            table: sorted(conn.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
            for table in ("runs", "run_devices", "findings", "run_findings")
        }


def test_migrations_create_the_schema(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    found = inspect(store.engine)
    for table in metadata.sorted_tables:
        columns = {c["name"]: c for c in found.get_columns(table.name)}
        assert list(columns) == [c.name for c in table.columns], table.name
        for column in table.columns:
            assert columns[column.name]["nullable"] == column.nullable, (table.name, column.name)
    with store.transaction() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == "0002"
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
    open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")  # opening again migrates nothing


def test_a_failure_after_recording_started_rolls_the_night_back(
    fabric: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nightly(fabric, "--snapshot", "baseline")
    database = fabric / ".fabriclint" / "history.sqlite"
    before = _dump(database)

    def boom(target: Path, doc: dict[str, Any], staged: object) -> None:
        raise RuntimeError("killed while writing the reports")

    monkeypatch.setattr(report, "write_reports", boom)
    with pytest.raises(RuntimeError):
        run_nightly(NightlyOptions(fabric_dir=fabric, snapshot="broken"))
    assert _dump(database) == before
    monkeypatch.undo()
    code, doc, _ = nightly(fabric, "--snapshot", "broken")  # the next night is unaffected
    assert code == 1 and doc["run"]["id"] == 2 and doc["summary"]["new"] > 0


def test_a_killed_process_leaves_the_history_as_it_was(fabric: Path) -> None:
    nightly(fabric, "--snapshot", "baseline")
    database = fabric / ".fabriclint" / "history.sqlite"
    before = _dump(database)
    code = (
        "import os, signal\n"
        "from pathlib import Path\n"
        "from fabriclint.nightly import report\n"
        "from fabriclint.nightly.run import NightlyOptions, run_nightly\n"
        "report.write_reports = lambda *_: os.kill(os.getpid(), signal.SIGKILL)\n"
        f"run_nightly(NightlyOptions(fabric_dir=Path({str(fabric)!r}), snapshot='broken'))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
    assert done.returncode == -9
    assert _dump(database) == before
    with sqlite3.connect(database) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_a_second_run_waits_for_the_first(fabric: Path) -> None:
    store = open_store(history_url(fabric, None), 5)
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with store.transaction():
            held.set()  # the write lock is taken (BEGIN IMMEDIATE)
            release.wait(120)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        # a fixed sleep stood for "the holder has the lock": on a loaded machine the thread
        # had not begun yet and the first run took the lock itself
        assert held.wait(60), "the holder never took the write lock"
        started = time.monotonic()
        with pytest.raises(HistoryBusy, match="another fabriclint run is writing"):
            run_nightly(NightlyOptions(fabric_dir=fabric, snapshot="baseline", lock_timeout=0.5))
        assert time.monotonic() - started >= 0.5
        assert holder.is_alive()  # refused while the lock was still held
        threading.Timer(1.0, release.set).start()
        result = run_nightly(
            NightlyOptions(fabric_dir=fabric, snapshot="baseline", lock_timeout=60)
        )
    finally:
        release.set()
        holder.join()
    assert result.report["run"]["id"] == 1  # the refused run recorded nothing


def test_busy_history_is_exit_3_with_a_message(fabric: Path) -> None:
    store = open_store(history_url(fabric, None), 5)
    with store.transaction():
        code, _, err = nightly(fabric, "--snapshot", "baseline", "--lock-timeout", "0.2")
    assert code == 3 and "another fabriclint run is writing the history" in err


def test_overlapping_processes_serialize(fabric: Path) -> None:
    """Two nightly processes at once on one SQLite file: both recorded, one after the other."""
    command = [str(Path(sys.executable).parent / "fabriclint")]
    runs = [
        subprocess.Popen(
            [
                *command,
                "nightly",
                str(fabric),
                "--snapshot",
                snap,
                "--report-dir",
                str(fabric / f"r-{snap}"),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for snap in ("baseline", "broken")
    ]
    codes = [p.wait(120) for p in runs]
    assert codes == [0, 1], [p.stderr.read() for p in runs if p.stderr]
    database = fabric / ".fabriclint" / "history.sqlite"
    with sqlite3.connect(database) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        rows = conn.execute("SELECT snapshot, new, resolved FROM runs ORDER BY id").fetchall()
    assert sorted(r[0] for r in rows) == ["baseline", "broken"]
    first, second = rows
    broken_count = first[1] if first[0] == "broken" else second[1]
    assert broken_count > 0
    if first[0] == "baseline":  # the second saw the first's night
        assert second[1:] == (broken_count, 0)
    else:
        assert second[1:] == (0, broken_count)


def _open_at_once(path: Path, gate: Any, results: Any) -> None:
    """One of two processes opening a new history together (forked: no import in the race)."""
    gate.wait()
    try:
        engine = _engine(make_url(f"sqlite:///{path}"), 30)  # the connect hook, not migrations
        with engine.connect() as conn:
            conn.exec_driver_sql("CREATE TABLE IF NOT EXISTS night (id INTEGER)")
        engine.dispose()
        results.put("ok")
    except Exception as exc:  # the message is the assertion's evidence
        results.put(str(exc))


def test_two_first_nights_create_one_history() -> None:
    """Two runs starting on a history that does not exist yet both open it. Without the retry,
    sqlite refused one connection's switch to WAL at once ("database is locked", no busy wait)
    in 51 of 200 such races; twenty races pass by chance with a probability of ~0.3 %."""
    import multiprocessing
    import tempfile

    context = multiprocessing.get_context("fork")
    failures = []
    with tempfile.TemporaryDirectory() as folder:
        for attempt in range(20):
            path = Path(folder) / str(attempt) / "history.sqlite"
            gate, results = context.Barrier(2), context.Queue()
            workers = [
                context.Process(target=_open_at_once, args=(path, gate, results)) for _ in "ab"
            ]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join(60)
            failures += [r for r in (results.get(timeout=5), results.get(timeout=5)) if r != "ok"]
    assert failures == []


def test_fixed_clock_names_the_report_folder(fabric: Path) -> None:
    when = dt.datetime(2026, 12, 1, 2, 0, tzinfo=dt.UTC)
    result = run_nightly(NightlyOptions(fabric_dir=fabric, snapshot="baseline", now=when))
    assert result.report_dir == fabric / "reports" / "20261201T020000Z-run1"
    assert (fabric / "reports" / "latest").resolve() == result.report_dir.resolve()


def test_a_history_of_a_newer_schema_is_an_input_error_and_kept(fabric: Path) -> None:
    """A revision no migration here knows was alembic's CommandError: an internal error."""
    nightly(fabric, "--snapshot", "baseline")
    database = fabric / ".fabriclint" / "history.sqlite"
    with sqlite3.connect(database) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0099_from_the_future'")
    before = _dump(database)
    code, _, err = nightly(fabric, "--snapshot", "broken")
    assert code == 2 and "internal error" not in err
    assert "a history of a schema this fabriclint does not know" in err
    assert "'0099_from_the_future'" in err
    assert _dump(database) == before
