"""`fabriclint history`: the runs recorded by `fabriclint nightly`, one finding's life, and the
findings open longer than N nights. Exit 0, 2 on a bad URL, a history file that is not there
(it is never created by reading) or an unknown fingerprint."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Any

import typer

from fabriclint.cli.errors import echo, fail


class HistoryFormat(StrEnum):
    """Output formats."""

    MARKDOWN = "markdown"
    JSON = "json"


def _cell(value: Any) -> str:
    return " ".join(str("—" if value is None else value).split()).replace("|", "\\|")


def _table(head: list[str], rows: list[dict[str, Any]]) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(_cell(r.get(h)) for h in head) + " |" for r in rows]
    return "\n".join(out) + "\n"


def _runs_md(rows: list[dict[str, Any]]) -> str:
    head = ["id", "started_at", "snapshot", "complete", "exit_code", "new", "persisting"]
    head += ["resolved", "open_error", "open_warning", "open_info", "suppressed"]
    return f"### Runs ({len(rows)})\n\n" + _table(head, rows)


def _life_md(life: dict[str, Any]) -> str:
    head = ["rule", "severity", "device", "object", "state", "first_seen_at", "last_seen_at"]
    head += ["nights_open", "resolved_at", "reopened", "suppressed", "cause"]
    nights = _table(["id", "started_at", "snapshot", "status"], life["nights"])
    return f"### Finding {life['fingerprint']}\n\n{_table(head, [life])}\n{life['message']}\n\n{nights}"


def _old_md(rows: list[dict[str, Any]], nights: int) -> str:
    head = ["fingerprint", "rule", "severity", "device", "object", "nights_open", "first_seen_at"]
    return f"### Open longer than {nights} night(s) ({len(rows)})\n\n" + _table(head, rows)


def _fabric_name(fabric: Path) -> str:
    """The inventory's name: what the history is keyed by (one database may hold several)."""
    from fabriclint.engine import option_models
    from fabriclint.loaders.fabric import FabricError, load_fabric

    try:
        return load_fabric(fabric, option_models()).inventory.name
    except FabricError as exc:
        raise fail(exc.problems) from None


def _sqlite_file(fabric: Path, given: str | None) -> Path | None:
    """The SQLite file a --history value names (None for a server URL)."""
    from fabriclint.history.store import DEFAULT_FILE

    if given is None:
        return fabric / DEFAULT_FILE
    if "://" not in given:
        return Path(given)
    return Path(given.removeprefix("sqlite:///")) if given.startswith("sqlite:///") else None


def _require_history(fabric: Path, given: str | None) -> None:
    """Reading must not create: a mistyped --history (or a fabric never recorded) listed
    "Runs (0)" and left a new empty database behind."""
    path = _sqlite_file(fabric, given)
    if path is not None and not path.exists():
        raise fail([f"{path}: no history there (`fabriclint nightly` records the nights)"])


def history(
    fabric: Path = typer.Argument(..., help="Fabric directory.", metavar="FABRIC"),
    history_url: str | None = typer.Option(
        None,
        "--history",
        help="History database URL or file (default FABRIC/.fabriclint/history.sqlite).",
        metavar="URL",
    ),
    finding: str | None = typer.Option(
        None,
        "--finding",
        help="Show this finding's life (a fingerprint or a prefix of 8+).",
        metavar="FINGERPRINT",
    ),
    open_longer: int | None = typer.Option(
        None, "--open-longer-than", min=0, help="Findings open more than N nights.", metavar="N"
    ),
    last: int = typer.Option(30, "--last", min=1, help="Runs to list.", metavar="N"),
    fmt: HistoryFormat = typer.Option(HistoryFormat.MARKDOWN, "--format", "-f", help="Format."),
) -> None:
    """List recorded nightly runs, one finding's life, or old open findings."""
    from fabriclint.history import queries
    from fabriclint.history.store import HistoryError, open_store
    from fabriclint.history.store import history_url as url_of

    if finding is not None and open_longer is not None:  # one of them was silently ignored
        raise fail(["--finding and --open-longer-than are exclusive: pass one of them"])
    if finding is not None and len(finding) < 8:
        raise fail(["--finding: give at least 8 characters of the fingerprint"])
    name = _fabric_name(fabric)
    _require_history(fabric, history_url)
    try:
        store = open_store(url_of(fabric, history_url), 10.0)
        with store.transaction() as conn:
            if finding is not None:
                data: Any = queries.finding_life(conn, finding.lower())
                if data is None:
                    count = queries.matching(conn, finding.lower())
                    raise fail([f"--finding {finding}: {count} findings match; give more of it"])
                text = _life_md(data)
            elif open_longer is not None:
                data = queries.open_longer_than(conn, name, open_longer)
                text = _old_md(data, open_longer)
            else:
                data = queries.list_runs(conn, name, last)
                text = _runs_md(data)
        store.dispose()
    except HistoryError as exc:
        raise fail([str(exc)]) from None
    echo(
        json.dumps(data, indent=2, sort_keys=True) if fmt is HistoryFormat.JSON else text,
        nl=fmt is HistoryFormat.JSON,
    )
