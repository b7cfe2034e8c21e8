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
from typing import TYPE_CHECKING

from fabriclint.models.finding import SEVERITY_RANK, Finding, Report
from fabriclint.models.policy import Severity
from fabriclint.reporters import gap_text

if TYPE_CHECKING:
    from rich.text import Text

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
_SHOWN_CONSEQUENCES = 6

Piece = tuple[str, str]
"""Some text and its rich style ("" for none)."""
Line = list[Piece]
"""One printed item of the report (it may hold newlines)."""

_STRIPPED = dict.fromkeys((7, 8, 11, 12, 13))
"""The control characters rich removes from a Text (bell, backspace, vertical tab, form feed,
carriage return: rich.control.STRIP_CONTROL_CODES); the plain path removes the same."""

_CONTROLS = [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]
_BIDI = [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]
VISIBLE: dict[int, str] = {
    **{c: f"\\x{c:02x}" for c in _CONTROLS},
    **{c: f"\\u{c:04x}" for c in _BIDI},
}
"""Device text and names are untrusted: an ESC would reach the terminal raw (rich passes it
through), a C1 control is one on some terminals, a bidi override reorders what is shown
("Trojan Source", CVE-2021-42574). Each is spelled out instead (`\\x1b`, `\\u202e`); tab and
newline are the report's own layout."""
_SAFE = {**VISIBLE, **_STRIPPED}
"""What the text report does to every piece: rich's dropped controls dropped, the rest shown."""


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


def _line(finding: Finding, consequences: list[Finding]) -> Line:
    line: Line = [("  ", "")]
    line.append((f"{finding.severity:<7}", _STYLE[finding.severity]))
    line.append((f" {finding.rule:<8} ", "bold"))
    line.append((f"{finding.object}: {finding.message}", ""))
    if finding.source is not None:
        line.append((f"\n{'':20}at {finding.source}", "dim"))
    if finding.suppressed is not None:
        line.append((f"  [suppressed: {finding.suppressed}]", "dim"))
    if finding.fix and finding.suppressed is None:
        lines = finding.fix.splitlines()
        line.append((f"\n{'':20}fix: {lines[0]}", "green"))
        for more in lines[1:]:
            line.append((f"\n{'':25}{more}", "green"))
    if consequences:
        names = _consequence_names(consequences, finding.device)
        line.append((f"\n{'':20}+{len(consequences)} consequence(s): {names}", "dim"))
    return line


def _summary(report: Report) -> Line:
    counts = report.summary.findings
    checked = sum(1 for d in report.devices if d.status == "ok")
    state = "complete" if report.summary.complete else "INCOMPLETE"
    where = f" ({report.snapshot})" if report.snapshot else ""
    line: Line = [
        (
            f"{report.fabric}{where}: {checked}/{report.summary.devices} devices checked "
            f"({state}); {counts['error']} error(s), {counts['warning']} warning(s), "
            f"{counts['info']} info",
            "",
        )
    ]
    causes = sum(1 for f in report.findings if f.suppressed is None and f.is_cause)
    active = sum(1 for f in report.findings if f.suppressed is None)
    if active:
        line.append((f" from {causes} cause(s)", ""))
    if report.summary.suppressed:
        line.append((f", {report.summary.suppressed} suppressed", ""))
    return line


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


def _findings(report: Report, opts: TextOptions) -> list[Line]:
    folded = consequences_of(report)
    out: list[Line] = []
    for device, items in groupby(_shown(report, opts), key=lambda f: f.device or "(fabric)"):
        out.append([(device, "bold underline")])
        out.extend(_line(finding, folded.get(finding.fingerprint, [])) for finding in items)
    return out


def _gaps(report: Report, opts: TextOptions) -> list[Line]:
    out: list[Line] = []
    for dev in report.devices:
        if dev.status == "not-checked" and not opts.quiet:
            out.append([(f"not checked: {dev.name}: {dev.error}", "dim")])
        elif dev.status not in ("ok", "not-checked"):
            out.append([(f"not checked: {dev.name}: {dev.status}: {dev.error}", "bold red")])
    if opts.quiet and report.coverage:
        out.append([(f"coverage: {len(report.coverage)} rule gap(s)", "dim")])
    elif not opts.quiet:
        out.extend([(f"coverage: {gap_text(gap)}", "dim")] for gap in report.coverage)
    out.extend([(f"internal error: {failure}", "bold red")] for failure in report.internal_errors)
    hidden = report.summary.suppressed if not opts.show_suppressed or opts.quiet else 0
    if hidden and not opts.quiet:
        out.append([(f"{hidden} suppressed finding(s) not listed (--show-suppressed)", "dim")])
    return out


def _lines(report: Report, opts: TextOptions) -> list[Line]:
    """Every printed item of the report, in order, its control characters made harmless."""
    lines = [*_findings(report, opts), *_gaps(report, opts), _summary(report)]
    return [[(text.translate(_SAFE), style) for text, style in line] for line in lines]


def render(report: Report, color: bool = False, options: TextOptions | None = None) -> str:
    """Render the report for a terminal (color) or a log (plain).

    Plain text is joined here, as rich prints it with color off (importing rich costs ~0.06 s,
    a tenth of a small check); rich renders color, and any tab (it expands a tab by the
    terminal width of the characters before it).
    """
    opts = options or TextOptions(color=color)
    lines = _lines(report, opts)
    if opts.color or any("\t" in text for line in lines for text, _ in line):
        return _rich(lines, opts.color)
    return "".join("".join(text for text, _ in line) + "\n" for line in lines)


def render_rich(report: Report, options: TextOptions) -> str:
    """The report as rich renders it, color or not (`render` gives the same without color)."""
    return _rich(_lines(report, options), options.color)


def _rich(lines: list[Line], color: bool) -> str:
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(
        file=buffer, force_terminal=color, no_color=not color, width=120, soft_wrap=True
    )
    for line in lines:
        console.print(_text(line))
    return buffer.getvalue()


def _text(line: Line) -> Text:
    """A line as a rich Text: its first piece's text and style, the others appended."""
    from rich.text import Text

    (first, style), *rest = line
    text = Text(first, style=style)
    for piece, piece_style in rest:
        text.append(piece, style=piece_style or None)
    return text


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
    return "\n".join(lines).translate(_SAFE) + "\n"
