"""The history tables (SQLAlchemy Core), the same on SQLite and PostgreSQL.

Times are ISO-8601 UTC strings ("2026-12-01T02:00:00Z"): they sort as text and read the same in
both databases. Every table carries the fabric name, so one PostgreSQL database can hold the
history of several fabrics. Alembic migrations in `migrations/versions/` create exactly these
tables; `tests/nightly/test_store.py` checks the two agree.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

runs = Table(
    "runs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("fabric", String(200), nullable=False),
    Column("started_at", String(32), nullable=False),
    Column("snapshot", String(500), nullable=False),
    Column("snapshot_path", Text, nullable=False),
    Column("complete", Boolean, nullable=False),
    Column("exit_code", Integer, nullable=False),
    Column("devices", Integer, nullable=False),
    Column("devices_ok", Integer, nullable=False),
    Column("new", Integer, nullable=False),
    Column("persisting", Integer, nullable=False),
    Column("resolved", Integer, nullable=False),
    Column("open_error", Integer, nullable=False),
    Column("open_warning", Integer, nullable=False),
    Column("open_info", Integer, nullable=False),
    Column("suppressed", Integer, nullable=False),
    Column("collect_seconds", Float, nullable=True),
    Column("check_seconds", Float, nullable=False),
    Index("ix_runs_fabric_started", "fabric", "started_at"),
)
"""One row per night: when, what was checked, how complete, the counts."""

run_devices = Table(
    "run_devices",
    metadata,
    Column("run_id", Integer, ForeignKey("runs.id"), primary_key=True),
    Column("device", String(200), primary_key=True),
    Column("role", String(200), nullable=True),
    Column("platform", String(100), nullable=True),
    Column("status", String(50), nullable=False),
    Column("error", Text, nullable=True),
)
"""Each device's status that night (ok, unreachable, unparseable...)."""

findings = Table(
    "findings",
    metadata,
    Column("fabric", String(200), primary_key=True),
    Column("fingerprint", String(64), primary_key=True),
    Column("rule", String(50), nullable=False),
    Column("severity", String(10), nullable=False),
    Column("device", String(200), nullable=True),
    Column("object", Text, nullable=False),
    Column("message", Text, nullable=False),
    Column("state", String(10), nullable=False),
    Column("first_seen_run", Integer, nullable=False),
    Column("first_seen_at", String(32), nullable=False),
    Column("last_seen_run", Integer, nullable=False),
    Column("last_seen_at", String(32), nullable=False),
    Column("nights_open", Integer, nullable=False),
    Column("resolved_run", Integer, nullable=True),
    Column("resolved_at", String(32), nullable=True),
    Column("suppressed", Text, nullable=True),
    Column("reopened", Integer, nullable=False),
    Column("cause", Text, nullable=True),
    Column("setting", Text, nullable=True),
    Column("ports", Text, nullable=True),
    Index("ix_findings_fabric_state", "fabric", "state"),
)
"""One row per finding ever seen (by fingerprint): its life so far. `state` is open or resolved;
`cause` is the change that explains it the night it (re)appeared; `setting` and `ports` (a JSON
list) where its rule said which setting and ports it covers (`Finding.setting`, `ports`), so a
finding that only changed scope (a fault of 4 ports left on one) carries on its life."""

run_findings = Table(
    "run_findings",
    metadata,
    Column("run_id", Integer, ForeignKey("runs.id"), primary_key=True),
    Column("fingerprint", String(64), primary_key=True),
    Column("status", String(12), nullable=False),
    Column("severity", String(10), nullable=False),
    Column("suppressed", Boolean, nullable=False),
)
"""What each night saw of each finding: new, persisting, reopened, resolved, or carried (its
device could not be checked that night, so it stays open unseen)."""
