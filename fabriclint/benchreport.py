"""A bench verdict as JSON, Markdown and a self-contained HTML page (inline CSS and SVG,
nothing fetched: it opens from a file, a CI artifact or an email attachment).

The page shows the verdict with every reason, the bus bandwidth per size as a chart (one line
per results file, the sizes on a log scale), the pause-frame deltas per port and priority, the
BOM changes and the findings of each stage. Elements carry data-* attributes (verdict, size,
bus bandwidth, device, port) that tests and tools read.
"""

from __future__ import annotations

import html
import json
import math
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fabriclint.benchrun import Verdict

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fafafa}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:24px 0 8px}
.verdict{font-size:22px;font-weight:bold;padding:8px 12px;border-radius:6px;display:inline-block}
.trusted{background:#e3f4e3;color:#1b5e20} .not-trusted{background:#fde7e7;color:#b71c1c}
.incomplete{background:#eee;color:#444}
table{border-collapse:collapse;background:#fff} td,th{border:1px solid #ddd;padding:3px 6px}
.muted{color:#666} li{margin:2px 0}
"""
SCRIPT = """
var data = JSON.parse(document.getElementById('verdict-data').textContent);
var chart = document.getElementById('busbw-chart');
document.body.dataset.jsVerdict = data.verdict;
document.body.dataset.jsPoints = document.querySelectorAll('#busbw-chart circle.point').length;
document.body.dataset.jsChartWidth = chart ? Math.round(chart.getBBox().width) : 0;
"""
"""Runs in the browser only to prove the page rendered: what it read and laid out goes on
<body> as data-js-* attributes (the page reads the same without it)."""
COLORS = ("#1e6fd9", "#c62828", "#2e7d32", "#ef8f00", "#6a1b9a")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Control characters and bidi overrides (they reorder what a reader sees, CVE-2021-42574):
a finding's message quotes device output, a results file name is the user's."""


def escape(text: str) -> str:
    """Text safe in an element or a quoted attribute, each control character shown as U+FFFD."""
    return html.escape(_CONTROL.sub("\N{REPLACEMENT CHARACTER}", text), quote=True)


def document(verdict: Verdict) -> dict[str, Any]:
    """The verdict as plain data (what verdict.json holds)."""
    return {
        "verdict": verdict.word,
        "exit_code": verdict.exit_code,
        "reasons": verdict.reasons,
        "incomplete": verdict.incomplete,
        "bom_changes": verdict.bom_changes,
        "command": verdict.command,
        "bandwidth": verdict.bandwidth,
        "nccl_versions": verdict.nccl_versions,
        "pauses": verdict.pauses,
        "findings": {
            stage: [f.model_dump(mode="json", exclude_none=True) for f in found]
            for stage, found in sorted(verdict.findings.items())
        },
    }


def to_json(verdict: Verdict) -> str:
    """verdict.json."""
    return json.dumps(document(verdict), indent=2, sort_keys=True) + "\n"


def _lines(title: str, items: list[str]) -> list[str]:
    return [f"## {title}", "", *([f"- {md(i)}" for i in items] or ["none"]), ""]


def md(text: object) -> str:
    """Text safe in Markdown and in a table cell: a reason quotes device output (HTML, `|`,
    links, line breaks, terminal escapes), a results file name is the user's."""
    from fabriclint.reporters.markdown import escape as markdown_escape

    return markdown_escape(str(text))


def to_markdown(verdict: Verdict) -> str:
    """verdict.md."""
    from fabriclint.reporters.markdown import code

    argv = " ".join(str(a) for a in verdict.command.get("argv") or [])
    out = [f"# Benchmark verdict: **{verdict.word}**", "", f"Command: {code(argv)} "]
    out += [f"(exit status {verdict.command.get('exit_status')})", ""]
    out += _lines("Reasons", verdict.reasons)
    if verdict.incomplete:
        out += _lines("Could not be judged", verdict.incomplete)
    out += [
        "## Bus bandwidth",
        "",
        "| file | size (B) | out of place (GB/s) | in place (GB/s) | #wrong |",
    ]
    out += ["|---|---:|---:|---:|---:|"]
    for row in verdict.bandwidth:
        out.append(
            f"| {md(row['file'])} | {row['size']} | {row['out_of_place']} | {row['in_place']} | {row['wrong']:g} |"
        )
    out += [
        "",
        "## Pause frames over the run",
        "",
        "| device | port | priority | received | sent |",
    ]
    out += ["|---|---|---:|---:|---:|"]
    out += [
        f"| {md(p['device'])} | {md(p['port'])} | {p['priority']} | {p['rx_pause']} | {p['tx_pause']} |"
        for p in verdict.pauses
    ]
    return "\n".join(out) + "\n"


def chart(bandwidth: list[dict[str, Any]]) -> str:
    """Bus bandwidth (best of out-of-place and in-place) per size, one polyline per file."""
    width, height, pad = 640, 280, 48
    points = [(r, b) for r in bandwidth if (b := _best(r)) is not None and r["size"] > 0]
    if not points:
        return '<p id="chart-empty">no bandwidth to chart</p>'
    sizes = [math.log2(r["size"]) for r, _b in points]
    lo, hi = min(sizes), max(sizes) if max(sizes) > min(sizes) else min(sizes) + 1
    top = max(b for _r, b in points) * 1.1 or 1.0

    def xy(size: int, bw: float) -> tuple[float, float]:
        x = pad + (math.log2(size) - lo) / (hi - lo) * (width - 2 * pad)
        return x, height - pad - bw / top * (height - 2 * pad)

    parts = [
        f'<svg id="busbw-chart" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="bus bandwidth per message size">',
        f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" stroke="#999"/>',
        f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" stroke="#999"/>',
        f'<text x="4" y="{pad}" font-size="11">{top:.0f} GB/s</text>',
        f'<text x="{width / 2 - 40:.0f}" y="{height - 8}" font-size="11">message size (log)</text>',
    ]
    files = sorted({r["file"] for r, _b in points})
    for index, name in enumerate(files):
        color = COLORS[index % len(COLORS)]
        mine = sorted(((r["size"], b) for r, b in points if r["file"] == name))
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(s, b) for s, b in mine))
        parts.append(
            f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{path}" data-file="{escape(name)}"/>'
        )
        for size, bw in mine:
            x, y = xy(size, bw)
            parts.append(
                f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}" '
                f'data-file="{escape(name)}" data-size="{size}" data-busbw="{bw:g}">'
                f"<title>{escape(name)}: {size} B, {bw:g} GB/s</title></circle>"
            )
    parts.append("</svg>")
    return "".join(parts)


def _best(row: dict[str, Any]) -> float | None:
    found = [
        v for v in (row.get("out_of_place"), row.get("in_place")) if isinstance(v, int | float)
    ]
    return max(found) if found else None


def _list(items: list[str], ident: str) -> str:
    if not items:
        return f'<p id="{ident}" class="muted">none</p>'
    return f'<ul id="{ident}">' + "".join(f"<li>{escape(i)}</li>" for i in items) + "</ul>"


def _pauses(pauses: list[dict[str, Any]]) -> str:
    if not pauses:
        return '<p id="pauses" class="muted">no pause frames over the run</p>'
    rows = "".join(
        f'<tr data-device="{escape(p["device"])}" data-port="{escape(p["port"])}" '
        f'data-priority="{p["priority"]}"><td>{escape(p["device"])}</td><td>{escape(p["port"])}</td>'
        f"<td>{p['priority']}</td><td>{p['rx_pause']:,}</td><td>{p['tx_pause']:,}</td></tr>"
        for p in pauses
    )
    head = "<tr><th>device</th><th>port</th><th>priority</th><th>received</th><th>sent</th></tr>"
    return f'<table id="pauses">{head}{rows}</table>'


def _findings(doc: dict[str, Any]) -> str:
    parts = []
    for stage, found in doc["findings"].items():
        items = [
            f"{f.get('severity')} {f.get('rule')} {f.get('device') or 'fabric'} {f.get('object')}: {f.get('message')}"
            for f in found
        ]
        parts.append(f"<h3>{escape(stage)} ({len(found)})</h3>{_list(items, f'findings-{stage}')}")
    return "".join(parts)


def to_html(verdict: Verdict) -> str:
    """index.html."""
    doc = document(verdict)
    word = doc["verdict"]
    argv = " ".join(str(a) for a in verdict.command.get("argv") or [])
    data = json.dumps(doc, sort_keys=True).replace("<", "\\u003c")
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>fabriclint bench: {escape(word)}</title><style>{CSS}</style></head><body>"
        f'<h1>Benchmark verdict</h1><div id="verdict" class="verdict {word.replace(" ", "-")}" '
        f'data-verdict="{escape(word)}">{escape(word)}</div>'
        f'<p class="muted">command <code id="command">{escape(argv)}</code> · exit status '
        f"{escape(str(verdict.command.get('exit_status')))}</p>"
        f"<h2>Reasons</h2>{_list(verdict.reasons, 'reasons')}"
        f"<h2>Could not be judged</h2>{_list(verdict.incomplete, 'incomplete')}"
        f"<h2>Bus bandwidth per size</h2>{chart(verdict.bandwidth)}"
        f"<h2>Pause frames per port and priority</h2>{_pauses(verdict.pauses)}"
        f"<h2>BOM changes</h2>{_list(verdict.bom_changes, 'bom-changes')}"
        f"<h2>Findings</h2>{_findings(doc)}"
        f'<script type="application/json" id="verdict-data">{data}</script>'
        f"<script>{SCRIPT}</script></body></html>\n"
    )
