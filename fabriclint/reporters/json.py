"""The JSON report of docs/architecture.md (stable; other formats are views of it)."""

from __future__ import annotations

from fabriclint.models.finding import Report


def render(report: Report) -> str:
    """Serialize the report as indented JSON with a trailing newline."""
    return report.model_dump_json(indent=2) + "\n"
