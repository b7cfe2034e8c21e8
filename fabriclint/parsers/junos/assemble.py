"""Build the DeviceState of a Junos switch from the collected statements: ports, MTU, CoS."""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase

from fabriclint.models.common import Source, construct
from fabriclint.models.state import DeviceState, Interface
from fabriclint.parsers.junos.draft import (
    ALL_INTERFACES,
    L2_INSTANCES,
    CosPort,
    Draft,
    Port,
    Unit,
    Vlan,
)
from fabriclint.parsers.junos.qos import QosBuilder
from fabriclint.parsers.junos.values import (
    DEFAULT_MEDIA_MTU,
    ETHERNET_HEADER,
    VLAN_TAG,
    is_data_port,
    is_ethernet,
    to_int,
)
from fabriclint.parsers.kit.vlans import Vlans, parse_vlan_list


def build_state(name: str, d: Draft) -> DeviceState:
    """The DeviceState of everything collected in `d`."""
    state = construct(DeviceState, name=name, platform="junos")
    if d.version is not None:
        state.os_version = d.version.value
        state.mark("os_version", d.at(d.version.line))
    state.facts = dict(d.facts)
    builder = QosBuilder(d)
    state.qos = builder.device()
    wildcards, merged = _wildcards(d), dict[str, CosPort]()
    for port_name in _port_names(d):
        state.interfaces[port_name] = _interface(d, builder, (wildcards, merged), port_name)
    for svi in _irb_units(d):
        state.interfaces.setdefault(svi.name, svi)
    d.hand_over(state)
    return state


def _port_names(d: Draft) -> list[str]:
    """Ports of the `interfaces` section, then ports only `class-of-service` names."""
    extra = [n for n, cos in d.cos_ports.items() if not cos.wildcard and n not in d.ports]
    return [*d.ports, *extra]


def _wildcards(d: Draft) -> list[CosPort]:
    """Wildcard CoS blocks, most specific (most literal characters) first, `all` last."""
    found = [cos for cos in d.cos_ports.values() if cos.wildcard]
    return sorted(found, key=lambda c: (c.name == ALL_INTERFACES, -len(c.name.replace("*", ""))))


def _matching(wildcards: list[CosPort], name: str) -> list[CosPort]:
    return [c for c in wildcards if c.name == ALL_INTERFACES or fnmatchcase(name, c.name)]


def _chain(d: Draft, wildcards: list[CosPort], name: str, parent: Port | None) -> list[CosPort]:
    """The CoS blocks that apply to a port, most specific first: its own block, then (for a LAG
    member, which follows its LAG) the LAG's own block and the wildcards matching the LAG, else
    the wildcards matching the port."""
    own = d.cos_ports.get(name)
    chain = [own] if own is not None and not own.wildcard else []
    lag = _chain(d, wildcards, parent.name, None) if parent is not None else []
    return chain + (lag or _matching(wildcards, name))


def _cos_for(
    d: Draft, wildcards: list[CosPort], name: str, parent: Port | None, memo: dict[str, CosPort]
) -> CosPort | None:
    """The effective CoS block of a port, statement by statement: each component (congestion
    notification profile, scheduler map, each classifier type) comes from the most specific
    block that sets it, and a block inherits what it does not set from the less specific ones
    (docs/platforms/junos.md, "Per port")."""
    chain = _chain(d, wildcards, name, parent)
    if len(chain) <= 1:
        return chain[0] if chain else None
    cnp = next((c for c in chain if c.cnp is not None), None)
    smap = next((c for c in chain if c.scheduler_map is not None), None)
    rewrite = next((c.rewrite for c in chain if c.rewrite is not None), None)
    kinds = dict.fromkeys(kind for c in chain for kind, entries in c.classifiers.items() if entries)
    by_kind = {k: next(c for c in chain if c.classifiers.get(k)) for k in kinds}
    key = "|".join(c.name for c in chain)
    if key not in memo:
        memo[key] = CosPort(
            chain[0].name,
            chain[0].line,
            classifiers={k: c.classifiers[k] for k, c in by_kind.items()},
            cnp=cnp.cnp if cnp is not None else None,
            scheduler_map=smap.scheduler_map if smap is not None else None,
            rewrite=rewrite,
            key=key,
            classifier_blocks={k: c.name for k, c in by_kind.items()},
        )
    return memo[key]


def _interface(
    d: Draft, builder: QosBuilder, blocks: tuple[list[CosPort], dict[str, CosPort]], name: str
) -> Interface:
    port = d.ports.get(name)
    parent = d.ports.get(port.bundle.value) if port is not None and port.bundle else None
    cos = _cos_for(d, blocks[0], name, parent, blocks[1])
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
        # an `ae` member: Junos gives it the bundle's MTU (its own `mtu` is not used)
        channel=port.bundle.value if port is not None and port.bundle else None,
        vlans=_carried(d, layer, sources),
        sources=sources,
    )


def _carried(d: Draft, port: Port | None, sources: dict[str, Source]) -> Vlans | None:
    """The VLANs the switched units of a port carry (`vlan members`: names of `vlans`, ids,
    ranges, `all`); None when no unit names one. A name is looked up in the MAC-VRF instance
    that lists the unit, else the top-level `vlans`, else the one MAC-VRF defining it; a name
    none defines (or several, for a unit no instance lists) carries nothing fabriclint can
    number."""
    if port is None:
        return None
    members = [(n, m) for n, unit in port.units.items() for m in unit.members]
    if not members:
        return None
    found: set[int] = set()
    for number, member in members:
        ids = _vlan_ids(d, f"{port.name}.{number}")
        listed = [ids[member.value]] if member.value in ids else parse_vlan_list(member.value)
        if listed == "all":
            sources["vlans"] = d.at(member.line)
            return "all"
        found.update(listed or ())
    sources["vlans"] = d.at(members[0][1].line)
    return sorted(found)


def _ids(vlans: Iterable[Vlan]) -> dict[str, int]:
    return {v.name: v.vlan_id.value for v in vlans if v.vlan_id is not None}


def _vlan_ids(d: Draft, unit: str) -> dict[str, int]:
    """VLAN name -> id as `unit`'s `vlan members` resolve them (see `_carried`)."""
    bridging = [i for i in d.instances.values() if i.kind in L2_INSTANCES]
    own = next((i for i in bridging if unit in i.units), None)
    if own is not None:
        return _ids(own.vlans.values())
    names: dict[str, list[int]] = {}
    for instance in bridging:
        for name, number in _ids(instance.vlans.values()).items():
            names.setdefault(name, []).append(number)
    unique = {name: numbers[0] for name, numbers in names.items() if len(numbers) == 1}
    return unique | _ids(d.vlans.values())


def all_vlans(d: Draft) -> list[Vlan]:
    """The top-level VLANs, then those of each MAC-VRF (or virtual-switch) instance."""
    bridging = [i for i in d.instances.values() if i.kind in L2_INSTANCES]
    return [*d.vlans.values(), *(v for i in bridging for v in i.vlans.values())]


def _irb_units(d: Draft) -> list[Interface]:
    """Each `irb` unit a VLAN names as its `l3-interface`: that VLAN's SVI, at its `family inet
    mtu`, else the irb's media MTU less the Ethernet header (Juniper: "Configuring Integrated
    Routing and Bridging Interfaces on Switches")."""
    irb = d.ports.get("irb")
    out: list[Interface] = []
    for vlan in all_vlans(d):
        device, _, number = vlan.l3.value.partition(".") if vlan.l3 else ("", "", "")
        unit = irb.units.get(number) if irb is not None and device == "irb" else None
        if irb is None or unit is None or vlan.l3 is None or vlan.vlan_id is None:
            continue
        sources = {"": d.at(unit.inet or irb.line), "svi_vlan": d.at(vlan.l3.line)}
        out.append(
            Interface(
                name=vlan.l3.value,
                admin_up=_admin_up(d, irb, sources),
                mtu=_unit_mtu(d, irb, unit, sources),
                routed=True,
                svi_vlan=vlan.vlan_id.value,
                sources=sources,
            )
        )
    return out


def _unit_mtu(d: Draft, port: Port, unit: Unit, sources: dict[str, Source]) -> int:
    """A unit's IP MTU: its `family inet mtu`, else its interface's media MTU less the header."""
    if unit.inet_mtu is not None:
        sources["mtu"] = d.at(unit.inet_mtu.line)
        return unit.inet_mtu.value
    media = port.mtu.value if port.mtu is not None else DEFAULT_MEDIA_MTU
    sources["mtu"] = d.at(port.mtu.line if port.mtu is not None else None)
    return media - ETHERNET_HEADER


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
