"""The Prometheus textfile for node_exporter's textfile collector, written atomically.

Labels are bounded: severity (3), rule (the catalog), role (the inventory's roles) and device
status (a fixed set); a per-device series only with `--metrics-per-device`.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Any

PREFIX = "fabriclint_nightly"


def _label(value: Any) -> str:
    return str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _series(
    name: str, help_text: str, kind: str, rows: list[tuple[dict[str, Any], float]]
) -> list[str]:
    out = [f"# HELP {PREFIX}_{name} {help_text}", f"# TYPE {PREFIX}_{name} {kind}"]
    for labels, value in rows:
        inner = ",".join(f'{k}="{_label(v)}"' for k, v in sorted(labels.items()))
        out.append(
            f"{PREFIX}_{name}{{{inner}}} {_number(value)}"
            if inner
            else f"{PREFIX}_{name} {_number(value)}"
        )
    return out


def _age_seconds(doc: dict[str, Any]) -> float:
    now = dt.datetime.fromisoformat(doc["run"]["started_at"].replace("Z", "+00:00"))
    ages = [
        (now - dt.datetime.fromisoformat(i["first_seen_at"].replace("Z", "+00:00"))).total_seconds()
        for i in doc["findings"]
        if not i["suppressed"]
    ]
    return max(ages, default=0.0)


def render(doc: dict[str, Any], per_device: bool = False) -> str:
    """The textfile's content."""
    s, items = doc["summary"], [i for i in doc["findings"] if not i["suppressed"]]
    grouped = Counter((i["severity"], i["rule"], i["role"] or "") for i in items)
    statuses = Counter(d["status"] for d in doc["devices"] if d["status"] != "ok")
    lines: list[str] = []
    lines += _series(
        "open_findings",
        "Open findings (not suppressed).",
        "gauge",
        [
            ({"severity": sev, "rule": rule, "role": role}, n)
            for (sev, rule, role), n in sorted(grouped.items())
        ],
    )
    lines += _series(
        "open_findings_by_severity",
        "Open findings (not suppressed) per severity.",
        "gauge",
        [({"severity": sev}, n) for sev, n in s["open_by_severity"].items()],
    )
    lines += _series(
        "new_findings",
        "Findings new tonight.",
        "gauge",
        [({"severity": sev}, n) for sev, n in s["new_by_severity"].items()],
    )
    lines += _series(
        "resolved_findings",
        "Findings resolved tonight.",
        "gauge",
        [({"severity": sev}, n) for sev, n in s["resolved_by_severity"].items()],
    )
    lines += _series(
        "oldest_open_finding_age_seconds",
        "Age of the oldest open finding.",
        "gauge",
        [({}, _age_seconds(doc))],
    )
    lines += _series(
        "devices_incomplete",
        "Devices not checked tonight, by status.",
        "gauge",
        [({"status": st}, n) for st, n in sorted(statuses.items())],
    )
    lines += _series(
        "complete", "1 when every device was checked.", "gauge", [({}, int(s["complete"]))]
    )
    lines += _series(
        "check_duration_seconds",
        "Time to check the snapshot.",
        "gauge",
        [({}, doc["run"]["check_seconds"])],
    )
    if doc["run"]["collect_seconds"] is not None:
        lines += _series(
            "collect_duration_seconds",
            "Time to collect the snapshot.",
            "gauge",
            [({}, doc["run"]["collect_seconds"])],
        )
    started = dt.datetime.fromisoformat(doc["run"]["started_at"].replace("Z", "+00:00"))
    lines += _series(
        "last_run_timestamp_seconds",
        "When the last nightly run started.",
        "gauge",
        [({}, started.timestamp())],
    )
    if per_device:
        per = Counter(i["device"] or "" for i in items)
        lines += _series(
            "device_open_findings",
            "Open findings per device.",
            "gauge",
            [({"device": d}, n) for d, n in sorted(per.items())],
        )
    return "\n".join(lines) + "\n"
