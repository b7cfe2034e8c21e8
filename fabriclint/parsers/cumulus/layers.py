"""Layers of Cumulus QoS settings (platform defaults, RoCE defaults, profiles, operational state) and
how they stack into one normalized QosConfig.

Model mapping (docs/platforms/cumulus.md): the model's "traffic class" is the Cumulus *switch
priority*: `dscp_to_tc` / `pcp_to_tc` give the switch priority, which is also the 802.1p priority
of PFC frames (so `tc_to_priority` stays empty = identity), and `tc_to_queue` is the Cumulus
switch-priority -> traffic-class (egress queue) map. `queues` are keyed by Cumulus traffic class.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

from fabriclint.models.common import Source
from fabriclint.models.state import (
    BufferConfig,
    EcnConfig,
    MapConflict,
    PfcConfig,
    PgBuffer,
    QosConfig,
    QueueConfig,
    SchedulerMode,
    Trust,
)
from fabriclint.parsers.kit.merge import Merge, last, update, update_unless
from fabriclint.parsers.kit.merge import stack as kit_stack

T = TypeVar("T")
At = tuple[T, Source]
"""A value and where it was written."""


@dataclass
class Sched:
    """How one egress queue (Cumulus traffic class) is scheduled."""

    mode: SchedulerMode | None
    weight: float | None
    source: Source


@dataclass
class Ecn:
    """ECN/RED on one egress queue."""

    ecn: EcnConfig
    red: At[bool] | None = None


@dataclass
class Parts:
    """QoS settings written at one level; None (or an empty dict) = not set at this level."""

    trust: At[Trust] | None = None
    dscp: dict[int, list[At[int]]] = field(default_factory=dict)
    pcp: dict[int, list[At[int]]] = field(default_factory=dict)
    sp_tc: dict[int, At[int]] = field(default_factory=dict)
    ecn: dict[int, Ecn] | None = None
    ecn_replaces: bool = False
    """True when this level's ECN set replaces the lower levels' (a profile, operational state)."""
    sched: dict[int, Sched] | None = None
    sched_replaces: bool = False
    pfc: PfcConfig | None = None
    buffers: dict[int, PgBuffer] = field(default_factory=dict)


def assign(table: dict[int, list[At[int]]], keys: list[int], value: int, src: Source) -> None:
    """Record `keys -> value` written at `src` (a key written twice keeps both, for QOS002)."""
    for key in keys:
        table.setdefault(key, []).append((value, src))


# Maps and buffers by key; a profile's or the operational state's ECN/scheduler set replaces the
# lower levels' (`*_replaces`), the platform's and the RoCE defaults' add to them.
_HOW: dict[str, Merge] = {
    "trust": last,
    "dscp": update,
    "pcp": update,
    "sp_tc": update,
    "buffers": update,
    "pfc": last,
    "ecn": update_unless("ecn_replaces"),
    "sched": update_unless("sched_replaces"),
}


def stack(layers: list[Parts]) -> Parts:
    """One Parts with `layers` applied in order (later layers override earlier ones)."""
    return kit_stack(layers, Parts, _HOW)


def to_qos(parts: Parts) -> QosConfig:
    """The QosConfig of `parts` (every field it sets)."""
    qos = QosConfig()
    add_maps(qos, parts)
    add_queue_map(qos, parts)
    qos.queues = build_queues(parts.ecn or {}, parts.sched or {})
    add_pfc(qos, parts.pfc, parts.buffers)
    return qos


def add_maps(qos: QosConfig, parts: Parts) -> None:
    """Trust and the DSCP/PCP -> switch priority maps."""
    if parts.trust is not None:
        qos.trust, qos.sources["trust"] = parts.trust
    qos.dscp_to_tc = _table(qos, "dscp_to_tc", parts.dscp) if parts.dscp else None
    qos.pcp_to_tc = _table(qos, "pcp_to_tc", parts.pcp) if parts.pcp else None


def add_queue_map(qos: QosConfig, parts: Parts) -> None:
    """Switch priority -> traffic class (egress queue)."""
    if not parts.sp_tc:
        return
    qos.tc_to_queue = {sp: tc for sp, (tc, _) in sorted(parts.sp_tc.items())}
    for sp, (_, src) in parts.sp_tc.items():
        qos.sources[f"tc_to_queue.{sp}"] = src
    qos.sources["tc_to_queue"] = min((src for _, src in parts.sp_tc.values()), key=_written_first)


def add_pfc(qos: QosConfig, pfc: PfcConfig | None, buffers: dict[int, PgBuffer]) -> None:
    """PFC and the lossless priority-group buffers."""
    if pfc is not None:
        qos.pfc = pfc
        qos.mark("pfc", pfc.src("enabled"))
        if pfc.priorities:
            qos.mark("pfc.priorities", pfc.src("priorities"))
    if buffers:
        groups = dict(sorted(buffers.items()))
        qos.buffers = BufferConfig(priority_groups=groups)
        qos.buffers.mark("", next(iter(groups.values())).src())


def _written_first(source: Source) -> int:
    """Sort key: written lines in order, defaults (no line) last."""
    return source.line or 1 << 30


def _table(qos: QosConfig, name: str, written: dict[int, list[At[int]]]) -> dict[int, int]:
    out: dict[int, int] = {}
    for key in sorted(written):
        assigned = written[key]
        out[key], qos.sources[f"{name}.{key}"] = assigned[-1]
        if len({value for value, _ in assigned}) > 1:
            qos.conflicts.append(
                MapConflict(
                    map=name,
                    key=key,
                    values=[value for value, _ in assigned],
                    sources=[src for _, src in assigned],
                )
            )
    return out


def build_queues(ecn: dict[int, Ecn], sched: dict[int, Sched]) -> dict[int, QueueConfig] | None:
    """Queues by Cumulus traffic class: scheduler and weight, ECN, RED (WRED drop)."""
    out: dict[int, QueueConfig] = {}
    for tc in sorted({*ecn, *sched}):
        queue = QueueConfig(queue=tc)
        plan = sched.get(tc)
        if plan is not None:
            queue.scheduler, queue.weight = plan.mode, plan.weight
            queue.mark("", plan.source)
            queue.mark("scheduler", plan.source)
            if plan.weight is not None:
                queue.mark("weight", plan.source)
        marking = ecn.get(tc)
        if marking is not None:
            queue.ecn = marking.ecn
            if "" not in queue.sources:
                queue.mark("", marking.ecn.src())
            if marking.red is not None:
                queue.wred_drop, red_src = marking.red
                queue.mark("wred_drop", red_src)
        out[tc] = queue
    return out or None
