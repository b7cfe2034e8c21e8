"""A self-contained HTML page of a check: the summary, a map of the fabric as inline SVG, the
findings grouped by device with a filter, and what was not checked.

The map puts devices in tiers by role (spines, leaves, hosts, subnet managers, others) and draws
the cables the check knows (the cabling plan as each device spells its ports, and the cables
LLDP shows that the plan lacks: `reporters.Cable`, handed over by the engine, never re-parsed).
A device is coloured by the worst active finding on it; a cable by the worst finding about it:
one whose object names its two ends (`link a:p - b:q`, `cable ...`), or one on an end port
whose message names the far end (NIC001 "... leaf02:Ethernet1/1 at the other end"). A device
that was not checked, and a cable with such an end and no finding, is grey and dashed.

Large fabrics degrade in two steps (docs/ci.md): above GROUP_HOSTS_AFTER hosts, the hosts cabled
to the same switches are drawn as one box with a count; when a tier still needs more than
GRID_AFTER boxes, or the map more than GRID_AFTER_EDGES lines, every device is a small cell of a
per-tier grid and no cable is drawn (the table and the tooltips still say everything).

Everything printed comes from untrusted device output or names: it is escaped, the script reads
only ids the page made (`d3`, `r1`, `e2`), and a Content-Security-Policy allows only the page's
own style and script (by hash) and fetches nothing.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from fabriclint import platforms
from fabriclint.models.finding import SEVERITY_RANK, DeviceSummary, Finding, Report
from fabriclint.reporters import Cable, gap_text, why
from fabriclint.reporters.text import consequences_of

TIERS = ("spine", "leaf", "host", "subnet-manager", "other")
TIER_TITLES = {
    "spine": "spines",
    "leaf": "leaves",
    "host": "hosts",
    "subnet-manager": "subnet managers",
    "other": "others",
}
GROUP_HOSTS_AFTER = 24
"""More hosts than this: hosts cabled to the same switches are one box with a count."""
ROW = 12
"""Boxes per row of a tier (a tier with more wraps onto more rows)."""
GRID_AFTER = 48
"""More boxes than this in one tier: the whole map becomes a per-tier grid without cables."""
GRID_AFTER_EDGES = 600
"""More lines than this: the grid as well (thousands of crossing lines say nothing)."""
GRID_COLUMNS = 64

BOX_W, BOX_H, GAP_X, TIER_H, ROW_H, MARGIN = 118, 36, 14, 110, 52, 24
CELL, CELL_GAP = 14, 3
COLORS = ("error", "warning", "info", "ok", "not-checked")

_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_END = re.compile(r"([^\s:]+):([^\s,()]+)")
_CABLE_OBJECT = ("link ", "cable ", "cables ")


def esc(text: object) -> str:
    """Text safe in an element or a quoted attribute (control characters shown as U+FFFD)."""
    return html.escape(_CONTROL.sub("\N{REPLACEMENT CHARACTER}", str(text)), quote=True)


# ---- colouring ----------------------------------------------------------------------------------


def worst(findings: Iterable[Finding], checked: bool = True) -> str:
    """The colour of a device or cable: its worst active finding, `ok` without one, and
    `not-checked` when it was not checked and nothing was found on it."""
    active = [f for f in findings if f.suppressed is None]
    if not active:
        return "ok" if checked else "not-checked"
    return max((f.severity for f in active), key=lambda s: SEVERITY_RANK[s])


def tier_of(role: str | None, platform: str | None) -> str:
    """The map tier of a device: a word of its role that names one (`super-spine`, `rail-leaf`,
    `gpu`), else its platform's kind (a host platform is a host whatever its role)."""
    words = set(re.split(r"[^a-z0-9]+", (role or "").lower()))
    kind = platforms.kind_of(platform) if platform else "switch"
    if kind == "subnet-manager" or words & {"sm", "subnet", "opensm"}:
        return "subnet-manager"
    if kind == "host":
        return "host"
    for tier, names in _TIER_WORDS:
        if words & names:
            return tier
    return "other"


_TIER_WORDS = (
    ("spine", {"spine", "spines", "superspine", "super", "core"}),
    ("leaf", {"leaf", "leaves", "tor", "rail"}),
    ("host", {"gpu", "host", "hosts", "server", "servers", "storage", "compute", "node"}),
)


def _ends_in(obj: str) -> list[tuple[str, str]]:
    """The cable ends a finding's object names (`link a:p - b:q`), in order; none otherwise."""
    if not obj.startswith(_CABLE_OBJECT):
        return []
    return [(m.group(1), m.group(2)) for m in _END.finditer(obj.split(" ", 1)[1])]


def cable_findings(report: Report, cables: Sequence[Cable]) -> dict[int, list[Finding]]:
    """Cable index -> the findings about that cable (see the module docstring)."""
    at: dict[tuple[str, str], list[int]] = {}
    for index, cable in enumerate(cables):
        at.setdefault(cable.a, []).append(index)
        at.setdefault(cable.b, []).append(index)
    out: dict[int, list[Finding]] = {}
    for finding in report.findings:
        for index in _cables_of(finding, cables, at):
            out.setdefault(index, []).append(finding)
    return out


def _cables_of(
    finding: Finding, cables: Sequence[Cable], at: dict[tuple[str, str], list[int]]
) -> list[int]:
    """The cables a finding is about: those its object names by both ends (a plan's cable and
    an LLDP-only one may share an end), else the cable of the port it is on when its message
    names that cable's far end."""
    ends = _ends_in(finding.object)
    if ends:
        pairs = zip(ends[::2], ends[1::2], strict=False)
        return [i for a, b in pairs for i in at.get(a, []) if b in (cables[i].a, cables[i].b)]
    if finding.device is None or not finding.object.startswith("interface "):
        return []
    end = (finding.device, finding.object.removeprefix("interface "))
    found = []
    for index in at.get(end, []):
        cable = cables[index]
        far = cable.b if cable.a == end else cable.a
        if f"{far[0]}:{far[1]}" in finding.message:
            found.append(index)
    return found


# ---- layout -------------------------------------------------------------------------------------


@dataclass
class Node:
    """One box of the map: a device, or a group of hosts cabled to the same switches."""

    id: str
    label: str
    tier: str
    devices: list[str]
    color: str = "ok"
    title: str = ""
    x: float = 0.0
    y: float = 0.0
    w: float = BOX_W
    h: float = BOX_H


@dataclass
class Edge:
    """The cables between two boxes, drawn as one line."""

    id: str
    a: str
    b: str
    cables: list[int] = field(default_factory=list)
    color: str = "ok"
    title: str = ""


@dataclass
class FabricMap:
    """The laid-out map: `mode` is `full`, `grouped` (hosts grouped per switch set) or `grid`."""

    nodes: list[Node]
    edges: list[Edge]
    mode: str
    width: float
    height: float
    tiers: list[tuple[str, float, int]] = field(default_factory=list)
    """(tier, y of its label, devices in it) for the tiers that have devices."""


@dataclass
class _Facts:
    """What the layout reads from the report, once."""

    report: Report
    cables: Sequence[Cable]
    by_device: dict[str, list[Finding]]
    by_cable: dict[int, list[Finding]]
    devices: dict[str, DeviceSummary]

    @classmethod
    def of(cls, report: Report, cables: Sequence[Cable]) -> _Facts:
        by_device: dict[str, list[Finding]] = {}
        for finding in report.findings:
            if finding.device is not None:
                by_device.setdefault(finding.device, []).append(finding)
        devices = {d.name: d for d in report.devices}
        return cls(report, cables, by_device, cable_findings(report, cables), devices)

    def checked(self, device: str) -> bool:
        """Whether `device` was checked (status ok)."""
        known = self.devices.get(device)
        return known is not None and known.status == "ok"


def _plural(count: int, noun: str) -> str:
    """`1 finding`, `3 findings`."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _device_node(facts: _Facts, index: int, device: DeviceSummary) -> Node:
    """A device's box: its colour and its tooltip (name, platform, role, findings, status)."""
    found = facts.by_device.get(device.name, [])
    active = sum(1 for f in found if f.suppressed is None)
    status = "" if device.status == "ok" else f"; {why(device)}"
    title = (
        f"{device.name} ({device.platform or 'no platform'}, {device.role or 'no role'}): "
        f"{_plural(active, 'finding')}{status}"
    )
    return Node(
        id=f"n{index}",
        label=device.name,
        tier=tier_of(device.role, device.platform),
        devices=[device.name],
        color=worst(found, facts.checked(device.name)),
        title=title,
    )


def _switches_of(facts: _Facts) -> dict[str, tuple[str, ...]]:
    """Host -> the devices at the other end of its cables (its group's key)."""
    out: dict[str, set[str]] = {}
    for cable in facts.cables:
        for (dev, _), (peer, _) in ((cable.a, cable.b), (cable.b, cable.a)):
            out.setdefault(dev, set()).add(peer)
    return {dev: tuple(sorted(peers)) for dev, peers in out.items()}


def _group_hosts(facts: _Facts, hosts: list[Node], start: int) -> list[Node]:
    """One box per set of switches the hosts are cabled to."""
    peers = _switches_of(facts)
    groups: dict[tuple[str, ...], list[Node]] = {}
    for node in hosts:
        groups.setdefault(peers.get(node.label, ()), []).append(node)
    out = []
    for offset, (key, members) in enumerate(groups.items()):
        names = [n.label for n in members]
        found = [f for n in names for f in facts.by_device.get(n, [])]
        checked = all(facts.checked(n) for n in names)
        on = f"on {', '.join(key)}" if key else "uncabled"
        bad = sum(1 for n in names if any(f.suppressed is None for f in facts.by_device.get(n, [])))
        title = (
            f"{_plural(len(names), 'host')} {on}: {names[0]} ... {names[-1]}; "
            f"{_plural(sum(1 for f in found if f.suppressed is None), 'finding')} "
            f"on {bad} of them"
        )
        label = f"{len(names)} hosts" if len(names) > 1 else names[0]
        out.append(Node(f"n{start + offset}", label, "host", names, worst(found, checked), title))
    return out


def _edges(facts: _Facts, owner: dict[str, Node]) -> list[Edge]:
    """The cables between boxes, one line per pair of boxes."""
    edges: dict[tuple[str, str], Edge] = {}
    for index, cable in enumerate(facts.cables):
        a, b = owner.get(cable.a[0]), owner.get(cable.b[0])
        if a is None or b is None or a is b:
            continue
        pair = (a.id, b.id) if a.id < b.id else (b.id, a.id)
        edge = edges.get(pair)
        if edge is None:
            edge = edges[pair] = Edge(f"e{len(edges)}", a.id, b.id)
        edge.cables.append(index)
    for edge in edges.values():
        _colour_edge(facts, edge)
    return list(edges.values())


def _colour_edge(facts: _Facts, edge: Edge) -> None:
    """A line's colour (its cables' worst finding) and its tooltip (the ends, the rules)."""
    found = [f for i in edge.cables for f in facts.by_cable.get(i, [])]
    ends = [end for i in edge.cables for end in (facts.cables[i].a, facts.cables[i].b)]
    checked = all(facts.checked(dev) for dev, _ in ends)
    edge.color = worst(found, checked)
    shown = [facts.cables[i] for i in edge.cables[:4]]
    names = "; ".join(
        f"{c.a[0]}:{c.a[1]} - {c.b[0]}:{c.b[1]}" + (" (LLDP only)" if c.seen == "lldp" else "")
        for c in shown
    )
    more = f" and {len(edge.cables) - 4} more" if len(edge.cables) > 4 else ""
    active = [f for f in found if f.suppressed is None]
    rules = ", ".join(sorted({f.rule for f in active}))
    edge.title = (
        f"{_plural(len(edge.cables), 'cable')}: {names}{more}: {_plural(len(active), 'finding')}"
        + (f" ({rules})" if rules else "")
        + ("" if checked else "; an end was not checked")
    )


def _order_below(nodes: list[Node], above: dict[str, float], facts: _Facts) -> list[Node]:
    """Boxes of a lower tier ordered by the mean position of the switches they are cabled to
    (hosts sit under their leaves), ties in inventory order."""
    peers = _switches_of(facts)

    def place(item: tuple[int, Node]) -> tuple[float, int]:
        index, node = item
        xs = [above[p] for d in node.devices for p in peers.get(d, ()) if p in above]
        return (sum(xs) / len(xs) if xs else float("inf"), index)

    return [node for _, node in sorted(enumerate(nodes), key=place)]


def build_map(report: Report, cables: Sequence[Cable] = ()) -> FabricMap:
    """Tiers, boxes, lines and their colours for a report and the cables of its run."""
    facts = _Facts.of(report, cables)
    nodes = [_device_node(facts, i, d) for i, d in enumerate(report.devices)]
    tiers: dict[str, list[Node]] = {t: [n for n in nodes if n.tier == t] for t in TIERS}
    mode = "full"
    if len(tiers["host"]) > GROUP_HOSTS_AFTER:
        tiers["host"] = _group_hosts(facts, tiers["host"], len(nodes))
        mode = "grouped"
    owner = {dev: n for ns in tiers.values() for n in ns for dev in n.devices}
    edges = _edges(facts, owner)
    if max(len(ns) for ns in tiers.values()) > GRID_AFTER or len(edges) > GRID_AFTER_EDGES:
        return _grid(facts, nodes)
    return _place(tiers, edges, mode, facts)


def _place(tiers: dict[str, list[Node]], edges: list[Edge], mode: str, facts: _Facts) -> FabricMap:
    """Rows of boxes, tier by tier, each row centred."""
    widest = max(min(len(ns), ROW) for ns in tiers.values())
    width = 2 * MARGIN + max(widest, 1) * (BOX_W + GAP_X)
    y, placed, labels, xs = MARGIN + 18.0, [], [], dict[str, float]()
    for tier in TIERS:
        row_nodes = _order_below(tiers[tier], xs, facts) if tier != "spine" else tiers[tier]
        if not row_nodes:
            continue
        labels.append((tier, y - 8, sum(len(n.devices) for n in row_nodes)))
        for start in range(0, len(row_nodes), ROW):
            chunk = row_nodes[start : start + ROW]
            left = (width - len(chunk) * (BOX_W + GAP_X) + GAP_X) / 2
            for i, node in enumerate(chunk):
                node.x, node.y = left + i * (BOX_W + GAP_X), y
                for dev in node.devices:
                    xs[dev] = node.x
            y += ROW_H
        y += TIER_H - ROW_H
        placed.extend(row_nodes)
    return FabricMap(placed, edges, mode, width, y - TIER_H + ROW_H + MARGIN, labels)


def _grid(facts: _Facts, nodes: list[Node]) -> FabricMap:
    """Every device a small cell, tier by tier, no cables."""
    width = 2 * MARGIN + GRID_COLUMNS * (CELL + CELL_GAP)
    y, labels, placed = MARGIN + 18.0, [], []
    for tier in TIERS:
        cells = [n for n in nodes if n.tier == tier]
        if not cells:
            continue
        labels.append((tier, y - 8, len(cells)))
        for i, node in enumerate(cells):
            node.x = MARGIN + (i % GRID_COLUMNS) * (CELL + CELL_GAP)
            node.y = y + (i // GRID_COLUMNS) * (CELL + CELL_GAP)
            node.w = node.h = CELL
        y += ((len(cells) - 1) // GRID_COLUMNS + 1) * (CELL + CELL_GAP) + 34
        placed.extend(cells)
    return FabricMap(placed, [], "grid", width, y + MARGIN - 16, labels)


# ---- the SVG ------------------------------------------------------------------------------------


def _centre(node: Node, top: bool) -> tuple[float, float]:
    """The middle of a box's upper (`top`) or lower edge."""
    return node.x + node.w / 2, node.y + (0 if top else node.h)


def _path(a: Node, b: Node) -> str:
    """A line from the lower edge of the upper box to the upper edge of the lower one; boxes in
    one row are joined by an arc above them."""
    if abs(a.y - b.y) < 1:
        (x1, y1), (x2, y2) = _centre(a, True), _centre(b, True)
        return f"M{x1:.0f},{y1:.0f} Q{(x1 + x2) / 2:.0f},{y1 - 34:.0f} {x2:.0f},{y2:.0f}"
    upper, lower = (a, b) if a.y < b.y else (b, a)
    (x1, y1), (x2, y2) = _centre(upper, False), _centre(lower, True)
    return f"M{x1:.0f},{y1:.0f} L{x2:.0f},{y2:.0f}"


def _svg_edge(edge: Edge, nodes: dict[str, Node]) -> str:
    """A line, with a wide transparent twin that takes the clicks."""
    d = _path(nodes[edge.a], nodes[edge.b])
    return (
        f'<g class="edge c-{edge.color}" data-edge="{edge.id}" tabindex="0">'
        f"<title>{esc(edge.title)}</title>"
        f'<path class="hit" d="{d}"/><path class="wire" d="{d}"/></g>'
    )


def _label(text: str, limit: int = 16) -> str:
    """A name short enough for its box (the tooltip has it whole)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _svg_node(node: Node, ids: dict[str, str], grid: bool) -> str:
    """A box (a bare cell in the grid), naming the page ids of its devices for the filter."""
    devs = " ".join(ids[d] for d in node.devices)
    text = (
        ""
        if grid
        else f'<text x="{node.x + node.w / 2:.0f}" y="{node.y + node.h / 2 + 4:.0f}">'
        f"{esc(_label(node.label))}</text>"
    )
    return (
        f'<g class="node c-{node.color}" data-node="{node.id}" data-devs="{devs}" tabindex="0">'
        f"<title>{esc(node.title)}</title>"
        f'<rect x="{node.x:.0f}" y="{node.y:.0f}" width="{node.w:.0f}" height="{node.h:.0f}" '
        f'rx="{2 if grid else 6}"/>{text}</g>'
    )


def svg(fabric_map: FabricMap, ids: dict[str, str]) -> str:
    """The map as inline SVG; `ids` gives each device's page id (`d3`)."""
    nodes = {n.id: n for n in fabric_map.nodes}
    width, height = fabric_map.width, fabric_map.height
    parts = [
        f'<svg id="map" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}"'
        f' width="{width:.0f}" height="{height:.0f}" data-mode="{fabric_map.mode}" role="img"'
        ' aria-label="fabric map">'
    ]
    for tier, y, count in fabric_map.tiers:
        parts.append(
            f'<text class="tier" x="{MARGIN}" y="{y:.0f}">{esc(TIER_TITLES[tier])} ({count})</text>'
        )
    parts.extend(_svg_edge(e, nodes) for e in fabric_map.edges)
    grid = fabric_map.mode == "grid"
    parts.extend(_svg_node(n, ids, grid) for n in fabric_map.nodes)
    parts.append("</svg>")
    return "".join(parts)


# ---- the findings table -------------------------------------------------------------------------


@dataclass
class _Ids:
    """The page's own ids for devices, rules and the map's lines (never names in the script)."""

    devices: dict[str, str]
    rules: dict[str, str]
    edges_of: dict[int, list[str]]
    """Cable index -> the id of the line that draws it."""

    @classmethod
    def of(cls, report: Report, fabric_map: FabricMap) -> _Ids:
        names = [d.name for d in report.devices]
        names += sorted({f.device for f in report.findings if f.device} - set(names))
        names.append("(fabric)")
        rules = sorted({f.rule for f in report.findings})
        edges: dict[int, list[str]] = {}
        for edge in fabric_map.edges:
            for index in edge.cables:
                edges.setdefault(index, []).append(edge.id)
        return cls(
            {n: f"d{i}" for i, n in enumerate(names)},
            {r: f"r{i}" for i, r in enumerate(rules)},
            edges,
        )


def _row_attrs(group: list[Finding], ids: _Ids, by_finding: dict[str, list[int]]) -> str:
    """What the filters match a row on: the severities, devices, rules and map lines of a
    cause and its consequences."""
    sevs = sorted({f.severity for f in group}, key=lambda s: -SEVERITY_RANK[s])
    devs = sorted({ids.devices[f.device or "(fabric)"] for f in group})
    rules = sorted({ids.rules[f.rule] for f in group})
    edges = sorted(
        {
            e
            for f in group
            for i in by_finding.get(f.fingerprint, [])
            for e in ids.edges_of.get(i, [])
        }
    )
    return (
        f'data-sev="{" ".join(sevs)}" data-devs="{" ".join(devs)}" '
        f'data-rules="{" ".join(rules)}" data-edges="{" ".join(edges)}"'
    )


def _fix(finding: Finding) -> str:
    """The fix hint, one code line per line (none for a suppressed finding)."""
    if not finding.fix or finding.suppressed is not None:
        return ""
    lines = "<br>".join(f"<code>{esc(line)}</code>" for line in finding.fix.splitlines())
    return f'<div class="fix">fix: {lines}</div>'


def _folded(finding: Finding, items: list[Finding]) -> str:
    """The consequences of a cause, folded (`+N consequence(s)`)."""
    if not items:
        return ""
    rows = "".join(
        f'<li class="s-{f.severity}"><b>{esc(f.severity)}</b> <code>{esc(f.rule)}</code> '
        f"{esc(f.device or '(fabric)')} {esc(f.object)}: {esc(f.message)}"
        + (f" <span class=loc>{esc(f.source)}</span>" if f.source else "")
        + "</li>"
        for f in items
    )
    return f"<details><summary>+{len(items)} consequence(s)</summary><ul>{rows}</ul></details>"


def _row(finding: Finding, items: list[Finding], attrs: str) -> str:
    """One cause (or suppressed finding) of the table."""
    suppressed = finding.suppressed is not None
    note = f'<div class="why">suppressed: {esc(finding.suppressed)}</div>' if suppressed else ""
    location = esc(finding.source) if finding.source is not None else "—"
    return (
        f'<tr class="finding s-{finding.severity}{" suppressed" if suppressed else ""}" {attrs}>'
        f'<td class="sev">{esc(finding.severity)}</td>'
        f"<td><code>{esc(finding.rule)}</code><br><small>{esc(finding.name)}</small></td>"
        f"<td>{esc(finding.object)}</td>"
        f"<td>{esc(finding.message)}{note}{_fix(finding)}{_folded(finding, items)}</td>"
        f'<td class="loc">{location}</td></tr>'
    )


def _table(report: Report, ids: _Ids, by_cable: dict[int, list[Finding]]) -> str:
    """The causes (and suppressed findings) by device, consequences folded under causes."""
    by_finding: dict[str, list[int]] = {}
    for index, found in by_cable.items():
        for f in found:
            by_finding.setdefault(f.fingerprint, []).append(index)
    folded = consequences_of(report)
    bodies: dict[str, list[str]] = {}
    for f in report.findings:
        if f.is_cause or f.suppressed is not None:
            group = [f, *folded.get(f.fingerprint, [])] if f.is_cause else [f]
            row = _row(
                f,
                folded.get(f.fingerprint, []) if f.is_cause else [],
                _row_attrs(group, ids, by_finding),
            )
            bodies.setdefault(f.device or "(fabric)", []).append(row)
    if not bodies:
        return '<p class="clean">No findings.</p>'
    head = (
        "<thead><tr><th>severity</th><th>rule</th><th>object</th><th>message</th>"
        "<th>file:line</th></tr></thead>"
    )
    parts = [f'<table id="findings">{head}']
    for device, rows in bodies.items():
        parts.append(
            f'<tbody class="device"><tr class="dev"><th colspan="5">{esc(device)}</th></tr>'
            + "".join(rows)
            + "</tbody>"
        )
    return "".join(parts) + "</table>"


def _options(values: dict[str, str], everything: str) -> str:
    """A select's options: names shown, page ids as values."""
    shown = "".join(f'<option value="{v}">{esc(k)}</option>' for k, v in values.items())
    return f'<option value="">{everything}</option>{shown}'


def _filters(ids: _Ids) -> str:
    """The severity, rule and device filters."""
    sevs = {s: s for s in ("error", "warning", "info")}
    return (
        '<div class="filters">'
        f'<label>severity <select id="f-sev">{_options(sevs, "all")}</select></label>'
        f'<label>rule <select id="f-rule">{_options(ids.rules, "all")}</select></label>'
        f'<label>device <select id="f-dev">{_options(ids.devices, "all")}</select></label>'
        '<button id="f-clear" type="button">show all</button>'
        '<span id="f-map"></span> <span id="f-count"></span></div>'
    )


# ---- the page -----------------------------------------------------------------------------------


def summary_line(report: Report) -> str:
    """The text report's summary line (plain text)."""
    counts = report.summary.findings
    checked = sum(1 for d in report.devices if d.status == "ok")
    state = "complete" if report.summary.complete else "INCOMPLETE"
    where = f" ({report.snapshot})" if report.snapshot else ""
    line = (
        f"{report.fabric}{where}: {checked}/{report.summary.devices} devices checked ({state}); "
        f"{counts.get('error', 0)} error(s), {counts.get('warning', 0)} warning(s), "
        f"{counts.get('info', 0)} info"
    )
    causes = sum(1 for f in report.findings if f.suppressed is None and f.is_cause)
    if any(f.suppressed is None for f in report.findings):
        line += f" from {causes} cause(s)"
    if report.summary.suppressed:
        line += f", {report.summary.suppressed} suppressed"
    return line


def _not_checked(report: Report) -> str:
    """Devices not checked (and why), coverage gaps and internal errors."""
    items = [
        f'<li class="{"gap" if d.status == "not-checked" else "bad"}">'
        f"<b>{esc(d.name)}</b>: {esc(why(d))}</li>"
        for d in report.devices
        if d.status != "ok"
    ]
    items += [
        f'<li class="bad">internal error: {esc(text)}</li>' for text in report.internal_errors
    ]
    items += [f'<li class="gap">coverage: {esc(gap_text(g, 8))}</li>' for g in report.coverage]
    if not items:
        return "<p>Every device was checked and every rule evaluated everywhere.</p>"
    return f'<ul class="unchecked">{"".join(items)}</ul>'


def _legend(mode: str) -> str:
    """The colours, and how the map was simplified for a large fabric."""
    swatches = "".join(f'<span class="key c-{c}"><i></i>{c}</span>' for c in COLORS)
    notes = {
        "full": "",
        "grouped": f" Hosts cabled to the same switches are one box (more than "
        f"{GROUP_HOSTS_AFTER} hosts).",
        "grid": f" Large fabric: one cell per device, cables not drawn (a tier of more than "
        f"{GRID_AFTER} boxes or more than {GRID_AFTER_EDGES} lines); hover a cell for its name.",
    }
    return (
        f'<p class="legend">{swatches} Click a device or a cable to filter the findings.'
        f"{notes[mode]}</p>"
    )


def _hash(text: str) -> str:
    """A CSP source allowing exactly this inline script or style."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def render(report: Report, cables: Sequence[Cable] = ()) -> str:
    """The page. Without `cables` the map shows the devices only."""
    fabric_map = build_map(report, cables)
    ids = _Ids.of(report, fabric_map)
    by_cable = cable_findings(report, cables)
    policy = (
        f"default-src 'none'; style-src {_hash(_STYLE)}; script-src {_hash(_SCRIPT)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    body = (
        f'<h1>fabriclint: {esc(report.fabric)}</h1><p class="summary '
        f'{"complete" if report.summary.complete else "incomplete"}">{esc(summary_line(report))}'
        f"</p><h2>Fabric map</h2>{_legend(fabric_map.mode)}"
        f'<div class="mapbox">{svg(fabric_map, ids.devices)}</div>'
        f"<h2>Not checked and coverage gaps</h2>{_not_checked(report)}"
        f"<h2>Findings</h2>{_filters(ids)}{_table(report, ids, by_cable)}"
        f'<p class="foot">fabriclint {esc(report.fabriclint)}</p>'
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>fabriclint: {esc(report.fabric)}</title><style>{_STYLE}</style></head>"
        f"<body>{body}<script>{_SCRIPT}</script></body></html>\n"
    )


_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:20px;color:#222}
h1{font-size:20px;margin:0 0 6px}h2{font-size:16px;margin:22px 0 8px}
.summary{font-weight:600;padding:6px 10px;border-radius:4px;background:#eef5ee}
.summary.incomplete{background:#fdecea;color:#8a1c1c}
.mapbox{overflow:auto;border:1px solid #ddd;border-radius:6px;background:#fcfcfc;max-height:80vh}
#map{display:block;margin:0 auto;max-width:100%;height:auto}
#map text{font-size:12px;text-anchor:middle;pointer-events:none;fill:#222}
#map text.tier{text-anchor:start;font-weight:600;fill:#666;font-size:12px}
.node{cursor:pointer}.node rect{stroke-width:2}
.edge{cursor:pointer}.edge .hit{stroke:transparent;stroke-width:12;fill:none}
.edge .wire{fill:none;stroke-width:2}
.node.c-error rect{fill:#fde0dc;stroke:#c62828}.edge.c-error .wire{stroke:#c62828;stroke-width:4}
.node.c-warning rect{fill:#fff3cd;stroke:#b26a00}.edge.c-warning .wire{stroke:#d08a00;stroke-width:3}
.node.c-info rect{fill:#e3f0fb;stroke:#1565c0}.edge.c-info .wire{stroke:#1565c0}
.node.c-ok rect{fill:#e8f5e9;stroke:#2e7d32}.edge.c-ok .wire{stroke:#9bbf9d}
.node.c-not-checked rect{fill:#eee;stroke:#888;stroke-dasharray:5 3}
.edge.c-not-checked .wire{stroke:#aaa;stroke-dasharray:6 4}
#map g:focus{outline:none}.node.sel rect{stroke:#000;stroke-width:3}.edge.sel .wire{stroke-width:6}
.legend .key{margin-right:12px;white-space:nowrap}
.legend .key i{display:inline-block;width:14px;height:10px;margin-right:4px;border:2px solid}
.key.c-error i{background:#fde0dc;border-color:#c62828}
.key.c-warning i{background:#fff3cd;border-color:#b26a00}
.key.c-info i{background:#e3f0fb;border-color:#1565c0}
.key.c-ok i{background:#e8f5e9;border-color:#2e7d32}
.key.c-not-checked i{background:#eee;border-color:#888;border-style:dashed}
.filters{margin:6px 0 10px}.filters label{margin-right:12px}#f-map,#f-count{margin-left:10px}
#findings{border-collapse:collapse;width:100%}
#findings td,#findings th{border-bottom:1px solid #e4e4e4;padding:4px 6px;vertical-align:top;text-align:left}
#findings tr.dev th{background:#f2f2f2;font-size:15px;padding-top:8px}
td.sev{font-weight:700;white-space:nowrap}
.s-error td.sev,li.s-error b{color:#c62828}.s-warning td.sev,li.s-warning b{color:#b26a00}
.s-info td.sev,li.s-info b{color:#1565c0}
tr.suppressed{color:#999}tr.suppressed td.sev{color:#999}
.fix{color:#1b5e20;margin-top:2px}.why{font-style:italic}
.loc{font-family:ui-monospace,monospace;font-size:12px;color:#555;word-break:break-all}
td.loc{max-width:26em}code{font-family:ui-monospace,monospace;font-size:12px}
details ul{margin:2px 0 2px 18px;padding:0}details summary{cursor:pointer;color:#555}
.hide{display:none}.unchecked li.bad{color:#8a1c1c}.unchecked li.gap{color:#555}
.foot{color:#999;font-size:12px}
"""

_SCRIPT = """
(function(){
var rows=[].slice.call(document.querySelectorAll('tr.finding'));
var bodies=[].slice.call(document.querySelectorAll('tbody.device'));
var sev=document.getElementById('f-sev'),rule=document.getElementById('f-rule');
var dev=document.getElementById('f-dev'),label=document.getElementById('f-map');
var count=document.getElementById('f-count'),picked=null;
function has(row,key,value){return (row.getAttribute(key)||'').split(' ').indexOf(value)>=0;}
function any(row,key,values){for(var i=0;i<values.length;i++){if(has(row,key,values[i]))return true;}return false;}
function shows(row){
 if(sev&&sev.value&&!has(row,'data-sev',sev.value))return false;
 if(rule&&rule.value&&!has(row,'data-rules',rule.value))return false;
 if(dev&&dev.value&&!has(row,'data-devs',dev.value))return false;
 if(picked&&!any(row,picked.key,picked.values))return false;
 return true;}
function apply(){
 var shown=0;
 rows.forEach(function(row){var on=shows(row);row.classList.toggle('hide',!on);if(on)shown++;});
 bodies.forEach(function(b){b.classList.toggle('hide',!b.querySelector('tr.finding:not(.hide)'));});
 if(count)count.textContent=shown+' of '+rows.length+' shown';
 document.body.setAttribute('data-shown',String(shown));}
function pick(el,key,values){
 [].forEach.call(document.querySelectorAll('.sel'),function(e){e.classList.remove('sel');});
 if(picked&&picked.el===el){picked=null;label.textContent='';}
 else{picked={el:el,key:key,values:values};el.classList.add('sel');
  var t=el.querySelector('title');label.textContent='map: '+(t?t.textContent:'');}
 apply();}
[].forEach.call(document.querySelectorAll('#map .node'),function(n){
 n.addEventListener('click',function(){pick(n,'data-devs',n.getAttribute('data-devs').split(' '));});});
[].forEach.call(document.querySelectorAll('#map .edge'),function(e){
 e.addEventListener('click',function(){pick(e,'data-edges',[e.getAttribute('data-edge')]);});});
[sev,rule,dev].forEach(function(s){if(s)s.addEventListener('change',apply);});
var clear=document.getElementById('f-clear');
if(clear)clear.addEventListener('click',function(){
 [sev,rule,dev].forEach(function(s){if(s)s.value='';});
 if(picked){picked.el.classList.remove('sel');picked=null;label.textContent='';}apply();});
apply();
})();
"""
