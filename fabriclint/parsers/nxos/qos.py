"""Turn NX-OS policies into normalized pieces: classification maps, queues, buffers, PFC, watchdog.

Each piece is built once per policy (or per watchdog setting) and shared by every port using it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fabriclint.models.common import Source
from fabriclint.models.state import (
    BufferConfig,
    DscpRewrite,
    MapConflict,
    PfcWatchdog,
    PgBuffer,
    QueueConfig,
    SchedulerMode,
    Trust,
)
from fabriclint.parsers.nxos.draft import (
    NETWORK_QOS,
    QOS,
    QUEUING,
    Draft,
    Lined,
    Policy,
    PolicyClass,
)

# Predefined system classes: c-8q-nq3 / c-nq3 (network-qos), c-out-8q-q3 / c-out-q3 / c-in-q3
# (queuing) serve qos-group 3; the *-default classes and class-default serve qos-group 0.
_SYSTEM_CLASS = re.compile(r"c-(?:(?:out|in)-(?:8q-)?q|(?:8q-)?nq)([0-7]|-default)", re.ASCII)

# Platform defaults (Nexus 9000 QoS configuration guide), see docs/platforms/nxos.md.
DEFAULT_CLASS_MTU = 1500
WATCHDOG_INTERVAL_MS = 100
WATCHDOG_SHUTDOWN_MULTIPLIER = 1
WATCHDOG_AUTO_RESTORE_MULTIPLIER = 10
WATCHDOG_ACTION = "drop"


@dataclass(slots=True)
class Classified:
    """What a type qos policy does to ingress traffic."""

    trust: Trust
    dscp: dict[int, int] | None
    pcp: dict[int, int] | None
    sources: dict[str, Source]
    conflicts: list[MapConflict]


@dataclass(slots=True)
class NetQos:
    """The system network-qos policy: no-drop classes, their PFC CoS values, per-class MTU."""

    pfc_cos: dict[int, Lined[list[int]]] = field(default_factory=dict)
    """qos-group of a no-drop class -> its PFC CoS values."""
    mtu: dict[int, tuple[int, Source]] = field(default_factory=dict)
    buffers: dict[int, Lined[tuple[int, int, int]]] = field(default_factory=dict)


def class_group(draft: Draft, kind: str, pclass: PolicyClass, policy: str) -> int | None:
    """The qos-group a policy class serves (= its queue on 8q platforms); None when unknown."""
    if pclass.name == "class-default":
        return 0
    found = _SYSTEM_CLASS.fullmatch(pclass.name)
    if found is not None:
        return 0 if found.group(1) == "-default" else int(found.group(1))
    cmap = draft.class_maps.get((kind, pclass.name))
    if cmap is not None and cmap.qos_group is not None:
        return cmap.qos_group[0]
    why = "is not defined" if cmap is None else "has no 'match qos-group N'"
    draft.skip(
        f"class type {kind} {pclass.name}",
        f"{kind} class {pclass.name} {why}: the qos-group it serves is unknown, its actions "
        f"in policy-map {policy} are not applied",
        pclass.line,
    )
    return None


# ---- classification (type qos) ------------------------------------------------------------------


Hits = dict[int, list[tuple[int, Source]]]
"""DSCP or CoS value -> (qos-group, line) of every class that matches it, in policy order."""


def classify(draft: Draft, policy: Policy) -> Classified:
    """DSCP/CoS -> qos-group of a type qos policy. First matching class wins; unmatched traffic
    goes to class-default's qos-group (0 unless set)."""
    dscp, cos, default = _hits(draft, policy)
    trust = _trust(bool(dscp), bool(cos))
    # A policy that does not look at a field has an empty map for it (not None: None would let
    # the port inherit the system policy's map, but the port's policy replaces it).
    out = Classified(trust, {}, {}, {}, [])
    if trust is not Trust.PCP:
        out.dscp = _table(out, "dscp_to_tc", dscp, 64, default)
    else:  # findings about an unmapped DSCP point at this policy, not at the system's map
        out.sources.update(dict.fromkeys((f"dscp_to_tc.{d}" for d in range(64)), default[1]))
    if trust is not Trust.DSCP:
        out.pcp = _table(out, "pcp_to_tc", cos, 8, default)
    else:
        out.sources.update(dict.fromkeys((f"pcp_to_tc.{p}" for p in range(8)), default[1]))
    return out


def _hits(draft: Draft, policy: Policy) -> tuple[Hits, Hits, tuple[int, Source]]:
    dscp: Hits = {}
    cos: Hits = {}
    default = (0, draft.at(policy.line))
    for pclass in policy.classes:
        group = pclass.set_qos_group
        target = (group[0], draft.at(group[1])) if group else (0, draft.at(pclass.line))
        if pclass.name == "class-default":
            default = target
            continue
        cmap = draft.class_maps.get((QOS, pclass.name))
        for values, _ in cmap.dscp if cmap else ():
            for value in values:
                dscp.setdefault(value, []).append(target)
        for values, _ in cmap.cos if cmap else ():
            for value in values:
                cos.setdefault(value, []).append(target)
    return dscp, cos, default


def _trust(dscp: bool, cos: bool) -> Trust:
    if dscp and cos:
        return Trust.BOTH
    return Trust.DSCP if dscp else Trust.PCP if cos else Trust.NONE


def _table(
    out: Classified,
    name: str,
    hits: Hits,
    size: int,
    default: tuple[int, Source],
) -> dict[int, int]:
    table = dict.fromkeys(range(size), default[0])
    for key in range(size):
        out.sources[f"{name}.{key}"] = default[1]
    for key, assigned in hits.items():
        table[key], out.sources[f"{name}.{key}"] = assigned[0]
        if len({value for value, _ in assigned}) > 1:
            values = [value for value, _ in assigned]
            sources = [src for _, src in assigned]
            out.conflicts.append(MapConflict(map=name, key=key, values=values, sources=sources))
    return table


# ---- egress re-marking (type qos output) --------------------------------------------------------


def egress_rewrite(draft: Draft, policy: Policy, bound: Source) -> DscpRewrite | None:
    """The DSCP rewrite of a type qos policy bound `output` (Nexus 9000 QoS guide, "Marking":
    `set dscp` in an egress policy re-marks matching packets as they leave). First matching
    class wins: a class matching DSCPs decides them (`set dscp`, else they keep theirs), one
    matching a qos-group decides that traffic class, class-default the classes left. None when
    no class sets a DSCP."""
    if not any(c.set_dscp is not None for c in policy.classes):
        return None
    rewrite = DscpRewrite(name=policy.name, sources={"": bound})
    decided: set[int] = set()
    for pclass in policy.classes:
        written = pclass.set_dscp
        src = draft.at(written[1]) if written is not None else draft.at(pclass.line)
        if pclass.name == "class-default":
            tcs = [tc for tc in range(8) if tc not in decided]
            _decide(rewrite, "by_tc", tcs, written[0] if written else None, src)
            break
        cmap = draft.class_maps.get((QOS, pclass.name))
        if cmap is None:
            continue
        dscps = [d for values, _ in cmap.dscp for d in values if d not in rewrite.by_dscp]
        for dscp in dscps:  # matched without a `set dscp`: leaves with its own DSCP
            rewrite.by_dscp[dscp] = written[0] if written else dscp
            rewrite.mark(f"by_dscp.{dscp}", src)
        if cmap.qos_group is not None and cmap.qos_group[0] not in decided:
            decided.add(cmap.qos_group[0])
            _decide(rewrite, "by_tc", [cmap.qos_group[0]], written[0] if written else None, src)
    return rewrite


def _decide(
    rewrite: DscpRewrite, field_name: str, keys: list[int], dscp: int | None, src: Source
) -> None:
    """Record that `keys` of `field_name` leave with `dscp` (None: with their own, no entry)."""
    if dscp is None:
        return
    table: dict[int, int] = getattr(rewrite, field_name)
    for key in keys:
        table[key] = dscp
        rewrite.mark(f"{field_name}.{key}", src)


def report_ingress_marking(draft: Draft, bound_output: set[str]) -> None:
    """`set dscp` in type qos policies not bound `output`: ingress re-marking, not modeled."""
    for (kind, name), policy in draft.policies.items():
        if kind != QOS or name in bound_output:
            continue
        for pclass in policy.classes:
            if pclass.set_dscp is not None:
                _, line, text = pclass.set_dscp
                draft.skip(
                    text, "ingress DSCP re-marking (set dscp in an input policy) not modeled", line
                )


def unclassified(draft: Draft) -> Classified:
    """No type qos policy applies: NX-OS puts all traffic in qos-group 0 (default-in-policy)."""
    out = Classified(Trust.NONE, None, None, {}, [])
    out.dscp = _table(out, "dscp_to_tc", {}, 64, (0, draft.default))
    out.pcp = _table(out, "pcp_to_tc", {}, 8, (0, draft.default))
    return out


# ---- network-qos --------------------------------------------------------------------------------


def network_qos(draft: Draft, policy: Policy | None) -> NetQos:
    """No-drop classes, per-class MTU and buffers of the system network-qos policy."""
    out = NetQos()
    for pclass in policy.classes if policy is not None else ():
        group = class_group(draft, NETWORK_QOS, pclass, policy.name)  # type: ignore[union-attr]
        if group is None:
            continue
        mtu = pclass.mtu
        out.mtu[group] = (mtu[0], draft.at(mtu[1])) if mtu else (DEFAULT_CLASS_MTU, draft.default)
        if pclass.pause_cos is not None:
            out.pfc_cos[group] = pclass.pause_cos
        elif pclass.no_drop is not None:
            out.pfc_cos[group] = (_no_drop_cos(draft, group, pclass.no_drop), pclass.no_drop)
        if pclass.buffer is not None:
            out.buffers[group] = pclass.buffer
    return out


def _no_drop_cos(draft: Draft, group: int, line: int) -> list[int]:
    """`pause no-drop` without `pfc-cos`: the CoS values type qos classes put in the qos-group."""
    found: set[int] = set()
    for policy in (p for (kind, _), p in draft.policies.items() if kind == QOS):
        for pclass in policy.classes:
            cmap = draft.class_maps.get((QOS, pclass.name))
            if cmap is not None and pclass.set_qos_group and pclass.set_qos_group[0] == group:
                found.update(value for values, _ in cmap.cos for value in values)
    if not found:
        reason = f"no type qos class matches a CoS into qos-group {group}: its PFC CoS is taken as {group}"
        draft.skip("pause no-drop", reason, line)
        return [group]
    return sorted(found)


# ---- queuing ------------------------------------------------------------------------------------


def queues(draft: Draft, policy: Policy | None, net: NetQos) -> dict[int, QueueConfig] | None:
    """Egress queues of a type queuing output policy (queue N = qos-group N), with the per-class
    MTU of the network-qos policy."""
    out: dict[int, QueueConfig] = {}
    for pclass in policy.classes if policy is not None else ():
        number = class_group(draft, QUEUING, pclass, policy.name)  # type: ignore[union-attr]
        if number is not None:
            out[number] = _queue(draft, pclass, number)
        if pclass.buffer is not None:
            draft.skip(
                "pause buffer-size", "ingress pause buffer in an output policy", pclass.buffer[1]
            )
    for number, (mtu, source) in net.mtu.items():
        queue = out.get(number)
        if queue is None:
            queue = out[number] = QueueConfig(queue=number, sources={"": source})
        queue.mtu = mtu
        queue.mark("mtu", source)
    return dict(sorted(out.items())) or None


def _queue(draft: Draft, pclass: PolicyClass, number: int) -> QueueConfig:
    queue = QueueConfig(queue=number, sources={"": draft.at(pclass.line)})
    if pclass.priority is not None:
        queue.scheduler = SchedulerMode.STRICT
        queue.mark("scheduler", draft.at(pclass.priority))
    else:  # NX-OS serves every non-priority queue by DWRR
        queue.scheduler = SchedulerMode.DWRR
        queue.mark("scheduler", draft.at(pclass.bandwidth[1] if pclass.bandwidth else pclass.line))
    if pclass.bandwidth is not None:
        queue.weight = pclass.bandwidth[0]
        queue.mark("weight", draft.at(pclass.bandwidth[1]))
    queue.ecn = pclass.ecn
    if pclass.wred_drop is not None:
        queue.wred_drop = True
        queue.mark("wred_drop", draft.at(pclass.wred_drop))
    return queue


def buffers(draft: Draft, policy: Policy | None, net: NetQos) -> BufferConfig | None:
    """Ingress `pause buffer-size B pause-threshold X resume-threshold Y` per qos-group, from an
    input queuing policy and the network-qos policy: headroom = B - X, xoff = X, xon = Y."""
    found = dict(net.buffers)
    for pclass in policy.classes if policy is not None else ():
        group = class_group(draft, QUEUING, pclass, policy.name)  # type: ignore[union-attr]
        if group is not None and pclass.buffer is not None:
            found[group] = pclass.buffer
        if pclass.priority or pclass.bandwidth or pclass.ecn or pclass.wred_drop:
            draft.skip(f"class {pclass.name}", "ingress scheduling/WRED not modeled", pclass.line)
    if not found:
        return None
    out = BufferConfig(sources={"": draft.at(min(line for _, line in found.values()))})
    for group, ((size, xoff, xon), line) in sorted(found.items()):
        pg = PgBuffer(headroom_bytes=size - xoff, xoff_bytes=xoff, xon_bytes=xon)
        for key in ("", "headroom_bytes", "xoff_bytes", "xon_bytes"):
            pg.mark(key, draft.at(line))
        out.priority_groups[group] = pg
    return out


# ---- PFC watchdog -------------------------------------------------------------------------------


def watchdog(draft: Draft, port_on: Lined[bool] | None) -> PfcWatchdog | None:
    """The watchdog of a port: on where the port (or, globally, `priority-flow-control
    watch-dog-interval on`) turns it on; timers from the global interval and multipliers."""
    dog = draft.watchdog
    switch = port_on or dog.on
    timers = (dog.interval, dog.shutdown_multiplier, dog.auto_restore, dog.fixed_restore)
    if switch is None and not any(timers):
        return None
    on = draft.at(switch[1]) if switch else draft.default
    interval = _value(dog.interval, WATCHDOG_INTERVAL_MS)
    shutdown = _value(dog.shutdown_multiplier, WATCHDOG_SHUTDOWN_MULTIPLIER)
    fixed = _value(dog.fixed_restore, 0)
    restore = fixed if fixed[0] else _value(dog.auto_restore, WATCHDOG_AUTO_RESTORE_MULTIPLIER)
    return PfcWatchdog(
        enabled=bool(switch and switch[0]),
        detection_ms=float(interval[0] * shutdown[0]),
        restoration_ms=float(interval[0] * restore[0]),
        action=WATCHDOG_ACTION,
        sources={
            "": on,
            "enabled": on,
            "detection_ms": draft.at(max(interval[1], shutdown[1])),
            "restoration_ms": draft.at(max(interval[1], restore[1])),
            "action": draft.default,
        },
    )


def _value(written: Lined[int] | None, default: int) -> Lined[int]:
    return written if written is not None else (default, 0)
