"""NVUE bridges and bonds: the VLANs a bridge port carries and the bond a port is a member of
(MTU005, MTU006). A port in a bridge domain carries the domain's VLANs unless it names its own
(`vlan`) or is an access port (`access`); a domain whose VLANs are not written leaves them
unknown; a bond member without an MTU of its own runs the
bond's (ifupdown2 gives the bond's MTU to its members; Cumulus Linux "Bonding - Link
Aggregation", "Ethernet Bridging - VLAN-aware Mode")."""

from __future__ import annotations

from fabriclint.models.common import source_at
from fabriclint.parsers.cumulus.draft import Draft, PortDraft
from fabriclint.parsers.cumulus.tokens import expand_ports, to_int
from fabriclint.parsers.cumulus.tree import Item
from fabriclint.parsers.kit.vlans import MAX_VLAN, Vlans, parse_vlan_list


def bridge_domains(tree: Item) -> dict[str, Vlans]:
    """`bridge: domain: NAME: vlan: {'10': {}, '20-30': {}}` -> NAME -> its VLANs."""
    bridge = tree.get("bridge")
    domains = bridge.get("domain") if bridge is not None else None
    out: dict[str, Vlans] = {}
    for name, body in domains.items() if domains is not None else []:
        found = _vlan_keys(body.get("vlan"))
        if found is not None:  # a domain without a VLAN list: what it carries is not written
            out[name] = found
    return out


def _vlan_keys(item: Item | None) -> Vlans | None:
    """The VLANs of a `vlan:` mapping (each key a VLAN, a range or a list); None when absent or
    unreadable."""
    if item is None or not item.is_map:
        return None
    out: set[int] = set()
    for key, _ in item.items():
        found = parse_vlan_list(key)
        if found is None:
            return None
        out.update(range(1, MAX_VLAN + 1) if found == "all" else found)
    return sorted(out)


def read_l2(
    draft: Draft, file: str, port: PortDraft, body: Item, domains: dict[str, Vlans]
) -> None:
    """A port's bridge VLANs (`bridge: domain: NAME: access|vlan`) and a bond's members."""
    bridge = body.get("bridge")
    domain = bridge.get("domain") if bridge is not None else None
    for name, entry in domain.items() if domain is not None else []:
        access = entry.get("access")
        number = to_int(access.value) if access is not None else None
        own = _vlan_keys(entry.get("vlan"))
        vlans = [number] if number is not None else own or domains.get(name)
        if vlans is not None:
            port.vlans = (vlans, source_at(file, (access or entry).line))
    bond = body.get("bond")
    members = bond.get("member") if bond is not None else None
    for spec, entry in members.items() if members is not None else []:
        for member in expand_ports(spec) or []:
            draft.port(member, source_at(file, entry.line)).channel = (
                port.name,
                source_at(file, entry.line),
            )


def inherit_bond_mtu(draft: Draft) -> None:
    """Members whose MTU is the platform default (no line) run their bond's MTU."""
    for port in draft.ports.values():
        bond = draft.ports.get(port.channel[0]) if port.channel is not None else None
        if bond is None or bond.mtu is None:
            continue
        if port.mtu is None or not port.mtu[1].line:
            port.mtu = bond.mtu
