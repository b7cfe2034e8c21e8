"""Resolve a DSCP on a port end to end: traffic class, queue, PFC priority, lossless, ECN.

Vendors chain classification differently; this module is the one place that knows how the
normalized pieces combine, so rules never do.
"""

import weakref
from collections import ChainMap
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from fabriclint.models.common import Source
from fabriclint.models.state import (
    DeviceState,
    EcnConfig,
    PfcConfig,
    QosConfig,
    QueueConfig,
    Trust,
)

_MERGED_FIELDS = (
    "trust",
    "dscp_to_tc",
    "pcp_to_tc",
    "tc_to_priority",
    "lossy_tcs",
    "tc_to_queue",
    "tc_to_pg",
    "queues",
    "pfc",
    "buffers",
    "rewrite",
    "profile",
)

_MERGED_SET = {*_MERGED_FIELDS, "sources", "conflicts"}


class MergedSources(ChainMap[str, Source]):
    """A merged port's sources: the port's own over the device's, read through without a copy.

    The same keys, order and values as `{**device, **port}` (a ChainMap iterates its last map
    first), but ~100 bytes instead of a ~800-byte dict per port (~100 MB at 1,000 switches of
    64 ports). Read-only: a merged QosConfig is a view, and writing would change the port's."""

    def __setitem__(self, key: str, value: Source) -> None:
        raise TypeError("a merged QosConfig's sources are read-only")

    def __delitem__(self, key: str) -> None:
        raise TypeError("a merged QosConfig's sources are read-only")


"""The fields-set every merged QosConfig shares (what `_merge` gives; a 728-byte set each)."""


class Resolution(BaseModel):
    """What happens to packets with one DSCP arriving on (and leaving by) one port."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    dscp: int
    trust: Trust | None
    """Trust mode in force; DSCP classification only applies when it is dscp or both."""
    tc: int | None
    """Traffic class (None when the DSCP is not mapped and no default applies)."""
    queue: int | None
    """Egress queue."""
    priority: int | None
    """802.1p priority carried in PFC frames for this traffic."""
    lossless: bool
    """True when PFC is on for that priority."""
    ecn: EcnConfig | None
    """ECN marking on the queue."""
    scheduler: QueueConfig | None
    """The queue's configuration (scheduler, weight, WRED)."""
    sources: list[Source] = Field(default_factory=list)
    """Lines that took part, in chain order."""


class StateMemo:
    """What rules derive from one state and share: effective QoS per port, the ports in name
    order, and anything else keyed in `extra` (rules/scope.py keeps its per-field sites here).

    A plain slotted object in a module dict keyed by the state's id, not a pydantic private
    attribute: reading one of those goes through BaseModel.__getattr__, and rules ask ~10^6
    times on a large fabric. The entry goes when the state does (weakref.finalize), so an id
    is never reused while its entry exists. A state is not changed once annotated; the port
    order is still rebuilt if the interfaces dict is replaced or grows."""

    __slots__ = ("_ports", "_ports_of", "effective", "extra")

    def __init__(self) -> None:
        self.effective: dict[str | None, QosConfig] = {}
        self.extra: dict[Any, Any] = {}
        self._ports: list[str] = []
        self._ports_of: tuple[int, int] = (0, -1)

    def ports(self, state: DeviceState) -> list[str]:
        """The state's interface names, sorted (shared: do not modify)."""
        key = (id(state.interfaces), len(state.interfaces))
        if key != self._ports_of:
            self._ports, self._ports_of = sorted(state.interfaces), key
            self.extra.clear()  # derived from the old port set
        return self._ports


_MEMOS: dict[int, StateMemo] = {}


def memo_of(state: DeviceState) -> StateMemo:
    """The memo of `state` (created on first use, dropped with the state)."""
    key = id(state)
    found = _MEMOS.get(key)
    if found is None:
        found = _MEMOS[key] = StateMemo()
        weakref.finalize(state, _MEMOS.pop, key, None)
    return found


def effective_qos(state: DeviceState, port: str | None) -> QosConfig:
    """The QoS that applies on `port`: per-port settings over device-wide ones, field by field."""
    memo = memo_of(state).effective
    found = memo.get(port)
    if found is None:
        found = memo[port] = _merge(state, port)
    return found


def _merge(state: DeviceState, port: str | None) -> QosConfig:
    base = state.qos
    iface = state.interfaces.get(port) if port else None
    if iface is None or iface.qos is None:
        return base
    over = iface.qos
    values: dict[str, Any] = {}
    for field in _MERGED_FIELDS:
        value = getattr(over, field)
        values[field] = value if value is not None else getattr(base, field)
    if over.pfc is not None and over.pfc.watchdog is None and base.pfc is not None:
        # A port that turns PFC on still falls under the device-wide watchdog.
        values["pfc"] = over.pfc.model_copy(update={"watchdog": base.pfc.watchdog})
    # model_construct: both halves are already validated; this runs ~10^5 times on a big fabric.
    return QosConfig.model_construct(
        _MERGED_SET,
        **values,
        sources=MergedSources(over.sources, base.sources),  # type: ignore[arg-type]  # a Mapping read as the dict
        conflicts=[*base.conflicts, *over.conflicts],
    )


def lossless_priorities(qos: QosConfig) -> list[int]:
    """Priorities with PFC on (empty when PFC is off)."""
    pfc: PfcConfig | None = qos.pfc
    if pfc is None or not pfc.enabled:
        return []
    return sorted(set(pfc.priorities))


# ---- the questions rules ask of a merged QosConfig, each answered here once -------------------
# The identity defaults (TC -> priority, TC -> queue when the map is absent) live in these
# functions only: every 802.1Qaz-style pipeline maps class n to priority n and queue n unless
# configured otherwise (EOS, NX-OS, SONiC, Cumulus and mlnx_qos all default to identity).


def declared_lossy(qos: QosConfig, tc: int) -> bool:
    """True when the platform declares traffic class `tc` lossy whatever PFC says (`lossy_tcs`)."""
    return bool(qos.lossy_tcs) and tc in (qos.lossy_tcs or ())


def tc_priority(qos: QosConfig, tc: int) -> int | None:
    """The 802.1p priority of traffic class `tc`: its `tc_to_priority` entry, else identity;
    None for a lossy class (`lossy_tcs`) whose identity priority another class's entry claims:
    routed, it carries no 802.1p priority, and identity would wrongly call it lossless (Junos:
    CNP on queue 3 next to a no-loss class with `pfc-priority 3`)."""
    to_prio = qos.tc_to_priority or {}
    if tc in to_prio:
        return to_prio[tc]
    if declared_lossy(qos, tc) and tc in to_prio.values():
        return None
    return tc


def tc_queue(qos: QosConfig, tc: int) -> int:
    """The egress queue of traffic class `tc`: its `tc_to_queue` entry, else identity."""
    return (qos.tc_to_queue or {}).get(tc, tc)


def tc_lossless(qos: QosConfig, tc: int) -> bool:
    """True when traffic class `tc` is lossless: not declared lossy, and PFC on its priority."""
    if declared_lossy(qos, tc):
        return False
    priority = tc_priority(qos, tc)
    return priority is not None and priority in lossless_priorities(qos)


def traffic_classes(qos: QosConfig) -> set[int]:
    """Every traffic class the configuration can name: the eight of 802.1p, plus any other a
    map mentions."""
    return (
        set(range(8))
        | set(qos.tc_to_priority or {})
        | set(qos.tc_to_queue or {})
        | set((qos.dscp_to_tc or {}).values())
    )


def lossless_tcs(qos: QosConfig) -> set[int]:
    """Traffic classes whose 802.1p priority has PFC (identity TC -> priority by default):
    `tc_lossless` of each class, with the lossless priorities worked out once."""
    lossless = set(lossless_priorities(qos))
    if not lossless:
        return set()
    lossy = qos.lossy_tcs or ()
    return {
        tc for tc in traffic_classes(qos) if tc not in lossy and tc_priority(qos, tc) in lossless
    }


def lossless_queues(qos: QosConfig) -> set[int]:
    """Egress queues that carry a lossless traffic class."""
    return {tc_queue(qos, tc) for tc in lossless_tcs(qos)}


def lossless_queues_of(users: Iterable[QosConfig]) -> set[int]:
    """Egress queues that carry a lossless traffic class in any of `users` (ports that inherit
    one QoS object share it: each distinct object is looked at once)."""
    distinct = {id(q): q for q in users}.values()
    return set().union(*map(lossless_queues, distinct))


def priority_tcs(qos: QosConfig, priority: int) -> list[int]:
    """The traffic classes (0-7) that carry 802.1p `priority`, a class not declared lossy first."""
    tcs = [tc for tc in range(8) if tc_priority(qos, tc) == priority]
    return sorted(tcs, key=lambda tc: declared_lossy(qos, tc))


def priority_queues(qos: QosConfig, priority: int) -> list[int]:
    """The egress queues of the classes that carry `priority`, in `priority_tcs` order."""
    return [tc_queue(qos, tc) for tc in priority_tcs(qos, priority)]


def priority_queue(qos: QosConfig, priority: int) -> int | None:
    """The egress queue traffic of a PFC `priority` waits in: that of the first class carrying
    the priority that is not declared lossy (None when no such class)."""
    for tc in priority_tcs(qos, priority):
        if not declared_lossy(qos, tc):
            return tc_queue(qos, tc)
    return None


def priority_pgs(qos: QosConfig, priority: int) -> list[tuple[int, int]]:
    """(traffic class, ingress priority group) of each class not declared lossy that carries
    802.1p `priority`, by the explicit TC -> PG map (no identity default: what a platform does
    without the map differs); empty when the map is unknown or lacks the class."""
    to_pg = qos.tc_to_pg or {}
    return [
        (tc, to_pg[tc])
        for tc in priority_tcs(qos, priority)
        if not declared_lossy(qos, tc) and tc in to_pg
    ]


def tcs_in_use(qos: QosConfig) -> set[int] | None:
    """Traffic classes some DSCP or PCP map sends traffic to (with PCP trusted and no PCP map,
    the identity map reaches all eight); None when neither map is known."""
    if qos.dscp_to_tc is None and qos.pcp_to_tc is None:
        return None
    reached = set((qos.dscp_to_tc or {}).values()) | set((qos.pcp_to_tc or {}).values())
    if qos.trust in (Trust.PCP, Trust.BOTH) and qos.pcp_to_tc is None:
        reached |= set(range(8))
    return reached


def priorities_in_use(qos: QosConfig) -> set[int] | None:
    """802.1p priorities some DSCP or PCP class maps to; every priority when PCP is trusted
    with no PCP map (the default identity map uses them all); None when the maps are unknown."""
    if qos.trust in (Trust.PCP, Trust.BOTH) and qos.pcp_to_tc is None:
        return set(range(8))
    tcs = tcs_in_use(qos)
    if tcs is None:
        return None
    return {p for tc in tcs if (p := tc_priority(qos, tc)) is not None}


def egress_dscp(qos: QosConfig, dscp: int) -> tuple[int, Source | None] | None:
    """The DSCP a packet received with `dscp` leaves with under `qos`'s egress rewrite, and the
    line that writes it: its `by_dscp` entry, else the `by_tc` entry of the class the DSCP is
    classified into. None when no rewrite entry applies (the DSCP leaves unchanged)."""
    rewrite = qos.rewrite
    if rewrite is None:
        return None
    if dscp in rewrite.by_dscp:
        return rewrite.by_dscp[dscp], rewrite.src(f"by_dscp.{dscp}")
    tc = (qos.dscp_to_tc or {}).get(dscp)
    if tc is not None and tc in rewrite.by_tc:
        return rewrite.by_tc[tc], rewrite.src(f"by_tc.{tc}")
    return None


def resolve_qos(qos: QosConfig, dscp: int) -> Resolution:
    """Resolve `dscp` through an already-merged QosConfig."""
    sources: list[Source] = []

    def note(key: str) -> None:
        found = qos.sources.get(key)
        if found is not None:
            sources.append(found)

    tc = (qos.dscp_to_tc or {}).get(dscp)
    note(f"dscp_to_tc.{dscp}")
    priority = queue = None
    if tc is not None:
        priority = tc_priority(qos, tc)
        note(f"tc_to_priority.{tc}")
        queue = tc_queue(qos, tc)
        note(f"tc_to_queue.{tc}")
    qconf = (qos.queues or {}).get(queue) if queue is not None else None
    lossless = tc is not None and tc_lossless(qos, tc)
    if qos.pfc is not None:
        note("pfc")
    return Resolution(
        dscp=dscp,
        trust=qos.trust,
        tc=tc,
        queue=queue,
        priority=priority,
        lossless=lossless,
        ecn=qconf.ecn if qconf is not None else None,
        scheduler=qconf,
        sources=sources,
    )


def resolve(state: DeviceState, port: str | None, dscp: int) -> Resolution:
    """Resolve `dscp` on `port` of `state` (None = device-wide settings)."""
    return resolve_qos(effective_qos(state, port), dscp)
