"""One night: check the snapshot, then in one history transaction record it, stage its files
(reports, `latest`, metrics), show it on stdout and publish the files; then commit. A night
whose files or report cannot be delivered is rolled back (exit 3, nothing recorded), so the
next night still compares with the last night delivered and its new findings stay new.
Compressing old snapshots (--keep-nights) comes after the commit: a failure there is exit 3
with the night recorded, and is retried the next night."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sqlalchemy import Connection

from fabriclint.engine import CheckOptions, CheckResult, ExitCode, run_check
from fabriclint.history.record import Explainer, Night, Recorded, record
from fabriclint.history.store import (
    HistoryBusy,
    HistoryError,
    HistoryUnwritable,
    Store,
    history_url,
    open_store,
)
from fabriclint.models.finding import SEVERITY_RANK, Finding
from fabriclint.models.policy import Severity
from fabriclint.nightly import causes
from fabriclint.nightly.delivery import DeliveryError, Staged
from fabriclint.nightly.retention import compress, prune, sweep_snapshots


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
    deliver: Callable[[dict[str, Any], Path], None] | None = None
    """Shows the night (the CLI's stdout report, given the report and its folder) before the
    commit: a night that could not be shown is not recorded either."""
    collect: Callable[[], tuple[str, float]] | None = None
    """Without `snapshot`: collects the night's snapshot (its path and the seconds it took).
    Called only once the metrics target and the history have been found usable, so a night
    that would be refused is refused before the (slow) collection, not after it."""
    notice: Callable[[str], None] | None = None
    """Says what the night did besides recording (the stale staging files it removed)."""


@dataclass
class NightlyResult:
    """The night's report (the report.json document), where it went, and the exit code."""

    report: dict[str, Any]
    report_dir: Path
    exit_code: int
    compressed: list[Path] = field(default_factory=list)
    """Old snapshot folders compressed by --keep-nights."""
    problems: list[str] = field(default_factory=list)
    """What failed after the commit (compressing an old snapshot): the exit code is then 3."""


NOTHING_RECORDED = "nothing recorded: the next night compares with the last night recorded"


class NotRecorded(Exception):
    """The night could not be delivered (a report, `latest` or the metrics not written, or
    the commit refused after the files went out): exit 3, the history as it was."""


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
        if opts.collect is not None and opts.snapshot is None:
            snapshot, seconds = opts.collect()
            opts = replace(opts, snapshot=snapshot, collect_seconds=seconds, collect=None)
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
        partial=bool(checked.context is not None and checked.context.partial),
        unevaluated=unevaluated(checked),
    )


def unevaluated(checked: CheckResult) -> frozenset[tuple[str, str]]:
    """The (rule, device) pairs the check did not evaluate (Night.unevaluated): its coverage
    gaps, and what an internal failure (INTERNAL001) stopped: a rule's findings (on the
    device it names, or all), or, for a part that is no rule, every finding (of the device)."""
    report = checked.report
    blind = {(gap.rule, device) for gap in report.coverage for device in gap.devices}
    blind |= _deselected(checked)
    for failed in checked.failures:
        if failed.where.startswith("fix hint for "):
            continue  # a missing fix hint hides no finding
        rule = failed.where.split()[-1] if failed.where.startswith(("rule ", "site rule ")) else "*"
        blind.add((rule, failed.device or "*"))
    return frozenset(blind)


def _deselected(checked: CheckResult) -> set[tuple[str, str]]:
    """The rules tonight's policy leaves out (`select`/`ignore`: on every device, `*`) or
    switches off on a device (`per_device_ignores`, `per_role_ignores`): not evaluated there,
    so a finding of theirs still open is carried. Nightly takes no rule selection on its
    command line: the policy's is the check's. INTERNAL001 (stage `report`) is fabriclint's
    own, never deselected."""
    from fabriclint.rules.registry import ALL_RULES
    from fabriclint.selection import Selection

    policy = checked.fabric.policy
    selection = Selection(policy)
    codes = [r.code for r in ALL_RULES if r.stage != "report"]
    codes += [site.code for site in policy.site_rules]
    out = {(code, "*") for code in codes if not selection.selected(code)}
    if policy.per_device_ignores or policy.per_role_ignores:
        kept = [code for code in codes if (code, "*") not in out]
        for name, device in checked.fabric.inventory.devices.items():
            out |= {(c, name) for c in kept if selection.ignored_on(c, name, device.role)}
    return out


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


def _stage(
    conn: Connection, opts: NightlyOptions, checked: CheckResult, night: Night, staged: Staged
) -> tuple[dict[str, Any], Path, int, list[str]]:
    """Record the night and stage its files: the report, where it goes, the exit code and
    the snapshot paths retention will compress."""
    from fabriclint.history.queries import trend
    from fabriclint.nightly.report import build, write_reports

    done = record(conn, night, _explainer(opts, checked))
    code = exit_code(opts, checked, done)
    document = build(night, done, checked, trend(conn, night.fabric, opts.trend_nights), code)
    target = opts.report_dir or _default_dir(opts, night, done)
    _sweep(opts, target)
    write_reports(target, document, staged)
    if opts.report_dir is None:
        staged.link(target.parent / "latest", target.name)
    if opts.metrics is not None:
        from fabriclint.nightly.metrics import render

        staged.file(opts.metrics, render(document, opts.per_device_metrics))
    old = prune(conn, night.fabric, opts.keep_nights) if opts.keep_nights else []
    return document, target, code, old


def _sweep(opts: NightlyOptions, target: Path) -> None:
    """Remove the staging files killed nights left where this night writes (delivery.sweep):
    inside the night's transaction, so no run of this history is staging now."""
    from fabriclint.nightly.delivery import REPORT_FILES, metrics_target, sweep

    folders: dict[Path, set[str]] = {target: set(REPORT_FILES)}
    made: set[Path] = set()  # the run folders a killed night may have made (and left empty)
    if opts.report_dir is None:
        reports = target.parent
        folders[reports] = {"latest"}
        with contextlib.suppress(OSError):
            for entry in os.scandir(reports):
                if _RUN_FOLDER.fullmatch(entry.name) and entry.is_dir(follow_symlinks=False):
                    folders.setdefault(Path(entry.path), set(REPORT_FILES))
                    made.add(Path(entry.path))
    if opts.metrics is not None:
        where = metrics_target(opts.metrics)
        folders.setdefault(where.parent, set()).add(where.name)
    for path in sweep(folders, spare=target, made=made):
        what = "staging file" if path.name.endswith(".tmp") else "empty report folder"
        if opts.notice is not None:
            opts.notice(f"removed a stale {what} a killed night left: {path}")


_RUN_FOLDER = re.compile(r"\d{8}T\d{6}Z-run\d+")


def _record_and_report(
    store: Store, opts: NightlyOptions, checked: CheckResult, seconds: float
) -> NightlyResult:
    """One transaction: record, stage the files, show the night (opts.deliver), publish the
    files, commit. Whatever fails before the commit leaves nothing behind (NotRecorded)."""
    night = _night(opts, checked, seconds)
    staged = Staged()
    delivered = False
    try:
        with store.transaction() as conn:
            document, target, code, old = _stage(conn, opts, checked, night, staged)
            if opts.deliver is not None:
                opts.deliver(document, target)
            staged.publish()
            delivered = True
    except DeliveryError as exc:
        raise NotRecorded(f"{exc}; {NOTHING_RECORDED}") from None
    except HistoryError as exc:
        if not delivered or isinstance(exc, HistoryBusy):
            raise
        why = exc.what if isinstance(exc, HistoryUnwritable) else str(exc)  # said once, below
        raise NotRecorded(f"{why}; the reports went out but {NOTHING_RECORDED}") from None
    finally:
        staged.discard()
    if opts.keep_nights:
        for path in sweep_snapshots(opts.fabric_dir):
            if opts.notice is not None:
                opts.notice(f"removed what a killed compression left: {path}")
    compressed, problems = compress(opts.fabric_dir, old)
    return NightlyResult(document, target, 3 if problems else code, compressed, problems)


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
