"""Open the history database, migrate it, and run one locked transaction at a time.

SQLite (the default, `FABRIC/.fabriclint/history.sqlite`) runs in WAL mode and every write
transaction starts with `BEGIN IMMEDIATE`, so a second nightly run that overlaps the first waits
for the write lock (sqlite's busy timeout) and then refuses with HistoryBusy; it never
interleaves. PostgreSQL takes a transaction-scoped advisory lock the same way. Either way one
night is one transaction: a run killed or failing before commit leaves the history as it was.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DatabaseError, OperationalError, SQLAlchemyError

DEFAULT_FILE = Path(".fabriclint") / "history.sqlite"
LOCK_KEY = 0x6661627269636C74  # "fabriclt": the advisory lock every fabriclint writer takes


class HistoryError(Exception):
    """The history cannot be opened or written (bad URL, unreachable server): exit 2."""


class HistoryBusy(HistoryError):
    """Another run held the history's write lock longer than the timeout: exit 3."""


class HistoryUnwritable(HistoryError):
    """The disk refused the night's write (full, an I/O error, a file-size limit): not the
    user's input but the run's result not kept, exit 3 with nothing recorded."""

    def __init__(self, what: str) -> None:
        super().__init__(f"{what}; nothing recorded")
        self.what = what
        """What the disk refused, without the `nothing recorded` a caller may say its own way."""


_DISK_ERRORS = ("disk I/O error", "database or disk is full")
"""sqlite's words for SQLITE_IOERR and SQLITE_FULL."""


@dataclass
class Store:
    """An engine on the history database and how long a writer waits for the lock."""

    engine: Engine
    timeout: float
    shown: str
    """The URL with any password hidden: the only form that reaches messages."""

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One locked write transaction; committed when the block ends, rolled back if not."""
        started = time.monotonic()
        try:
            with self.engine.connect() as conn, conn.begin():
                if self.engine.dialect.name == "postgresql":
                    self._advisory_lock(conn, started)
                yield conn
        except OperationalError as exc:
            if "locked" in str(exc.orig) or "busy" in str(exc.orig):
                raise self._busy(started) from None
            if any(words in str(exc.orig) for words in _DISK_ERRORS):
                raise HistoryUnwritable(f"{self.shown}: {_first_line(exc.orig)}") from None
            raise HistoryError(f"{self.shown}: {_first_line(exc.orig)}") from None

    def _advisory_lock(self, conn: Connection, started: float) -> None:
        deadline = started + self.timeout
        query = text("SELECT pg_try_advisory_xact_lock(:key)")
        while not conn.execute(query, {"key": LOCK_KEY - (1 << 63)}).scalar():
            if time.monotonic() >= deadline:
                raise self._busy(started)
            time.sleep(0.1)

    def _busy(self, started: float) -> HistoryBusy:
        """The time really waited, not the timeout: sqlite may answer busy before it ends."""
        waited = time.monotonic() - started
        return HistoryBusy(
            f"{self.shown}: another fabriclint run is writing the history; waited "
            f"{waited:.1f} s (--lock-timeout {self.timeout:g} s), nothing recorded"
        )

    def dispose(self) -> None:
        """Close pooled connections."""
        self.engine.dispose()


def _first_line(exc: BaseException | None) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def history_url(fabric: Path, given: str | None) -> str:
    """The SQLAlchemy URL: `--history` as given (a URL or a file path), else the fabric's file.
    `postgresql://` means the psycopg 3 driver."""
    if given is None:
        return f"sqlite:///{(fabric / DEFAULT_FILE).resolve()}"
    if "://" not in given:
        return f"sqlite:///{Path(given).resolve()}"
    if given.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + given.split("://", 1)[1]
    return given


def _in_memory(parsed: Any) -> bool:
    """Whether an SQLite URL names an in-memory database: no file (`sqlite://`, `:memory:`),
    or, with `uri=true`, a URI file name `file::memory:`, `file:` or one with `mode=memory`."""
    database = parsed.database
    if database in (None, "", ":memory:"):
        return True
    query = {
        key: value if isinstance(value, str) else value[-1] for key, value in parsed.query.items()
    }
    if str(query.get("uri", "")).lower() not in ("true", "1", "yes", "on"):
        return False
    if not database.startswith("file:"):
        return False
    name, _, params = database[len("file:") :].partition("?")
    modes = [query.get("mode", "")] + [
        p.split("=", 1)[1] for p in params.split("&") if p.startswith("mode=")
    ]
    return name in ("", ":memory:") or "memory" in modes


def open_store(url: str, timeout: float = 60.0) -> Store:
    """Connect and bring the schema to the newest migration (under the write lock)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise HistoryError("--history: not a database URL or file path") from None
    shown = parsed.render_as_string(hide_password=True)
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise HistoryError(f"{shown}: only sqlite and postgresql histories are supported")
    if parsed.get_backend_name() == "sqlite" and _in_memory(parsed):
        raise HistoryError(  # the night would be recorded in memory and lost at exit (exit 0)
            f"{shown}: an in-memory SQLite database keeps no history: name a file "
            "(sqlite:///path/history.sqlite)"
        )
    _refuse_empty_file(parsed)
    try:
        engine = _engine(parsed, timeout)
    except (ImportError, SQLAlchemyError) as exc:
        raise HistoryError(f"{shown}: {_first_line(exc)}") from None
    store = Store(engine=engine, timeout=timeout, shown=shown)
    try:
        _migrate(store)
    except DatabaseError as exc:  # sqlite: "file is not a database" (a stray or damaged file)
        store.dispose()
        raise HistoryError(f"{shown}: not a history database ({_first_line(exc.orig)})") from None
    except _revision_errors() as exc:  # a revision no migration here knows: a newer fabriclint's
        store.dispose()
        raise HistoryError(
            f"{shown}: a history of a schema this fabriclint does not know ({_first_line(exc)}): "
            "written by a newer fabriclint? Upgrade it; the history is left as it was"
        ) from None
    return store


_SQLITE_HEADER = 100
"""Bytes of an SQLite file header: sqlite opens a shorter file as a new, empty database (and a
0-byte one always), so such a file would silently become an empty history."""


def _refuse_empty_file(url: Any) -> None:
    """A missing SQLite file is a new history (created); an existing empty one is not: sqlite
    would take it for an empty database and the night would start a new history over a lost
    one (a truncated copy, a full disk, `> history.sqlite`). fabriclint's own file is never
    that short past its creation (WAL mode writes a 4 KiB page at once): HistoryError, and the
    file is left as it is."""
    database = url.database if url.get_backend_name() == "sqlite" else None
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    path = Path(database)
    size = path.stat().st_size if path.is_file() else None
    if size is None or size >= _SQLITE_HEADER:
        return
    what = "an empty file (0 bytes)" if size == 0 else f"a file of {size} bytes (truncated)"
    raise HistoryError(
        f"{path}: {what}, not a history: the nights recorded there are lost; nothing "
        "recorded. Restore it from a backup, or delete it to start a new history"
    )


def _revision_errors() -> type[Exception]:
    """What alembic raises for a database at a revision its scripts do not have."""
    from alembic.util import CommandError

    return CommandError


def _engine(url: Any, timeout: float) -> Engine:
    if url.get_backend_name() == "postgresql":
        return create_engine(url, connect_args={"connect_timeout": max(1, int(timeout))})
    if url.database:
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": timeout})
    millis = int(timeout * 1000)

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # the driver must not BEGIN for us: we do, IMMEDIATE
        cursor = dbapi_conn.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {millis}")
        _journal_wal(cursor, timeout)
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")  # take the write lock now, not at first write

    return engine


def _journal_wal(cursor: Any, timeout: float) -> None:
    """Switch the file to WAL, waiting as long as a writer would. sqlite answers "database is
    locked" at once, without its busy handler, when another connection holds the file while
    the mode changes: two first nights starting together on a new history (one in 14 failed
    so, each after 0.3 s, with a message that it had waited the whole --lock-timeout)."""
    import sqlite3  # already loaded by SQLAlchemy's sqlite driver, which made this cursor

    deadline = time.monotonic() + timeout
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            busy = "locked" in str(exc) or "busy" in str(exc)
            if not busy or time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


def _migrate(store: Store) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    with store.transaction() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "head")
