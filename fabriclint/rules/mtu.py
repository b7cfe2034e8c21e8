"""MTU rules: both ends of a cable, host against switch, the RDMA path MTU, lossless classes,
SVIs and sub-interfaces against the ports carrying them, port-channel members.

These rules read `Interface.mtu` as the IP (layer-3) MTU, Ethernet header not counted: EOS `mtu`
on a routed port, `ip link` mtu on a host. A parser for a platform whose MTU counts the header
(Junos physical MTU) has to normalize it, or MTU001 compares unlike numbers across vendors.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from fabriclint import platforms
from fabriclint.models.finding import Finding
from fabriclint.models.resolve import lossless_priorities, priority_queue
from fabriclint.models.state import DeviceState, Interface
from fabriclint.models.types import RoceMtu
from fabriclint.rules.base import Context, NoOptions, Rule
from fabriclint.rules.helpers import host_nics, hosts, switches
from fabriclint.rules.ib_fleet import hca_intent, is_ib, uncabled_ib_ports

End = tuple[str, str]


def _link(a: End, b: End) -> str:
    return f"link {a[0]}:{a[1]} - {b[0]}:{b[1]}"


def _known_mtu(ctx: Context, code: str, state: DeviceState, port: str) -> int | None:
    """MTU of a cabled port; records a skip when the port or its MTU is not in the state."""
    iface = state.interfaces.get(port)
    if iface is None or iface.mtu is None:
        ctx.skip(code, state.name)
        return None
    return iface.mtu


# ---- MTU001 -------------------------------------------------------------------------------------


class LinkMtuMismatch(Rule[NoOptions]):
    """The two switch ports of a cable have different MTUs.

    A routed link whose ends disagree drops every packet larger than the smaller MTU in one
    direction (RoCE sets don't-fragment), and OSPF/IS-IS adjacencies may refuse to form. Checked
    on every cable of the plan between two switches whose MTUs are both known; the finding is
    attached to the first end in the cabling plan. Switch-host cables are MTU002's. A switch
    whose cabled port or its MTU is missing from its state is skipped (coverage).

    Options: none.

    Fails:
        leaf01 Ethernet49: mtu 9214      spine01 Ethernet1: mtu 1500

    Passes: both ends at mtu 9214.
    """

    code = "MTU001"
    name = "link-mtu-mismatch"
    severity = "error"
    summary = "the two switch ports of a cable have different MTUs"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for a, b in ctx.links():
            state_a, state_b = ctx.states[a[0]], ctx.states[b[0]]
            if state_a.is_host or state_b.is_host:
                continue
            mtu_a = _known_mtu(ctx, self.code, state_a, a[1])
            mtu_b = _known_mtu(ctx, self.code, state_b, b[1])
            if mtu_a is None or mtu_b is None or mtu_a == mtu_b:
                continue
            yield self.finding(
                a[0],
                _link(a, b),
                f"interfaces.{a[1]}.mtu",
                f"{a[1]} has MTU {mtu_a} but {b[0]}:{b[1]} at the other end has {mtu_b}",
                expected=mtu_b,
                actual=mtu_a,
                source=state_a.interfaces[a[1]].src("mtu"),
            )


# ---- MTU002 -------------------------------------------------------------------------------------


class HostMtuExceedsSwitch(Rule["HostMtuExceedsSwitch.Options"]):
    """A host NIC's MTU is larger than the MTU of the switch port it is cabled to.

    The host builds packets up to its own MTU; the switch drops those larger than its port's,
    silently: TCP stalls on full-size segments and RoCE, whose active MTU follows the host's,
    loses every full-size packet. Compared: the
    host netdev's IP MTU (`ip link`, without Ethernet header) plus `l2_overhead` against the
    switch port's IP MTU (EOS `mtu`, also without header), so the default overhead is 0. A host
    MTU below the switch's is fine. Checked on every switch-host cable of the plan; the finding
    is attached to the first end in the cabling plan. A device whose cabled port or its MTU is
    missing from its state is skipped (coverage).

    Options:
        l2_overhead: bytes added to the host MTU before the comparison (default 0, right when
            both are IP MTUs). Raise it when the switch MTUs you compare count bytes the host
            MTU does not.

    Fails:
        gpu01 ens1np0: mtu 9000      leaf01 Ethernet1: mtu 1500

    Passes: gpu01 ens1np0 mtu 9000 behind leaf01 Ethernet1 mtu 9214.
    """

    class Options(BaseModel):
        """Options of MTU002."""

        model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, defer_build=True)

        l2_overhead: int = Field(default=0, ge=0)
        """Bytes added to the host's IP MTU before comparing with the switch port's IP MTU."""

    code = "MTU002"
    name = "host-mtu-exceeds-switch"
    severity = "error"
    summary = "a host NIC's MTU is larger than its switch port's"
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        for a, b in ctx.links():
            if ctx.states[a[0]].is_host == ctx.states[b[0]].is_host:
                continue
            host, switch = (a, b) if ctx.states[a[0]].is_host else (b, a)
            host_mtu = _known_mtu(ctx, self.code, ctx.states[host[0]], host[1])
            switch_mtu = _known_mtu(ctx, self.code, ctx.states[switch[0]], switch[1])
            if host_mtu is None or switch_mtu is None:
                continue
            if host_mtu + self.options.l2_overhead > switch_mtu:
                yield self._finding(ctx, a, b, host, (host_mtu, switch_mtu))

    def _finding(self, ctx: Context, a: End, b: End, host: End, mtus: tuple[int, int]) -> Finding:
        switch = b if host == a else a
        overhead = self.options.l2_overhead
        plus = f" (+{overhead} B overhead)" if overhead else ""
        return self.finding(
            a[0],
            _link(a, b),
            f"interfaces.{a[1]}.mtu",
            f"{host[0]}:{host[1]} has MTU {mtus[0]}{plus} but its switch port "
            f"{switch[0]}:{switch[1]} has MTU {mtus[1]}, so larger packets are dropped",
            expected=mtus[1] - overhead,
            actual=mtus[0],
            source=ctx.states[a[0]].interfaces[a[1]].src("mtu"),
        )


# ---- MTU003 -------------------------------------------------------------------------------------


class RoceMtuTooSmall(Rule["RoceMtuTooSmall.Options"]):
    """The active RoCE/InfiniBand MTU of a NIC port is below the required size.

    RDMA messages are cut into packets of the active (path) MTU; at 1024 bytes a NIC sends four
    times the packets, and headers, of 4096, and large transfers lose a measurable share of
    bandwidth. The RoCE active MTU follows the netdev MTU (1500 gives 1024), so this usually
    means a host interface left at 1500. The required size is the intent's `mtu.roce` when the
    host's profile declares it, else the `min_mtu` option; for InfiniBand ports (checked whether
    cabled or not) `infiniband.hca.active_mtu` comes first. A host whose port shows no active
    MTU is skipped (coverage).

    Options:
        min_mtu: required active MTU when intent declares none (default 4096).

    Fails: ibv_devinfo shows ens1np0 with active_mtu 1024 (3).

    Passes: active_mtu 4096 (5).
    """

    class Options(BaseModel):
        """Options of MTU003."""

        model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, defer_build=True)

        min_mtu: RoceMtu = 4096
        """Smallest acceptable active RoCE/IB MTU in bytes when intent declares none."""

    code = "MTU003"
    name = "roce-mtu-too-small"
    severity = "warning"
    summary = "the active RoCE/IB MTU of a NIC port is below the required size"
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in hosts(ctx):
            profile = ctx.profile(state.name)
            declared = profile.mtu.roce if profile and profile.mtu else None
            hca = hca_intent(ctx, state.name)
            for nic in host_nics(ctx, state, self.code) + uncabled_ib_ports(ctx, state):
                ib_floor = hca.active_mtu if hca is not None and is_ib(nic) else None
                floor = ib_floor or declared or self.options.min_mtu
                if nic.active_mtu is None:
                    ctx.skip(self.code, state.name)
                elif nic.active_mtu < floor:
                    yield self.finding(
                        state.name,
                        f"interface {nic.netdev}",
                        f"rdma.{nic.netdev}.active_mtu",
                        f"{nic.netdev} has an active RDMA MTU of {nic.active_mtu} bytes, "
                        f"below the required {floor}",
                        expected=floor,
                        actual=nic.active_mtu,
                        source=nic.src("active_mtu"),
                    )


# ---- MTU004 -------------------------------------------------------------------------------------


def _has_class_mtu(state: DeviceState) -> bool:
    """Whether the platform's lossless classes carry an MTU of their own (its descriptor's
    `class_mtu`: NX-OS `policy-map type network-qos` classes, `mtu 9216`)."""
    platform = platforms.get(state.platform)
    return platform is not None and platform.class_mtu


class LosslessClassMtuSmaller(Rule[NoOptions]):
    """A lossless class has a smaller MTU than the ports that carry it.

    Platforms that give each no-drop class its own MTU (NX-OS `policy-map type network-qos`,
    `class type network-qos ... mtu N`) size PFC headroom from it and drop frames larger than
    it: a RoCE class left at 1500 behind 9216-byte ports drops every jumbo RoCE packet. The rule compares each lossless class's MTU with
    the MTU of the RDMA ports carrying it.

    The per-class MTU is `QueueConfig.mtu`. Where the platform has the notion (NX-OS) but the
    class sets none, the rule is listed in the report's coverage as not evaluated (never a
    silent pass); EOS, Junos, SONiC and Cumulus classes carry no MTU of their own, so the rule
    does not apply there and is no gap. A switch with no lossless priority
    on its RDMA ports (ECN-only, lossy RoCE) has no class to size and is not a gap; hosts are
    never judged (a per-class MTU is a switch-side notion).

    Options: none.

    Fails (NX-OS):
        policy-map type network-qos RoCE / class type network-qos c-8q-nq3 / pause pfc-cos 3
        / mtu 1500, on ports with mtu 9216.

    Passes: the no-drop class at mtu 9216.
    """

    code = "MTU004"
    name = "lossless-class-mtu-smaller"
    severity = "error"
    summary = "a lossless class has a smaller MTU than the ports that carry it"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for name in sorted(ctx.states):
            state = ctx.states[name]
            classes = _lossless_class_mtus(ctx, state)
            if not classes:
                # a gap only where the platform has per-class MTUs (NX-OS network-qos `mtu`):
                # elsewhere a class simply has none, and the rule does not apply
                if _has_class_mtu(state) and _has_lossless(ctx, state):
                    ctx.skip(self.code, name)
                continue
            for queue, (class_mtu, port, port_mtu) in sorted(classes.items()):
                if class_mtu < port_mtu:
                    yield self.finding(
                        name,
                        f"queue {queue}",
                        f"qos.queues.{queue}.mtu",
                        f"lossless queue {queue} has class MTU {class_mtu}, smaller than MTU "
                        f"{port_mtu} of {port} that carries it: larger frames are dropped",
                        expected=port_mtu,
                        actual=class_mtu,
                        source=ctx.qos(state, port).queues[queue].src("mtu"),  # type: ignore[index]
                    )


def _has_lossless(ctx: Context, state: DeviceState) -> bool:
    """Whether a switch has a lossless priority on some RDMA port: a per-class MTU is a
    switch-side notion, and an ECN-only (lossy RoCE) switch has no lossless class to size."""
    if state.kind != "switch":
        return False
    return any(lossless_priorities(ctx.qos(state, i.name)) for i in ctx.rdma_ports(state))


def _lossless_class_mtus(ctx: Context, state: DeviceState) -> dict[int, tuple[int, str, int]]:
    """Lossless queue -> (its class MTU, the largest-MTU RDMA port carrying it, that port's MTU)."""
    out: dict[int, tuple[int, str, int]] = {}
    for iface in ctx.rdma_ports(state):
        qos = ctx.qos(state, iface.name)
        for priority in lossless_priorities(qos):
            queue = priority_queue(qos, priority)
            conf = (qos.queues or {}).get(queue) if queue is not None else None
            if conf is None or conf.mtu is None or queue is None:
                continue
            port_mtu = iface.mtu or 0
            if queue not in out or port_mtu > out[queue][2]:
                out[queue] = (conf.mtu, iface.name, port_mtu)
    return out


# ---- MTU005 -------------------------------------------------------------------------------------


def _carries(iface: Interface, vlan: int) -> bool:
    """Whether a switched port carries `vlan` (a port-channel member carries it through its
    channel, which is the port judged)."""
    if iface.channel is not None or iface.vlans is None:
        return False
    return iface.vlans == "all" or vlan in iface.vlans


def _carrier(state: DeviceState, svi: Interface) -> Interface | None:
    """The smallest-MTU port that carries an SVI's VLAN or that a sub-interface rides on;
    None when no such port with a known MTU is in the state."""
    if svi.parent is not None:
        parent = state.interfaces.get(svi.parent)
        return parent if parent is not None and parent.mtu is not None else None
    vlan = svi.svi_vlan
    ports = [
        i
        for i in state.interfaces.values()
        if vlan is not None and i.mtu is not None and _carries(i, vlan)
    ]
    return min(ports, key=lambda i: (i.mtu or 0, i.name), default=None)


class SviMtuAboveCarrier(Rule[NoOptions]):
    """A VLAN interface (SVI) or routed sub-interface has a larger MTU than a port carrying it.

    An SVI sends packets up to its own MTU onto every trunk, access port or peer-link that
    carries its VLAN; a port with a smaller MTU drops the larger frames silently (RoCE sets
    don't-fragment), so a RoCE-over-VLAN or MLAG design loses every full-size packet on that one
    port while pings pass. The same holds for a sub-interface (`Ethernet1/1.100`) above its
    parent port. Compared: the SVI's MTU against the smallest MTU of the switched ports whose
    VLAN list (access VLAN, trunk allowed VLANs, SONiC `VLAN_MEMBER`) holds its VLAN (a
    port-channel stands for its members), or a sub-interface's against its parent's, both as
    the platform reports them (EOS: switched ports 9214, SVIs 1500 by default; NX-OS: 1500;
    SONiC: 9100; Cumulus: 9216; Junos: the IP MTU, media MTU less 14). EOS, NX-OS, SONiC,
    Cumulus (NVUE bridge domains, `vlanN` SVIs) and Junos record VLAN membership: a Junos SVI is
    the `irb` unit a VLAN names (`vlans ROCE vlan-id 10 l3-interface irb.10`, top-level or in
    an EVPN MAC-VRF routing instance), at its `family inet mtu`, carried by the ports whose
    `family ethernet-switching vlan members` hold the VLAN.

    Arista EOS "Ethernet Ports: MTU" (`l2 mtu`, `mtu`); Cisco Nexus 9000 "Configuring Layer 2
    Interfaces: MTU" (the SVI MTU must not exceed the layer-2 MTU of its ports); Juniper
    "Configuring Integrated Routing and Bridging Interfaces on Switches" (`l3-interface irb.N`).

    Options: none.

    Fails (EOS):
        interface Port-Channel10 / switchport mode trunk / switchport trunk allowed vlan 10
        / l2 mtu 1500, and interface Vlan10 / mtu 9000.

    Passes: the trunk at its default 9214, or the SVI at mtu 1500.
    """

    code = "MTU005"
    name = "svi-mtu-above-carrier"
    severity = "error"
    summary = "an SVI or sub-interface has a larger MTU than a port that carries it"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in switches(ctx):
            for iface in sorted(state.interfaces.values(), key=lambda i: i.name):
                if iface.mtu is None or (iface.svi_vlan is None and iface.parent is None):
                    continue
                carrier = _carrier(state, iface)
                if carrier is not None and carrier.mtu is not None and carrier.mtu < iface.mtu:
                    yield self._finding(state, iface, carrier)

    def _finding(self, state: DeviceState, iface: Interface, carrier: Interface) -> Finding:
        what = "its parent port" if iface.parent is not None else f"VLAN {iface.svi_vlan} on"
        return self.finding(
            state.name,
            f"interface {iface.name}",
            f"interfaces.{iface.name}.mtu",
            f"{iface.name} has MTU {iface.mtu} but {what} {carrier.name} has MTU "
            f"{carrier.mtu}: larger packets are dropped there",
            expected=carrier.mtu,
            actual=iface.mtu,
            source=iface.src("mtu"),
        )


# ---- MTU006 -------------------------------------------------------------------------------------


def _channels(state: DeviceState) -> dict[str, list[Interface]]:
    """Port-channel name -> its members with a known MTU, in name order."""
    out: dict[str, list[Interface]] = {}
    for iface in sorted(state.interfaces.values(), key=lambda i: i.name):
        if iface.channel is not None and iface.mtu is not None:
            out.setdefault(iface.channel, []).append(iface)
    return out


def _reference_mtu(state: DeviceState, channel: str, members: list[Interface]) -> int:
    """The port-channel's own MTU, else (no port-channel in the state) its members' most common
    MTU, the larger on a tie: the odd member out is the one reported."""
    own = state.interfaces.get(channel)
    if own is not None and own.mtu is not None:
        return own.mtu
    counts = Counter(m.mtu for m in members if m.mtu is not None)
    return max(counts, key=lambda mtu: (counts[mtu], mtu))


class PortChannelMemberMtu(Rule[NoOptions]):
    """A port-channel member's MTU differs from the port-channel's (or from the other members').

    A LAG hashes each flow onto one member: with one member at a smaller MTU, only the flows
    hashed onto it lose their large packets, an intermittent fault that follows the hash, not a
    port. Most platforms copy the port-channel's MTU to its members; a member whose own `mtu`
    or `l2 mtu` line (or operational MTU) differs is suspended or, worse, bundled. Compared:
    each member's MTU with the port-channel's, or with the members' most common MTU when the
    port-channel itself is not in the state. Membership: EOS and NX-OS `channel-group`,
    NX-OS `show interface` "Belongs to", SONiC `PORTCHANNEL_MEMBER`, Cumulus NVUE `bond member`
    (a member without its own MTU runs the bond's), Junos `802.3ad aeN` (a member always runs
    the bundle's MTU, so Junos never differs).

    Arista EOS "Port Channels and LACP" (members must share the port-channel's MTU); Cisco Nexus
    9000 "Configuring Port Channels: Compatibility Requirements" (MTU).

    Options: none.

    Fails (NX-OS):
        interface port-channel10 / mtu 9216, and interface Ethernet1/49 / channel-group 10
        / mtu 1500.

    Passes: the member without its own `mtu` line (it follows the port-channel's 9216).
    """

    code = "MTU006"
    name = "port-channel-member-mtu"
    severity = "error"
    summary = "a port-channel member's MTU differs from the port-channel's"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in switches(ctx):
            for channel, members in _channels(state).items():
                reference = _reference_mtu(state, channel, members)
                for member in members:
                    if member.mtu != reference:
                        yield self._finding(state, channel, member, reference)

    def _finding(self, state: DeviceState, channel: str, member: Interface, mtu: int) -> Finding:
        whose = "the port-channel's" if channel in state.interfaces else "the other members'"
        return self.finding(
            state.name,
            f"interface {member.name}",
            f"interfaces.{member.name}.mtu",
            f"{member.name} has MTU {member.mtu} but {channel}, which it is a member of, has "
            f"{mtu} ({whose}): flows hashed onto it lose their large packets",
            expected=mtu,
            actual=member.mtu,
            source=member.src("mtu"),
        )


RULES: list[type[Rule[Any]]] = [
    LinkMtuMismatch,
    HostMtuExceedsSwitch,
    RoceMtuTooSmall,
    LosslessClassMtuSmaller,
    SviMtuAboveCarrier,
    PortChannelMemberMtu,
]
