"""Build the DeviceState of a SONiC switch from its tables: device QoS, ports, facts."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fabriclint.models.common import construct
from fabriclint.models.state import DeviceState, Interface, QosConfig, QueueConfig
from fabriclint.parsers.kit.common import is_digits
from fabriclint.parsers.sonic.buffer import Buffers, read_buffers
from fabriclint.parsers.sonic.draft import Draft
from fabriclint.parsers.sonic.l2 import add_l2
from fabriclint.parsers.sonic.maps import read_maps
from fabriclint.parsers.sonic.pfc import Watchdogs, port_pfc, read_watchdogs
from fabriclint.parsers.sonic.qos import (
    Applied,
    Bound,
    PortParts,
    Priorities,
    applied,
    build_qos,
    device_qos,
    trust_of,
)
from fabriclint.parsers.sonic.queues import (
    QueueObjects,
    read_queues,
    read_schedulers,
    read_wred,
    unbound_wred,
)
from fabriclint.parsers.sonic.tables import Entry, Tables, as_int, port_key

# portmgrd (sonic-swss cfgmgr/portmgr.h) gives a PORT entry without them mtu 9100 and
# admin_status down. The mtu is the IP MTU: orchagent adds 22 bytes (Ethernet header, FCS,
# one VLAN tag) when it programs the port's frame size (SAI_PORT_ATTR_MTU).
DEFAULT_MTU = 9100
FACT_FIELDS = ("hostname", "hwsku", "platform", "type", "buffer_model", "mac")
_DIGITS = re.compile(r"(\d+)", re.ASCII)


@dataclass(slots=True)
class Context:
    """Everything read from the tables that ports are built from."""

    draft: Draft
    tables: Tables
    queues: dict[str, dict[int, QueueConfig]]
    buffers: Buffers
    dogs: Watchdogs
    base: Applied
    bound: dict[str, Bound] = field(default_factory=dict)
    """PORT_QOS_MAP key -> what it binds (read once per entry)."""
    derived: Priorities = field(default_factory=Priorities)


def build_state(name: str, draft: Draft, tables: Tables) -> DeviceState:
    """The DeviceState of one config_db."""
    state = construct(DeviceState, name=name, platform="sonic")
    maps = read_maps(draft, tables)
    objects = QueueObjects(read_schedulers(draft, tables), read_wred(draft, tables))
    queues = read_queues(draft, tables, objects)
    state.unbound_ecn_profiles = unbound_wred(tables, objects.wred)
    buffers = read_buffers(draft, tables)
    entries = _port_entries(draft, tables)
    glob = tables.get("PORT_QOS_MAP", {}).get("global")
    base = applied(draft, glob, maps, tables).maps if glob is not None else {}
    if glob is not None and glob.text("pfc_enable") is not None:
        draft.skip(glob.name, "pfc_enable is per port; orchagent ignores it on global", glob.line)
    pfc_ports = [port for port, entry in entries.items() if "pfc_enable" in entry.fields]
    dogs = read_watchdogs(draft, tables, pfc_ports)
    ctx = Context(draft, tables, queues, buffers, dogs, base)
    for key, entry in tables.get("PORT_QOS_MAP", {}).items():
        if key != "global":
            ctx.bound[key] = applied(draft, entry, maps, tables)
    whole = "PORT" in tables or "PORT_QOS_MAP" in tables
    state.qos = device_qos(draft, base, ctx.derived, whole)
    state.qos.buffers = buffers.device
    routed = _routed(tables)
    for port, line in _ports(tables, entries):
        iface = _interface(ctx, port, line, routed.get(port))
        iface.qos = _port_qos(ctx, port, entries.get(port))
        state.interfaces[port] = iface
    add_l2(state, draft, tables)
    _facts(state, tables)
    _blocks(draft, tables)
    draft.flush()
    draft.hand_over(state)
    return state


BLOCK_TABLES = (
    "PORT_QOS_MAP",
    "DSCP_TO_TC_MAP",
    "DOT1P_TO_TC_MAP",
    "TC_TO_PRIORITY_GROUP_MAP",
    "TC_TO_QUEUE_MAP",
    "MAP_PFC_PRIORITY_TO_QUEUE",
    "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
    "WRED_PROFILE",
    "SCHEDULER",
    "BUFFER_PROFILE",
)
"""Tables whose entries are the blocks QoS settings are written in: a port's PORT_QOS_MAP entry
and the named objects it applies. Per-queue and per-PG entries (QUEUE, BUFFER_PG) are left out:
hundreds per switch, and each is owned by its port."""


def _blocks(draft: Draft, tables: Tables) -> None:
    """The block table: each entry of BLOCK_TABLES, from its key's line to its last field's."""
    for table in BLOCK_TABLES:
        for key, entry in tables.get(table, {}).items():
            span = (entry.line, max((entry.line, *entry.fields.lines)))
            draft.add_block(table, key, span, _block_path(table, key))
    draft.blocks.sort(key=lambda block: block.first)  # input order, as the other families


def _block_path(table: str, key: str) -> str | None:
    """What a PORT_QOS_MAP entry configures (`global`: the device-wide QoS; one port: its own);
    None for a list of ports or a named object (applied, not reported on by itself)."""
    if table != "PORT_QOS_MAP" or "," in key:
        return None
    return "qos" if key == "global" else f"interfaces.{key}.qos"


def _port_entries(draft: Draft, tables: Tables) -> dict[str, Entry]:
    """PORT_QOS_MAP entries by port (a key may list ports: `Ethernet0,Ethernet4`)."""
    out: dict[str, Entry] = {}
    for key, entry in tables.get("PORT_QOS_MAP", {}).items():
        if key == "global":
            continue
        for port in (p.strip() for p in key.split(",")):
            if port in out:
                draft.skip(
                    entry.name, f"{port} is also in PORT_QOS_MAP|{out[port].key}", entry.line
                )
            out[port] = entry
    return out


def _natural(name: str) -> list[object]:
    """Ethernet2 before Ethernet10: digit runs compare by length, then text (no int(): a
    5000-digit run in a key must sort, not raise)."""
    return [(len(t.lstrip("0")), t.lstrip("0")) if is_digits(t) else t for t in _DIGITS.split(name)]


def _ports(tables: Tables, entries: dict[str, Entry]) -> list[tuple[str, int]]:
    """Every port the input names (PORT and the per-port QoS tables), with its first line."""
    seen: dict[str, int] = {name: e.line for name, e in tables.get("PORT", {}).items()}
    for port, entry in entries.items():
        seen.setdefault(port, entry.line)
    for table in ("QUEUE", "BUFFER_PG"):
        for key, entry in tables.get(table, {}).items():
            parsed = port_key(key)
            for port in parsed[0] if parsed else []:
                seen.setdefault(port, entry.line)
    for port, entry in tables.get("PFC_WD", {}).items():
        if port != "GLOBAL":
            seen.setdefault(port, entry.line)
    return sorted(seen.items(), key=lambda item: _natural(item[0]))


def _port_qos(ctx: Context, port: str, entry: Entry | None) -> QosConfig | None:
    parts = PortParts(queues=ctx.queues.get(port), buffers=ctx.buffers.ports.get(port))
    own: Applied = {}
    if entry is not None:
        bound = ctx.bound[entry.key]
        own = {} if bound.blocked else bound.maps
        parts.pfc, parts.pfc_sources = port_pfc(ctx.draft, ctx.dogs, port, entry)
        if bound.blocked and parts.pfc is not None:
            blocker = bound.blocked[0][1]
            update = {"enabled": False, "sources": {**parts.pfc.sources, "enabled": blocker}}
            parts.pfc = parts.pfc.model_copy(update=update)
            parts.pfc_sources["pfc"] = blocker
        parts.trust = trust_of(ctx.draft, entry, own, ctx.base)
    elif parts.queues is None and parts.buffers is None:
        return None
    qos = build_qos(ctx.draft, own, ctx.base, parts, ctx.derived)
    line = entry.line if entry is not None else 0
    qos.mark("", ctx.draft.at(line) if line else None)
    return qos


def _interface(ctx: Context, port: str, line: int, routed: tuple[bool, int] | None) -> Interface:
    draft = ctx.draft
    entry = ctx.tables.get("PORT", {}).get(port)
    iface = Interface(name=port, sources={"": draft.at(line)})
    if routed is not None:
        iface.routed = routed[0]
        iface.mark("routed", draft.at(routed[1]))
    if entry is None:
        return iface  # a port only QoS tables name (a rendered qos.json): no PORT settings
    _port_numbers(draft, entry, iface)
    admin = entry.text("admin_status")
    iface.admin_up = admin is not None and admin[0].strip().lower() == "up"
    iface.mark("admin_up", draft.at(admin[1]) if admin is not None else draft.default)
    asym = entry.text("pfc_asym")
    if asym is not None and asym[0].strip().lower() == "on":
        draft.skip_field(
            "PORT", "pfc_asym", asym[1], reason="asymmetric PFC (pfc_asym on) is not modeled"
        )
    return iface


def _port_numbers(draft: Draft, entry: Entry, iface: Interface) -> None:
    """mtu (default 9100) and speed (Mb/s) of a PORT entry."""
    for name, attr in (("mtu", "mtu"), ("speed", "speed_mbps")):
        found = entry.text(name)
        number = as_int(found[0]) if found is not None else None
        if found is not None and number is None:
            draft.skip(f'"{name}": "{found[0]}"', f"{entry.name}: not a number", found[1])
        if number is not None and found is not None:
            setattr(iface, attr, number)
            iface.mark(attr, draft.at(found[1]))
        elif name == "mtu" and found is None:
            iface.mtu = DEFAULT_MTU
            iface.mark("mtu", draft.default)


def _routed(tables: Tables) -> dict[str, tuple[bool, int]]:
    """Routed (IP on the port or its port channel) or switched (VLAN member), with the line."""
    out: dict[str, tuple[bool, int]] = {}
    for table, routed in (("INTERFACE", True), ("PORTCHANNEL_INTERFACE", True)):
        for key, entry in tables.get(table, {}).items():
            out.setdefault(key.partition("|")[0], (routed, entry.line))
    for key, entry in tables.get("VLAN_MEMBER", {}).items():
        out.setdefault(key.partition("|")[2], (False, entry.line))
    for key, entry in tables.get("PORTCHANNEL_MEMBER", {}).items():
        channel, _, member = key.partition("|")
        if channel in out:
            out.setdefault(member, (out[channel][0], entry.line))
    for name, entry in tables.get("PORT", {}).items():
        mode = entry.text("mode")
        if mode is not None and mode[0] in ("routed", "trunk", "access"):
            out[name] = (mode[0] == "routed", mode[1])
    return out


def _facts(state: DeviceState, tables: Tables) -> None:
    meta = tables.get("DEVICE_METADATA", {}).get("localhost")
    if meta is not None:
        for name in FACT_FIELDS:
            found = meta.text(name)
            if found is not None:
                state.facts[name] = found[0]
        if "hwsku" in state.facts:
            state.facts["model"] = state.facts["hwsku"]
    version = tables.get("VERSIONS", {}).get("DATABASE")
    found = version.text("VERSION") if version is not None else None
    if found is not None:
        state.facts["config_db_version"] = found[0]
