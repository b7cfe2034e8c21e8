"""`fabriclint nightly`: collect (or take --snapshot), check, record in the history, report.

Exit codes: 0 nothing new at or above --fail-on (or nothing open, with --fail-on-open),
1 findings, 2 usage/input error (nothing recorded), 3 incomplete (a device not checked, an
internal error, an old snapshot not compressed; or nothing recorded: the history busy with
another run past --lock-timeout, a report, `latest` or the metrics that could not be written).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import typer

from fabriclint.cli.check import FailOn
from fabriclint.cli.errors import INCOMPLETE_EXIT, echo, fail, undelivered


class NightlyFormat(StrEnum):
    """What is printed on stdout (the report folder always gets all three)."""

    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"


@dataclass(frozen=True)
class Live:
    """The `fabriclint collect` options nightly passes on when it collects."""

    limit: list[str]
    workers: int | None
    timeout: float
    overlay: Path | None
    known_hosts: Path | None
    insecure: bool
    ssh_config: Path | None


def _collect(fabric: Path, live: Live) -> tuple[str, float]:
    """Collect a new snapshot as `fabriclint collect` would: its path and the seconds taken."""
    from fabriclint.cli.collect import run_collect
    from fabriclint.collectors.base import Timeouts
    from fabriclint.collectors.run import CollectOptions

    options = CollectOptions(
        limit=live.limit,
        workers=live.workers,
        timeouts=Timeouts(connect=10.0, command=live.timeout, device=10.0 + 4 * live.timeout),
        overlay=live.overlay,
        known_hosts=live.known_hosts,
        no_host_key_check=live.insecure,
        ssh_config=live.ssh_config,
    )
    started = time.monotonic()
    result = run_collect(fabric, options)
    return str(result.snapshot), round(time.monotonic() - started, 3)


def summary_line(doc: dict[str, Any], where: Path) -> str:
    """One line for a terminal or a cron mail."""
    s = doc["summary"]
    state = "complete" if s["complete"] else "INCOMPLETE"
    return (
        f"{doc['fabric']}: run {doc['run']['id']}: {s['new']} new, {s['persisting']} persisting, "
        f"{s['resolved']} resolved, {s['open']} open, {s['suppressed']} suppressed; "
        f"{s['devices_ok']}/{s['devices']} devices checked ({state}); report {where}\n"
    )


def _emit(doc: dict[str, Any], where: Path, fmt: NightlyFormat) -> None:
    from fabriclint.nightly.report import markdown

    if fmt is NightlyFormat.JSON:
        import json

        echo(json.dumps(doc, indent=2, sort_keys=True))
    elif fmt is NightlyFormat.MARKDOWN:
        echo(markdown(doc), nl=False)
    else:
        for item in doc["findings"]:
            if item["status"] in ("new", "reopened") and not item["suppressed"]:
                echo(
                    f"new  {item['severity']:<7} {item['rule']:<9} {item['device'] or '-'} "
                    f"{item['object']}: {item['message']}\n     cause: {item['cause']}"
                )
        echo(summary_line(doc, where), nl=False)


def nightly(
    fabric: Path = typer.Argument(..., help="Fabric directory.", metavar="FABRIC"),
    snapshot: str | None = typer.Option(
        None,
        "--snapshot",
        "-s",
        help="Record this existing snapshot (name under FABRIC/snapshots/ or a path) "
        "instead of collecting.",
        metavar="TEXT",
    ),
    history: str | None = typer.Option(
        None,
        "--history",
        help="History database: postgresql://user@host/db, sqlite:///file or a file path "
        "(default FABRIC/.fabriclint/history.sqlite).",
        metavar="URL",
    ),
    report_dir: Path | None = typer.Option(
        None,
        "--report-dir",
        help="Write report.json/report.md/index.html here (default FABRIC/reports/<run>/, "
        "with FABRIC/reports/latest pointing at the newest).",
        metavar="DIR",
    ),
    metrics: Path | None = typer.Option(
        None, "--metrics", help="Prometheus textfile to write (atomically).", metavar="FILE"
    ),
    metrics_per_device: bool = typer.Option(
        False, "--metrics-per-device", help="Also a per-device series in --metrics."
    ),
    fmt: NightlyFormat = typer.Option(
        NightlyFormat.TEXT, "--format", "-f", help="What to print on stdout."
    ),
    fail_on_open: bool = typer.Option(
        False,
        "--fail-on-open/--fail-on-new",
        help="Exit 1 on any open finding, or (default) only on findings new tonight.",
    ),
    fail_on: FailOn | None = typer.Option(
        None, "--fail-on", help="Lowest severity that fails (default: the policy's, or error)."
    ),
    lock_timeout: float = typer.Option(
        60.0,
        "--lock-timeout",
        min=0.0,
        help="Seconds to wait while another run writes the history, then exit 3.",
        metavar="SECONDS",
    ),
    keep_nights: int | None = typer.Option(
        None,
        "--keep-nights",
        min=2,
        help="Keep per-night detail and snapshot folders of the N newest runs; compress older "
        "snapshots to NAME.tar.gz (run counts and finding lives are kept).",
        metavar="N",
    ),
    trend_nights: int = typer.Option(
        30, "--trend-nights", min=1, help="Nights in the HTML trend.", metavar="N"
    ),
    limit: list[str] | None = typer.Option(
        None,
        "--limit",
        "-l",
        help="Collect/check only these devices (as `collect`).",
        metavar="TEXT",
    ),
    workers: int | None = typer.Option(
        None, "--workers", "-w", min=1, help="Collect: devices at once.", metavar="N"
    ),
    timeout: float = typer.Option(
        30.0, "--timeout", min=0.1, help="Collect: seconds per command.", metavar="SECONDS"
    ),
    overlay: Path | None = typer.Option(
        None, "--overlay", help="Collect: inventory overlay.", metavar="PATH"
    ),
    known_hosts: Path | None = typer.Option(
        None, "--known-hosts", help="Collect: known_hosts file.", metavar="PATH"
    ),
    insecure: bool = typer.Option(
        False, "--insecure-no-host-key-check", help="Collect: accept any host key (recorded)."
    ),
    ssh_config: Path | None = typer.Option(
        None, "--ssh-config", help="Collect: OpenSSH config file.", metavar="PATH"
    ),
    offline: bool = typer.Option(
        False,
        "--offline",
        help="A fabric with a live inventory source (inventory-source.yaml): use its cache, "
        "do not read the source.",
    ),
) -> None:
    """Record a night: collect (or --snapshot), check, record in the history, write the
    reports. Exit 0 nothing new fails, 1 findings, 2 input error, 3 incomplete or busy."""
    from fabriclint.cli.inventory import refresh_live

    _refuse_inputs(fabric, snapshot, history, report_dir, metrics)
    refresh_live(fabric, offline)
    live = Live(list(limit or []), workers, timeout, overlay, known_hosts, insecure, ssh_config)
    from fabriclint.nightly.run import NightlyOptions

    opts = NightlyOptions(
        fabric_dir=fabric,
        snapshot=snapshot,
        history=history,
        report_dir=report_dir,
        metrics=metrics,
        judge="open" if fail_on_open else "new",
        fail_on=fail_on.value if fail_on else None,
        lock_timeout=lock_timeout,
        trend_nights=trend_nights,
        per_device_metrics=metrics_per_device,
        keep_nights=keep_nights,
        limit=limit or None,
        deliver=lambda doc, where: _emit(doc, where, fmt),
        # collected only once the history and the metrics target are known usable
        collect=None if snapshot is not None else (lambda: _collect(fabric, live)),
        notice=lambda line: echo(f"nightly: {line}", err=True),
    )
    result = _run(opts)
    for archive in result.compressed:
        echo(f"nightly: compressed an old snapshot into {archive}", err=True)
    for problem in result.problems:
        echo(f"error: {problem}", err=True)
    raise typer.Exit(result.exit_code)


def _refuse_inputs(
    fabric: Path,
    snapshot: str | None,
    history: str | None,
    report_dir: Path | None,
    metrics: Path | None,
) -> None:
    """--metrics and the report files must not replace the fabric's YAML, a snapshot (the
    nights refer to them) or the history: `--metrics FABRIC/intent.yaml` wrote the textfile
    over the intent and exit 0."""
    from fabriclint.cli.history import _sqlite_file
    from fabriclint.cli.targets import FABRIC_FILES, refuse_inputs, snapshot_folder

    database = _sqlite_file(fabric, history)
    kept = [fabric / name for name in FABRIC_FILES]
    if database is not None and database.name:
        kept += [
            database.with_name(database.name + end) for end in ("", "-wal", "-shm", "-journal")
        ]
    folders = [fabric / "snapshots"]
    if snapshot is not None:
        folders.append(snapshot_folder(fabric, snapshot))
    targets: list[tuple[str, Path | None]] = [("--metrics", metrics)]
    if report_dir is not None:
        targets += [
            ("--report-dir", report_dir / n) for n in ("report.json", "report.md", "index.html")
        ]
    refuse_inputs(targets, kept, folders, "a file of the fabric, its snapshots or its history")


def _run(opts: Any) -> Any:
    """run_nightly with its input errors as exit 2 and a busy history as exit 3."""
    from fabriclint.engine import UsageError
    from fabriclint.history.store import HistoryBusy, HistoryError, HistoryUnwritable
    from fabriclint.loaders.fabric import FabricError
    from fabriclint.nightly.run import MetricsTargetError, NotRecorded, run_nightly
    from fabriclint.snapshot import SnapshotError

    try:
        return run_nightly(opts)
    except FabricError as exc:
        raise fail(exc.problems) from None
    except (HistoryBusy, HistoryUnwritable, NotRecorded) as exc:
        echo(f"error: {exc}", err=True)
        raise typer.Exit(INCOMPLETE_EXIT) from None
    except (SnapshotError, UsageError, HistoryError, MetricsTargetError) as exc:
        raise fail([str(exc)]) from None
    except OSError as exc:
        if undelivered(exc):  # stdout refused the report (the night rolled back): main says so
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        raise fail([f"{where}{exc.strerror or exc}"]) from None
