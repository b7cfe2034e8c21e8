"""Human text report: findings grouped by device, severity first, with locations and a summary."""

from __future__ import annotations

import io
from itertools import groupby

from rich.console import Console
from rich.text import Text

from fabriclint.models.finding import Finding, Report
from fabriclint.reporters import gap_text

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def _line(finding: Finding) -> Text:
    text = Text("  ")
    text.append(f"{finding.severity:<7}", style=_STYLE[finding.severity])
    text.append(f" {finding.rule:<8} ", style="bold")
    text.append(f"{finding.object}: {finding.message}")
    if finding.source is not None:
        text.append(f"\n{'':20}at {finding.source}", style="dim")
    if finding.suppressed is not None:
        text.append(f"  [suppressed: {finding.suppressed}]", style="dim")
    return text


def _summary(report: Report) -> Text:
    counts = report.summary.findings
    checked = sum(1 for d in report.devices if d.status == "ok")
    state = "complete" if report.summary.complete else "INCOMPLETE"
    text = Text(
        f"{report.fabric}: {checked}/{report.summary.devices} devices checked ({state}); "
        f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info"
    )
    if report.summary.suppressed:
        text.append(f", {report.summary.suppressed} suppressed")
    return text


def render(report: Report, color: bool = False) -> str:
    """Render the report for a terminal (color) or a log (plain)."""
    buffer = io.StringIO()
    console = Console(
        file=buffer, force_terminal=color, no_color=not color, width=120, soft_wrap=True
    )
    for device, items in groupby(report.findings, key=lambda f: f.device or "(fabric)"):
        console.print(Text(device, style="bold underline"))
        for finding in items:
            console.print(_line(finding))
    for dev in report.devices:
        if dev.status == "not-checked":
            console.print(Text(f"not checked: {dev.name}: {dev.error}", style="dim"))
        elif dev.status != "ok":
            console.print(
                Text(f"not checked: {dev.name}: {dev.status}: {dev.error}", style="bold red")
            )
    for gap in report.coverage:
        console.print(Text(f"coverage: {gap_text(gap)}", style="dim"))
    for failure in report.internal_errors:
        console.print(Text(f"internal error: {failure}", style="bold red"))
    console.print(_summary(report))
    return buffer.getvalue()
