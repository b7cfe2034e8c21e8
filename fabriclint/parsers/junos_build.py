"""Build the DeviceState of a Junos switch from the collected statements: ports, MTU, CoS."""

from __future__ import annotations

from fnmatch import fnmatchcase

from fabriclint.models.common import Source
from fabriclint.models.state import DeviceState, Interface, Unparsed
from fabriclint.parsers.junos_draft import CosPort, Draft, Port, Unit
from fabriclint.parsers.junos_qos import QosBuilder
from fabriclint.parsers.junos_values import (
    DEFAULT_MEDIA_MTU,
    ETHERNET_HEADER,
    VLAN_TAG,
    is_data_port,
    is_ethernet,
    to_int,
)


def build_state(name: str, d: Draft) -> DeviceState:
    """The DeviceState of everything collected in `d`."""
    state = DeviceState(name=name, platform="junos")
    if d.version is not None:
        state.os_version = d.version.value
        state.mark("os_version", d.at(d.version.line))
    state.facts = dict(d.facts)
    builder = QosBuilder(d)
    state.qos = builder.device()
    wildcards = _wildcards(d)
    for port_name in _port_names(d):
        state.interfaces[port_name] = _interface(d, builder, wildcards, port_name)
    state.definitions = d.definitions
    state.references = d.references
    state.unparsed = sorted(d.unparsed, key=_line_of)
    return state


def _line_of(item: Unparsed) -> int:
    return item.source.line or 0 if item.source is not None else 0


def _port_names(d: Draft) -> list[str]:
    """Ports of the `interfaces` section, then ports only `class-of-service` names."""
    extra = [n for n, cos in d.cos_ports.items() if not cos.wildcard and n not in d.ports]
    return [*d.ports, *extra]


def _wildcards(d: Draft) -> list[CosPort]:
    """Wildcard CoS blocks, most specific (most literal characters) first."""
    found = [cos for cos in d.cos_ports.values() if cos.wildcard]
    return sorted(found, key=lambda cos: -len(cos.name.replace("*", "")))


def _cos_for(d: Draft, wildcards: list[CosPort], name: str, parent: Port | None) -> CosPort | None:
    """The CoS block of a port: its own (by name), else its LAG's, else the best wildcard."""
    own = d.cos_ports.get(name)
    if own is not None and not own.wildcard:
        return own
    if parent is not None:
        inherited = _cos_for(d, wildcards, parent.name, None)
        if inherited is not None:
            return inherited
    return next((cos for cos in wildcards if fnmatchcase(name, cos.name)), None)


def _interface(d: Draft, builder: QosBuilder, wildcards: list[CosPort], name: str) -> Interface:
    port = d.ports.get(name)
    parent = d.ports.get(port.bundle.value) if port is not None and port.bundle else None
    cos = _cos_for(d, wildcards, name, parent)
    line = port.line if port is not None else cos.line if cos is not None else None
    sources: dict[str, Source] = {"": d.at(line)}
    layer = parent or port
    routed = _routed(layer)
    if routed is not None and layer is not None:
        sources["routed"] = d.at(_mode_line(layer))
    speed = port.speed if port is not None else None
    if speed is not None:
        sources["speed_mbps"] = d.at(speed.line)
    return Interface(
        name=name,
        admin_up=_admin_up(d, port, sources),
        mtu=_mtu(d, layer, sources),
        speed_mbps=speed.value if speed is not None else None,
        routed=routed,
        qos=builder.port(cos, routed if is_data_port(name) or cos is not None else None),
        profiles=_profiles(d, cos, sources),
        sources=sources,
    )


def _routed(port: Port | None) -> bool | None:
    """True when a unit routes IPv4, False when it only bridges, None when there is no unit."""
    if port is None:
        return None
    units = port.units.values()
    if any(unit.inet is not None for unit in units):
        return True
    return False if any(unit.switching is not None for unit in units) else None


def _mode_line(port: Port) -> int | None:
    lines = [u.inet or u.switching or 0 for u in port.units.values()]
    return min((line for line in lines if line), default=None)


def _admin_up(d: Draft, port: Port | None, sources: dict[str, Source]) -> bool:
    if port is not None and port.disable is not None:
        sources["admin_up"] = d.at(port.disable)
        return False
    sources["admin_up"] = d.default
    return True


def _main_unit(port: Port) -> Unit | None:
    """Unit 0, else the lowest-numbered unit that routes IPv4."""
    if "0" in port.units:
        return port.units["0"]
    routed = [
        (number, u)
        for n, u in port.units.items()
        if (number := to_int(n)) is not None and u.inet is not None
    ]
    return min(routed, key=lambda pair: pair[0])[1] if routed else None


def _mtu(d: Draft, port: Port | None, sources: dict[str, Source]) -> int | None:
    """IP MTU: `family inet mtu`, else the physical MTU minus the Ethernet header (and tag)."""
    if port is None:
        return None
    unit = _main_unit(port)
    if unit is not None and unit.inet_mtu is not None:
        sources["mtu"] = d.at(unit.inet_mtu.line)
        return unit.inet_mtu.value
    if port.mtu is None and not is_ethernet(port.name):
        return None
    media = port.mtu.value if port.mtu is not None else DEFAULT_MEDIA_MTU
    sources["mtu"] = d.at(port.mtu.line if port.mtu is not None else None)
    return media - ETHERNET_HEADER - (VLAN_TAG if port.tagging is not None else 0)


def _profiles(d: Draft, cos: CosPort | None, sources: dict[str, Source]) -> list[str]:
    """Names applied to the port: scheduler map, congestion notification profile, classifiers."""
    if cos is None:
        return []
    if cos.applied is None:
        items = [cos.scheduler_map, cos.cnp]
        items += [entries[0][1] for entries in cos.classifiers.values() if entries]
        names = [item for item in items if item is not None]
        first = min((item.line or 0 for item in names), default=None)
        cos.applied = ([item.value for item in names], d.at(first) if first else None)
    names_applied, source = cos.applied
    if source is not None:
        sources["profiles"] = source
    return list(dict.fromkeys(names_applied))
