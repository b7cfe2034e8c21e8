"""The self-contained HTML morning report: inline CSS, a little inline JS, the report data
inline; nothing is fetched, so it opens from a file, a CI artifact or an email attachment.

Everything is rendered here (not by the script), so the page reads the same with JavaScript
off; the script only links heat-map cells to the device drill-down. Every cell, bar and row
carries data-* attributes (device, family, severity, count) that tests and tools can read.
"""

from __future__ import annotations

import json
from typing import Any

from fabriclint.reporters.html import esc

COLORS = {"error": "#c62828", "warning": "#ef8f00", "info": "#1e6fd9", None: "#e7efe7"}
SEVERITIES = ("error", "warning", "info")

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fafafa}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:24px 0 8px}
.muted{color:#666} .cards{display:flex;gap:12px;flex-wrap:wrap}
.card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:10px 14px;min-width:110px}
.card b{display:block;font-size:24px} .bad{color:#c62828}
table{border-collapse:collapse;background:#fff} td,th{border:1px solid #ddd;padding:3px 6px}
.heat td.cell{width:34px;height:20px;padding:0;cursor:pointer}
.heat td.incomplete{background:repeating-linear-gradient(45deg,#bbb 0 4px,#eee 4px 8px)}
.role{margin:0 24px 12px 0;display:inline-block;vertical-align:top}
.legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}
details{background:#fff;border:1px solid #ddd;margin:4px 0;padding:4px 8px}
summary{cursor:pointer} .sev-error{color:#c62828} .sev-warning{color:#b36b00} .sev-info{color:#1e6fd9}
"""

SCRIPT = """
var data = JSON.parse(document.getElementById('report-data').textContent);
document.body.dataset.jsOpen = data.findings.filter(function (i) { return !i.suppressed; }).length;
document.querySelectorAll('td.cell').forEach(function (td) {
  td.addEventListener('click', function () {
    var d = document.getElementById('dev-' + td.dataset.device);
    if (d) { d.open = true; d.scrollIntoView(); }
  });
});
"""


def _cards(s: dict[str, Any]) -> str:
    cards = [
        ("new", s["new"], s["new"] > 0),
        ("persisting", s["persisting"], False),
        ("resolved", s["resolved"], False),
        ("open", s["open"], s["open"] > 0),
        ("suppressed", s["suppressed"], False),
        ("devices checked", f"{s['devices_ok']}/{s['devices']}", not s["complete"]),
    ]
    return (
        '<div class="cards">'
        + "".join(
            f'<div class="card" data-count="{esc(label)}"><b class="{"bad" if bad else ""}">'
            f"{esc(str(value))}</b>{esc(label)}</div>"
            for label, value, bad in cards
        )
        + "</div>"
    )


def _severity_table(s: dict[str, Any]) -> str:
    rows = [
        ("new", "new_by_severity"),
        ("open", "open_by_severity"),
        ("resolved", "resolved_by_severity"),
    ]
    head = "<tr><th></th>" + "".join(f"<th>{v}</th>" for v in SEVERITIES) + "</tr>"
    body = "".join(
        f"<tr><th>{label}</th>" + "".join(f"<td>{s[key][v]}</td>" for v in SEVERITIES) + "</tr>"
        for label, key in rows
    )
    return f'<table id="by-severity">{head}{body}</table>'


def _heatmap(heat: dict[str, Any]) -> str:
    families = heat["families"]
    out = ['<div id="heatmap">']
    for group in heat["roles"]:
        head = "".join(f"<th>{esc(f)}</th>" for f in families)
        out.append(
            f'<div class="role" data-role="{esc(group["role"])}"><b>{esc(group["role"])}'
            f'</b><table class="heat"><tr><th>device</th>{head}</tr>'
        )
        for device in group["devices"]:
            out.append(_heat_row(device, families))
        out.append("</table></div>")
    legend = "".join(
        f'<span style="background:{COLORS[s]}"></span>{s}' for s in (*SEVERITIES, None) if s
    )
    out.append(
        f'<div class="legend muted">{legend}<span class="incomplete" '
        'style="background:#bbb"></span>not checked</div></div>'
    )
    return "".join(out)


def _heat_row(device: dict[str, Any], families: list[str]) -> str:
    name = esc(device["name"])
    cells = []
    for fam in families:
        severity = device["cells"].get(fam)
        klass = "cell" if device["status"] == "ok" or severity else "cell incomplete"
        style = f' style="background:{COLORS[severity]}"' if "incomplete" not in klass else ""
        cells.append(
            f'<td class="{klass}" data-device="{name}" data-family="{esc(fam)}" '
            f'data-severity="{severity or "none"}" title="{name} {esc(fam)}: '
            f'{severity or "clean"}"{style}></td>'
        )
    status = (
        "" if device["status"] == "ok" else f' <span class="bad">({esc(device["status"])})</span>'
    )
    worst = device["worst"] or "none"
    return f'<tr data-device="{name}" data-worst="{worst}"><td>{name}{status}</td>{"".join(cells)}</tr>'


def _trend(trend: list[dict[str, Any]]) -> str:
    """Stacked bars of open findings per night (error at the bottom), one per run."""
    width, height, pad = max(320, 26 * len(trend) + 60), 160, 30
    top = max([sum(t[s] for s in SEVERITIES) for t in trend] + [1])
    bar = (width - 2 * pad) / max(len(trend), 1)
    parts = [
        f'<svg id="trend" width="{width}" height="{height + 40}" role="img" '
        f'aria-label="open findings per night">'
    ]
    parts.append(f'<text x="4" y="14" font-size="11">{top}</text>')
    for index, night in enumerate(trend):
        x, base = pad + index * bar, height
        for severity in SEVERITIES:
            h = night[severity] / top * (height - 20)
            parts.append(
                f'<rect x="{x + 2:.1f}" y="{base - h:.1f}" width="{bar - 4:.1f}" height="{h:.1f}" '
                f'fill="{COLORS[severity]}" data-run="{night["run"]}" data-severity="{severity}" '
                f'data-count="{night[severity]}"><title>run {night["run"]} '
                f"{esc(night['started_at'])}: {night[severity]} {severity}</title></rect>"
            )
            base -= h
        label = f"#{night['run']}"
        parts.append(f'<text x="{x + 2:.1f}" y="{height + 14}" font-size="10">{label}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _finding_row(item: dict[str, Any]) -> str:
    sev = esc(item["severity"])
    cells = [
        f'<td class="sev-{sev}">{sev}</td>',
        f"<td>{esc(item['rule'])}</td>",
        f"<td>{esc(item['status'])}{' (suppressed)' if item['suppressed'] else ''}</td>",
        f"<td>{item['nights_open']}</td>",
        f"<td>{esc(item['object'])}</td>",
        f"<td>{esc(item['message'])}</td>",
        f"<td>{esc(item['cause'] or '')}</td>",
    ]
    return f'<tr data-fingerprint="{esc(item["fingerprint"])}">{"".join(cells)}</tr>'


def _drilldown(doc: dict[str, Any]) -> str:
    by_device: dict[str, list[dict[str, Any]]] = {}
    for item in doc["findings"]:
        by_device.setdefault(item["device"] or "(fabric)", []).append(item)
    out = []
    head = (
        "<tr><th>severity</th><th>rule</th><th>status</th><th>nights</th><th>object</th>"
        "<th>message</th><th>cause</th></tr>"
    )
    for device in doc["devices"]:
        items = by_device.get(device["name"], [])
        name = esc(device["name"])
        status = esc(device["status"]) + (f": {esc(device['error'])}" if device["error"] else "")
        out.append(
            f'<details id="dev-{name}" data-device="{name}" data-open="{len(items)}"><summary>'
            f"{name} ({esc(device['role'] or '-')}, {status}): {len(items)} open</summary>"
        )
        if items:
            out.append(f"<table>{head}{''.join(_finding_row(i) for i in items)}</table>")
        out.append("</details>")
    return "".join(out)


def _coverage(doc: dict[str, Any]) -> str:
    bad = [d for d in doc["devices"] if d["status"] != "ok"]
    rows = (
        "".join(
            f'<li class="bad" data-incomplete="{esc(d["name"])}">{esc(d["name"])}: '
            f"{esc(d['status'])} {esc(d['error'] or '')}</li>"
            for d in bad
        )
        or "<li>every device was checked</li>"
    )
    gaps = (
        "".join(
            f"<li>{esc(g['rule'])}: needs {esc(g['missing'])} on {len(g['devices'])} device(s)</li>"
            for g in doc["coverage"]
        )
        or "<li>no coverage gaps</li>"
    )
    return f'<h2>Not checked</h2><ul id="incomplete">{rows}</ul><h2>Coverage</h2><ul id="coverage">{gaps}</ul>'


def page(doc: dict[str, Any]) -> str:
    """The whole page."""
    run, s = doc["run"], doc["summary"]
    data = json.dumps(doc, sort_keys=True).replace("<", "\\u003c")
    title = esc(f"fabriclint nightly: {doc['fabric']} run {run['id']}")
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{CSS}</style></head><body><h1>{title}</h1>"
        f'<div class="muted">{esc(run["started_at"])} · snapshot {esc(run["snapshot"])} · '
        f"{'complete' if s['complete'] else '<b class=bad>INCOMPLETE</b>'} · exit {run['exit_code']}</div>"
        f"<h2>Tonight</h2>{_cards(s)}<p>{_severity_table(s)}</p>"
        f"<h2>Fabric heat-map (worst open finding per rule family)</h2>{_heatmap(doc['heatmap'])}"
        f"<h2>Open findings, last {len(doc['trend'])} night(s)</h2>{_trend(doc['trend'])}"
        f"{_coverage(doc)}<h2>Devices</h2>{_drilldown(doc)}"
        f'<script type="application/json" id="report-data">{data}</script>'
        f"<script>{SCRIPT}</script></body></html>\n"
    )
