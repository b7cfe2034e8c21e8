"""Record one night: classify tonight's findings against the open ones and write it all.

A finding tonight is *new* (never seen, or seen and resolved before: then also *reopened*),
*persisting* (open last time too, or *moved*: an open finding of the same rule, device and
setting covered every port it covers, under another fingerprint; it carries on that finding's
life, and that finding is closed as *moved*, not resolved) or, when tonight could not see it,
*carried* (still open, not seen). An open finding not seen tonight is *resolved* only when its
device was checked (status ok) and its rule evaluated there (`Night.unevaluated`: coverage gaps,
rules the policy leaves out, internal failures); a fabric-wide one only when the run is complete
and read the whole fabric (not a --limit night: `Night.partial`). Suppressed findings keep
their life like any other but are left out of the new/persisting/open counts.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, and_, bindparam, insert, select, update

from fabriclint.history.schema import findings, run_devices, run_findings, runs
from fabriclint.models.finding import DeviceSummary, Finding

Explainer = Callable[[str | None, list[Finding]], dict[str, str]]
"""(previous night's snapshot path or None, tonight's new findings) -> fingerprint -> cause."""


@dataclass
class Night:
    """What a night's check produced, to be recorded."""

    fabric: str
    started_at: str
    snapshot: str
    snapshot_path: str
    complete: bool
    exit_code: int
    devices: list[DeviceSummary]
    findings: list[Finding]
    check_seconds: float
    collect_seconds: float | None = None
    partial: bool = False
    """Devices were left out by a choice (--limit): `complete`, but not the whole fabric."""
    unevaluated: frozenset[tuple[str, str]] = frozenset()
    """(rule, device) pairs tonight's check did not evaluate: a coverage gap (an output the
    rule needs is missing, a majority rule left out by --limit, a rule the policy deselects
    or ignores on the device) or a part that failed
    internally; `*` for any rule or any device. A finding there is carried, never resolved."""

    def judged(self, rule: str, device: str | None) -> bool:
        """Whether tonight evaluated `rule` on `device` (None: fabric-wide, on every device)."""
        return not any(
            r in (rule, "*") and (device is None or d in (device, "*")) for r, d in self.unevaluated
        )


@dataclass
class Entry:
    """A finding as tonight's report shows it: the finding (or its stored row) and its life."""

    status: str
    """new, reopened, persisting, carried, resolved or moved (closed: carried on by tonight's
    finding of the same setting on its ports)."""
    row: dict[str, Any]
    finding: Finding | None = None

    @property
    def counted(self) -> bool:
        """Whether it counts in new/persisting/open (suppressed findings do not)."""
        return not self.row.get("suppressed")


@dataclass
class Recorded:
    """The night as written: its run id, the previous run, every entry."""

    run_id: int
    previous: dict[str, Any] | None
    entries: list[Entry] = field(default_factory=list)

    def of(self, *statuses: str) -> list[Entry]:
        """The counted entries with one of these statuses."""
        return [e for e in self.entries if e.status in statuses and e.counted]


def record(conn: Connection, night: Night, explain: Explainer) -> Recorded:
    """Write the night inside the caller's transaction and return what it found."""
    previous = last_run(conn, night.fabric)
    rows = conn.execute(select(findings).where(findings.c.fabric == night.fabric)).mappings()
    known: dict[str, dict[str, Any]] = {row["fingerprint"]: dict(row) for row in rows}
    run_id = _insert_run(conn, night)
    done = Recorded(run_id=run_id, previous=previous)
    fresh = [f for f in night.findings if (known.get(f.fingerprint) or {}).get("state") != "open"]
    moves, closed = _moves(known, night, fresh)
    new = [f for f in fresh if f.fingerprint not in moves]
    causes = explain(previous["snapshot_path"] if previous else None, new)
    for finding in night.findings:
        row = moves.get(finding.fingerprint) or known.get(finding.fingerprint)
        done.entries.append(_seen(row, finding, night, run_id, causes))
    gone = {"state": "resolved", "resolved_run": run_id, "resolved_at": night.started_at}
    done.entries += [Entry("moved", {**known[fp], **gone}) for fp in closed]
    done.entries += _unseen({k: v for k, v in known.items() if k not in closed}, night, run_id)
    _write(conn, night, done, known)
    _finish_run(conn, run_id, done)
    return done


def _ports(row: dict[str, Any]) -> frozenset[str]:
    stored = row.get("ports")
    return frozenset(json.loads(stored)) if stored else frozenset()


def _moves(
    known: dict[str, dict[str, Any]], night: Night, fresh: list[Finding]
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Tonight's findings (not open before) that carry on an open finding of the same rule,
    device and setting whose ports covered all of theirs (fingerprint -> the row whose life
    they continue, as an open row), and the fingerprints of the open findings they close."""
    seen = {f.fingerprint for f in night.findings}
    candidates: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for fp, row in known.items():  # indexed once: a night of many new findings stays linear
        if row["state"] == "open" and fp not in seen and row.get("setting"):
            key = (row["rule"], row["device"], row["setting"])
            candidates.setdefault(key, []).append(row)
    moves: dict[str, dict[str, Any]] = {}
    closed: dict[str, None] = {}
    for finding in fresh:
        if not finding.setting or not finding.ports:
            continue
        key = (finding.rule, finding.device, finding.setting)
        was = [row for row in candidates.get(key, []) if _ports(row) & finding.ports]
        if not was or not finding.ports <= frozenset[str]().union(*map(_ports, was)):
            continue
        oldest = min(was, key=lambda row: (row["first_seen_run"], row["fingerprint"]))
        moves[finding.fingerprint] = {
            **oldest,
            "nights_open": max(row["nights_open"] for row in was),
            "state": "open",
        }
        closed.update(dict.fromkeys(row["fingerprint"] for row in was))
    return moves, list(closed)


def last_run(conn: Connection, fabric: str) -> dict[str, Any] | None:
    """The newest recorded run of the fabric."""
    query = select(runs).where(runs.c.fabric == fabric).order_by(runs.c.id.desc()).limit(1)
    row = conn.execute(query).mappings().first()
    return dict(row) if row else None


def _insert_run(conn: Connection, night: Night) -> int:
    values = {
        "fabric": night.fabric,
        "started_at": night.started_at,
        "snapshot": night.snapshot,
        "snapshot_path": night.snapshot_path,
        "complete": night.complete,
        "exit_code": night.exit_code,
        "devices": len(night.devices),
        "devices_ok": sum(d.status == "ok" for d in night.devices),
        "collect_seconds": night.collect_seconds,
        "check_seconds": night.check_seconds,
        **dict.fromkeys(
            ("new", "persisting", "resolved", "open_error", "open_warning", "open_info"), 0
        ),
        "suppressed": 0,
    }
    run_id = conn.execute(insert(runs).values(values)).inserted_primary_key
    assert run_id is not None
    devices = [
        {
            "run_id": run_id[0],
            "device": d.name,
            "role": d.role,
            "platform": d.platform,
            "status": d.status,
            "error": d.error,
        }
        for d in night.devices
    ]
    if devices:
        conn.execute(insert(run_devices), devices)
    return int(run_id[0])


def _seen(
    row: dict[str, Any] | None, f: Finding, night: Night, run_id: int, causes: dict[str, str]
) -> Entry:
    fresh = {
        "fabric": night.fabric,
        "fingerprint": f.fingerprint,
        "rule": f.rule,
        "severity": f.severity,
        "device": f.device,
        "object": f.object,
        "message": f.message,
        "state": "open",
        "last_seen_run": run_id,
        "last_seen_at": night.started_at,
        "suppressed": f.suppressed,
        "resolved_run": None,
        "resolved_at": None,
        "setting": f.setting or None,
        "ports": json.dumps(sorted(f.ports)) if f.ports else None,
    }
    if row is None:
        first = {"first_seen_run": run_id, "first_seen_at": night.started_at, "reopened": 0}
        new_row = {**fresh, **first, "nights_open": 1, "cause": causes.get(f.fingerprint)}
        return Entry("new", new_row, f)
    if row["state"] == "open":  # open last night, under this fingerprint or one it moved from
        update = {**fresh, "nights_open": row["nights_open"] + 1, "fingerprint": f.fingerprint}
        return Entry("persisting", {**row, **update}, f)
    reopened = {"nights_open": 1, "reopened": row["reopened"] + 1}
    return Entry("reopened", {**row, **fresh, **reopened, "cause": causes.get(f.fingerprint)}, f)


def _unseen(known: dict[str, dict[str, Any]], night: Night, run_id: int) -> list[Entry]:
    seen = {f.fingerprint for f in night.findings}
    checked = {d.name for d in night.devices if d.status == "ok"}
    whole = night.complete and not night.partial  # fabric-wide: never from a --limit night
    entries = []
    for fingerprint, row in known.items():
        if row["state"] != "open" or fingerprint in seen:
            continue
        device = row["device"]
        looked = (device is None and whole) or device in checked
        if looked and night.judged(row["rule"], device):
            gone = {"state": "resolved", "resolved_run": run_id, "resolved_at": night.started_at}
            entries.append(Entry("resolved", {**row, **gone}))
        else:
            entries.append(Entry("carried", dict(row)))
    return entries


def _write(conn: Connection, night: Night, done: Recorded, known: dict[str, Any]) -> None:
    inserts = [e.row for e in done.entries if e.row["fingerprint"] not in known]
    updates = [
        {**e.row, "b_fabric": night.fabric, "b_fp": e.row["fingerprint"]}
        for e in done.entries
        if e.row["fingerprint"] in known and e.status != "carried"
    ]
    if inserts:
        conn.execute(insert(findings), inserts)
    if updates:
        columns = [c.name for c in findings.columns if c.name not in ("fabric", "fingerprint")]
        key = and_(
            findings.c.fabric == bindparam("b_fabric"),
            findings.c.fingerprint == bindparam("b_fp"),
        )
        statement = update(findings).where(key).values({c: bindparam(c) for c in columns})
        conn.execute(
            statement, [{c: u[c] for c in [*columns, "b_fabric", "b_fp"]} for u in updates]
        )
    lines = [
        {
            "run_id": done.run_id,
            "fingerprint": e.row["fingerprint"],
            "status": e.status,
            "severity": e.row["severity"],
            "suppressed": bool(e.row.get("suppressed")),
        }
        for e in done.entries
    ]
    if lines:
        conn.execute(insert(run_findings), lines)


def open_by_severity(done: Recorded) -> dict[str, int]:
    """Open findings tonight (seen or carried, not suppressed) per severity."""
    counts = {"error": 0, "warning": 0, "info": 0}
    for entry in done.of("new", "reopened", "persisting", "carried"):
        counts[entry.row["severity"]] += 1
    return counts


def _finish_run(conn: Connection, run_id: int, done: Recorded) -> None:
    opened = open_by_severity(done)
    values = {
        "new": len(done.of("new", "reopened")),
        "persisting": len(done.of("persisting")),
        "resolved": len(done.of("resolved")),
        "open_error": opened["error"],
        "open_warning": opened["warning"],
        "open_info": opened["info"],
        "suppressed": sum(
            not e.counted for e in done.entries if e.status not in ("resolved", "moved")
        ),
    }
    conn.execute(update(runs).where(runs.c.id == run_id).values(values))
