"""NVUE configuration (`nv config show -o yaml`, startup.yaml, or the same as JSON): header facts,
interfaces (link MTU/speed/state, bridge membership, QoS profile names, PFC watchdog) and `qos:`.

Cut-off outputs: YAML has no end marker and a document cut at a line boundary is still valid
YAML, so the NVUE-written document (its first line `- header:`) is judged by its shape: NVUE
writes every leaf as `key: value` (an empty container as `{}`, never a bare `key:`) and always a
`- set:` item after the header. A last line that is a bare `key:` (its children were cut), that
holds no `: ` (cut inside a key), or a header with no `- set:` item is a cut: PARSE003 at that
line. The text of a value (a `key: |` block scalar, a long string folded onto the next line)
and YAML comments are not lines of keys and are not judged so. A cut right after a whole
`key: value` line, or inside a value (`mtu: 91`), leaves a valid document of the same shape and
cannot be told. JSON (`-o json`) cut short is invalid JSON.
"""

from __future__ import annotations

import re

from fabriclint.models.common import Source, source_at
from fabriclint.parsers.cumulus import draft as kinds
from fabriclint.parsers.cumulus.draft import Draft, PortDraft
from fabriclint.parsers.cumulus.nvue_l2 import bridge_domains, inherit_bond_mtu, read_l2
from fabriclint.parsers.cumulus.nvue_qos import read_qos
from fabriclint.parsers.cumulus.text import load
from fabriclint.parsers.cumulus.tokens import expand_ports, on_off, speed_mbps, to_int
from fabriclint.parsers.cumulus.tree import Item
from fabriclint.parsers.kit.vlans import Vlans

# Top-level keys of an NVUE configuration tree (any one makes a mapping look like NVUE).
TOP_KEYS = frozenset(
    {"interface", "qos", "system", "router", "vrf", "bridge", "service", "evpn", "mlag", "nve"}
    | {"acl", "platform"}
)
# Ports whose MTU ifupdown2 sets to 9216 when none is written (CL 5.x, "Switch Port Attributes").
DEFAULT_MTU = 9216
_JUMBO_PORTS = ("swp", "bond")
_VERSION = re.compile(r"(\d+(?:\.\d+)+)", re.ASCII)
_PORT_QOS = {
    "mapping": kinds.MAPPING,
    "pfc": kinds.PFC,
    "congestion-control": kinds.CONGESTION,
    "egress-scheduler": kinds.SCHEDULER,
    "egress-shaper": kinds.SHAPER,
    "link-pause": kinds.PAUSE,
    "remark": kinds.REMARK,
}
_MODELED = frozenset({kinds.MAPPING, kinds.PFC, kinds.CONGESTION, kinds.SCHEDULER})


def read_nvue(draft: Draft, file: str, text: str) -> None:
    """Read one NVUE configuration document into `draft` (problems are recorded, never raised)."""
    loaded = load(text)
    for key, line, first in loaded.duplicates:
        message = f"duplicate key '{key}' (first at line {first}); NVUE keeps only one of them"
        draft.problem("duplicate-key", message, source_at(file, line))
    if loaded.error is not None:
        message, line = loaded.error
        draft.problem("unparseable", f"NVUE configuration: {message}", source_at(file, line))
        return
    cut = _cut_at(text)
    if cut is not None:
        draft.problem(
            "unparseable", f"NVUE configuration is cut off: {cut[1]}", source_at(file, cut[0])
        )
    trees = _set_trees(draft, file, loaded.root)
    if trees is None:
        line = loaded.root.line if loaded.root is not None else 1
        message = "not an NVUE configuration (expected '- set:' or interface/qos/system keys)"
        draft.problem("unparseable", message, source_at(file, line))
        return
    draft.styles.setdefault("nvue", file)
    for tree in trees:
        _read_tree(draft, file, tree)


_HEADER = "- header:"
_LEAF = re.compile(r":\s+\S")
"""A `key: value` line (an IPv6 address key holds colons too, but never `: ` before its value)."""


def _cut_at(text: str) -> tuple[int, str] | None:
    """(line, why) when an NVUE-written YAML document stops where no whole one can; else None."""
    if not text.lstrip("\ufeff \t\r\n").startswith(_HEADER):
        return None
    rows = text.splitlines()
    number, line = _last_entry(rows)
    shown = line.strip()[:60]
    if not any(row.startswith(("- set:", "- unset:")) for row in rows):
        return number, f"no '- set:' item after the header (stops at line {number}, {shown!r})"
    if _LEAF.search(line.strip().removeprefix("- ")) is None and not _in_value(rows, number):
        why = "a key without its value" if shown.endswith(":") else "a line cut inside a key"
        return number, f"line {number} ({shown!r}) is {why}; NVUE writes `key: value` leaves"
    return None


def _last_entry(rows: list[str]) -> tuple[int, str]:
    """(1-based number, text) of the last line that is neither blank nor a YAML comment (a
    comment added after NVUE wrote the file says nothing about a cut); (1, "") for none."""
    for number in range(len(rows), 0, -1):
        body = rows[number - 1].strip()
        if body and not body.startswith("#"):
            return number, rows[number - 1]
    return 1, ""


def _indent(row: str) -> int:
    return len(row) - len(row.lstrip(" "))


def _in_value(rows: list[str], number: int) -> bool:
    """True when line `number` continues the value of the nearest less-indented line above it
    (a `key: |` block scalar, or a long plain scalar that the YAML writer folded at 80
    columns): that line already holds a value, so this one is text of it, not a key."""
    depth = _indent(rows[number - 1])
    for row in reversed(rows[: number - 1]):
        body = row.strip()
        if body and not body.startswith("#") and _indent(row) < depth:
            return _LEAF.search(body.removeprefix("- ")) is not None
    return False


def _set_trees(draft: Draft, file: str, root: Item | None) -> list[Item] | None:
    """The `set` trees of a `- header: / - set:` document, or the bare tree; None if neither."""
    if root is None:
        return None
    if root.is_map:
        if root.get("set") is not None or root.get("header") is not None:
            return _sections(draft, file, [root])
        return [root] if any(key in TOP_KEYS for key, _ in root.items()) else None
    if isinstance(root.value, list) and root.value and all(i.is_map for i in root.value):
        return _sections(draft, file, root.value)
    return None


def _sections(draft: Draft, file: str, items: list[Item]) -> list[Item] | None:
    trees: list[Item] = []
    for item in items:
        for key, child in item.items():
            if key == "set" and child.is_map:
                trees.append(child)
            elif key == "header":
                _header(draft, file, child)
            else:
                draft.skip(f"- {key}:", "only 'set' sections are read", source_at(file, child.line))
    return trees if trees or any(i.get("header") for i in items) else None


def _header(draft: Draft, file: str, header: Item) -> None:
    version, model = header.get("version"), header.get("model")
    if version is not None:
        found = _VERSION.search(str(version.value))
        if found is not None:
            draft.os_version = (found.group(1), source_at(file, version.line))
    if model is not None:
        draft.facts["model"] = str(model.value)


def _read_tree(draft: Draft, file: str, tree: Item) -> None:
    system = tree.get("system")
    hostname = system.get("hostname") if system is not None else None
    if hostname is not None:
        draft.facts["hostname"] = str(hostname.value)
    interfaces = tree.get("interface")
    if interfaces is not None:
        domains = bridge_domains(tree)
        for spec, body in interfaces.items():
            _interface(draft, file, spec, body, domains)
        inherit_bond_mtu(draft)
    qos = tree.get("qos")
    if qos is not None:
        read_qos(draft, file, qos)


def _interface(draft: Draft, file: str, spec: str, body: Item, domains: dict[str, Vlans]) -> None:
    names = expand_ports(spec)
    src = source_at(file, body.line)
    if names is None:
        draft.skip(f"interface {spec}", "interface name or range not understood", src)
        return
    for name in names:
        port = draft.port(name, src)
        _link(draft, file, port, body.get("link"))
        port.routed = _routed(port, body, src)
        qos = body.get("qos")
        if qos is not None:
            _port_qos(draft, file, port, qos)
        link = body.get("link")
        written = link is not None and link.get("mtu") is not None
        if port.mtu is None and not written and name.startswith(_JUMBO_PORTS):
            port.mtu = (DEFAULT_MTU, source_at(file))
        read_l2(draft, file, port, body, domains)


def _link(draft: Draft, file: str, port: PortDraft, link: Item | None) -> None:
    if link is None:
        return
    mtu, speed, state = link.get("mtu"), link.get("speed"), link.get("state")
    if mtu is not None:
        value = to_int(mtu.value)
        if value is None:
            draft.skip(
                f"interface {port.name} link mtu {mtu.value}",
                "malformed MTU",
                source_at(file, mtu.line),
            )
        else:
            port.mtu = (value, source_at(file, mtu.line))
    if speed is not None and speed_mbps(speed.value) is not None:
        port.speed = (speed_mbps(speed.value) or 0, source_at(file, speed.line))
    if state is not None:
        words = [key for key, _ in state.items()] if state.is_map else [str(state.value)]
        if words and words[0] in ("up", "down"):
            port.admin_up = (words[0] == "up", source_at(file, state.line))


def _routed(port: PortDraft, body: Item, src: Source) -> tuple[bool, Source] | None:
    """Switched when the port is in a bridge domain; swp/bond ports are routed otherwise."""
    bridge = body.get("bridge")
    if bridge is not None:
        return (False, source_at(src.file, bridge.line))
    if body.get("ip") is not None or port.name.startswith(_JUMBO_PORTS):
        return (True, src)
    return port.routed


def _port_qos(draft: Draft, file: str, port: PortDraft, qos: Item) -> None:
    by = f"interface {port.name}"
    for key, child in qos.items():
        kind = _PORT_QOS.get(key)
        profile = child.get("profile") if kind is not None else None
        if key == "pfc-watchdog":
            state = child.get("state")
            enabled = on_off(state.value) if state is not None else True
            port.watchdog = (enabled is not False, source_at(file, (state or child).line))
        elif kind is not None and profile is not None:
            src = source_at(file, profile.line)
            draft.refer(kind, str(profile.value), by, src)
            port.uses[kind] = (str(profile.value), src)
            if kind not in _MODELED:
                draft.skip(f"{by} qos {key} profile {profile.value}", f"{key} is not modeled", src)
        else:
            draft.skip(
                f"{by} qos {key}", "interface QoS setting not modeled", source_at(file, child.line)
            )
