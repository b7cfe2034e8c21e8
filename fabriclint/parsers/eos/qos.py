"""Turn collected EOS settings into normalized QosConfig: device maps, per-port QoS and PFC."""

from __future__ import annotations

from typing import TypeVar

from fabriclint.models.common import Source
from fabriclint.models.state import (
    DscpRewrite,
    MapConflict,
    PfcConfig,
    PfcWatchdog,
    QosConfig,
    QueueConfig,
    Trust,
)
from fabriclint.parsers.eos.draft import SCALAR_FIELDS, At, Draft, Layer
from fabriclint.parsers.eos.tokens import is_time_unit, time_bytes
from fabriclint.parsers.kit.merge import Merge, by_key, last, stack, update

# EOS platform defaults as `show qos maps` prints them on Trident/Tomahawk/Jericho switches:
# CoS 0 -> TC 1 and CoS 1 -> TC 0 (background below best effort), other CoS values map to
# themselves; DSCP follows its class selector (DSCP >> 3) with the same 0/1 swap.
DEFAULT_COS_TC: dict[int, int] = {0: 1, 1: 0, **{cos: cos for cos in range(2, 8)}}
DEFAULT_DSCP_TC: dict[int, int] = {dscp: DEFAULT_COS_TC[dscp >> 3] for dscp in range(64)}
DEFAULT_TC_QUEUE: dict[int, int] = {tc: tc for tc in range(8)}
# `show qos maps` "Tc - dscp map": the class selector of each class's default CoS (TC 0 -> 8,
# TC 1 -> 0, TC n -> 8n), used by `qos rewrite dscp` for a class the config does not map.
DEFAULT_TC_DSCP: dict[int, int] = {tc: 8 * cos for cos, tc in DEFAULT_COS_TC.items()}
DEFAULT_WATCHDOG_ACTION = "errdisable"

V = TypeVar("V")


def device_qos(draft: Draft) -> QosConfig:
    """Switch-wide maps (written entries over platform defaults) and global PFC settings."""
    qos = QosConfig()
    default = draft.default
    qos.dscp_to_tc = _table(qos, "dscp_to_tc", draft.dscp, DEFAULT_DSCP_TC, default)
    qos.pcp_to_tc = _table(qos, "pcp_to_tc", draft.cos, DEFAULT_COS_TC, default)
    if draft.tc_queue:
        qos.tc_to_queue = _table(qos, "tc_to_queue", draft.tc_queue, DEFAULT_TC_QUEUE, default)
    if draft.rewrite_dscp is not None:
        qos.rewrite = _rewrite(draft, draft.rewrite_dscp)
    if draft.pfc_all_off is not None or _has_global_watchdog(draft):
        qos.pfc = PfcConfig(enabled=False)
        qos.pfc.mark("", draft.pfc_all_off)
        qos.pfc.mark("enabled", draft.pfc_all_off)
        qos.mark("pfc", draft.pfc_all_off)
        qos.pfc.watchdog = _watchdog(draft, None)
    return qos


def _rewrite(draft: Draft, enabled: Source) -> DscpRewrite:
    """The switch-wide egress rewrite `qos rewrite dscp` turns on: the written TC -> DSCP
    entries (last one wins) over the platform defaults."""
    rewrite = DscpRewrite(by_tc=dict(DEFAULT_TC_DSCP))
    rewrite.mark("", enabled)
    for tc in DEFAULT_TC_DSCP:
        rewrite.mark(f"by_tc.{tc}", draft.default)
    for tc, assigned in draft.tc_dscp.items():
        rewrite.by_tc[tc], rewrite.sources[f"by_tc.{tc}"] = assigned[-1]
    return rewrite


def _table(
    qos: QosConfig,
    name: str,
    written: dict[int, list[At[int]]],
    defaults: dict[int, int],
    default: Source,
) -> dict[int, int]:
    out = dict(defaults)
    for key in defaults:
        qos.sources[f"{name}.{key}"] = default
    for key, assigned in written.items():
        out[key], qos.sources[f"{name}.{key}"] = assigned[-1]
        if len({value for value, _ in assigned}) > 1:
            conflict = MapConflict(
                map=name,
                key=key,
                values=[value for value, _ in assigned],
                sources=[src for _, src in assigned],
            )
            qos.conflicts.append(conflict)
    return out


def _has_global_watchdog(draft: Draft) -> bool:
    return any(x is not None for x in (draft.wd_detect, draft.wd_restore, draft.wd_action))


def merge(layers: list[Layer]) -> Layer:
    """One Layer with the settings of `layers`, later layers overriding earlier ones."""
    top = layers[-1]
    return stack(layers, lambda: Layer("merged", top.name, top.source), _HOW)


def _merge_queue(below: QueueConfig, above: QueueConfig) -> QueueConfig:
    """A queue configured in a profile and again on the interface: field by field."""
    out = QueueConfig(queue=above.queue, sources={**below.sources, **above.sources})
    for layer in (below, above):
        if "scheduler" in layer.sources:
            out.scheduler = layer.scheduler
        if "weight" in layer.sources:
            out.weight = layer.weight
        if "wred_drop" in layer.sources:
            out.wred_drop = layer.wred_drop
        if layer.ecn is not None:
            out.ecn = layer.ecn
    return out


# How a profile and an interface combine: scalars "last layer wins", PFC priorities by priority,
# queues field by field.
_HOW: dict[str, Merge] = {
    **dict.fromkeys(SCALAR_FIELDS, last),
    "pfc_prio": update,
    "queues": by_key(_merge_queue),
}


def port_qos(
    draft: Draft,
    merged: Layer,
    default_trust: Trust | None,
    speed: int | None,
    profile: str | None = None,
) -> QosConfig | None:
    """The QosConfig of a port whose layers merged into `merged` (None = nothing set).
    `profile` names the qos profile applied; `speed` (Mb/s) converts time-based ECN thresholds."""
    sources: dict[str, Source] = {}
    trust = default_trust
    if merged.trust is not None:
        trust, sources["trust"] = merged.trust
    elif default_trust is not None:
        sources["trust"] = draft.default
    queues = {n: _convert(q, speed) for n, q in sorted(merged.queues.items())} or None
    pfc = _port_pfc(draft, merged, sources)
    if trust is None and queues is None and pfc is None and profile is None:
        return None
    return QosConfig(trust=trust, queues=queues, pfc=pfc, profile=profile, sources=sources)


def _convert(queue: QueueConfig, speed: int | None) -> QueueConfig:
    """Express time-based ECN thresholds in bytes at the port's speed (a copy; inputs are shared)."""
    ecn = queue.ecn
    if ecn is None or not speed or not (is_time_unit(ecn.min_raw) or is_time_unit(ecn.max_raw)):
        return queue
    low = ecn.min_bytes if ecn.min_bytes is not None else time_bytes(ecn.min_raw, speed)
    high = ecn.max_bytes if ecn.max_bytes is not None else time_bytes(ecn.max_raw, speed)
    converted = ecn.model_copy(update={"min_bytes": low, "max_bytes": high})
    return queue.model_copy(update={"ecn": converted})


def _port_pfc(draft: Draft, merged: Layer, qos_sources: dict[str, Source]) -> PfcConfig | None:
    """PFC of a port; `qos_sources` gets the `pfc` and `pfc.priorities` lines."""
    if merged.pfc_on is None and not merged.pfc_prio and merged.wd_on is None:
        return None
    sources: dict[str, Source] = {}
    enabled = False
    if merged.pfc_on is not None:
        enabled, on_line = merged.pfc_on
        sources[""] = sources["enabled"] = qos_sources["pfc"] = on_line
    lossless = sorted(
        (src.line or 0, prio, src) for prio, (on, src) in merged.pfc_prio.items() if on
    )
    for _, prio, src in lossless:
        sources[f"priorities.{prio}"] = src
    if lossless:
        sources["priorities"] = qos_sources["pfc.priorities"] = lossless[0][2]
        sources.setdefault("", lossless[0][2])
    if enabled and draft.pfc_all_off is not None:
        # `priority-flow-control all off` overrides every port's `priority-flow-control on`.
        enabled = False
        sources["enabled"] = qos_sources["pfc"] = draft.pfc_all_off
    return PfcConfig(
        enabled=enabled,
        priorities=sorted(prio for _, prio, _ in lossless),
        watchdog=_watchdog(draft, merged),
        sources=sources,
    )


def _watchdog(draft: Draft, merged: Layer | None) -> PfcWatchdog | None:
    """Port watchdog: on only where `priority-flow-control pause watchdog` is written for the port;
    timers and action from the port (`port timer`, `port action`) or the global defaults.
    Ports with the same settings share one (read-only) object."""
    port_on = merged.wd_on if merged is not None else None
    if port_on is None and not _has_global_watchdog(draft):
        return None
    detect = _first(merged.wd_detect if merged else None, draft.wd_detect)
    restore = _first(merged.wd_restore if merged else None, draft.wd_restore)
    action = _first(merged.wd_action if merged else None, draft.wd_action)
    key = (id(port_on), id(detect), id(restore), id(action))
    cached = draft.watchdogs.get(key)
    if cached is not None:
        return cached
    enabled = port_on is not None and port_on[0]
    if action is None and enabled:
        action = (DEFAULT_WATCHDOG_ACTION, draft.default)
    sources = {"": port_on[1], "enabled": port_on[1]} if port_on is not None else {}
    for name, value in (("detection_ms", detect), ("restoration_ms", restore), ("action", action)):
        if value is not None:
            sources[name] = value[1]
    made = draft.watchdogs[key] = PfcWatchdog(
        enabled=enabled,
        detection_ms=detect[0] if detect else None,
        restoration_ms=restore[0] if restore else None,
        action=action[0] if action else None,
        sources=sources,
    )
    return made


def _first(*values: At[V] | None) -> At[V] | None:
    for value in values:
        if value is not None:
            return value
    return None
