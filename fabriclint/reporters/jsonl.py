"""JSON Lines: one record per line, each with a `record` key: `finding` (the Finding JSON),
`coverage` (a rule not evaluated everywhere and the input it lacked), `device` (one per device
that was not checked, with its status), `internal-error`, and a last `summary` record.

Filter with `jq 'select(.record == "finding")'`; a consumer that reads only findings still
sees, in the other records, that the result is incomplete (also in the exit code, 3).
"""

from __future__ import annotations

import json
from typing import Any

from fabriclint.models.finding import Report
from fabriclint.reporters import unchecked


def _line(record: str, body: dict[str, Any]) -> str:
    return json.dumps({"record": record, **body}, ensure_ascii=False) + "\n"


def render(report: Report) -> str:
    """Findings in report order, then coverage, unchecked devices, internal errors, summary."""
    lines = [_line("finding", f.model_dump(mode="json")) for f in report.findings]
    lines += [_line("coverage", gap.model_dump(mode="json")) for gap in report.coverage]
    lines += [_line("device", d.model_dump(mode="json")) for d in unchecked(report)]
    lines += [_line("internal-error", {"message": text}) for text in report.internal_errors]
    summary = {"fabric": report.fabric, "snapshot": report.snapshot}
    lines.append(_line("summary", {**summary, **report.summary.model_dump(mode="json")}))
    return "".join(lines)
