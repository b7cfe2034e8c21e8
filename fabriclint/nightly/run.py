"""One night: check the snapshot, record it in the history (one transaction), write the reports
inside that transaction (a report that cannot be written rolls the night back), then point
`latest` at them and write the metrics."""

from __future__ import annotations

import datetime as dt
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fabriclint.engine import CheckOptions, CheckResult, ExitCode, run_check
from fabriclint.history.record import Explainer, Night, Recorded, record
from fabriclint.history.store import Store, history_url, open_store
from fabriclint.models.finding import SEVERITY_RANK, Finding
from fabriclint.models.policy import Severity
from fabriclint.nightly import causes
from fabriclint.nightly.retention import compress, prune


@dataclass
class NightlyOptions:
    """What `fabriclint nightly` was asked (built by the CLI, or by tests)."""

    fabric_dir: Path
    snapshot: str | None = None
    history: str | None = None
    report_dir: Path | None = None
    metrics: Path | None = None
    judge: str = "new"
    """Which findings decide exit 1: those `new` tonight, or every `open` one."""
    fail_on: Severity | None = None
    lock_timeout: float = 60.0
    trend_nights: int = 30
    collect_seconds: float | None = None
    per_device_metrics: bool = False
    keep_nights: int | None = None
    """Keep the per-night detail and snapshot folders of this many newest runs (retention.py)."""
    limit: list[str] | None = None
    """`--limit`: only these devices are checked; the findings of the others are carried."""
    now: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))


@dataclass
class NightlyResult:
    """The night's report (the report.json document), where it went, and the exit code."""

    report: dict[str, Any]
    report_dir: Path
    exit_code: int
    compressed: list[Path] = field(default_factory=list)
    """Old snapshot folders compressed by --keep-nights."""


def snapshot_path(fabric_dir: Path, snapshot: str | None, checked: CheckResult) -> Path:
    """The snapshot folder the check read."""
    if snapshot is not None and not Path(snapshot).is_dir():
        return fabric_dir / "snapshots" / snapshot
    return Path(snapshot) if snapshot is not None else Path(str(checked.report.snapshot))


def _stored_path(fabric_dir: Path, path: Path) -> str:
    """Relative to the fabric when inside it: CI checkouts move, the fabric layout does not."""
    try:
        return str(path.resolve().relative_to(fabric_dir.resolve()))
    except ValueError:
        return str(path.resolve())


class MetricsTargetError(ValueError):
    """`--metrics` names what no textfile can replace (a directory, a FIFO): exit 2, before
    anything is recorded (the night would be in the history and the command say it failed)."""


def _check_metrics_target(path: Path | None) -> None:
    from fabriclint.snapshot import write_target

    if path is None:
        return
    try:
        write_target(path)
    except OSError as exc:
        raise MetricsTargetError(f"--metrics {path}: cannot write: {exc.strerror}") from None
    parent = next((p for p in path.absolute().parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise MetricsTargetError(f"--metrics {path}: cannot write: {parent} is not a folder")


def run_nightly(opts: NightlyOptions) -> NightlyResult:
    """Check, record, report. Raises FabricError/SnapshotError (exit 2), HistoryError (2),
    MetricsTargetError (2) and HistoryBusy (3) before anything is recorded."""
    _check_metrics_target(opts.metrics)
    store = open_store(history_url(opts.fabric_dir, opts.history), opts.lock_timeout)
    try:
        started = time.monotonic()
        check = CheckOptions(fabric_dir=opts.fabric_dir, snapshot=opts.snapshot, limit=opts.limit)
        checked = run_check(check)
        seconds = time.monotonic() - started
        return _record_and_report(store, opts, checked, seconds)
    finally:
        store.dispose()


def _night(opts: NightlyOptions, checked: CheckResult, seconds: float) -> Night:
    report = checked.report
    path = snapshot_path(opts.fabric_dir, opts.snapshot, checked)
    return Night(
        fabric=report.fabric,
        started_at=opts.now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        snapshot=path.name,
        snapshot_path=_stored_path(opts.fabric_dir, path),
        complete=report.summary.complete,
        exit_code=int(checked.exit_code),
        devices=report.devices,
        findings=report.findings,
        check_seconds=round(seconds, 3),
        collect_seconds=opts.collect_seconds,
    )


def _explainer(opts: NightlyOptions, checked: CheckResult) -> Explainer:
    def explain(previous: str | None, new: list[Finding]) -> dict[str, str]:
        if not new:
            return {}
        if previous is None:
            return causes.explain(None, checked.states, new, [])
        fabric = checked.fabric  # as the check loaded it: the YAML is not read twice
        path = Path(previous) if Path(previous).is_absolute() else opts.fabric_dir / previous
        devices = causes.involved(fabric, new)
        try:
            before = causes.previous_states(fabric, path, devices)
        except Exception as exc:  # gone or unreadable: say so, the night still counts
            why = f"previous snapshot {previous} could not be read ({type(exc).__name__})"
            return dict.fromkeys((f.fingerprint for f in new), f"cause unknown: {why}")
        dscps = causes.intent_dscps(fabric.intent)
        return causes.explain(before, checked.states, new, dscps, devices)

    return explain


def _record_and_report(
    store: Store, opts: NightlyOptions, checked: CheckResult, seconds: float
) -> NightlyResult:
    from fabriclint.history.queries import trend
    from fabriclint.nightly.report import build, write_reports

    night = _night(opts, checked, seconds)
    with store.transaction() as conn:
        done = record(conn, night, _explainer(opts, checked))
        code = exit_code(opts, checked, done)
        document = build(night, done, checked, trend(conn, night.fabric, opts.trend_nights), code)
        target = opts.report_dir or _default_dir(opts, night, done)
        write_reports(target, document)
        old = prune(conn, night.fabric, opts.keep_nights) if opts.keep_nights else []
    if opts.report_dir is None:
        point_latest(target)
    if opts.metrics is not None:
        from fabriclint.nightly.metrics import write_metrics

        write_metrics(opts.metrics, document, opts.per_device_metrics)
    compressed = compress(opts.fabric_dir, old)
    return NightlyResult(document, target, code, compressed)


def _default_dir(opts: NightlyOptions, night: Night, done: Recorded) -> Path:
    stamp = night.started_at.replace("-", "").replace(":", "")
    return opts.fabric_dir / "reports" / f"{stamp}-run{done.run_id}"


def exit_code(opts: NightlyOptions, checked: CheckResult, done: Recorded) -> int:
    """3 incomplete; else 1 when a finding new tonight (or, judged on open, any open one) is at
    or above the fail-on severity; else 0."""
    if checked.exit_code == ExitCode.INCOMPLETE:
        return int(ExitCode.INCOMPLETE)
    threshold = SEVERITY_RANK[opts.fail_on or checked.fail_on]
    statuses = ("new", "reopened") if opts.judge == "new" else ("new", "reopened", "persisting")
    failing = [e for e in done.of(*statuses) if SEVERITY_RANK[e.row["severity"]] >= threshold]
    return int(ExitCode.FINDINGS if failing else ExitCode.OK)


def point_latest(target: Path) -> None:
    """`reports/latest` -> the newest run, replaced atomically (a symlink; a file naming the
    folder where symlinks are not allowed)."""
    link = target.parent / "latest"
    tmp = target.parent / f".latest.{os.getpid()}.tmp"
    tmp.unlink(missing_ok=True)
    try:
        tmp.symlink_to(target.name, target_is_directory=True)
    except OSError:
        tmp.write_text(target.name + "\n")
    os.replace(tmp, link)
