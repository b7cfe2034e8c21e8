"""GitLab Code Quality: the JSON array `artifacts:reports:codequality` reads, one issue a finding.

Each issue has `description`, `check_name` (`RULE name`), `fingerprint` (the finding's, so GitLab
matches an issue across pipelines when lines move), `severity` (error -> critical, warning ->
minor, info -> info) and `location` (`path`, `lines.begin`). Suppressed findings are left out
(they are accepted). A finding without a file points at the anchor (the fabric's inventory.yaml),
line 1; a device that could not be checked and an internal error are `blocker` issues there, so an
incomplete check is never an empty report.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from fabriclint.models.finding import Finding, Report
from fabriclint.reporters import unchecked, why

SEVERITY = {"error": "critical", "warning": "minor", "info": "info"}


def _issue(finding: Finding, anchor: str) -> dict[str, Any]:
    source = finding.source
    path = (source.file if source else anchor).replace("\\", "/")
    line = source.line if source and source.line else 1
    where = f"{finding.device} {finding.object}" if finding.device else finding.object
    return {
        "description": f"{where}: {finding.message}",
        "check_name": f"{finding.rule} {finding.name}",
        "fingerprint": finding.fingerprint,
        "severity": SEVERITY[finding.severity],
        "location": {"path": path, "lines": {"begin": line}},
    }


def _blocker(what: str, message: str, anchor: str) -> dict[str, Any]:
    return {
        "description": message,
        "check_name": f"fabriclint {what}",
        "fingerprint": hashlib.sha256(f"{what}|{message}".encode()).hexdigest(),
        "severity": "blocker",
        "location": {"path": anchor, "lines": {"begin": 1}},
    }


def render(report: Report, anchor: str | None = None) -> str:
    """The Code Quality report, findings in report order, then what made the check incomplete."""
    where = (anchor or "inventory.yaml").replace("\\", "/")
    issues = [_issue(f, where) for f in report.findings if f.suppressed is None]
    issues += [
        _blocker("incomplete", f"{d.name} was not checked: {why(d)}", where)
        for d in unchecked(report)
    ]
    issues += [_blocker("internal-error", text, where) for text in report.internal_errors]
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"
