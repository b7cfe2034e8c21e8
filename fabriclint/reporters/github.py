"""GitHub Actions workflow commands: one `::error|warning|notice` annotation line per finding.

Suppressed findings get no annotation (they are accepted); they are counted in the last line,
a plain log line with the summary. Each device that could not be checked, and each internal error,
gets an `::error`; each rule that could not be evaluated everywhere gets a `::notice` naming the
input it lacked.
Escaping follows @actions/core (`toCommandValue`, `escapeData`, `escapeProperty`).
"""

from __future__ import annotations

from fabriclint.models.finding import Finding, Report
from fabriclint.reporters import gap_text, unchecked, why
from fabriclint.reporters.text import VISIBLE

_SHOWN = {c: shown for c, shown in VISIBLE.items() if c != 0x0D}
"""Control characters and bidi overrides spelled out (`\\x1b`): the Actions log is a terminal
view. CR stays, for the `%0D` encoding below."""

COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    """The message part of a command: controls spelled out; %, CR and LF encoded."""
    return text.translate(_SHOWN).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value: as data, plus `:` and `,` which end a property."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str, **properties: str) -> str:
    """One workflow command line (properties in the order given, empty ones left out)."""
    props = ",".join(f"{key}={escape_property(v)}" for key, v in properties.items() if v)
    return f"::{name}{' ' + props if props else ''}::{escape_data(message)}"


def annotation(finding: Finding) -> str:
    """The annotation for one finding, on its source file and line when it has them."""
    source = finding.source
    where = f"{finding.device} {finding.object}" if finding.device else finding.object
    return command(
        COMMAND[finding.severity],
        f"{where}: {finding.message}",
        file=source.file.replace("\\", "/") if source else "",
        line=str(source.line) if source and source.line else "",
        title=f"{finding.rule} {finding.name}",
    )


def _summary(report: Report) -> str:
    counts, summary = report.summary.findings, report.summary
    state = "complete" if summary.complete else "INCOMPLETE"
    checked = sum(d.status == "ok" for d in report.devices)
    return (
        f"fabriclint {report.fabric}: {checked}/{summary.devices} devices checked ({state}); "
        f"{counts.get('error', 0)} error(s), {counts.get('warning', 0)} warning(s), "
        f"{counts.get('info', 0)} info, {summary.suppressed} suppressed"
    )


def render(report: Report) -> str:
    """Annotations, `::error` per unchecked device and internal error, `::notice` per coverage
    gap, then the summary line."""
    lines = [annotation(f) for f in report.findings if f.suppressed is None]
    for dev in unchecked(report):
        message = f"{dev.name} was not checked: {why(dev)}"
        lines.append(command("error", message, title="fabriclint: incomplete check"))
    for failure in report.internal_errors:
        lines.append(command("error", failure, title="fabriclint: internal error"))
    for gap in report.coverage:
        lines.append(command("notice", gap_text(gap, limit=8), title=f"{gap.rule} coverage"))
    lines.append(" ".join(_summary(report).splitlines()))
    return "\n".join(lines) + "\n"
