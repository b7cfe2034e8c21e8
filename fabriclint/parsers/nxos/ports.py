"""NX-OS interfaces: port settings (MTU, admin state, mode, speed) and which QoS layers apply."""

from __future__ import annotations

import re
from collections.abc import Callable

from fabriclint.models.common import Source
from fabriclint.models.state import Interface, QosConfig
from fabriclint.parsers.kit.show import ShownInterface
from fabriclint.parsers.kit.vlans import svi_vlan
from fabriclint.parsers.nxos.draft import QOS, QUEUING, Applied, Draft, Lined
from fabriclint.parsers.nxos.qos import NetQos

# NX-OS default MTU of every interface type (`show interface` prints 1500 for unconfigured ports).
DEFAULT_MTU = 1500

# Interfaces that switch traffic (and so can be switchports) rather than route it.
DATA_PORTS = ("Ethernet", "port-channel")

# Nexus 3000 (`6.0(2)U6(1)`) and 5000/6000 (`7.3(8)N1(1)`) releases: layer-2 ports take their
# MTU from the network-qos class (there is no per-port MTU on switchports there).
_CLASS_MTU_RELEASE = re.compile(r"\)[UN]\d", re.ASCII)

QosOf = Callable[[list[Applied]], QosConfig | None]


def build_interfaces(
    draft: Draft, shown: dict[str, ShownInterface], qos_of: QosOf, net: NetQos
) -> dict[str, Interface]:
    """Interfaces of the running-config (with what `show interface` adds), then shown-only ones."""
    class_mtu = draft.os_version is not None and bool(
        _CLASS_MTU_RELEASE.search(draft.os_version[0])
    )
    out: dict[str, Interface] = {}
    for name, scope in draft.interfaces.items():
        parent = _parent(draft, scope, shown.get(name))
        layers = [parent, scope] if parent is not None else [scope]
        iface = _interface(draft, layers, shown.get(name), class_mtu, net)
        iface.qos = qos_of(layers)
        iface.profiles = _profiles(layers, iface.sources, draft)  # sources: the model's own dict
        _topology(draft, scope, shown.get(name), iface)
        out[name] = iface
    for name, seen in shown.items():
        if name not in out:
            out[name] = _shown_only(name, seen)
    return out


def _parent(draft: Draft, scope: Applied, shown: ShownInterface | None) -> Applied | None:
    """The port-channel a member port follows (`channel-group N`, or `Belongs to PoN`)."""
    if scope.channel_group is not None:
        return draft.interfaces.get(f"port-channel{scope.channel_group}")
    if shown is not None and shown.member_of is not None:
        return draft.interfaces.get(shown.member_of)
    return None


def _topology(draft: Draft, scope: Applied, shown: ShownInterface | None, iface: Interface) -> None:
    """VLANs carried (switched ports), the SVI's VLAN, a sub-interface's parent, the channel."""
    base, dot, _ = scope.name.partition(".")
    iface.svi_vlan = svi_vlan(scope.name)
    iface.parent = base if dot else None
    if scope.channel_group is not None:
        iface.channel = f"port-channel{scope.channel_group}"
    elif shown is not None:
        iface.channel = shown.member_of
    carried = None if iface.routed or dot else scope.l2.carried()
    if carried is not None and scope.l2.line is not None:
        iface.vlans = carried
        iface.mark("vlans", draft.at(scope.l2.line))


def _interface(
    draft: Draft, layers: list[Applied], shown: ShownInterface | None, class_mtu: bool, net: NetQos
) -> Interface:
    scope = layers[-1]
    sources: dict[str, Source] = {"": draft.at(scope.line)}
    routed = _routed(draft, layers, shown, sources)
    admin_up = _admin_up(draft, scope, shown, routed, sources)
    if shown is not None:
        sources["oper_up"] = shown.source
    default = _default_mtu(draft, scope.name, routed, class_mtu, net)
    return Interface(
        name=scope.name,
        routed=routed,
        admin_up=admin_up,
        oper_up=shown.oper_up if shown is not None else None,
        speed_mbps=_speed(draft, layers, shown, sources),
        mtu=_mtu(draft, layers, shown, default, sources),
        sources=sources,
    )


def _last(layers: list[Applied], name: str) -> Lined[object] | None:
    for layer in reversed(layers):
        value: Lined[object] | None = getattr(layer, name)
        if value is not None:
            return value
    return None


def _routed(
    draft: Draft, layers: list[Applied], shown: ShownInterface | None, sources: dict[str, Source]
) -> bool:
    written = _last(layers, "routed")
    if written is not None:
        sources["routed"] = draft.at(written[1])
        return bool(written[0])
    if shown is not None and shown.routed is not None:
        sources["routed"] = shown.source
        return shown.routed
    name = layers[-1].name
    if "." in name or not name.startswith(DATA_PORTS):
        sources["routed"] = draft.default
        return True  # subinterfaces, SVIs, loopbacks, mgmt0 are layer 3
    found = draft.routed_default
    sources["routed"] = draft.at(found[1]) if found else draft.default
    return found[0] if found else False


def _admin_up(
    draft: Draft,
    scope: Applied,
    shown: ShownInterface | None,
    routed: bool,
    sources: dict[str, Source],
) -> bool:
    """`[no] shutdown` as written; else `show interface`; else the NX-OS default for the port."""
    if scope.shutdown is not None:
        sources["admin_up"] = draft.at(scope.shutdown[1])
        return not scope.shutdown[0]
    if shown is not None:
        sources["admin_up"] = shown.source
        return not shown.admin_down
    if scope.name.startswith("Vlan"):
        sources["admin_up"] = draft.default
        return False  # SVIs are created shut down
    found = draft.switchport_shutdown
    if found is not None and not routed and scope.name.startswith(DATA_PORTS):
        sources["admin_up"] = draft.at(found[1])
        return not found[0]
    sources["admin_up"] = draft.default
    return True


def _speed(
    draft: Draft, layers: list[Applied], shown: ShownInterface | None, sources: dict[str, Source]
) -> int | None:
    """Operational bandwidth (show interface) over the written `speed`."""
    if shown is not None and shown.speed_mbps is not None:
        speed, sources["speed_mbps"] = shown.speed_mbps
        return speed
    written = layers[-1].speed
    if written is None:
        return None
    sources["speed_mbps"] = draft.at(written[1])
    return written[0]


def _default_mtu(
    draft: Draft, name: str, routed: bool, class_mtu: bool, net: NetQos
) -> tuple[int, Source]:
    """1500, except switchports of Nexus 3000/5000/6000 releases: the network-qos class-default MTU."""
    if class_mtu and not routed and name.startswith(DATA_PORTS) and 0 in net.mtu:
        return net.mtu[0]
    return DEFAULT_MTU, draft.default


def _mtu(
    draft: Draft,
    layers: list[Applied],
    shown: ShownInterface | None,
    default: tuple[int, Source],
    sources: dict[str, Source],
) -> int:
    """Operational MTU (show interface) over the written `mtu` (own, else the port-channel's)."""
    written = _last(layers, "mtu")
    found = shown.mtu if shown is not None else None
    if found is not None and written is not None and written[0] != found[0]:
        reason = f"differs from the operational MTU {found[0]} (show interface), which is used"
        draft.skip(f"mtu {written[0]}", reason, written[1])
    if found is None and written is not None:
        found = (int(written[0]), draft.at(written[1]))  # type: ignore[call-overload]
    mtu, sources["mtu"] = found if found is not None else default
    return mtu


def _profiles(layers: list[Applied], sources: dict[str, Source], draft: Draft) -> list[str]:
    """Names of the type qos and queuing policies applied to the port."""
    out: list[str] = []
    for key in ((QOS, "input"), (QUEUING, "input"), (QUEUING, "output")):
        found = next(
            (layer.policies[key] for layer in reversed(layers) if key in layer.policies), None
        )
        if found is not None:
            out.append(found[0])
            sources.setdefault("profiles", draft.at(found[1]))
    return out


def _shown_only(name: str, shown: ShownInterface) -> Interface:
    """An interface `show interface` lists but the running-config does not."""
    iface = Interface(name=name, admin_up=not shown.admin_down, oper_up=shown.oper_up)
    for key in ("", "admin_up", "oper_up"):
        iface.mark(key, shown.source)
    if shown.routed is not None:
        iface.routed = shown.routed
        iface.mark("routed", shown.source)
    for key, found in (("mtu", shown.mtu), ("speed_mbps", shown.speed_mbps)):
        if found is not None:
            setattr(iface, key, found[0])
            iface.mark(key, found[1])
    return iface
