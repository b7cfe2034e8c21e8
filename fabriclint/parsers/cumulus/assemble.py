"""Build the DeviceState of a Cumulus switch from the Draft: device-wide QoS, then each port's
own QoS from the profiles (NVUE) or port groups (traffic.conf) attached to it."""

from __future__ import annotations

import re
from typing import Any

from fabriclint.models.common import construct, source_at
from fabriclint.models.state import DeviceState, Interface, PfcConfig, QosConfig
from fabriclint.parsers.cumulus import draft as kinds
from fabriclint.parsers.cumulus.defaults import watchdog
from fabriclint.parsers.cumulus.draft import GLOBAL, Draft, PortDraft
from fabriclint.parsers.cumulus.layers import (
    At,
    add_maps,
    add_pfc,
    build_queues,
    stack,
    to_qos,
)
from fabriclint.parsers.kit.vlans import svi_vlan

_PHYSICAL = re.compile(r"swp\d+(?:s\d+)?", re.ASCII)
_NUMBERED = re.compile(r"(.*?)(\d+)(?:s(\d+))?", re.ASCII)
_OWN_KINDS = (kinds.MAPPING, kinds.PFC, kinds.CONGESTION, kinds.SCHEDULER)


class Builder:
    """Turns one Draft into a DeviceState (ports with the same settings share one QosConfig)."""

    def __init__(self, draft: Draft) -> None:
        self.draft = draft
        self.base = stack(draft.defaults)
        self.device = stack([*draft.defaults, *draft.config])
        self.qos = to_qos(self.device) if draft.defaults or draft.config else QosConfig()
        self.cache: dict[tuple[str | None, ...], QosConfig | None] = {}
        self._no_pfc: QosConfig | None = None

    def state(self, name: str) -> DeviceState:
        """The DeviceState."""
        draft = self.draft
        state = construct(
            DeviceState, name=name, platform="cumulus", qos=self.qos, facts=dict(draft.facts)
        )
        if draft.os_version is not None:
            state.os_version = draft.os_version[0]
            state.mark("os_version", draft.os_version[1])
        for port in sorted(draft.ports.values(), key=lambda p: _port_order(p.name)):
            state.interfaces[port.name] = self.interface(port)
        draft.hand_over(state)
        state.problems = draft.problems
        return state

    def interface(self, port: PortDraft) -> Interface:
        """One Interface with its own QoS (None when it only inherits the device-wide settings)."""
        values: dict[str, Any] = {}
        sources = {"": port.source}
        for field, value in (
            ("mtu", port.mtu),
            ("admin_up", port.admin_up),
            ("speed_mbps", port.speed),
            ("routed", port.routed),
            ("vlans", port.vlans),
            ("channel", port.channel),
        ):
            if value is not None:
                values[field], sources[field] = value
        profiles = [name for name, _ in port.uses.values()]
        if port.uses:
            sources["profiles"] = next(iter(port.uses.values()))[1]
        qos = self.port_qos(port) if _PHYSICAL.fullmatch(port.name) else self.no_pfc()
        values["svi_vlan"] = svi_vlan(port.name, "vlan")
        return Interface(name=port.name, qos=qos, profiles=profiles, sources=sources, **values)

    def no_pfc(self) -> QosConfig:
        """QoS of a port that is not an ASIC front-panel port (eth0, lo, bonds, SVIs, subinterfaces):
        PFC and its watchdog act on the member swp ports, never here."""
        if self._no_pfc is None:
            src = source_at(self.draft.file)
            pfc = PfcConfig(enabled=False)
            pfc.mark("", src)
            pfc.mark("enabled", src)
            self._no_pfc = QosConfig(pfc=pfc, sources={"pfc": src})
        return self._no_pfc

    def port_qos(self, port: PortDraft) -> QosConfig | None:
        """A port's own QoS: its non-global profiles (shared by the ports that use the same ones),
        plus its own PFC watchdog."""
        names = tuple(_own_profile(port, kind) for kind in _OWN_KINDS)
        if names not in self.cache:
            self.cache[names] = self._build(names)
        shared = self.cache[names]
        dog = port.watchdog or self.draft.watchdog_all
        return shared if dog is None else self._watched(shared, dog)

    def _build(self, names: tuple[str | None, ...]) -> QosConfig | None:
        profiles = self.draft.profiles
        layers = [
            profiles.get(kind, {}).get(name) if name is not None else None
            for kind, name in zip(_OWN_KINDS, names, strict=True)
        ]
        mapping, pfc_layer, congestion, scheduler = layers
        if not any(layers):
            return None
        qos = QosConfig(profile=_single(names))
        if mapping is not None:
            add_maps(qos, stack([self.base, mapping]))
        if congestion is not None or scheduler is not None:
            ecn = congestion.ecn if congestion is not None else self.device.ecn
            sched = scheduler.sched if scheduler is not None else self.device.sched
            qos.queues = build_queues(ecn or {}, sched or {})
        if pfc_layer is not None:
            add_pfc(qos, pfc_layer.pfc, pfc_layer.buffers)
        return qos

    def _watched(self, shared: QosConfig | None, dog: At[bool]) -> QosConfig:
        """`shared` with the port's watchdog on its PFC (its profile's, else the device's)."""
        base = shared.pfc if shared is not None and shared.pfc is not None else self.device.pfc
        dog_model = watchdog(dog[0], dog[1], self.draft.poll, self.draft.robustness)
        if base is not None:
            pfc = base.model_copy(update={"watchdog": dog_model})
        else:
            pfc = PfcConfig(
                enabled=False, watchdog=dog_model, sources={"": dog[1], "enabled": dog[1]}
            )
        marks = {"pfc": pfc.sources["enabled"]}
        if pfc.priorities:
            marks["pfc.priorities"] = pfc.sources["priorities"]
        if shared is None:
            return QosConfig(pfc=pfc, sources=marks)
        return shared.model_copy(update={"pfc": pfc, "sources": {**shared.sources, **marks}})


def _own_profile(port: PortDraft, kind: str) -> str | None:
    used = port.uses.get(kind)
    return used[0] if used is not None and used[0] != GLOBAL else None


def _single(names: tuple[str | None, ...]) -> str | None:
    chosen = {name for name in names if name is not None}
    return chosen.pop() if len(chosen) == 1 else None


def _port_order(name: str) -> tuple[str, tuple[int, str], tuple[int, str], str]:
    """swp2 before swp10; breakouts (swp1s0) after their port."""
    found = _NUMBERED.fullmatch(name)
    if found is None:
        return (name, (-1, ""), (-1, ""), "")
    lane = found.group(3)
    return (found.group(1), _numeric(found.group(2)), _numeric(lane) if lane else (-1, ""), name)


def _numeric(digits: str) -> tuple[int, str]:
    """A sort key in the digits' numeric order, without int() (a 5000-digit port number in a
    bad input must sort, not raise: int() refuses more than 4300 digits)."""
    significant = digits.lstrip("0")
    return (len(significant), significant)


def build_state(name: str, draft: Draft) -> DeviceState:
    """The DeviceState of `draft`."""
    return Builder(draft).state(name)
