"""Build the DeviceState of an EOS switch from the collected settings and `show interfaces`."""

from __future__ import annotations

from typing import Any

from fabriclint.models.common import Source, construct
from fabriclint.models.state import DeviceState, Interface, QosConfig, Trust, Unparsed
from fabriclint.parsers.eos.draft import At, Draft, Layer, Lined
from fabriclint.parsers.eos.qos import device_qos, merge, port_qos
from fabriclint.parsers.eos.tokens import is_time_unit
from fabriclint.parsers.kit.show import ShownInterface
from fabriclint.parsers.kit.vlans import svi_vlan

# Layer fields that make an interface's QoS its own rather than purely inherited.
OWN_QOS_FIELDS = ("trust", "pfc_on", "wd_on", "wd_detect", "wd_restore", "wd_action", "policy")

# Ports that carry data and so always classify traffic (and get a default trust).
DATA_PORTS = ("Ethernet", "Port-Channel")

# EOS default MTUs as `show interfaces` reports them: switched ports forward frames up to
# 9214 bytes (Ethernet MTU), routed ports and SVIs have an IP MTU of 1500, loopbacks 65535.
SWITCHED_MTU = 9214
ROUTED_MTU = 1500
LOOPBACK_MTU = 65535


def build_state(
    name: str, draft: Draft, shown: dict[str, ShownInterface], with_config: bool
) -> DeviceState:
    """The DeviceState; `with_config` is False when there was no running-config to read."""
    state = construct(DeviceState, name=name, platform="eos")
    state.os_version = draft.os_version
    state.mark("os_version", draft.version_source)
    state.facts = dict(draft.facts)
    if with_config:
        state.qos = device_qos(draft)
    for layer in draft.interfaces.values():
        state.interfaces[layer.name] = build_interface(draft, layer, shown.get(layer.name))
    for iface_name, seen in shown.items():
        if iface_name not in state.interfaces:
            state.interfaces[iface_name] = _shown_only(iface_name, seen)
    draft.hand_over(state)
    return state


def _root(draft: Draft, layer: Layer) -> Layer | None:
    """The interface whose settings a port follows: its port-channel, or a subinterface's parent."""
    if layer.channel_group is not None:
        return draft.interfaces.get(f"Port-Channel{layer.channel_group}")
    base, dot, _ = layer.name.partition(".")
    return draft.interfaces.get(base) if dot else None


def _layers(draft: Draft, layer: Layer, depth: int = 0) -> list[Layer]:
    """Setting layers, lowest precedence first: parent's layers, the profile, the interface."""
    root = _root(draft, layer) if depth < 2 else None
    out = _layers(draft, root, depth + 1) if root is not None and root is not layer else []
    profile = draft.profiles.get(layer.profile[0]) if layer.profile is not None else None
    if profile is not None:
        out.append(profile)
    out.append(layer)
    return out


def build_interface(draft: Draft, layer: Layer, shown: ShownInterface | None) -> Interface:
    """One Interface: port settings, then QoS from its layers (parent, profile, own lines)."""
    sources = {"": layer.source}
    root = _root(draft, layer) or layer
    routed = _routed(draft, layer.name, root, sources)
    speed = _speed(draft, layer, shown, sources)
    layers = _layers(draft, layer)
    profile, policy = _last(layers, "profile"), _last(layers, "policy")
    is_data = layer.name.startswith(DATA_PORTS)
    trust = (Trust.DSCP if routed else Trust.PCP) if is_data else None
    return Interface(
        name=layer.name,
        admin_up=_admin_up(draft, layer, shown, sources),
        oper_up=shown.oper_up if shown is not None else None,
        mtu=_mtu(draft, layer.name, (layer, root), shown, routed, sources),
        speed_mbps=speed,
        routed=routed,
        qos=_port_qos(draft, layers, profile[0] if profile else None, trust, speed),
        profiles=_profiles((profile, policy), sources),
        **_topology(draft, layer, routed, sources),
        sources=sources,
    )


def _topology(
    draft: Draft, layer: Layer, routed: bool, sources: dict[str, Source]
) -> dict[str, Any]:
    """VLANs carried (switched ports), the SVI's VLAN, a sub-interface's parent, the channel."""
    base, dot, _ = layer.name.partition(".")
    out: dict[str, Any] = {
        "svi_vlan": svi_vlan(layer.name),
        "parent": base if dot else None,
        "channel": None if layer.channel_group is None else f"Port-Channel{layer.channel_group}",
    }
    carried = None if routed or dot else layer.l2.carried()
    if carried is not None and layer.l2.line is not None:
        out["vlans"] = carried
        sources["vlans"] = draft.at(layer.l2.line)
    return out


def _last(layers: list[Layer], name: str) -> At[str] | None:
    """The last layer's `profile` or `policy` (`service-profile` / `service-policy` line)."""
    for layer in reversed(layers):
        value: At[str] | None = getattr(layer, name)
        if value is not None:
            return value
    return None


def _port_qos(
    draft: Draft, layers: list[Layer], profile: str | None, trust: Trust | None, speed: int | None
) -> QosConfig | None:
    """Per-port QoS. Ports that only inherit (a profile, a port-channel) share one object."""
    if _own_qos(layers[-1]):
        return port_qos(draft, merge(layers), trust, speed, profile)
    inherited = layers[:-1]
    timed = any(
        q.ecn is not None and is_time_unit(q.ecn.min_raw)
        for layer in inherited
        for q in layer.queues.values()
    )
    key = (tuple(id(layer) for layer in inherited), profile, trust, speed if timed else None)
    if key not in draft.shared_qos:
        merged = merge(inherited) if inherited else Layer("empty", "", draft.default)
        draft.shared_qos[key] = port_qos(draft, merged, trust, speed, profile)
    return draft.shared_qos[key]


def _own_qos(layer: Layer) -> bool:
    """True when the interface block itself holds QoS lines (beyond naming a profile)."""
    return bool(layer.queues or layer.pfc_prio) or any(
        getattr(layer, name) is not None for name in OWN_QOS_FIELDS
    )


def _routed(draft: Draft, name: str, root: Layer, sources: dict[str, Source]) -> bool:
    if root.routed is not None:
        routed, sources["routed"] = root.routed
        return routed
    sources["routed"] = draft.default
    return "." in name or not name.startswith(DATA_PORTS)


def _admin_up(
    draft: Draft, layer: Layer, shown: ShownInterface | None, sources: dict[str, Source]
) -> bool:
    """`shutdown` as written; `show interfaces` only adds an admin-down the config does not say."""
    if shown is not None:
        sources["oper_up"] = shown.source
    if layer.shutdown is not None and layer.shutdown[0]:
        sources["admin_up"] = layer.shutdown[1]
        return False
    if shown is not None and shown.admin_down:
        sources["admin_up"] = shown.source
        return False
    sources["admin_up"] = layer.shutdown[1] if layer.shutdown is not None else draft.default
    return True


def _speed(
    draft: Draft, layer: Layer, shown: ShownInterface | None, sources: dict[str, Source]
) -> int | None:
    """Operational bandwidth (show interfaces) over the written `speed`."""
    if shown is not None and shown.speed_mbps is not None:
        speed, sources["speed_mbps"] = shown.speed_mbps
        return speed
    if layer.speed is None:
        return None
    sources["speed_mbps"] = draft.at(layer.speed[1])
    return layer.speed[0]


def _mtu(
    draft: Draft,
    name: str,
    own_and_root: tuple[Layer, Layer],
    shown: ShownInterface | None,
    routed: bool,
    sources: dict[str, Source],
) -> int | None:
    """Operational MTU (show interfaces) over the written `mtu`/`l2 mtu` over the EOS default."""
    written = _written_mtu(own_and_root, routed)
    found = shown.mtu if shown is not None else None
    if found is not None and written is not None and written[0] != found[0]:
        reason = f"differs from the operational MTU {found[0]} (show interfaces), which is used"
        note = Unparsed(text=f"mtu {written[0]}", reason=reason, source=draft.at(written[1]))
        draft.unparsed.append(note)
    if found is None and written is not None:
        found = (written[0], draft.at(written[1]))
    if found is None:
        default = _default_mtu(name, routed)
        found = (default, draft.default) if default is not None else None
    if found is None:
        return None
    mtu, sources["mtu"] = found
    return mtu


def _written_mtu(own_and_root: tuple[Layer, Layer], routed: bool) -> Lined | None:
    """`mtu` on routed ports; `l2 mtu`, else `mtu`, on switched ports (own lines, then parent's)."""
    for layer in own_and_root:
        found = layer.mtu if routed else layer.l2_mtu or layer.mtu
        if found is not None:
            return found
    return None


def _default_mtu(name: str, routed: bool) -> int | None:
    if name.startswith("Loopback"):
        return LOOPBACK_MTU
    if name.startswith(DATA_PORTS):
        return ROUTED_MTU if routed else SWITCHED_MTU
    if name.startswith(("Management", "Vlan")):
        return ROUTED_MTU
    return None


def _profiles(written: tuple[At[str] | None, ...], sources: dict[str, Source]) -> list[str]:
    out = []
    for found in written:
        if found is not None:
            out.append(found[0])
            sources.setdefault("profiles", found[1])
    return out


def _shown_only(name: str, shown: ShownInterface) -> Interface:
    """An interface `show interfaces` lists but the running-config does not."""
    iface = Interface(name=name, admin_up=not shown.admin_down, oper_up=shown.oper_up)
    for key in ("", "admin_up", "oper_up"):
        iface.mark(key, shown.source)
    for key, found in (("mtu", shown.mtu), ("speed_mbps", shown.speed_mbps)):
        if found is not None:
            setattr(iface, key, found[0])
            iface.mark(key, found[1])
    return iface
