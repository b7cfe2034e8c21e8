"""The night's report document (report.json) and its Markdown view; `write_reports` writes
report.json, report.md and index.html into the report folder, staged with the night's other
files and published together (delivery.py).

`summary` carries integer `new`, `persisting`, `resolved` and `open` counts (the CLI contract);
suppressed findings are counted apart and never in those four.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from fabriclint import __version__
from fabriclint.engine import CheckResult
from fabriclint.history.record import Entry, Night, Recorded, open_by_severity
from fabriclint.models.finding import SEVERITY_RANK
from fabriclint.nightly.delivery import Staged

SEVERITIES = ("error", "warning", "info")
SHOWN_PERSISTING = 50
SHOWN_NEW = 200
"""Rows of the Markdown tables (a chat message or PR comment has a size limit); the rest are
counted, and all are in report.json and index.html."""


def family(rule: str) -> str:
    """The rule family: the letters of the code (PFC002 -> PFC, DRIFT001 -> DRIFT)."""
    match = re.match(r"[A-Z]+", rule)
    return match.group(0) if match else rule


def _by_severity(entries: list[Entry]) -> dict[str, int]:
    counts = dict.fromkeys(SEVERITIES, 0)
    for entry in entries:
        counts[entry.row["severity"]] += 1
    return counts


def _entry(entry: Entry, roles: dict[str, str | None]) -> dict[str, Any]:
    row, finding = entry.row, entry.finding
    return {
        "fingerprint": row["fingerprint"],
        "status": entry.status,
        "rule": row["rule"],
        "family": family(row["rule"]),
        "severity": row["severity"],
        "device": row["device"],
        "role": roles.get(row["device"] or ""),
        "object": row["object"],
        "message": row["message"],
        "nights_open": row["nights_open"],
        "first_seen_at": row["first_seen_at"],
        "resolved_at": row.get("resolved_at"),
        "reopened": row["reopened"],
        "cause": row.get("cause"),
        "root": finding.cause if finding is not None else None,
        "suppressed": row.get("suppressed"),
        "source": str(finding.source) if finding is not None and finding.source else None,
    }


def _heatmap(devices: list[dict[str, Any]], open_items: list[dict[str, Any]]) -> dict[str, Any]:
    """Devices grouped by role, each with its worst open severity per rule family."""
    families = sorted({item["family"] for item in open_items})
    cells: dict[str, dict[str, str]] = {}
    for item in open_items:
        row = cells.setdefault(item["device"] or "(fabric)", {})
        current = row.get(item["family"])
        if current is None or SEVERITY_RANK[item["severity"]] > SEVERITY_RANK[current]:
            row[item["family"]] = item["severity"]
    groups: dict[str, list[dict[str, Any]]] = {}
    for device in devices:
        row = cells.get(device["name"], {})
        worst = max(row.values(), key=SEVERITY_RANK.__getitem__, default=None)
        groups.setdefault(device["role"] or "(no role)", []).append(
            {"name": device["name"], "status": device["status"], "worst": worst, "cells": row}
        )
    roles = [{"role": role, "devices": groups[role]} for role in sorted(groups)]
    return {"families": families, "roles": roles}


def build(
    night: Night, done: Recorded, checked: CheckResult, trend: list[dict[str, Any]], code: int
) -> dict[str, Any]:
    """The report.json document."""
    roles = {d.name: d.role for d in night.devices}
    devices = [d.model_dump() for d in night.devices]
    items = [_entry(e, roles) for e in done.entries if e.status not in ("resolved", "moved")]
    open_items = [i for i in items if not i["suppressed"]]
    new = done.of("new", "reopened")
    summary = {
        "new": len(new),
        "persisting": len(done.of("persisting")),
        "resolved": len(done.of("resolved")),
        "open": len(open_items),
        "carried": len(done.of("carried")),
        "suppressed": len(items) - len(open_items),
        "new_by_severity": _by_severity(new),
        "resolved_by_severity": _by_severity(done.of("resolved")),
        "open_by_severity": open_by_severity(done),
        "devices": len(devices),
        "devices_ok": sum(d["status"] == "ok" for d in devices),
        "complete": night.complete,
    }
    return {
        "fabriclint": __version__,
        "fabric": night.fabric,
        "run": {
            "id": done.run_id,
            "started_at": night.started_at,
            "snapshot": night.snapshot,
            "previous_run": done.previous["id"] if done.previous else None,
            "check_seconds": night.check_seconds,
            "collect_seconds": night.collect_seconds,
            "exit_code": code,
        },
        "summary": summary,
        "devices": devices,
        "findings": sorted(items, key=_order),
        "resolved": [_entry(e, roles) for e in done.of("resolved")],
        "coverage": [gap.model_dump() for gap in checked.report.coverage],
        "internal_errors": list(checked.report.internal_errors),
        "heatmap": _heatmap(devices, open_items),
        "trend": trend,
    }


_STATUS_ORDER = {"new": 0, "reopened": 0, "persisting": 1, "carried": 2}


def _order(item: dict[str, Any]) -> tuple[int, int, str, str]:
    return (
        _STATUS_ORDER[item["status"]],
        -SEVERITY_RANK[item["severity"]],
        item["device"] or "",
        item["rule"],
    )


def _cell(value: Any) -> str:
    text = " ".join(str(value if value is not None else "—").split())
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def markdown(doc: dict[str, Any]) -> str:
    """The morning report for a chat, an email or a PR."""
    s = doc["summary"]
    out = [
        f"## fabriclint nightly: {doc['fabric']}, run {doc['run']['id']} "
        f"({doc['run']['started_at']}, snapshot `{doc['run']['snapshot']}`)",
        "",
        f"**{s['new']} new**, {s['persisting']} persisting, {s['resolved']} resolved, "
        f"{s['open']} open ({s['suppressed']} suppressed); devices {s['devices_ok']}/"
        f"{s['devices']} checked ({'complete' if s['complete'] else 'INCOMPLETE'}).",
        "",
        "| | error | warning | info |",
        "|---|---|---|---|",
    ]
    for label, key in (("new", "new_by_severity"), ("open", "open_by_severity")):
        out.append(f"| {label} | " + " | ".join(str(s[key][v]) for v in SEVERITIES) + " |")
    out.append(
        "| resolved | " + " | ".join(str(s["resolved_by_severity"][v]) for v in SEVERITIES) + " |"
    )
    new = [i for i in doc["findings"] if i["status"] in ("new", "reopened")]
    out += _table("New tonight", new, SHOWN_NEW)
    persisting = [i for i in doc["findings"] if i["status"] in ("persisting", "carried")]
    persisting.sort(key=lambda i: -i["nights_open"])
    out += _table("Still open (oldest first)", persisting, SHOWN_PERSISTING)
    out += _table("Resolved tonight", doc["resolved"], SHOWN_NEW)
    out += _incomplete(doc)
    return "\n".join(out) + "\n"


def _table(title: str, items: list[dict[str, Any]], shown: int) -> list[str]:
    if not items:
        return []
    out = ["", f"### {title} ({len(items)})", ""]
    out += ["| severity | rule | device | object | nights | cause |", "|---|---|---|---|---|---|"]
    for i in items[:shown]:
        cells = [i["severity"], i["rule"], i["device"], i["object"], i["nights_open"], i["cause"]]
        out.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    if len(items) > shown:
        out += ["", f"… and {len(items) - shown} more (report.json, index.html)."]
    return out


def _incomplete(doc: dict[str, Any]) -> list[str]:
    bad = [d for d in doc["devices"] if d["status"] != "ok"]
    out = []
    if bad:
        out += ["", f"### Not checked ({len(bad)})", ""]
        out += [f"- {_cell(d['name'])}: {_cell(d['status'])}: {_cell(d['error'])}" for d in bad]
    if doc["coverage"]:
        out += ["", "### Coverage gaps", ""]
        for gap in doc["coverage"]:
            out.append(
                f"- {gap['rule']}: needs {_cell(gap['missing'])} on {len(gap['devices'])} device(s)"
            )
    return out


def write_reports(target: Path, doc: dict[str, Any], staged: Staged) -> None:
    """Stage report.json, report.md and index.html in `target` (published with the night's
    other files, see delivery.py)."""
    from fabriclint.nightly.html import page

    staged.file(target / "report.json", json.dumps(doc, indent=2, sort_keys=True) + "\n")
    staged.file(target / "report.md", markdown(doc))
    staged.file(target / "index.html", page(doc))
