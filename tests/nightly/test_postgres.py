"""The same nights on a real PostgreSQL server (started by the `postgres_url` fixture): the same
schema by the same migrations, the same counts, rollback, and the advisory lock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, text

from fabriclint.history.schema import metadata
from fabriclint.history.store import HistoryBusy, history_url, open_store
from fabriclint.nightly import report
from fabriclint.nightly.run import NightlyOptions, run_nightly
from tests.nightly.conftest import nightly


@pytest.fixture
def pg(postgres_url: str) -> str:
    """An empty history database on the session's server."""
    engine = create_engine(history_url(Path("."), postgres_url), isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text("DROP DATABASE IF EXISTS nightly"))
        conn.execute(text("CREATE DATABASE nightly"))
    engine.dispose()
    return postgres_url.replace("/postgres?", "/nightly?")


def _counts(url: str) -> dict[str, Any]:
    engine = create_engine(history_url(Path("."), url))
    with engine.connect() as conn:
        out = {
            table: conn.execute(text(f"SELECT count(*) FROM {table}")).scalar()
            for table in ("runs", "run_devices", "findings", "run_findings")
        }
    engine.dispose()
    return out


def test_nights_on_postgresql(fabric: Path, pg: str) -> None:
    summaries = []
    for snap in ("baseline", "broken", "baseline"):
        code, doc, err = nightly(fabric, "--snapshot", snap, "--history", pg)
        assert code in (0, 1), err
        summaries.append({k: doc["summary"][k] for k in ("new", "persisting", "resolved", "open")})
    n = summaries[1]["new"]
    assert n > 0
    assert summaries == [
        {"new": 0, "persisting": 0, "resolved": 0, "open": 0},
        {"new": n, "persisting": 0, "resolved": 0, "open": n},
        {"new": 0, "persisting": 0, "resolved": n, "open": 0},
    ]
    assert not (fabric / ".fabriclint").exists()  # nothing went to the default SQLite file
    assert _counts(pg) == {"runs": 3, "run_devices": 30, "findings": n, "run_findings": 2 * n}


def test_postgresql_schema_matches(pg: str) -> None:
    store = open_store(history_url(Path("."), pg))
    found = inspect(store.engine)
    for table in metadata.sorted_tables:
        assert [c["name"] for c in found.get_columns(table.name)] == [c.name for c in table.columns]
    store.dispose()


def test_postgresql_rolls_back_and_locks(
    fabric: Path, pg: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    nightly(fabric, "--snapshot", "baseline", "--history", pg)
    before = _counts(pg)

    def boom(target: Path, doc: dict[str, Any], staged: object) -> None:
        raise RuntimeError("killed while writing the reports")

    monkeypatch.setattr(report, "write_reports", boom)
    with pytest.raises(RuntimeError):
        run_nightly(NightlyOptions(fabric_dir=fabric, snapshot="broken", history=pg))
    assert _counts(pg) == before
    monkeypatch.undo()
    store = open_store(history_url(fabric, pg), 5)
    with store.transaction(), pytest.raises(HistoryBusy):
        run_nightly(
            NightlyOptions(fabric_dir=fabric, snapshot="broken", history=pg, lock_timeout=0.3)
        )
    store.dispose()
    assert _counts(pg) == before


def test_password_never_shown(fabric: Path, postgres_url: str) -> None:
    bad = "postgresql://postgres:hunter2@127.0.0.1:1/postgres"
    code, _, err = nightly(
        fabric, "--snapshot", "baseline", "--history", bad, "--lock-timeout", "1"
    )
    assert code == 2 and "hunter2" not in err and "127.0.0.1" in err
