"""Build the DeviceState of an NX-OS switch: device-wide QoS from `system qos`, per-port overrides."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fabriclint.models.common import Source, construct
from fabriclint.models.state import (
    BufferConfig,
    DeviceState,
    DscpRewrite,
    PfcConfig,
    PfcWatchdog,
    QosConfig,
    QueueConfig,
)
from fabriclint.parsers.kit.merge import Merge, last, stack, update
from fabriclint.parsers.kit.show import ShownInterface
from fabriclint.parsers.nxos.draft import NETWORK_QOS, QOS, QUEUING, Applied, Draft, Lined
from fabriclint.parsers.nxos.ports import build_interfaces
from fabriclint.parsers.nxos.qos import (
    Classified,
    NetQos,
    buffers,
    classify,
    egress_rewrite,
    network_qos,
    queues,
    report_ingress_marking,
    unclassified,
    watchdog,
)

_IN, _OUT = (QUEUING, "input"), (QUEUING, "output")
_QOS_OUT = (QOS, "output")


@dataclass(slots=True)
class Built:
    """Pieces already built, by policy name (and watchdog setting), shared by the ports."""

    draft: Draft
    net: NetQos
    classified: dict[str, Classified | None] = field(default_factory=dict)
    queues: dict[str, dict[int, QueueConfig] | None] = field(default_factory=dict)
    buffers: dict[str, BufferConfig | None] = field(default_factory=dict)
    watchdogs: dict[Lined[bool] | None, PfcWatchdog | None] = field(default_factory=dict)
    rewrites: dict[str, DscpRewrite | None] = field(default_factory=dict)


def build_state(
    name: str, draft: Draft, shown: dict[str, ShownInterface], with_config: bool
) -> DeviceState:
    """The DeviceState; `with_config` is False when there was no usable running-config."""
    state = construct(DeviceState, name=name, platform="nxos")
    if draft.os_version is not None:
        state.os_version = draft.os_version[0]
        state.mark("os_version", draft.at(draft.os_version[1]))
    state.facts = dict(draft.facts)
    if with_config:
        system = draft.system.policies.get((NETWORK_QOS, ""))
        net = network_qos(draft, draft.policies.get((NETWORK_QOS, system[0])) if system else None)
        built = Built(draft, net)
        state.qos = device_qos(built)
        state.interfaces = build_interfaces(draft, shown, lambda port: port_qos(built, port), net)
        report_ingress_marking(draft, _bound_output(draft))
        draft.hand_over(state)
    else:
        state.interfaces = build_interfaces(
            Draft(file=draft.file), shown, lambda port: None, NetQos()
        )
    return state


def _bound_output(draft: Draft) -> set[str]:
    """Names of the type qos policies some interface (or `system qos`) binds `output`."""
    layers = [draft.system, *draft.interfaces.values()]
    return {found[0] for layer in layers if (found := layer.policies.get(_QOS_OUT)) is not None}


def _rewrite(built: Built, applied: Lined[str] | None) -> DscpRewrite | None:
    """The egress rewrite of the type qos output policy `applied` (shared by its ports)."""
    if applied is None:
        return None
    if applied[0] not in built.rewrites:
        policy = built.draft.policies.get((QOS, applied[0]))
        at = built.draft.at(applied[1])
        built.rewrites[applied[0]] = egress_rewrite(built.draft, policy, at) if policy else None
    return built.rewrites[applied[0]]


def device_qos(built: Built) -> QosConfig:
    """Switch-wide QoS: the `system qos` service-policies over the platform defaults."""
    draft = built.draft
    values: dict[str, Any] = {}
    sources: dict[str, Source] = {}
    applied = draft.system.policies.get((QOS, "input"))
    classified = _classified(built, applied[0]) if applied else None
    if classified is not None and applied is not None:
        _classification(values, sources, classified, draft.at(applied[1]))
    else:
        _classification(values, sources, unclassified(draft), draft.default)
    values["queues"] = _queues(built, draft.system.policies.get(_OUT))
    values["buffers"] = _buffers(built, draft.system.policies.get(_IN))
    if values["buffers"] is not None:
        _identity_pg(values, sources, draft.default)
    values["rewrite"] = _rewrite(built, draft.system.policies.get(_QOS_OUT))
    _lossless_classes(values, sources, built.net, draft)
    dog = draft.watchdog
    timers = (dog.on, dog.interval, dog.shutdown_multiplier, dog.auto_restore, dog.fixed_restore)
    if values.get("tc_to_priority") is not None or any(timers):
        pfc = values["pfc"] = _pfc(built, None, None)
        sources["pfc"] = pfc.sources["priorities" if "priorities" in pfc.sources else ""]
        sources["pfc.priorities"] = sources["pfc"]
    return _qos_config(values, sources)


def _qos_config(values: dict[str, Any], sources: dict[str, Source]) -> QosConfig:
    # model_construct: every part is built here from validated pieces (one per port adds up).
    return QosConfig(**values, sources=sources)


def _classification(
    values: dict[str, Any], sources: dict[str, Source], found: Classified, trust_source: Source
) -> None:
    values.update(trust=found.trust, dscp_to_tc=found.dscp, pcp_to_tc=found.pcp)
    values["conflicts"] = list(found.conflicts)
    sources.update(found.sources)
    sources["trust"] = trust_source


def _identity_pg(values: dict[str, Any], sources: dict[str, Source], default: Source) -> None:
    """Ingress buffers are per qos-group (no-drop class) on NX-OS: PG N = qos-group N."""
    values["tc_to_pg"] = {group: group for group in range(8)}
    for group in range(8):
        sources[f"tc_to_pg.{group}"] = default


def _lossless_classes(
    values: dict[str, Any], sources: dict[str, Source], net: NetQos, draft: Draft
) -> None:
    """qos-group -> PFC CoS of the no-drop classes (identity for the other classes)."""
    if not net.pfc_cos:
        return
    table = values["tc_to_priority"] = {}
    for group, (cos, line) in sorted(net.pfc_cos.items()):
        if cos:
            table[group] = cos[0]
            sources[f"tc_to_priority.{group}"] = draft.at(line)


def _lossless(net: NetQos, draft: Draft) -> tuple[list[int], dict[str, Source]]:
    """PFC priorities of the no-drop classes and their sources (first line for `priorities`)."""
    sources: dict[str, Source] = {}
    for _, (cos, line) in sorted(net.pfc_cos.items(), key=lambda item: item[1][1]):
        sources.setdefault("priorities", draft.at(line))
        for value in cos:
            sources.setdefault(f"priorities.{value}", draft.at(line))
    priorities = sorted({value for cos, _ in net.pfc_cos.values() for value in cos})
    return priorities, sources


def _pfc(built: Built, mode: Lined[str] | None, dog: Lined[bool] | None) -> PfcConfig:
    """PFC of a port whose `priority-flow-control mode` is `mode` (None: the default, auto,
    which is on only if DCBX negotiates it: treated as off)."""
    draft = built.draft
    priorities, sources = _lossless(built.net, draft)
    where = mode or dog
    sources[""] = draft.at(where[1]) if where else draft.default
    sources["enabled"] = draft.at(mode[1]) if mode else draft.default
    enabled = mode is not None and mode[0] == "on"
    if not enabled and where is not None:
        # The no-drop classes are defined system-wide, but this port does not turn PFC on:
        # findings about its missing PFC belong on its own line.
        sources["priorities"] = sources["enabled"]
    if dog not in built.watchdogs:
        built.watchdogs[dog] = watchdog(draft, dog)
    return PfcConfig(
        enabled=enabled,
        priorities=priorities,
        watchdog=built.watchdogs[dog],
        sources=sources,
    )


def _classified(built: Built, name: str) -> Classified | None:
    if name not in built.classified:
        policy = built.draft.policies.get((QOS, name))
        built.classified[name] = classify(built.draft, policy) if policy is not None else None
    return built.classified[name]


def _queues(built: Built, applied: Lined[str] | None) -> dict[int, QueueConfig] | None:
    name = applied[0] if applied else ""
    if name not in built.queues:
        policy = built.draft.policies.get((QUEUING, name)) if name else None
        built.queues[name] = queues(built.draft, policy, built.net)
    return built.queues[name]


def _buffers(built: Built, applied: Lined[str] | None) -> BufferConfig | None:
    name = applied[0] if applied else ""
    if name not in built.buffers:
        policy = built.draft.policies.get((QUEUING, name)) if name else None
        built.buffers[name] = buffers(built.draft, policy, built.net)
    return built.buffers[name]


# ---- per port -----------------------------------------------------------------------------------


def port_qos(built: Built, layers: list[Applied]) -> QosConfig | None:
    """The QoS a port overrides, from its layers (port-channel first, then its own lines).
    Ports configured by the same lines (one range block) share one object."""
    merged = _merge(layers)
    key = (tuple(sorted(merged.policies.items())), merged.pfc_mode, merged.watchdog)
    if key not in built.draft.shared_qos:
        built.draft.shared_qos[key] = _own_qos(built, merged)
    return built.draft.shared_qos[key]


# A port-channel's lines and the member's own: policies by (type, direction), the rest "last wins".
_HOW: dict[str, Merge] = {"policies": update, "pfc_mode": last, "watchdog": last}


def _merge(layers: list[Applied]) -> Applied:
    top = layers[-1]
    return stack(layers, lambda: Applied(top.name, top.line), _HOW)


def _exists(draft: Draft, applied: Lined[str] | None) -> bool:
    return applied is not None and (QUEUING, applied[0]) in draft.policies


def _own_qos(built: Built, merged: Applied) -> QosConfig | None:
    draft = built.draft
    values: dict[str, Any] = {}
    sources: dict[str, Source] = {}
    applied = merged.policies.get((QOS, "input"))
    system = draft.system.policies.get((QOS, "input"))
    classified = _classified(built, applied[0]) if applied else None
    if classified is not None and applied is not None and applied[0] != (system or ("",))[0]:
        _classification(values, sources, classified, draft.at(applied[1]))  # else: inherited
    # A policy that does not exist is not applied (NX-OS refuses it): the port keeps the system's.
    if _exists(draft, merged.policies.get(_OUT)):
        values["queues"] = _queues(built, merged.policies[_OUT])
    if _exists(draft, merged.policies.get(_IN)):
        values["buffers"] = _buffers(built, merged.policies[_IN])
        if values["buffers"] is not None:
            _identity_pg(values, sources, draft.default)
    if merged.pfc_mode is not None or merged.watchdog is not None:
        pfc = values["pfc"] = _pfc(built, merged.pfc_mode, merged.watchdog)
        sources["pfc"] = pfc.sources["enabled"]
        sources["pfc.priorities"] = pfc.sources.get("priorities", pfc.sources["enabled"])
    if (QOS, "output") in merged.policies:
        values["rewrite"] = _rewrite(built, merged.policies[_QOS_OUT])
    kept = ("trust", "queues", "buffers", "pfc", "rewrite")
    if not any(values.get(key) is not None for key in kept):
        return None
    return _qos_config(values, sources)
