"""Human text report: causes grouped by device, each with its consequences folded under it,
severity first, with locations, what was not checked, and a summary line.

A finding another finding explains (its `cause`) is not repeated: it is named on a
`+N consequences:` line under its cause. Suppressed findings are counted, not listed, unless
asked for (`show_suppressed`); `quiet` keeps only the causes that fail the run and the summary.
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass
from itertools import groupby

from rich.console import Console
from rich.text import Text

from fabriclint.models.finding import SEVERITY_RANK, Finding, Report
from fabriclint.models.policy import Severity
from fabriclint.reporters import gap_text

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
_SHOWN_CONSEQUENCES = 6


@dataclass(frozen=True)
class TextOptions:
    """How much the text report shows."""

    color: bool = False
    quiet: bool = False
    """Only the causes at or above `fail_on`, unchecked devices, internal errors, the summary."""
    show_suppressed: bool = False
    """List suppressed findings (by default they are counted)."""
    fail_on: Severity = "error"


def _consequence_names(items: list[Finding], device: str | None) -> str:
    names = [
        f"{f.rule} {f.object}" if f.device == device else f"{f.device} {f.rule} {f.object}"
        for f in items
    ]
    counted = Counter(names)
    shown = [f"{n} (x{c})" if c > 1 else n for n, c in counted.items()]
    more = len(shown) - _SHOWN_CONSEQUENCES
    return ", ".join(shown[:_SHOWN_CONSEQUENCES]) + (f" and {more} more" if more > 0 else "")


def _line(finding: Finding, consequences: list[Finding]) -> Text:
    text = Text("  ")
    text.append(f"{finding.severity:<7}", style=_STYLE[finding.severity])
    text.append(f" {finding.rule:<8} ", style="bold")
    text.append(f"{finding.object}: {finding.message}")
    if finding.source is not None:
        text.append(f"\n{'':20}at {finding.source}", style="dim")
    if finding.suppressed is not None:
        text.append(f"  [suppressed: {finding.suppressed}]", style="dim")
    if finding.fix and finding.suppressed is None:
        lines = finding.fix.splitlines()
        text.append(f"\n{'':20}fix: {lines[0]}", style="green")
        for line in lines[1:]:
            text.append(f"\n{'':25}{line}", style="green")
    if consequences:
        names = _consequence_names(consequences, finding.device)
        text.append(f"\n{'':20}+{len(consequences)} consequence(s): {names}", style="dim")
    return text


def _summary(report: Report) -> Text:
    counts = report.summary.findings
    checked = sum(1 for d in report.devices if d.status == "ok")
    state = "complete" if report.summary.complete else "INCOMPLETE"
    where = f" ({report.snapshot})" if report.snapshot else ""
    text = Text(
        f"{report.fabric}{where}: {checked}/{report.summary.devices} devices checked ({state}); "
        f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info"
    )
    causes = sum(1 for f in report.findings if f.suppressed is None and f.is_cause)
    active = sum(1 for f in report.findings if f.suppressed is None)
    if active:
        text.append(f" from {causes} cause(s)")
    if report.summary.suppressed:
        text.append(f", {report.summary.suppressed} suppressed")
    return text


def consequences_of(report: Report) -> dict[str, list[Finding]]:
    """Cause fingerprint -> the findings it explains (not itself)."""
    out: dict[str, list[Finding]] = {}
    for finding in report.findings:
        if not finding.is_cause:
            out.setdefault(finding.cause, []).append(finding)
    return out


def _shown(report: Report, opts: TextOptions) -> list[Finding]:
    """Causes (quiet: those whose group fails the run), and suppressed findings when asked."""
    worst: dict[str, int] = {}
    for f in report.findings:
        if f.suppressed is None:
            worst[f.cause] = max(worst.get(f.cause, 0), SEVERITY_RANK[f.severity])
    threshold = SEVERITY_RANK[opts.fail_on]
    keep = []
    for f in report.findings:
        if f.suppressed is not None:
            if opts.show_suppressed and not opts.quiet:
                keep.append(f)
        elif f.is_cause and (not opts.quiet or worst[f.fingerprint] >= threshold):
            keep.append(f)
    return keep


def _findings(console: Console, report: Report, opts: TextOptions) -> None:
    folded = consequences_of(report)
    for device, items in groupby(_shown(report, opts), key=lambda f: f.device or "(fabric)"):
        console.print(Text(device, style="bold underline"))
        for finding in items:
            console.print(_line(finding, folded.get(finding.fingerprint, [])))


def _gaps(console: Console, report: Report, opts: TextOptions) -> None:
    for dev in report.devices:
        if dev.status == "not-checked" and not opts.quiet:
            console.print(Text(f"not checked: {dev.name}: {dev.error}", style="dim"))
        elif dev.status not in ("ok", "not-checked"):
            console.print(
                Text(f"not checked: {dev.name}: {dev.status}: {dev.error}", style="bold red")
            )
    if opts.quiet and report.coverage:
        console.print(Text(f"coverage: {len(report.coverage)} rule gap(s)", style="dim"))
    elif not opts.quiet:
        for gap in report.coverage:
            console.print(Text(f"coverage: {gap_text(gap)}", style="dim"))
    for failure in report.internal_errors:
        console.print(Text(f"internal error: {failure}", style="bold red"))
    hidden = report.summary.suppressed if not opts.show_suppressed or opts.quiet else 0
    if hidden and not opts.quiet:
        console.print(
            Text(f"{hidden} suppressed finding(s) not listed (--show-suppressed)", style="dim")
        )


def render(report: Report, color: bool = False, options: TextOptions | None = None) -> str:
    """Render the report for a terminal (color) or a log (plain)."""
    opts = options or TextOptions(color=color)
    buffer = io.StringIO()
    console = Console(
        file=buffer, force_terminal=opts.color, no_color=not opts.color, width=120, soft_wrap=True
    )
    _findings(console, report, opts)
    _gaps(console, report, opts)
    console.print(_summary(report))
    return buffer.getvalue()


def statistics(report: Report) -> str:
    """Counts by rule (findings, and how many of them are causes), then every cause with the
    number of findings it explains, like `ruff --statistics`."""
    active = [f for f in report.findings if f.suppressed is None]
    by_rule: dict[str, list[Finding]] = {}
    for f in active:
        by_rule.setdefault(f.rule, []).append(f)
    lines = [f"{'findings':>8} {'causes':>6}  rule      name"]
    for rule, items in sorted(by_rule.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        causes = sum(1 for f in items if f.is_cause)
        lines.append(f"{len(items):>8} {causes:>6}  {rule:<9} {items[0].name}")
    folded = consequences_of(report)
    roots = [f for f in active if f.is_cause]
    lines.append(f"{len(active)} finding(s) from {len(roots)} cause(s):")
    for f in roots:
        extra = len(folded.get(f.fingerprint, []))
        more = f" (+{extra} consequence(s))" if extra else ""
        lines.append(f"  {f.rule:<9} {f.device or '(fabric)'} {f.object}{more}")
    return "\n".join(lines) + "\n"
