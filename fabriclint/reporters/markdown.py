"""Markdown for a pull-request comment: a summary table, then causes by severity and device,
each with the findings it explains folded into its row ("+4 consequence(s): ...").

A severity section with more than COLLAPSE_AFTER findings shows each device's table in a
collapsed `<details>`; suppressed findings are always collapsed. At most MAX_ROWS findings, and
no more than fit in MAX_CHARS (GitHub refuses comments over 65,536 characters), are listed; the
rest are counted, not shown.
"""

from __future__ import annotations

import html
import re
from itertools import groupby

from fabriclint.models.finding import Finding, Report
from fabriclint.reporters import names, unchecked, why
from fabriclint.reporters.text import VISIBLE

COLLAPSE_AFTER = 20
MAX_ROWS = 150
MAX_CHARS = 60_000
MAX_MESSAGE = 300
SECTIONS = (("error", "Errors"), ("warning", "Warnings"), ("info", "Info"))
_TABLE_HEAD = ["| rule | object | message | location |", "|---|---|---|---|"]

_MARKUP = re.compile(r"([\\`*_\[\]~|])")
_CONTROL = dict.fromkeys(VISIBLE, "\N{REPLACEMENT CHARACTER}")
"""The characters the text report spells out (`text.VISIBLE`): C0 and C1 controls (a terminal
escape in a config, say) and bidi overrides (they reorder what a reviewer reads:
CVE-2021-42574), each shown as U+FFFD."""


def _line(text: str) -> str:
    """One line of text without control characters (a terminal escape in a config, say)."""
    return " ".join(text.splitlines()).translate(_CONTROL)  # (line breaks are gone first)


def escape(text: str) -> str:
    """Inline text safe in a table cell: no HTML, no emphasis or links, no cell breaks."""
    text = _line(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MARKUP.sub(r"\\\1", text)


def code(text: str) -> str:
    """A code span for a table cell (pipes must still be escaped inside one in GFM tables)."""
    text = _line(text).replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    return f"{fence} {text} {fence}" if fence == "``" else f"`{text}`"


def _short(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def _location(finding: Finding) -> str:
    return code(str(finding.source)) if finding.source is not None else "—"


def _row(finding: Finding, folded: list[Finding] | None = None) -> str:
    rule = f"{code(finding.rule)} {escape(finding.name)}"
    message = escape(_short(finding.message))
    if folded:
        names = ", ".join(
            f"{f.rule} {f.object}" if f.device == finding.device else f"{f.device} {f.rule}"
            for f in folded[:5]
        )
        more = f" and {len(folded) - 5} more" if len(folded) > 5 else ""
        message += f"<br>*+{len(folded)} consequence(s): {escape(names)}{more}*"
    if finding.fix:
        fix = "<br>".join(code(line) for line in finding.fix.splitlines())
        message += f"<br>fix: {fix}"
    cells = [rule, escape(finding.object), message, _location(finding)]
    return "| " + " | ".join(cells) + " |"


def _summary(report: Report) -> list[str]:
    counts, summary = report.summary.findings, report.summary
    checked = sum(1 for d in report.devices if d.status == "ok")
    complete = "yes" if summary.complete else "**NO**"
    return [
        "| devices | checked | complete | errors | warnings | info | suppressed |",
        "|---:|---:|:---:|---:|---:|---:|---:|",
        f"| {summary.devices} | {checked} | {complete} | {counts.get('error', 0)} "
        f"| {counts.get('warning', 0)} | {counts.get('info', 0)} | {summary.suppressed} |",
    ]


def _incomplete(report: Report) -> list[str]:
    skipped = unchecked(report)
    if not skipped:
        return []
    lines = [
        "",
        f"> **Incomplete:** {len(skipped)} of {report.summary.devices} devices could not be "
        "checked; the result cannot be trusted.",
    ]
    return lines + [f"> - {code(d.name)}: {escape(why(d))}" for d in skipped]


def _failures(report: Report) -> list[str]:
    if not report.internal_errors:
        return []
    head = [
        "",
        "> **Internal error:** fabriclint failed during the run; the result cannot be trusted.",
    ]
    return head + [f"> - {escape(text)}" for text in report.internal_errors]


def _coverage(report: Report) -> list[str]:
    """Rules that could not be evaluated everywhere, and what input they lacked."""
    if not report.coverage:
        return []
    rows = [
        f"| {code(gap.rule)} | {len(gap.devices)} ({escape(names(gap.devices))}) "
        f"| {escape(gap.missing)} |"
        for gap in report.coverage
    ]
    head = ["| rule | devices | missing input |", "|---|---|---|"]
    title = f"<summary>Not evaluated everywhere: {len(report.coverage)} rule gap(s)</summary>"
    return ["<details>", title, "", *head, *rows, "", "</details>", ""]


def _device_block(
    device: str,
    items: list[Finding],
    noun: str,
    folded: dict[str, list[Finding]],
    collapse: bool,
) -> list[str]:
    count = f"({len(items)} {noun if len(items) != 1 else noun.removesuffix('s')})"
    rows = [*_TABLE_HEAD, *(_row(f, folded.get(f.fingerprint)) for f in items)]

    if collapse:  # <summary> sits in an HTML block: markdown escapes would show as backslashes
        title = f"<b>{html.escape(_line(device))}</b> {count}"
        return ["<details>", f"<summary>{title}</summary>", "", *rows, "", "</details>", ""]
    return [f"**{escape(device)}** {count}", "", *rows, ""]


def _section(
    title: str, noun: str, findings: list[Finding], total: int, folded: dict[str, list[Finding]]
) -> list[str]:
    """One severity: a block per device, collapsed when the section is long."""
    lines = [f"### {title} ({total} cause{'s' if total != 1 else ''})", ""]
    collapse = total > COLLAPSE_AFTER
    for device, items in groupby(findings, key=lambda f: f.device or "(fabric)"):
        lines += _device_block(device, list(items), noun, folded, collapse)
    return lines


def _suppressed(findings: list[Finding], total: int) -> list[str]:
    head = ["| rule | device | object | reason | location |", "|---|---|---|---|---|"]
    rows = [
        f"| {code(f.rule)} {escape(f.name)} | {escape(f.device or '(fabric)')} | "
        f"{escape(f.object)} | {escape(_short(f.suppressed or ''))} | {_location(f)} |"
        for f in findings
    ]
    summary = f"<summary>Suppressed ({total})</summary>"
    return ["<details>", summary, "", *head, *rows, "", "</details>", ""]


def _findings(report: Report, max_rows: int) -> list[str]:
    """The severity sections and the suppressed list, at most `max_rows` findings in all."""
    budget, lines = max_rows, []
    folded: dict[str, list[Finding]] = {}
    for f in report.findings:
        if f.suppressed is None and not f.is_cause:
            folded.setdefault(f.cause, []).append(f)
    active = [f for f in report.findings if f.suppressed is None and f.is_cause]
    rank = {"error": 2, "warning": 1, "info": 0}
    worst = {f.fingerprint: f.severity for f in active}  # a cause sits with its worst finding
    for fingerprint, items in folded.items():
        for f in items:
            if fingerprint in worst and rank[f.severity] > rank[worst[fingerprint]]:
                worst[fingerprint] = f.severity
    for severity, title in SECTIONS:
        group = sorted(
            (f for f in active if worst[f.fingerprint] == severity), key=lambda f: f.device or ""
        )
        if group:
            lines += _section(title, title.lower(), group[:budget], len(group), folded)
            budget -= min(budget, len(group))
    hidden = [f for f in report.findings if f.suppressed is not None]
    if hidden:
        lines += _suppressed(hidden[:budget], len(hidden))
        budget -= min(budget, len(hidden))
    listed = max_rows - budget + sum(len(v) for v in folded.values())
    if listed < len(report.findings):
        more = len(report.findings) - listed
        lines += [f"_{more} more findings not listed; see the SARIF or JSON report._", ""]
    return lines


def render(report: Report) -> str:
    """The PR comment body, listing fewer findings until it fits in MAX_CHARS."""
    rows = MAX_ROWS
    text = _render(report, rows)
    while len(text) > MAX_CHARS and rows > 0:
        rows = rows * 4 // 5
        text = _render(report, rows)
    return text


def _render(report: Report, max_rows: int) -> str:
    counts = report.summary.findings
    verdict = (
        f"{counts.get('error', 0)} error(s), {counts.get('warning', 0)} warning(s), "
        f"{counts.get('info', 0)} info"
    )
    lines = [f"## fabriclint: {escape(report.fabric)}: {verdict}", "", *_summary(report)]
    lines += _incomplete(report) + _failures(report)
    where = f"snapshot {code(report.snapshot)}, " if report.snapshot else ""
    lines += ["", f"<sub>{where}fabriclint {escape(report.fabriclint)}</sub>", ""]
    if not report.findings:
        lines += ["No findings.", ""]
    lines += _findings(report, max_rows) + _coverage(report)
    return "\n".join(lines).rstrip("\n") + "\n"
