"""PORT_QOS_MAP to QosConfig: the maps a port (or `global`) applies, tc_to_priority, trust, PFC."""

from __future__ import annotations

from dataclasses import dataclass, field

from fabriclint.models.common import Source
from fabriclint.models.state import (
    BufferConfig,
    DscpRewrite,
    PfcConfig,
    QosConfig,
    QueueConfig,
    Trust,
)
from fabriclint.parsers.sonic.draft import Draft
from fabriclint.parsers.sonic.maps import APPLIED, REFERENCED, IntMap, Maps
from fabriclint.parsers.sonic.tables import Entry, Tables, reference

# The QosConfig fields an applied map fills (pfc_to_queue only feeds tc_to_priority).
MAP_FIELDS = ("dscp_to_tc", "pcp_to_tc", "tc_to_queue", "tc_to_pg")
OWN_FIELDS = frozenset({"pfc_enable", "pfcwd_sw_enable", "trust"})
TRUST_WORDS = {
    "dscp": Trust.DSCP,
    "dot1p": Trust.PCP,
    "pcp": Trust.PCP,
    "both": Trust.BOTH,
    "none": Trust.NONE,
}
# With no DSCP_TO_TC map bound (port or switch), SAI puts every packet in traffic class 0
# (SAI_PORT_ATTR_QOS_DEFAULT_TC defaults to 0).
DEFAULT_DSCP_TC = dict.fromkeys(range(64), 0)

DEFAULT_SOURCES_KEYS = tuple(f"dscp_to_tc.{dscp}" for dscp in range(64))

Applied = dict[str, tuple[IntMap | None, Source]]
"""QosConfig field (or `pfc_to_queue`) -> the map applied (None when undefined) and the line."""


@dataclass(slots=True)
class Bound:
    """What one PORT_QOS_MAP entry binds, and the references orchagent cannot resolve."""

    maps: Applied = field(default_factory=dict)
    blocked: list[tuple[str, Source]] = field(default_factory=list)
    """(field, line) of references to missing objects: orchagent retries the whole entry
    until they exist, so none of its maps and not its pfc_enable are applied meanwhile."""


def applied(draft: Draft, entry: Entry, maps: Maps, tables: Tables) -> Bound:
    """The maps a PORT_QOS_MAP entry applies; references recorded; other fields reported."""
    out = Bound()
    for name, value, line in entry.fields.triples():
        if name in APPLIED:
            table, target = APPLIED[name]
            found = _named(draft, entry, name, (str(value), line), table)
            intmap = maps.get(table, {}).get(found or "")
            if intmap is None:
                out.blocked.append((name, draft.at(line)))
            out.maps[target] = (intmap, draft.at(line))
        elif name in REFERENCED:
            table = REFERENCED[name]
            found = _named(draft, entry, name, (str(value), line), table)
            if found is None or found not in tables.get(table, {}):
                out.blocked.append((name, draft.at(line)))
            draft.skip_field("PORT_QOS_MAP", name, line)
        elif name not in OWN_FIELDS:
            draft.skip_field("PORT_QOS_MAP", name, line)
    if out.blocked:
        names = ", ".join(name for name, _ in out.blocked)
        reason = (
            f"{entry.name}: {names} does not name an existing object of its table; orchagent "
            "retries the entry until it does, so none of its maps and not its pfc_enable are "
            "applied"
        )
        draft.skip(entry.name, reason, entry.line)
    return out


def _named(draft: Draft, entry: Entry, name: str, found: tuple[str, int], table: str) -> str | None:
    kind, target = reference(found[0])
    if not target:
        draft.skip(f'"{name}": "{found[0]}"', f"{entry.name}: empty reference", found[1])
        return None
    draft.refer_entry(kind or table, target, entry.table, entry.key, found[1])
    if kind is not None and kind != table:
        reason = f"{entry.name}: {name} names a {kind} entry, not a {table} entry"
        draft.skip(f'"{name}": "{found[0]}"', reason, found[1])
        return None
    return target


@dataclass(slots=True)
class PortParts:
    """Everything a port's QosConfig is made of, besides its maps."""

    queues: dict[int, QueueConfig] | None = None
    buffers: BufferConfig | None = None
    pfc: PfcConfig | None = None
    pfc_sources: dict[str, Source] = field(default_factory=dict)
    trust: tuple[Trust, Source] | None = None


@dataclass(slots=True)
class Priorities:
    """tc_to_priority derived once per (MAP_PFC_PRIORITY_TO_QUEUE, TC_TO_QUEUE_MAP) pair."""

    cache: dict[tuple[int, int], tuple[dict[int, int], dict[str, Source], list[int]]] = field(
        default_factory=dict
    )

    def derive(
        self, pfc_map: IntMap, tc_queue: IntMap | None
    ) -> tuple[dict[int, int], dict[str, Source], list[int]]:
        """TC -> the PFC priority whose pause frames stop the TC's queue (see docs).
        Returns the map, its sources and the TCs whose queue no priority pauses."""
        key = (id(pfc_map), id(tc_queue))
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = _derive(pfc_map, tc_queue)
        return found


def _derive(
    pfc_map: IntMap, tc_queue: IntMap | None
) -> tuple[dict[int, int], dict[str, Source], list[int]]:
    by_queue: dict[int, list[int]] = {}
    for prio, queue in sorted(pfc_map.values.items()):
        by_queue.setdefault(queue, []).append(prio)
    queues = tc_queue.values if tc_queue is not None else {}
    out: dict[int, int] = {}
    sources: dict[str, Source] = {}
    unpaused: list[int] = []
    for tc in sorted(set(range(8)) | set(queues)):
        prios = by_queue.get(queues.get(tc, tc))
        if not prios:
            unpaused.append(tc)
            continue
        prio = tc if tc in prios else prios[0]
        out[tc] = prio
        sources[f"tc_to_priority.{tc}"] = pfc_map.sources[prio]
    return out, sources, unpaused


def build_qos(
    draft: Draft,
    own: Applied,
    base: Applied,
    parts: PortParts,
    derived: Priorities,
) -> QosConfig:
    """A QosConfig from the maps `own` applies; `base` (the `global` entry) fills what the
    port leaves unset where the derivation of tc_to_priority needs it."""
    qos = QosConfig()
    for name in MAP_FIELDS:
        found = own.get(name)
        intmap = found[0] if found is not None else None
        if found is None or intmap is None:
            continue
        # Ports applying one map share its dict (a parsed state is read-only).
        setattr(qos, name, intmap.values)
        qos.sources.update(intmap.keyed(name))
        qos.sources[name] = found[1]
        qos.conflicts.extend(intmap.conflicts(name))
    qos.rewrite = rewrite_of(own)
    _priorities(draft, qos, (own, base), parts.pfc, derived)
    if parts.trust is not None:
        qos.trust = parts.trust[0]
        qos.sources["trust"] = parts.trust[1]
    qos.queues, qos.buffers, qos.pfc = parts.queues, parts.buffers, parts.pfc
    qos.sources.update(parts.pfc_sources)
    return qos


def rewrite_of(own: Applied) -> DscpRewrite | None:
    """The egress rewrite the TC_TO_DSCP / DSCP_TO_DSCP maps of a PORT_QOS_MAP entry bind;
    None when it binds neither (or only maps that do not exist: orchagent applies nothing)."""
    by_tc, by_dscp = own.get("rewrite.by_tc"), own.get("rewrite.by_dscp")
    found = [pair for pair in (by_tc, by_dscp) if pair is not None and pair[0] is not None]
    if not found:
        return None
    rewrite = DscpRewrite(name=" + ".join(f"{m.table}|{m.name}" for m, _ in found if m))
    rewrite.mark("", found[0][1])
    for attr, pair in (("by_tc", by_tc), ("by_dscp", by_dscp)):
        if pair is not None and pair[0] is not None:
            setattr(rewrite, attr, dict(pair[0].values))
            rewrite.sources.update(pair[0].keyed(attr))
    return rewrite


def _priorities(
    draft: Draft,
    qos: QosConfig,
    layers: tuple[Applied, Applied],
    pfc: PfcConfig | None,
    derived: Priorities,
) -> None:
    own, base = layers
    chosen = own.get("pfc_to_queue") or base.get("pfc_to_queue")
    if chosen is None or chosen[0] is None:
        return  # SAI default: PFC priority N pauses queue N, the identity resolve() assumes
    if own.get("pfc_to_queue") is None and own.get("tc_to_queue") is None:
        return  # nothing port-specific: the device-wide derivation applies
    tc_queue = own.get("tc_to_queue") or base.get("tc_to_queue")
    mapping, sources, unpaused = derived.derive(chosen[0], tc_queue[0] if tc_queue else None)
    qos.tc_to_priority = dict(mapping)
    qos.sources.update(sources)
    qos.sources["tc_to_priority"] = chosen[1]
    lossless = set(pfc.priorities) if pfc is not None and pfc.enabled else set()
    stranded = [tc for tc in unpaused if tc in lossless]
    if stranded:
        reason = (
            f"traffic classes {stranded} go to queues that no PFC priority pauses in "
            f"MAP_PFC_PRIORITY_TO_QUEUE|{chosen[0].name}, so they are not lossless at egress"
        )
        draft.skip_field("PORT_QOS_MAP", "pfc_to_queue_map", chosen[1].line or 0, reason=reason)


def trust_of(
    draft: Draft, entry: Entry | None, own: Applied, base: Applied
) -> tuple[Trust, Source] | None:
    """Trust of a port: an explicit `trust` field, else what the bound maps classify by
    (a DSCP map on the port or switch-wide, a DOT1P map on the port). None = inherit."""
    written = entry.text("trust") if entry is not None else None
    if written is not None:
        trust = TRUST_WORDS.get(written[0].strip().lower())
        if trust is not None:
            return trust, draft.at(written[1])
        draft.skip(
            f'"trust": "{written[0]}"', f"{entry.name if entry else ''}: unknown trust", written[1]
        )
    dscp = own.get("dscp_to_tc") or base.get("dscp_to_tc")
    pcp = own.get("pcp_to_tc")
    if own.get("dscp_to_tc") is None and pcp is None:
        return None
    if dscp is not None and pcp is not None:
        return Trust.BOTH, (own.get("dscp_to_tc") or pcp)[1]
    if dscp is not None:
        return Trust.DSCP, dscp[1]
    return (Trust.PCP, pcp[1]) if pcp is not None else None


def device_qos(draft: Draft, base: Applied, derived: Priorities, whole: bool) -> QosConfig:
    """Switch-wide QoS: the maps of PORT_QOS_MAP|global, else the SAI default (every DSCP in
    TC 0) when the input is a whole config_db (`whole`: it has PORT or PORT_QOS_MAP), not a
    fragment such as a rendered buffers.json, which says nothing about classification."""
    qos = build_qos(draft, base, {}, PortParts(), derived)
    dscp = base.get("dscp_to_tc")
    if dscp is not None and dscp[0] is not None:
        qos.trust = Trust.DSCP
        qos.sources["trust"] = dscp[1]
        return qos
    if not whole:
        return qos
    qos.trust = Trust.NONE
    qos.dscp_to_tc = dict(DEFAULT_DSCP_TC)
    qos.sources["trust"] = draft.default
    qos.sources.update(dict.fromkeys(DEFAULT_SOURCES_KEYS, draft.default))
    return qos
