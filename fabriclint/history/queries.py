"""Read the history: runs, the trend of open findings, one finding's life, old open findings."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select

from fabriclint.history.schema import findings, run_devices, run_findings, runs


def list_runs(conn: Connection, fabric: str | None, limit: int) -> list[dict[str, Any]]:
    """The newest `limit` runs (of one fabric, or all), oldest first."""
    query = select(runs).order_by(runs.c.id.desc()).limit(limit)
    if fabric is not None:
        query = query.where(runs.c.fabric == fabric)
    return [dict(row) for row in reversed(conn.execute(query).mappings().all())]


def trend(conn: Connection, fabric: str, nights: int) -> list[dict[str, Any]]:
    """Open findings by severity over the last `nights` runs, oldest first."""
    return [
        {
            "run": row["id"],
            "started_at": row["started_at"],
            "complete": bool(row["complete"]),
            "error": row["open_error"],
            "warning": row["open_warning"],
            "info": row["open_info"],
            "new": row["new"],
            "resolved": row["resolved"],
        }
        for row in list_runs(conn, fabric, nights)
    ]


def finding_life(conn: Connection, fingerprint: str) -> dict[str, Any] | None:
    """A finding's row and every night that saw it (a fingerprint prefix of 8+ is enough)."""
    # autoescape: `%` and `_` are LIKE wildcards; `--finding ________` matched any finding
    query = select(findings).where(findings.c.fingerprint.startswith(fingerprint, autoescape=True))
    rows = conn.execute(query).mappings().all()
    if len(rows) != 1:
        return None
    row = dict(rows[0])
    nights = (
        select(runs.c.id, runs.c.started_at, runs.c.snapshot, run_findings.c.status)
        .join(run_findings, run_findings.c.run_id == runs.c.id)
        .where(run_findings.c.fingerprint == row["fingerprint"], runs.c.fabric == row["fabric"])
        .order_by(runs.c.id)
    )
    row["nights"] = [dict(n) for n in conn.execute(nights).mappings().all()]
    return row


def matching(conn: Connection, prefix: str) -> int:
    """How many findings a fingerprint prefix matches."""
    query = select(findings.c.fingerprint).where(
        findings.c.fingerprint.startswith(prefix, autoescape=True)
    )
    return len(conn.execute(query).all())


def open_longer_than(conn: Connection, fabric: str | None, nights: int) -> list[dict[str, Any]]:
    """Open, unsuppressed findings open for more than `nights` nights, oldest first."""
    query = (
        select(findings)
        .where(findings.c.state == "open", findings.c.nights_open > nights)
        .where(findings.c.suppressed.is_(None))
        .order_by(findings.c.nights_open.desc(), findings.c.fingerprint)
    )
    if fabric is not None:
        query = query.where(findings.c.fabric == fabric)
    return [dict(row) for row in conn.execute(query).mappings().all()]


def devices_of(conn: Connection, run_id: int) -> list[dict[str, Any]]:
    """The device statuses of one run."""
    query = select(run_devices).where(run_devices.c.run_id == run_id).order_by(run_devices.c.device)
    return [dict(row) for row in conn.execute(query).mappings().all()]
