"""JSON Lines: one finding per line, the Finding JSON of DESIGN.md, and nothing else.

Every line has the same shape, so `jq`, log shippers and warehouse loaders need no special
case; the summary and device list live in the JSON report, completeness in the exit code
(3), and a device nobody could read is itself a finding (DRIFT003/PARSE003).
"""

from __future__ import annotations

from fabriclint.models.finding import Report


def render(report: Report) -> str:
    """One compact JSON object per finding, in report order; an empty string for no findings."""
    return "".join(finding.model_dump_json() + "\n" for finding in report.findings)
