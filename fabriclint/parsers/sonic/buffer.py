"""SONiC buffers: BUFFER_POOL, BUFFER_PROFILE and BUFFER_PG (lossless pool and PG headroom)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fabriclint.models.common import Source
from fabriclint.models.state import BufferConfig, PgBuffer
from fabriclint.parsers.sonic.draft import REASONS, Draft
from fabriclint.parsers.sonic.tables import Entry, Tables, as_int, port_key, reference

LOSSLESS_POOL = "ingress_lossless_pool"
DYNAMIC_PROFILE = "NULL"  # dynamic buffer model: buffermgrd computes the lossless profile
THRESHOLD_FIELDS = frozenset(
    {"dynamic_th", "static_th", "xon_offset", "headroom_type", "packet_discard_action"}
)
SILENT_POOL_FIELDS = frozenset({"type", "mode"})

# Buffer tables read only for the profiles they reference, and tables not read at all.
PROFILE_USERS = {
    "BUFFER_QUEUE": "profile",
    "BUFFER_PORT_INGRESS_PROFILE_LIST": "profile_list",
    "BUFFER_PORT_EGRESS_PROFILE_LIST": "profile_list",
}
UNREAD = {
    "CABLE_LENGTH": "cable lengths size the headroom buffermgrd computes; not modeled",
    "DEFAULT_LOSSLESS_BUFFER_PARAMETER": "dynamic-buffer defaults are not modeled",
    "LOSSLESS_TRAFFIC_PATTERN": "dynamic-buffer traffic pattern is not modeled",
    "BUFFER_PG_PROFILE": "not modeled",
}


POOL_TYPES = ("ingress", "egress")


@dataclass(slots=True)
class Buffers:
    """Device-wide pool and per-port priority-group buffers."""

    device: BufferConfig | None = None
    ports: dict[str, BufferConfig] = field(default_factory=dict)


def read_buffers(draft: Draft, tables: Tables) -> Buffers:
    """Buffers of the input; references for QOS005 and QOS006 along the way."""
    out = Buffers()
    pool = _pools(draft, tables)
    out.device = pool
    types = _pool_types(draft, tables)
    profiles = {
        name: _profile(draft, entry, types)
        for name, entry in tables.get("BUFFER_PROFILE", {}).items()
    }
    for key, entry in tables.get("BUFFER_PG", {}).items():
        _pg(draft, entry, key, (profiles, pool, out.ports))
    for key, entry in tables.get("BUFFER_QUEUE", {}).items():
        _queue(draft, entry, key, (profiles, pool, out.ports))
    _profile_users(draft, tables)
    for table, reason in UNREAD.items():
        entries = tables.get(table)
        if entries:
            first = next(iter(entries.values()))
            draft.skip(f"{table}|{first.key}", f"{reason} ({_entries(len(entries))})", first.line)
    return out


def _pools(draft: Draft, tables: Tables) -> BufferConfig | None:
    pools = tables.get("BUFFER_POOL", {})
    for name, entry in pools.items():
        draft.define("BUFFER_POOL", name, entry.line)
        for key, _, line in entry.fields.triples():
            if key == "xoff":
                reason = "shared headroom pool size (xoff) is not modeled"
                draft.skip_field("BUFFER_POOL", key, line, reason=reason)
            elif key not in SILENT_POOL_FIELDS and key != "size":
                draft.skip_field("BUFFER_POOL", key, line)
    if not pools:
        return None
    lossless = _lossless(pools)
    first = lossless or next(iter(pools.values()))
    config = BufferConfig(sources={"": draft.at(first.line)})
    size = lossless.text("size") if lossless is not None else None
    if size is not None:  # a dynamic pool without size is sized by buffermgrd: unknown
        config.lossless_pool_bytes = as_int(size[0])
        config.mark("lossless_pool_bytes", draft.at(size[1]))
    return config


def _pool_types(draft: Draft, tables: Tables) -> dict[str, dict[str, Any]]:
    """Pool name -> what a profile drawing from it learns: `pool_type` (ingress or egress) and
    `pool_bytes` (its size), with their sources, for each BUFFER_POOL entry."""
    out: dict[str, dict[str, Any]] = {}
    for name, entry in tables.get("BUFFER_POOL", {}).items():
        known = out[name] = {}
        size = entry.text("size")
        if size is not None and as_int(size[0]) is not None:
            known["pool_bytes"] = (as_int(size[0]), draft.at(size[1]))
        found = entry.text("type")
        if found is None:
            continue
        kind = found[0].strip().lower()
        if kind in POOL_TYPES:
            known["pool_type"] = (kind, draft.at(found[1]))
        else:
            draft.skip(
                f'"type": "{found[0]}"', f"{entry.name}: pool type is ingress or egress", found[1]
            )
    return out


def _lossless(pools: dict[str, Entry]) -> Entry | None:
    """`ingress_lossless_pool`, else the first ingress pool with 'lossless' in its name."""
    if LOSSLESS_POOL in pools:
        return pools[LOSSLESS_POOL]
    for name, entry in pools.items():
        kind = entry.text("type")
        if "lossless" in name and (kind is None or kind[0] == "ingress"):
            return entry
    return None


def _profile(draft: Draft, entry: Entry, types: dict[str, dict[str, Any]]) -> PgBuffer:
    """A BUFFER_PROFILE as PG buffer. `size` is the reserved buffer: on Mellanox the headroom
    (xon + xoff); on Broadcom the guaranteed minimum, with `xoff` the headroom. So headroom is
    `size` unless `xoff` is larger (then xoff_bytes carries the headroom). The profile's name,
    pool and the pool's direction are kept for the BUF rules."""
    draft.define("BUFFER_PROFILE", entry.key, entry.line)
    sources: dict[str, Source] = {"": draft.at(entry.line)}
    size, xoff, xon = (_number(draft, entry, n) for n in ("size", "xoff", "xon"))
    values: dict[str, Any] = {"profile": entry.key}
    pool = entry.text("pool")
    if pool is not None:
        values["pool"] = reference(pool[0])[1]
        sources["pool"] = draft.at(pool[1])
        for key, (value, source) in types.get(values["pool"], {}).items():
            values[key], sources[key] = value, source
    if xoff is not None:
        values["xoff_bytes"], sources["xoff_bytes"] = xoff
    if xon is not None:
        values["xon_bytes"], sources["xon_bytes"] = xon
    if size is not None and (xoff is None or size[0] >= xoff[0]):
        values["headroom_bytes"], sources["headroom_bytes"] = size
    for key, value, line in entry.fields.triples():
        if key == "pool":
            draft.refer_entry("BUFFER_POOL", reference(str(value))[1], entry.table, entry.key, line)
        elif key in THRESHOLD_FIELDS:
            draft.skip_field("BUFFER_PROFILE", key, line, reason=REASONS["thresholds"])
        elif key not in ("size", "xoff", "xon"):
            draft.skip_field("BUFFER_PROFILE", key, line)
    return PgBuffer(sources=sources, **values)


def _number(draft: Draft, entry: Entry, name: str) -> tuple[int, Source] | None:
    found = entry.text(name)
    if found is None:
        return None
    number = as_int(found[0])
    if number is None:
        draft.skip(f'"{name}": "{found[0]}"', f"{entry.name}: not a number of bytes", found[1])
        return None
    return number, draft.at(found[1])


def _pg(
    draft: Draft,
    entry: Entry,
    key: str,
    known: tuple[dict[str, PgBuffer], BufferConfig | None, dict[str, BufferConfig]],
) -> None:
    profiles, pool, ports = known
    parsed = port_key(key)
    found = entry.text("profile")
    if parsed is None or found is None:
        draft.skip(
            entry.name, "BUFFER_PG entries are PORT|PG (Ethernet0|3-4) with a profile", entry.line
        )
        return
    name = reference(found[0])[1]
    if name == DYNAMIC_PROFILE:
        pg = PgBuffer(sources={"": draft.at(entry.line)})
    else:
        draft.refer_entry("BUFFER_PROFILE", name, entry.table, entry.key, found[1])
        pg = profiles.get(name) or PgBuffer(sources={"": draft.at(entry.line)})
    for port in parsed[0]:
        config = _port_config(draft, ports, (port, entry.line), pool)
        for number in parsed[1]:
            config.priority_groups[number] = pg


def _queue(
    draft: Draft,
    entry: Entry,
    key: str,
    known: tuple[dict[str, PgBuffer], BufferConfig | None, dict[str, BufferConfig]],
) -> None:
    """A BUFFER_QUEUE entry (`Ethernet0|3-4`: profile): the profile each egress queue uses.
    Malformed keys and references are reported by `_profile_users`, which reads every user."""
    profiles, pool, ports = known
    parsed = port_key(key)
    found = entry.text("profile")
    profile = profiles.get(reference(found[0])[1]) if found is not None else None
    if parsed is None or profile is None:
        return
    for port in parsed[0]:
        _port_config(draft, ports, (port, entry.line), pool).queue_buffers.update(
            dict.fromkeys(parsed[1], profile)
        )


def _port_config(
    draft: Draft,
    ports: dict[str, BufferConfig],
    where: tuple[str, int],
    pool: BufferConfig | None,
) -> BufferConfig:
    """The buffers of port `where[0]`, made at its first buffer entry (line `where[1]`) with
    the device's lossless pool."""
    port, line = where
    config = ports.get(port)
    if config is None:
        config = ports[port] = BufferConfig(sources={"": draft.at(line)})
        if pool is not None and pool.lossless_pool_bytes is not None:
            config.lossless_pool_bytes = pool.lossless_pool_bytes
            config.mark("lossless_pool_bytes", pool.sources.get("lossless_pool_bytes"))
    return config


def _profile_users(draft: Draft, tables: Tables) -> None:
    """BUFFER_QUEUE and the port profile lists: only their profile references are read."""
    for table, name in PROFILE_USERS.items():
        entries = tables.get(table, {})
        for entry in entries.values():
            found = entry.text(name)
            if found is None:
                continue
            for item in found[0].split(","):
                target = reference(item)[1]
                if target and target != DYNAMIC_PROFILE:
                    draft.refer_entry("BUFFER_PROFILE", target, entry.table, entry.key, found[1])
        if entries:
            first = next(iter(entries.values()))
            reason = (
                "buffer sizes are not modeled, only the profiles named are checked "
                f"({_entries(len(entries))})"
            )
            draft.skip(f"{table}|{first.key}", reason, first.line)


def _entries(count: int) -> str:
    return "1 entry" if count == 1 else f"{count} entries"
