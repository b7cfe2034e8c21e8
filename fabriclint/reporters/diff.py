"""Views of a semantic diff: text for a terminal, JSON, Markdown for a PR comment."""

from __future__ import annotations

from typing import Any

from fabriclint.diff import Change, DiffReport
from fabriclint.models.finding import Finding
from fabriclint.reporters.markdown import escape
from fabriclint.reporters.text import VISIBLE


def value_text(value: Any) -> str:
    """A setting's value as the diff shows it (`(none)`, `yes`/`no`, the value)."""
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _where(change: Change) -> str:
    if len(change.objects) == 1:
        return change.objects[0]
    names = [o.split(" ", 1)[-1] for o in change.objects]
    kind = change.objects[0].split(" ", 1)[0]
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return f"{len(names)} {kind}s ({shown})"


def _line(change: Change) -> str:
    rules = f"  [breaks {', '.join(change.rules)}]" if change.rules else ""
    return f"{_where(change)}: {change.setting}: {value_text(change.before)} -> {value_text(change.after)}{rules}"


def _finding(f: Finding) -> str:
    where = f" ({f.source})" if f.source else ""
    return f"{f.severity} {f.rule} {f.device or '-'} {f.object}: {f.message}{where}"


def text(report: DiffReport) -> str:
    """Changes grouped by device, then introduced and resolved findings."""
    out = [f"diff {report.before} -> {report.after}"]
    device = None
    for change in report.changes:
        if change.device != device:
            device = change.device
            out.append(device)
        out.append(f"  {_line(change)}")
    if not report.changes:
        out.append("no setting changes")
    if report.checked:
        out.append(f"findings introduced ({len(report.introduced)}):")
        out += [f"  + {_finding(f)}" for f in report.introduced]
        out.append(f"findings resolved ({len(report.resolved)}):")
        out += [f"  - {_finding(f)}" for f in report.resolved]
        if report.moved:
            out.append(f"findings moved (still there, in another scope) ({len(report.moved)}):")
            for moved in report.moved:
                out += [f"  ~ {_finding(f)}" for f in moved.after]
                out += [f"      was: {f.object}: {f.message}" for f in moved.before]
    return "\n".join(line.translate(VISIBLE) for line in out) + "\n"
    # (device text is untrusted: an ESC in an interface name must not reach the terminal raw;
    # controls and bidi overrides are spelled out as the check's text report does)


def _cell(value: str) -> str:
    """Device text in a table cell or list item: controls, HTML, markup and `|` escaped, as
    the check's Markdown report escapes them."""
    return escape(value)


def markdown(report: DiffReport) -> str:
    """A PR comment: one table of changes, then the findings."""
    out = [f"### fabriclint diff `{report.before}` → `{report.after}`", ""]
    if report.changes:
        out += [
            "| device | where | setting | before | after | breaks |",
            "|---|---|---|---|---|---|",
        ]
        for c in report.changes:
            cells = [
                c.device,
                _where(c),
                c.setting,
                value_text(c.before),
                value_text(c.after),
                ", ".join(c.rules),
            ]
            out.append("| " + " | ".join(_cell(x) for x in cells) + " |")
    else:
        out.append("No setting changes.")
    if report.checked:
        for title, items in (("Introduced", report.introduced), ("Resolved", report.resolved)):
            out += ["", f"**{title} findings: {len(items)}**", ""]
            out += [
                f"- `{f.rule}` {_cell(f.device or '-')} {_cell(f.object)}: {_cell(f.message)}"
                for f in items
            ]
        if report.moved:
            out += [
                "",
                f"**Moved findings (still there, in another scope): {len(report.moved)}**",
                "",
            ]
            for moved in report.moved:
                out += [
                    f"- `{f.rule}` {_cell(f.device or '-')} {_cell(f.object)}: {_cell(f.message)}"
                    for f in moved.after
                ]
                out += [f"  - was {_cell(f.object)}: {_cell(f.message)}" for f in moved.before]
    return "\n".join(out) + "\n"


def render(report: DiffReport, fmt: str) -> str:
    """Render in `fmt` (text, json, markdown)."""
    if fmt == "json":
        return report.model_dump_json(indent=2) + "\n"
    return markdown(report) if fmt == "markdown" else text(report)
