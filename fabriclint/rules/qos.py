"""QOS rules (QOS001-QOS009): classification, maps, named objects, scheduling and buffers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import Field

from fabriclint.models.resolve import (
    Resolution,
    lossless_priorities,
    lossless_queues_of,
    lossless_tcs,
)
from fabriclint.models.state import (
    BufferConfig,
    DeviceState,
    Interface,
    PgBuffer,
    QosConfig,
    SchedulerMode,
    Trust,
)
from fabriclint.rules.base import Context, NoOptions, Rule
from fabriclint.rules.refs import DanglingReference, UnusedDefinition
from fabriclint.rules.scope import (
    Fault,
    FaultRule,
    Site,
    StrictOptions,
    classified_ports,
    first,
    locate,
    names,
    own_configs,
    owner,
    roce_ports,
    sites,
)

_WEIGHTED = (SchedulerMode.DWRR, SchedulerMode.ETS)


class TrustNotDscp(FaultRule[NoOptions]):
    """A routed RoCE v2 port (switch or NIC) does not trust DSCP.

    Why: RoCE v2 is routed UDP; on a routed link the 802.1p priority is gone, so only DSCP can put
    RDMA into its lossless class. Checked on RDMA-carrying routed switch ports and on NIC ports;
    trust `both` is accepted. Options: none. Skipped when a port's trust mode is unknown.

    Failing (ConnectX): ``mlnx_qos -i ens1np0 --trust pcp``

    Passing: ``mlnx_qos -i ens1np0 --trust dscp``
    """

    code = "QOS001"
    name = "trust-not-dscp"
    severity = "error"
    summary = "A routed RoCE v2 port (switch or NIC) does not trust DSCP"

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        for iface in roce_ports(ctx, self.code, state):
            if not (state.is_host or iface.routed):
                continue
            qos = ctx.qos(state, iface.name)
            if qos.trust is None:
                ctx.skip(self.code, state.name)
            elif qos.trust not in (Trust.DSCP, Trust.BOTH):
                yield Fault(
                    owner(state, iface, "trust", source=qos.sources.get("trust")),
                    "trust",
                    f"Trust mode {{where}} is {qos.trust.value}, not dscp, so RoCE v2 traffic on "
                    "routed RDMA ports is not classified by its DSCP",
                    expected="dscp",
                    actual=qos.trust.value,
                    source=qos.sources.get("trust"),
                    ports=[iface.name],
                )


class DscpMultiplyMapped(FaultRule[NoOptions]):
    """One DSCP (or other map key) is assigned to two classes in the same map.

    Why: the platform keeps only one of the assignments (usually the last), so the class RoCE or
    CNP traffic ends up in depends on line order, and a later edit silently moves it. Conflicts in
    the other maps (PCP, TC -> queue, ...) are reported the same way. Options: none.

    Failing (EOS)::

        qos map dscp 26 to traffic-class 3
        qos map dscp 24 26 to traffic-class 1

    Passing::

        qos map dscp 26 to traffic-class 3
        qos map dscp 24 to traffic-class 1
    """

    code = "QOS002"
    name = "dscp-multiply-mapped"
    severity = "error"
    summary = "One DSCP is assigned to two classes in the same map"

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        for iface, qos in own_configs(state):
            for conflict in qos.conflicts:
                if len(set(conflict.values)) < 2:
                    continue
                source = conflict.sources[-1] if conflict.sources else None
                yield Fault(
                    locate(state, iface, source),
                    f"{conflict.map}.{conflict.key}",
                    f"{_key_label(conflict.map, conflict.key)} is assigned more than once in "
                    f"{conflict.map} {{where}}: to {', then '.join(map(str, conflict.values))}",
                    expected="one value",
                    actual=conflict.values,
                    source=source,
                )


def _key_label(map_name: str, key: int) -> str:
    noun = {"dscp_to_tc": "DSCP", "pcp_to_tc": "PCP"}.get(map_name, "Traffic class")
    return f"{noun} {key}"


class MapValueOutOfRange(FaultRule["MapValueOutOfRange.Options"]):
    """A map uses a key or produces a value outside its range (TC/priority 0-7, DSCP 0-63).

    Why: out-of-range values are rejected or truncated by the ASIC (TC 9 may become TC 1), so
    traffic silently lands in another class. Checks dscp_to_tc, pcp_to_tc, tc_to_priority,
    tc_to_queue, tc_to_pg and the PFC priorities. Options: `max_queue` (default 7),
    `max_queue_by_platform` (default junos 11, whose QFX queues go to 11), `max_pg` (default 7).

    Failing (SONiC DSCP_TO_TC_MAP): ``"AZURE": {"26": "9"}``

    Passing: ``"AZURE": {"26": "3"}``
    """

    class Options(StrictOptions):
        """Options of QOS003."""

        max_queue: int = Field(default=7, ge=0)
        """Highest egress queue number."""
        max_queue_by_platform: dict[str, int] = {"junos": 11}
        """Highest egress queue number by platform key."""
        max_pg: int = Field(default=7, ge=0)
        """Highest ingress priority-group number."""

    code = "QOS003"
    name = "map-value-out-of-range"
    severity = "error"
    summary = "A map produces a TC/priority outside 0-7 (or the platform's range)"
    options_model = Options

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        maps = self._maps(state.platform)
        for iface, qos in own_configs(state):
            yield from _range_faults(Site(state, iface, qos, [qos]), maps)

    def _maps(self, platform: str) -> list[tuple[str, str, int, str, int]]:
        """(field, key noun, key max, value noun, value max) of each map."""
        queue = self.options.max_queue_by_platform.get(platform, self.options.max_queue)
        return [
            ("dscp_to_tc", "DSCP", 63, "traffic class", 7),
            ("pcp_to_tc", "PCP", 7, "traffic class", 7),
            ("tc_to_priority", "traffic class", 7, "priority", 7),
            ("tc_to_queue", "traffic class", 7, "queue", queue),
            ("tc_to_pg", "traffic class", 7, "priority group", self.options.max_pg),
        ]


def _range_faults(site: Site, maps: list[tuple[str, str, int, str, int]]) -> Iterator[Fault]:
    qos = site.qos
    for name, key_noun, key_max, value_noun, value_max in maps:
        mapping: dict[int, Any] = getattr(qos, name) or {}
        bad = {
            k: v
            for k, v in mapping.items()
            if isinstance(v, int)  # robust to a value a parser could not give (never compare None)
            and not (0 <= k <= key_max and 0 <= v <= value_max)
        }
        if bad:
            shown = names([f"{key_noun} {k} -> {value_noun} {v}" for k, v in sorted(bad.items())])
            source = first(qos.sources.get(f"{name}.{min(bad)}"), qos.sources.get(name))
            yield Fault(
                site.at(source),
                name,
                f"{name} {{where}} has entries outside the valid range: {shown} "
                f"({key_noun} 0-{key_max}, {value_noun} 0-{value_max})",
                expected=f"{key_noun} 0-{key_max}, {value_noun} 0-{value_max}",
                actual=bad,
                source=source,
            )
    bad_prios = [p for p in (qos.pfc.priorities if qos.pfc else []) if not 0 <= p <= 7]
    if qos.pfc is not None and bad_prios:
        yield Fault(
            site.at(qos.pfc.src("priorities")),
            "pfc.priorities",
            f"PFC {{where}} lists priorities outside 0-7: {bad_prios}",
            expected="priorities 0-7",
            actual=bad_prios,
            source=qos.pfc.src("priorities"),
        )


class CnpNotPrioritized(FaultRule["CnpNotPrioritized.Options"]):
    """The CNP DSCP does not land in a strict-priority (or highest-weight) queue, or lands in RDMA's.

    Why: congestion notifications must overtake the traffic they slow down; a CNP queued behind
    RoCE data (or in a low-weight queue) arrives late and DCQCN reacts too slowly. The intended CNP
    DSCP is resolved on every cabled port. When intent says `cnp.strict: false`, only the
    RoCE-queue collision is checked. Option `allow_highest_weight` (default true): a weighted
    queue with the highest weight also passes. Skipped without a CNP class in intent, or when the
    DSCP map or the CNP queue's scheduler is unknown.

    Failing (EOS)::

        qos map dscp 48 to traffic-class 3

    Passing::

        qos map dscp 48 to traffic-class 6
        tx-queue 6
           priority strict
    """

    class Options(StrictOptions):
        """Options of QOS004."""

        allow_highest_weight: bool = True
        """Accept a weighted CNP queue whose weight is the highest on the port."""

    code = "QOS004"
    name = "cnp-not-prioritized"
    severity = "warning"
    summary = "The CNP DSCP does not land in a strict/highest-weight queue, or lands in RDMA's"
    options_model = Options

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        cnp, roce = ctx.cnp(state.name), ctx.roce(state.name)
        ports = classified_ports(ctx, self.code, state, cnp)
        if cnp is None:
            return
        for iface in ports:
            res = ctx.resolve(state, iface.name, cnp.dscp)
            rdma = ctx.resolve(state, iface.name, roce.dscp[0]) if roce else None
            fault = _class_fault(state, iface, res, rdma)
            if fault is None and cnp.strict:
                fault = self._queue_fault(ctx, state, iface, res)
            if fault is not None:
                yield fault

    def _queue_fault(
        self, ctx: Context, state: DeviceState, iface: Interface, res: Resolution
    ) -> Fault | None:
        mode = res.scheduler.scheduler if res.scheduler else None
        if mode is None or res.scheduler is None:
            ctx.skip(self.code, state.name)
            return None
        weight = res.scheduler.weight
        if mode is SchedulerMode.STRICT or (
            self.options.allow_highest_weight and _highest(ctx.qos(state, iface.name), weight)
        ):
            return None
        source = first(res.scheduler.src("scheduler", "weight"), *res.sources)
        return Fault(
            owner(state, iface, "queues", source=source),
            f"queues.{res.queue}.scheduler",
            f"CNP DSCP {res.dscp} lands in queue {res.queue} {{where}}, which is {mode.value}"
            f"{f' with weight {weight:g}' if weight is not None else ''}, neither strict "
            "priority nor the highest weight",
            expected="strict",
            actual={"scheduler": mode.value, "weight": weight},
            source=source,
            queue=res.queue,
            ports=[iface.name],
        )


def _class_fault(
    state: DeviceState, iface: Interface, res: Resolution, rdma: Resolution | None
) -> Fault | None:
    """CNPs unmapped, or sharing the RoCE queue."""
    if res.tc is None:
        problem = "is not in the DSCP map {where}, so CNPs fall into the default class"
    elif rdma is not None and rdma.tc is not None and res.queue == rdma.queue:
        problem = (
            f"lands in queue {res.queue} {{where}}, the RoCE queue, so CNPs wait behind the "
            "traffic they should slow down"
        )
    else:
        return None
    source = first(*res.sources)
    return Fault(
        owner(state, iface, "dscp_to_tc", "tc_to_queue", source=source),
        f"dscp_to_tc.{res.dscp}",
        f"CNP DSCP {res.dscp} {problem}",
        expected="a strict-priority queue of its own",
        actual={"tc": res.tc, "queue": res.queue},
        source=source,
        ports=[iface.name],
    )


def _highest(qos: QosConfig, weight: float | None) -> bool:
    weights = [
        q.weight for q in (qos.queues or {}).values() if q.scheduler in _WEIGHTED and q.weight
    ]
    return weight is not None and bool(weights) and weight >= max(weights)


class SchedulerWeightsInvalid(FaultRule["SchedulerWeightsInvalid.Options"]):
    """ETS/DWRR weights sum to more than 100, or a lossless queue gets weight 0.

    Why: percent weights over 100 are rejected or scaled unpredictably by the ASIC; a lossless
    queue with weight 0 is starved, its ingress pauses and the pause spreads upstream. Option
    `relative_weight_platforms` (default sonic): platforms whose weights are relative DWRR weights
    rather than percents, where the sum is not checked.

    Failing (EOS)::

        tx-queue 3
           bandwidth percent 60
        tx-queue 0
           bandwidth percent 50

    Passing::

        tx-queue 3
           bandwidth percent 50
        tx-queue 0
           bandwidth percent 50
    """

    class Options(StrictOptions):
        """Options of QOS007."""

        relative_weight_platforms: list[str] = ["sonic"]
        """Platforms whose DWRR weights are relative (their sum may exceed 100)."""

    code = "QOS007"
    name = "scheduler-weights-invalid"
    severity = "warning"
    summary = "ETS/DWRR weights sum > 100, or a lossless queue gets weight 0"
    options_model = Options

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        percent = state.platform not in self.options.relative_weight_platforms
        for site in sites(state, "queues"):
            yield from _weight_faults(site, percent)


def _weight_faults(site: Site, percent: bool) -> Iterator[Fault]:
    queues = site.qos.queues or {}
    weighted = {n: q for n, q in sorted(queues.items()) if q.scheduler in _WEIGHTED}
    total = sum(q.weight or 0 for q in weighted.values())
    if percent and total > 100 + 1e-6:
        shares = ", ".join(f"queue {n}: {q.weight:g}" for n, q in weighted.items() if q.weight)
        yield Fault(
            site.at(first(*(q.src("weight") for q in weighted.values()))),
            "queues",
            f"Scheduler weights {{where}} add up to {total:g}% ({shares}), more than 100%",
            expected="at most 100",
            actual=total,
            source=first(*(q.src("weight") for q in weighted.values())),
        )
    for number in sorted(lossless_queues_of(site.users)):
        queue = weighted.get(number)
        if queue is not None and queue.weight == 0:
            yield Fault(
                site.at(queue.src("weight")),
                f"queues.{number}.weight",
                f"Lossless queue {number} {{where}} has scheduler weight 0, so it is starved "
                "and its pauses spread upstream",
                expected="> 0",
                actual=0,
                source=queue.src("weight"),
                queue=number,
            )


def _lossless_pgs(qos: QosConfig) -> set[int]:
    """Ingress priority groups of lossless traffic (the priorities when there is no TC->PG map)."""
    if qos.tc_to_pg is None:
        return set(lossless_priorities(qos))
    return {qos.tc_to_pg[tc] for tc in lossless_tcs(qos) if tc in qos.tc_to_pg}


def _no_headroom(pg: PgBuffer) -> bool:
    return pg.headroom_bytes == 0 or (pg.headroom_bytes is None and pg.xoff_bytes == 0)


class LosslessBufferMissing(FaultRule["LosslessBufferMissing.Options"]):
    """Lossless priorities exist but the lossless buffer pool or PG headroom is zero or absent.

    Why: PFC only prevents drops if, after sending XOFF, the port has headroom for the data still
    in flight; without a lossless pool or headroom the "lossless" class drops at the first burst.
    A priority group with unknown headroom (dynamically computed, e.g. SONiC buffermgrd) is not
    reported. Option `buffer_platforms` (default sonic): platforms whose inputs carry the buffer
    configuration, where absent buffers are a finding; on others the device is skipped.

    Failing (SONiC): ``"BUFFER_POOL": {"ingress_lossless_pool": {"size": "0"}}``

    Passing: ``"BUFFER_POOL": {"ingress_lossless_pool": {"size": "12766208"}}``
    """

    class Options(StrictOptions):
        """Options of QOS008."""

        buffer_platforms: list[str] = ["sonic"]
        """Platforms whose parsed inputs include the buffer configuration."""

    code = "QOS008"
    name = "lossless-buffer-missing"
    severity = "error"
    summary = "Lossless priorities exist but the lossless buffer pool/headroom is zero or absent"
    options_model = Options

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        for site in sites(state, "buffers"):
            pgs = set().union(*(_lossless_pgs(q) for q in site.users))
            prios = sorted(set().union(*(lossless_priorities(q) for q in site.users)))
            if not pgs:
                continue
            buffers = site.qos.buffers
            if buffers is not None:
                yield from _buffer_faults(site, buffers, sorted(pgs), prios)
            elif state.platform in self.options.buffer_platforms:
                yield Fault(
                    site.at(site.qos.sources.get("pfc")),
                    "buffers",
                    f"Priorities {prios} are lossless {{where}}, but no lossless buffer "
                    "pool or headroom is configured",
                    expected="a lossless pool and PG headroom",
                    actual=None,
                    source=site.qos.sources.get("pfc"),
                )
            else:
                ctx.skip(self.code, state.name)


def _buffer_faults(
    site: Site, buffers: BufferConfig, pgs: list[int], prios: list[int]
) -> Iterator[Fault]:
    pool, groups = buffers.lossless_pool_bytes, buffers.priority_groups
    if pool == 0:
        yield Fault(
            site.at(buffers.src("lossless_pool_bytes")),
            "buffers.lossless_pool_bytes",
            f"The lossless buffer pool {{where}} is 0 B, but priorities {prios} are lossless",
            expected="> 0",
            actual=0,
            source=buffers.src("lossless_pool_bytes"),
        )
    elif pool is None and not any(g in groups for g in pgs):
        yield Fault(
            site.at(buffers.src()),
            "buffers",
            f"Buffers {{where}} define neither a lossless pool nor headroom for the lossless "
            f"priority groups {pgs}",
            expected="a lossless pool and PG headroom",
            actual=None,
            source=buffers.src(),
        )
    yield from _headroom_faults(site, groups, pgs)


def _headroom_faults(site: Site, groups: dict[int, PgBuffer], pgs: list[int]) -> Iterator[Fault]:
    for group in pgs:
        pg = groups.get(group)
        if pg is not None and _no_headroom(pg):
            yield Fault(
                site.at(pg.src("headroom_bytes", "xoff_bytes")),
                f"buffers.priority_groups.{group}",
                f"Lossless priority group {group} {{where}} has no headroom, so data in flight "
                "after XOFF is dropped",
                expected="headroom > 0",
                actual={"headroom_bytes": pg.headroom_bytes, "xoff_bytes": pg.xoff_bytes},
                source=pg.src("headroom_bytes", "xoff_bytes"),
            )


class TcUnmapped(FaultRule[NoOptions]):
    """A traffic class the DSCP map produces has no queue or priority-group mapping.

    Why: an explicit TC -> queue (or TC -> PG) map that misses a class sends that class to a
    platform default queue (or PG 0, which is lossy), whatever the rest of the QoS says. Identity
    is assumed when there is no explicit map. Options: none.

    Failing (SONiC)::

        "DSCP_TO_TC_MAP": {"AZURE": {"26": "3", "48": "6"}},
        "TC_TO_QUEUE_MAP": {"AZURE": {"3": "3"}}

    Passing::

        "TC_TO_QUEUE_MAP": {"AZURE": {"3": "3", "6": "6"}}
    """

    code = "QOS009"
    name = "tc-unmapped"
    severity = "warning"
    summary = "A TC produced by the DSCP map has no queue / priority-group mapping"

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        for field, noun in (("tc_to_queue", "queue"), ("tc_to_pg", "priority group")):
            for site in sites(state, field):
                yield from _unmapped(site, field, noun)


def _unmapped(site: Site, field: str, noun: str) -> Iterator[Fault]:
    mapping: dict[int, int] | None = getattr(site.qos, field)
    if mapping is None:
        return
    produced = {tc for q in site.users for tc in (q.dscp_to_tc or {}).values() if 0 <= tc <= 7}
    missing = sorted(produced - set(mapping))
    if missing:
        yield Fault(
            site.at(site.qos.sources.get(field)),
            field,
            f"Traffic classes {missing} produced by the DSCP map have no {noun} in "
            f"{field} {{where}}",
            expected=sorted(produced),
            actual=sorted(mapping),
            source=site.qos.sources.get(field),
        )


RULES: list[type[Rule[Any]]] = [
    TrustNotDscp,
    DscpMultiplyMapped,
    MapValueOutOfRange,
    CnpNotPrioritized,
    DanglingReference,
    UnusedDefinition,
    SchedulerWeightsInvalid,
    LosslessBufferMissing,
    TcUnmapped,
]
