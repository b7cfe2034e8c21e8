"""SONiC VLANs, port channels and sub-interfaces: which VLANs a port carries (`VLAN_MEMBER`),
which port channel a port is in (`PORTCHANNEL_MEMBER`), and the VLAN, port-channel and
sub-interface netdevs with their MTUs (`VLAN`, `PORTCHANNEL`, `VLAN_SUB_INTERFACE`)."""

from __future__ import annotations

from fabriclint.models.state import DeviceState, Interface
from fabriclint.parsers.kit.vlans import svi_vlan
from fabriclint.parsers.sonic.draft import Draft
from fabriclint.parsers.sonic.tables import Entry, Tables, as_int

# vlanmgrd, teammgrd and intfmgrd (sonic-swss cfgmgr) give a VLAN, PORTCHANNEL or
# VLAN_SUB_INTERFACE entry without `mtu` the same default as a port: 9100.
DEFAULT_MTU = 9100


def add_l2(state: DeviceState, draft: Draft, tables: Tables) -> None:
    """Add the VLAN, port-channel and sub-interface netdevs, then memberships to the ports."""
    routed_vlans = {key.partition("|")[0] for key in tables.get("VLAN_INTERFACE", {})}
    for name, entry in tables.get("VLAN", {}).items():
        if name in routed_vlans or "mtu" in entry.fields:
            _netdev(state, draft, entry, svi=svi_vlan(name))
    for entry in tables.get("PORTCHANNEL", {}).values():
        _netdev(state, draft, entry)
    for name, entry in tables.get("VLAN_SUB_INTERFACE", {}).items():
        if "|" not in name:  # `Ethernet0.10|10.0.0.1/31` keys are its addresses
            _netdev(state, draft, entry, parent=name.partition(".")[0])
    _members(state, draft, tables)


def _netdev(
    state: DeviceState,
    draft: Draft,
    entry: Entry,
    svi: int | None = None,
    parent: str | None = None,
) -> None:
    """One VLAN / port-channel / sub-interface netdev, unless the input already defined it."""
    if entry.key in state.interfaces:
        return
    iface = Interface(
        name=entry.key, svi_vlan=svi, parent=parent, sources={"": draft.at(entry.line)}
    )
    found = entry.text("mtu")
    number = as_int(found[0]) if found is not None else None
    if found is not None and number is None:
        draft.skip(f'"mtu": "{found[0]}"', f"{entry.name}: not a number", found[1])
    iface.mtu = number if number is not None else DEFAULT_MTU
    iface.mark(
        "mtu", draft.at(found[1]) if found is not None and number is not None else draft.default
    )
    if svi is not None or parent is not None:
        iface.routed = True
        iface.mark("routed", draft.at(entry.line))
    state.interfaces[entry.key] = iface


def _members(state: DeviceState, draft: Draft, tables: Tables) -> None:
    """`VLAN_MEMBER|Vlan10|Ethernet0` and `PORTCHANNEL_MEMBER|PortChannel1|Ethernet0`."""
    for key, entry in tables.get("VLAN_MEMBER", {}).items():
        vlan, _, port = key.partition("|")
        number = svi_vlan(vlan)
        iface = state.interfaces.get(port)
        if number is None or iface is None:
            continue
        carried = iface.vlans if isinstance(iface.vlans, list) else []
        iface.vlans = sorted({*carried, number})
        iface.mark("vlans", draft.at(entry.line))
    for key, entry in tables.get("PORTCHANNEL_MEMBER", {}).items():
        channel, _, port = key.partition("|")
        iface = state.interfaces.get(port)
        if iface is not None and channel:
            iface.channel = channel
            iface.mark("channel", draft.at(entry.line))
