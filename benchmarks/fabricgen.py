"""Synthetic RoCE GPU fabrics: Arista EOS leaf/spine and ConnectX host outputs in their real formats.

`build_fabric(spec)` lays out pods of spines and leaves (every leaf cabled to every spine of its
pod with routed /31s) and dual-homed GPU hosts (NIC0 to the even leaf of a pair, NIC1 to the odd
one). Everything is a plain dataclass with NVIDIA-style RoCE defaults (DSCP 26 -> priority 3,
lossless with PFC watchdog and ECN 150 KB/1.5 MB; CNP DSCP 48 -> priority 6, strict), so a caller
seeds a fault by changing one field before rendering. The renderers are pure: dataclass in, text out.

Used by scripts/gen_roce_pod.py (the bundled example inventories/roce-pod) and by
benchmarks/check_scale.py (hundreds to thousands of switches).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

# ---- commands: exactly what the collectors run (and the snapshot stores) --------------------------

SHOW_RUN = "show running-config"
SHOW_INTERFACES = "show interfaces"
IBDEV2NETDEV = "ibdev2netdev"
DEVINFO = "ibv_devinfo -v"
IP_LINK = "ip -d link show"


def mlnx_qos_cmd(netdev: str) -> str:
    """Command printing a netdev's trust, DSCP map, PFC and ETS settings."""
    return f"mlnx_qos -i {netdev}"


def ecn_cmd(netdev: str) -> str:
    """Command dumping a netdev's DCQCN (ECN notification/reaction point) sysfs tree."""
    return f"grep -rH . /sys/class/net/{netdev}/ecn"


def roce_tos_cmd(hca: str, port: int = 1) -> str:
    """Command printing the default ToS of RDMA-CM connections on an HCA port."""
    return f"cma_roce_tos -d {hca} -p {port}"


# ---- the layout ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FabricSpec:
    """Shape of a synthetic fabric: pods of spines and leaves, and GPU hosts per leaf pair."""

    name: str = "roce-pod"
    pods: int = 1
    spines_per_pod: int = 2
    leaves_per_pod: int = 4
    hosts_per_leaf: int = 2
    """Host ports per leaf; each host's two NICs land on the two leaves of a pair."""
    ports_per_switch: int = 64
    model: str = "DCS-7060X5-64S"
    eos_version: str = "4.31.2F"

    @classmethod
    def for_switch_count(cls, switches: int, hosts_per_leaf: int = 8) -> FabricSpec:
        """About `switches` switches as pods of 4 spines and 16 leaves (20 switches per pod)."""
        pods = max(1, round(switches / 20))
        return cls(
            name=f"synthetic-{pods * 20}",
            pods=pods,
            spines_per_pod=4,
            leaves_per_pod=16,
            hosts_per_leaf=hosts_per_leaf,
        )

    @property
    def spines(self) -> int:
        """Number of spines."""
        return self.pods * self.spines_per_pod

    @property
    def leaves(self) -> int:
        """Number of leaves."""
        return self.pods * self.leaves_per_pod

    @property
    def hosts(self) -> int:
        """Number of GPU hosts (one per host port of a leaf pair)."""
        return self.leaves // 2 * self.hosts_per_leaf

    @property
    def uplink_base(self) -> int:
        """First front-panel port of a leaf used for uplinks (the upper half of the box)."""
        return self.ports_per_switch // 2 + 1


@dataclass
class Queue:
    """One egress tx-queue of the EOS qos profile."""

    strict: bool = False
    bandwidth_pct: int | None = None
    ecn_kbytes: tuple[int, int] | None = None
    """ECN (min, max) thresholds in kbytes."""
    ecn_probability: int = 100
    wred_drop_kbytes: tuple[int, int] | None = None
    """WRED *drop* (min, max) thresholds in kbytes (a fault on a lossless queue)."""


def roce_queues() -> dict[int, Queue]:
    """Queues of the RoCE profile: best effort 0/1, lossless RoCE 3 with ECN, strict CNP 6."""
    return {
        0: Queue(bandwidth_pct=25),
        1: Queue(bandwidth_pct=25),
        3: Queue(bandwidth_pct=50, ecn_kbytes=(150, 1500)),
        6: Queue(strict=True),
    }


@dataclass
class Port:
    """One routed front-panel port."""

    name: str
    description: str
    address: str | None = None
    """Interface address with prefix (the even end of a /31)."""
    mtu: int | None = 9214
    """L3 MTU; None leaves the EOS default (1500)."""
    profile: str | None = "ROCE"
    trust: str | None = None
    """Interface-level `qos trust` overriding the profile."""
    pfc_priorities: list[int] | None = None
    """Interface-level `priority-flow-control` lines (on, then each no-drop priority)."""
    pfc_watchdog: bool = False
    """Interface-level `priority-flow-control pause watchdog`."""
    shutdown: bool = False
    link_up: bool = True


@dataclass
class Switch:
    """An Arista EOS leaf or spine."""

    name: str
    role: str
    index: int
    model: str
    eos_version: str
    mgmt_address: str
    loopback: str
    asn: int
    profile: str = "ROCE"
    trust: str = "dscp"
    dscp_map: dict[int, int] = field(default_factory=lambda: {26: 3, 48: 6})
    queues: dict[int, Queue] = field(default_factory=roce_queues)
    pfc_priorities: list[int] = field(default_factory=lambda: [3])
    pfc_watchdog: bool = True
    watchdog_timeout_s: float = 0.2
    watchdog_recovery_s: float = 0.4
    ports: dict[str, Port] = field(default_factory=dict)
    bgp_neighbors: list[tuple[str, int, str]] = field(default_factory=list)
    """(peer address, peer AS, description)."""


def default_dscp2prio() -> dict[int, int]:
    """ConnectX default DSCP -> priority map (DSCP >> 3), which already puts 26 on 3 and 48 on 6."""
    return {dscp: dscp >> 3 for dscp in range(64)}


@dataclass
class Nic:
    """One ConnectX-7 port: netdev, HCA and its RoCE settings."""

    netdev: str
    hca: str
    slot: int
    pci_bus: int
    mac: int
    address: str
    """Host end of the /31 toward the leaf."""
    mtu: int = 9000
    link_up: bool = True
    firmware: str = "28.39.1002"
    part_id: int = 4129
    board_id: str = "MT_0000000838"
    trust: str = "dscp"
    dscp2prio: dict[int, int] = field(default_factory=default_dscp2prio)
    pfc: list[int] = field(default_factory=lambda: [3])
    tc_bw: dict[int, int] = field(
        default_factory=lambda: {0: 10, 1: 20, 2: 5, 3: 50, 4: 5, 5: 5, 7: 5}
    )
    """ETS bandwidth per TC; TCs not listed are strict."""
    ecn_np: set[int] = field(default_factory=lambda: {3})
    ecn_rp: set[int] = field(default_factory=lambda: {3})
    cnp_dscp: int = 48
    cnp_prio: int = 6
    roce_tos: int = 106

    @property
    def active_mtu(self) -> int:
        """RoCE active MTU: the largest IB MTU that fits the netdev MTU less RoCE headers."""
        fits = [m for m in (256, 512, 1024, 2048, 4096) if m <= self.mtu - 96]
        return fits[-1] if fits else 256


@dataclass
class Host:
    """A GPU server with two ConnectX-7 NICs."""

    name: str
    index: int
    mgmt_address: str
    nics: list[Nic] = field(default_factory=list)
    role: str = "gpu"


@dataclass
class Fabric:
    """A laid-out fabric: devices and the cabling plan."""

    spec: FabricSpec
    switches: dict[str, Switch]
    hosts: dict[str, Host]
    links: list[tuple[str, str]]
    """Cables as ('device:port', 'device:port')."""


def _names(prefix: str, count: int) -> list[str]:
    width = max(2, len(str(count)))
    return [f"{prefix}{i:0{width}d}" for i in range(1, count + 1)]


def _mgmt(spec: FabricSpec, index: int) -> str:
    """Management address: documentation range for small fabrics, benchmark range for big ones."""
    total = spec.spines + spec.leaves + spec.hosts
    if total <= 240:
        return str(ipaddress.ip_address("192.0.2.10") + index)
    return str(ipaddress.ip_address("198.18.0.10") + index)


def _p2p(base: str, index: int) -> tuple[str, str]:
    """The two addresses (even, odd) of the index-th /31 of `base`."""
    first = ipaddress.ip_address(base) + 2 * index
    return str(first), str(first + 1)


def _new_switch(spec: FabricSpec, name: str, role: str, index: int) -> Switch:
    asn = 65100 if role == "spine" else 65100 + index
    sw = Switch(
        name=name,
        role=role,
        index=index,
        model=spec.model,
        eos_version=spec.eos_version,
        mgmt_address=_mgmt(spec, index),
        loopback=str(ipaddress.ip_address("10.254.0.1") + index),
        asn=asn,
    )
    for n in range(1, spec.ports_per_switch + 1):
        port = f"Ethernet{n}/1"
        sw.ports[port] = Port(name=port, description="UNUSED", shutdown=True, link_up=False)
    return sw


def _cable(sw: Switch, port: str, peer: str, address: str) -> None:
    sw.ports[port] = Port(name=port, description=peer.replace(":", "_"), address=f"{address}/31")


def _new_host(spec: FabricSpec, name: str, index: int, host_links: list[str]) -> Host:
    host = Host(name=name, index=index, mgmt_address=_mgmt(spec, spec.spines + spec.leaves + index))
    for nic_no, bus in enumerate((0x1A, 0x40)):
        host.nics.append(
            Nic(
                netdev=f"ens{nic_no + 1}np0",
                hca=f"mlx5_{nic_no}",
                slot=nic_no + 1,
                pci_bus=bus,
                mac=0xB83FD2A40000 + (index << 4) + nic_no,
                address=host_links[nic_no],
            )
        )
    return host


def build_fabric(spec: FabricSpec) -> Fabric:
    """Lay out the fabric `spec` describes, every device at the RoCE defaults."""
    spines = _names("spine", spec.spines)
    leaves = _names("leaf", spec.leaves)
    hosts = _names("gpu", spec.hosts)
    switches = {n: _new_switch(spec, n, "spine", i) for i, n in enumerate(spines)}
    switches |= {n: _new_switch(spec, n, "leaf", spec.spines + i) for i, n in enumerate(leaves)}
    links: list[tuple[str, str]] = []
    for li, leaf in enumerate(leaves):
        pod, local = divmod(li, spec.leaves_per_pod)
        for sj in range(spec.spines_per_pod):
            spine = spines[pod * spec.spines_per_pod + sj]
            a, b = f"{leaf}:Ethernet{spec.uplink_base + sj}/1", f"{spine}:Ethernet{local + 1}/1"
            spine_ip, leaf_ip = _p2p("10.0.0.0", len(links))
            _cable(switches[leaf], a.split(":")[1], b, leaf_ip)
            _cable(switches[spine], b.split(":")[1], a, spine_ip)
            _peer(switches[leaf], spine_ip, switches[spine], b)
            _peer(switches[spine], leaf_ip, switches[leaf], a)
            links.append((a, b))
    host_objs = _attach_hosts(spec, switches, leaves, hosts, links)
    return Fabric(spec=spec, switches=switches, hosts=host_objs, links=links)


def _peer(sw: Switch, address: str, peer: Switch, peer_end: str) -> None:
    sw.bgp_neighbors.append((address, peer.asn, peer_end.replace(":", "_")))


def _attach_hosts(
    spec: FabricSpec,
    switches: dict[str, Switch],
    leaves: list[str],
    hosts: list[str],
    links: list[tuple[str, str]],
) -> dict[str, Host]:
    out: dict[str, Host] = {}
    for hi, name in enumerate(hosts):
        pair, slot = divmod(hi, spec.hosts_per_leaf)
        host_ends: list[str] = []
        for nic_no in range(2):
            leaf = leaves[2 * pair + nic_no]
            port = f"Ethernet{slot + 1}/1"
            leaf_ip, host_ip = _p2p("172.16.0.0", 2 * hi + nic_no)
            _cable(switches[leaf], port, f"{name}:ens{nic_no + 1}np0", leaf_ip)
            links.append((f"{name}:ens{nic_no + 1}np0", f"{leaf}:{port}"))
            host_ends.append(host_ip)
        out[name] = _new_host(spec, name, hi, host_ends)
    return out


# ---- Arista EOS: show running-config ------------------------------------------------------------


def eos_header(name: str, model: str, version: str) -> list[str]:
    """The first lines of an EOS `show running-config` (also used by benchmarks/vendorgen.py)."""
    return [
        "! Command: show running-config",
        f"! device: {name} ({model}, EOS-{version})",
        "!",
        f"! boot system flash:/EOS-{version}.swi",
        "!",
        "no aaa root",
        "!",
        "management api http-commands",
        "   no shutdown",
        "   !",
        "   vrf MGMT",
        "      no shutdown",
        "!",
        "service routing protocols model multi-agent",
        "!",
        f"hostname {name}",
        "ip name-server vrf MGMT 192.0.2.53",
        "!",
        "spanning-tree mode none",
        "!",
        "vrf instance MGMT",
        "!",
    ]


def _eos_queue(number: int, q: Queue) -> list[str]:
    lines = ["   !", f"   tx-queue {number}"]
    lines.append("      priority strict" if q.strict else "      no priority")
    if q.bandwidth_pct is not None:
        lines.append(f"      bandwidth percent {q.bandwidth_pct}")
    if q.ecn_kbytes is not None:
        lo, hi = q.ecn_kbytes
        lines.append(
            f"      random-detect ecn minimum-threshold {lo} kbytes maximum-threshold {hi} kbytes"
            f" max-mark-probability {q.ecn_probability}"
        )
    if q.wred_drop_kbytes is not None:
        lo, hi = q.wred_drop_kbytes
        lines.append(
            f"      random-detect drop minimum-threshold {lo} kbytes maximum-threshold {hi} kbytes"
            " drop-probability 100"
        )
    return lines


def _eos_profile(sw: Switch) -> list[str]:
    lines = [f"qos profile {sw.profile}", f"   qos trust {sw.trust}"]
    for number in sorted(sw.queues):
        lines += _eos_queue(number, sw.queues[number])
    lines += ["   !", "   priority-flow-control on"]
    lines += [f"   priority-flow-control priority {p} no-drop" for p in sw.pfc_priorities]
    if sw.pfc_watchdog:
        lines.append("   priority-flow-control pause watchdog")
    return [*lines, "!"]


def _eos_port(port: Port) -> list[str]:
    lines = [f"interface {port.name}", f"   description {port.description}"]
    if port.shutdown:
        lines.append("   shutdown")
    if port.mtu is not None:
        lines.append(f"   mtu {port.mtu}")
    lines.append("   no switchport")
    if port.address:
        lines.append(f"   ip address {port.address}")
    if port.profile:
        lines.append(f"   service-profile {port.profile}")
    if port.trust:
        lines.append(f"   qos trust {port.trust}")
    if port.pfc_priorities is not None:
        lines.append("   priority-flow-control on")
        lines += [f"   priority-flow-control priority {p} no-drop" for p in port.pfc_priorities]
    if port.pfc_watchdog:
        lines.append("   priority-flow-control pause watchdog")
    return [*lines, "!"]


def _eos_tail(sw: Switch) -> list[str]:
    lines = [
        "interface Loopback0",
        "   description ROUTER_ID",
        f"   ip address {sw.loopback}/32",
        "!",
        "interface Management1",
        "   description OOB_MANAGEMENT",
        "   vrf MGMT",
        f"   ip address {sw.mgmt_address}/24",
        "!",
        "ip routing",
        "no ip routing vrf MGMT",
        "!",
    ]
    lines += [f"qos map dscp {d} to traffic-class {tc}" for d, tc in sorted(sw.dscp_map.items())]
    lines += [
        "!",
        f"priority-flow-control pause watchdog default timeout {sw.watchdog_timeout_s:g}",
        f"priority-flow-control pause watchdog default recovery-time {sw.watchdog_recovery_s:g}",
        "!",
        "ip route vrf MGMT 0.0.0.0/0 192.0.2.1",
        "!",
    ]
    return lines + _eos_bgp(sw) + ["end"]


def _eos_bgp(sw: Switch) -> list[str]:
    lines = [
        f"router bgp {sw.asn}",
        f"   router-id {sw.loopback}",
        "   maximum-paths 64",
        "   neighbor FABRIC peer group",
        "   neighbor FABRIC send-community",
    ]
    for address, asn, description in sw.bgp_neighbors:
        lines += [
            f"   neighbor {address} peer group FABRIC",
            f"   neighbor {address} remote-as {asn}",
            f"   neighbor {address} description {description}",
        ]
    return [*lines, "   redistribute connected", "!"]


def render_running_config(sw: Switch) -> str:
    """`show running-config` of an EOS RoCE switch."""
    lines = eos_header(sw.name, sw.model, sw.eos_version) + _eos_profile(sw)
    for port in sw.ports.values():
        lines += _eos_port(port)
    return "\n".join(lines + _eos_tail(sw)) + "\n"


# ---- Arista EOS: show interfaces -----------------------------------------------------------------


def _eos_mac(value: int) -> str:
    return f"{value >> 32 & 0xFFFF:04x}.{value >> 16 & 0xFFFF:04x}.{value & 0xFFFF:04x}"


_UPTIME = "41 days, 3 hours, 12 minutes, 5 seconds"


def _eos_counters(seed: int, up: bool) -> list[str]:
    pkts_in = (seed * 7919 % 900_000 + 100_000) * 1000 if up else 0
    pkts_out = (seed * 104729 % 900_000 + 100_000) * 1000 if up else 0
    return [
        "  Loopback Mode : None",
        "  2 link status changes since last clear",
        '  Last clearing of "show interface" counters never',
        "  5 minutes input rate 0 bps (0.0% with framing overhead), 0 packets/sec",
        "  5 minutes output rate 0 bps (0.0% with framing overhead), 0 packets/sec",
        f"     {pkts_in} packets input, {pkts_in * 4200} bytes",
        "     Received 0 broadcasts, 212 multicast",
        "     0 runts, 0 giants",
        "     0 input errors, 0 CRC, 0 alignment, 0 symbol, 0 input discards",
        f"     {seed % 13 * 17} PAUSE input",
        f"     {pkts_out} packets output, {pkts_out * 4200} bytes",
        "     Sent 0 broadcasts, 214 multicast",
        "     0 output errors, 0 collisions",
        "     0 late collision, 0 deferred, 0 output discards",
        f"     {seed % 7 * 23} PAUSE output",
    ]


def _eos_port_status(sw: Switch, number: int, port: Port) -> list[str]:
    if port.shutdown:
        head = f"{port.name} is administratively down, line protocol is down (disabled)"
    elif port.link_up:
        head = f"{port.name} is up, line protocol is up (connected)"
    else:
        head = f"{port.name} is down, line protocol is down (notconnect)"
    lines = [
        head,
        f"  Hardware is Ethernet, address is {_eos_mac(0x985D82000000 + (sw.index << 8))}",
        f"  Description: {port.description}",
    ]
    if port.address:
        lines += [f"  Internet address is {port.address}", "  Broadcast address is 255.255.255.255"]
    else:
        lines.append("  No Internet protocol address assigned")
    mtu = f"{port.mtu} bytes" if port.mtu is not None else "1500 bytes (default)"
    up = port.link_up and not port.shutdown
    lines += [
        f"  IP MTU {mtu}, BW 400000000 kbit",
        "  Full-duplex, 400Gb/s, auto negotiation: off, uni-link: disabled",
        f"  {'Up' if up else 'Down'} {_UPTIME}",
    ]
    return lines + _eos_counters(sw.index * 64 + number, up)


def _eos_logical(sw: Switch) -> list[str]:
    mgmt_mac = _eos_mac(0x985D82000000 + (sw.index << 8) + 0xFF)
    return [
        "Loopback0 is up, line protocol is up (connected)",
        "  Hardware is Loopback",
        "  Description: ROUTER_ID",
        f"  Internet address is {sw.loopback}/32",
        "  Broadcast address is 255.255.255.255",
        "  IP MTU 65535 bytes (default)",
        f"  Up {_UPTIME}",
        "Management1 is up, line protocol is up (connected)",
        f"  Hardware is Ethernet, address is {mgmt_mac} (bia {mgmt_mac})",
        "  Description: OOB_MANAGEMENT",
        f"  Internet address is {sw.mgmt_address}/24",
        "  Broadcast address is 255.255.255.255",
        "  IP MTU 1500 bytes (default), BW 1000000 kbit",
        "  Full-duplex, 1Gb/s, auto negotiation: on, uni-link: n/a",
        f"  Up {_UPTIME}",
        "  Loopback Mode : None",
        "  2 link status changes since last clear",
    ]


def render_show_interfaces(sw: Switch) -> str:
    """`show interfaces` of an EOS switch (routed 400G ports, Loopback0, Management1)."""
    lines: list[str] = []
    for number, port in enumerate(sw.ports.values(), start=1):
        lines += _eos_port_status(sw, number, port)
    return "\n".join(lines + _eos_logical(sw)) + "\n"


def switch_outputs(sw: Switch) -> dict[str, str]:
    """Every command output of a switch, by command."""
    return {SHOW_RUN: render_running_config(sw), SHOW_INTERFACES: render_show_interfaces(sw)}


# ---- ConnectX hosts -------------------------------------------------------------------------------


def render_ibdev2netdev(host: Host) -> str:
    """`ibdev2netdev`: HCA port -> netdev and carrier."""
    return "".join(
        f"{n.hca} port 1 ==> {n.netdev} ({'Up' if n.link_up else 'Down'})\n" for n in host.nics
    )


def _guid(mac: int) -> str:
    """Node GUID of a ConnectX whose first port MAC is `mac` (OUI, 03:00, NIC-specific bytes)."""
    raw = (mac >> 24 << 40) | (0x0300 << 24) | (mac & 0xFFFFFF)
    return ":".join(f"{raw >> s & 0xFFFF:04x}" for s in (48, 32, 16, 0))


def _gids(nic: Nic) -> list[str]:
    eui = (nic.mac >> 24 << 40) | (0xFFFE << 24) | (nic.mac & 0xFFFFFF)
    eui ^= 0x02 << 56  # flip the universal/local bit
    link_local = ipaddress.IPv6Address((0xFE80 << 112) | eui)
    mapped = ipaddress.IPv6Address(f"::ffff:{nic.address}")
    return [
        f"GID[  0]:\t\t{link_local.exploded}, RoCE v1",
        f"GID[  1]:\t\t{link_local.compressed}, RoCE v2",
        f"GID[  2]:\t\t{mapped.exploded}, RoCE v1",
        f"GID[  3]:\t\t::ffff:{nic.address}, RoCE v2",
    ]


_DEVICE_CAPS = """\
\tmax_mr_size:\t\t\t0xffffffffffffffff
\tpage_size_cap:\t\t\t0xfffffffffffff000
\tmax_qp:\t\t\t\t131072
\tmax_qp_wr:\t\t\t32768
\tdevice_cap_flags:\t\t0x21361c36
\t\t\t\t\tBAD_PKEY_CNTR
\t\t\t\t\tBAD_QKEY_CNTR
\t\t\t\t\tAUTO_PATH_MIG
\t\t\t\t\tCHANGE_PHY_PORT
\t\t\t\t\tPORT_ACTIVE_EVENT
\t\t\t\t\tSYS_IMAGE_GUID
\t\t\t\t\tRC_RNR_NAK_GEN
\t\t\t\t\tMEM_WINDOW
\t\t\t\t\tUD_IP_CSUM
\t\t\t\t\tXRC
\t\t\t\t\tMEM_MGT_EXTENSIONS
\t\t\t\t\tMEM_WINDOW_TYPE_2B
\t\t\t\t\tMANAGED_FLOW_STEERING
\tmax_sge:\t\t\t30
\tmax_sge_rd:\t\t\t30
\tmax_cq:\t\t\t\t16777216
\tmax_cqe:\t\t\t4194303
\tmax_mr:\t\t\t\t16777216
\tmax_pd:\t\t\t\t8388608
\tmax_qp_rd_atom:\t\t\t16
\tmax_ee_rd_atom:\t\t\t0
\tmax_res_rd_atom:\t\t2097152
\tmax_qp_init_rd_atom:\t\t16
\tmax_ee_init_rd_atom:\t\t0
\tatomic_cap:\t\t\tATOMIC_HCA (1)
\tmax_ee:\t\t\t\t0
\tmax_rdd:\t\t\t0
\tmax_mw:\t\t\t\t16777216
\tmax_raw_ipv6_qp:\t\t0
\tmax_raw_ethy_qp:\t\t0
\tmax_mcast_grp:\t\t\t2097152
\tmax_mcast_qp_attach:\t\t240
\tmax_total_mcast_qp_attach:\t503316480
\tmax_ah:\t\t\t\t2147483647
\tmax_fmr:\t\t\t0
\tmax_srq:\t\t\t8388608
\tmax_srq_wr:\t\t\t32767
\tmax_srq_sge:\t\t\t31
\tmax_pkeys:\t\t\t128
\tlocal_ca_ack_delay:\t\t16
\tgeneral_odp_caps:
\t\t\t\t\tODP_SUPPORT
\t\t\t\t\tODP_SUPPORT_IMPLICIT
\trc_odp_caps:
\t\t\t\t\tSUPPORT_SEND
\t\t\t\t\tSUPPORT_RECV
\t\t\t\t\tSUPPORT_WRITE
\t\t\t\t\tSUPPORT_READ
\t\t\t\t\tSUPPORT_SRQ
\tuc_odp_caps:
\t\t\t\t\tNO SUPPORT
\tud_odp_caps:
\t\t\t\t\tSUPPORT_SEND
\txrc_odp_caps:
\t\t\t\t\tSUPPORT_SEND
\t\t\t\t\tSUPPORT_WRITE
\t\t\t\t\tSUPPORT_READ
\t\t\t\t\tSUPPORT_SRQ
\tcompletion timestamp_mask:\t\t\t0x7fffffffffffffff
\thca_core_clock:\t\t\t156250kHZ
\traw packet caps:
\t\t\t\t\tC-VLAN stripping offload
\t\t\t\t\tScatter FCS offload
\t\t\t\t\tIP csum offload
\t\t\t\t\tDelay drop
\tdevice_cap_flags_ex:\t\t0x30000055121C36
\t\t\t\t\tRAW_SCATTER_FCS
\t\t\t\t\tPCI_WRITE_END_PADDING
\t\t\t\t\tUnknown flags: 0x3000004100000
\ttso_caps:
\tmax_tso:\t\t\t262144
\tsupported_qp:
\t\t\t\t\tSUPPORT_RAW_PACKET
\trss_caps:
\t\tmax_rwq_indirection_tables:\t\t\t1048576
\t\tmax_rwq_indirection_table_size:\t\t\t2048
\t\trx_hash_function:\t\t\t\t0x1
\t\trx_hash_fields_mask:\t\t\t\t0x800000FF
\t\tsupported_qp:
\t\t\t\t\tSUPPORT_RAW_PACKET
\tmax_wq_type_rq:\t\t\t8388608
\tpacket_pacing_caps:
\t\tqp_rate_limit_min:\t1kbps
\t\tqp_rate_limit_max:\t400000000kbps
\t\tsupported_qp:
\t\t\t\t\tSUPPORT_RAW_PACKET
\ttag matching not supported

\tcq moderation caps:
\t\tmax_cq_count:\t65535
\t\tmax_cq_period:\t4095 us

\tmaximum available device memory:\t131072Bytes

\tnum_comp_vectors:\t\t63
"""

_IB_MTU_CODE = {256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5}


def _devinfo_port(nic: Nic) -> str:
    if nic.link_up:
        state, phys, width, speed = "PORT_ACTIVE (4)", "LINK_UP (5)", "4X (2)", "100.0 Gbps (128)"
    else:
        # what mlx5 reports for an Ethernet port without link: placeholder 4X x 10G (rate 40)
        state, phys, width, speed = "PORT_DOWN (1)", "DISABLED (3)", "4X (2)", "10.0 Gbps (8)"
    mtu = nic.active_mtu
    lines = [
        "\t\tport:\t1",
        f"\t\t\tstate:\t\t\t{state}",
        "\t\t\tmax_mtu:\t\t4096 (5)",
        f"\t\t\tactive_mtu:\t\t{mtu} ({_IB_MTU_CODE[mtu]})",
        "\t\t\tsm_lid:\t\t\t0",
        "\t\t\tport_lid:\t\t0",
        "\t\t\tport_lmc:\t\t0x00",
        "\t\t\tlink_layer:\t\tEthernet",
        "\t\t\tmax_msg_sz:\t\t0x40000000",
        "\t\t\tport_cap_flags:\t\t0x04010000",
        "\t\t\tport_cap_flags2:\t0x0000",
        "\t\t\tmax_vl_num:\t\tinvalid value (0)",
        "\t\t\tbad_pkey_cntr:\t\t0x0",
        "\t\t\tqkey_viol_cntr:\t\t0x0",
        "\t\t\tsm_sl:\t\t\t0",
        "\t\t\tpkey_tbl_len:\t\t1",
        "\t\t\tgid_tbl_len:\t\t255",
        "\t\t\tsubnet_timeout:\t\t0",
        "\t\t\tinit_type_reply:\t0",
        f"\t\t\tactive_width:\t\t{width}",
        f"\t\t\tactive_speed:\t\t{speed}",
        f"\t\t\tphys_state:\t\t{phys}",
    ]
    lines += [f"\t\t\t{gid}" for gid in _gids(nic)]
    return "\n".join(lines) + "\n\n"


def render_devinfo(host: Host) -> str:
    """`ibv_devinfo -v` of all HCAs (rdma-core devinfo format, RoCE ports)."""
    out: list[str] = []
    for nic in host.nics:
        guid = _guid(nic.mac)
        out.append(
            f"hca_id:\t{nic.hca}\n"
            "\ttransport:\t\t\tInfiniBand (0)\n"
            f"\tfw_ver:\t\t\t\t{nic.firmware}\n"
            f"\tnode_guid:\t\t\t{guid}\n"
            f"\tsys_image_guid:\t\t\t{guid}\n"
            "\tvendor_id:\t\t\t0x02c9\n"
            f"\tvendor_part_id:\t\t\t{nic.part_id}\n"
            "\thw_ver:\t\t\t\t0x0\n"
            f"\tboard_id:\t\t\t{nic.board_id}\n"
            "\tphys_port_cnt:\t\t\t1\n" + _DEVICE_CAPS + _devinfo_port(nic)
        )
    return "".join(out)


def _mac(value: int) -> str:
    return ":".join(f"{value >> s & 0xFF:02x}" for s in range(40, -8, -8))


_IP_DETAILS = (
    "addrgenmode eui64 numtxqueues {txq} numrxqueues {rxq} gso_max_size 65536 gso_max_segs 65535"
    " tso_max_size {tso} tso_max_segs 65535 gro_max_size 65536 gso_ipv4_max_size 65536"
    " gro_ipv4_max_size 65536"
)


def render_ip_link(host: Host) -> str:
    """`ip -d link show` (iproute2 6.x): loopback, the management port, the RoCE ports."""
    mgmt_mac = 0x3CECEF5A0000 + (host.index << 4)
    lines = [
        "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT"
        " group default qlen 1000",
        "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00 promiscuity 0  allmulti 0"
        " minmtu 0 maxmtu 0 " + _IP_DETAILS.format(txq=1, rxq=1, tso=524280) + " ",
        "2: eno1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP mode DEFAULT"
        " group default qlen 1000",
        f"    link/ether {_mac(mgmt_mac)} brd ff:ff:ff:ff:ff:ff promiscuity 0  allmulti 0"
        " minmtu 68 maxmtu 9216 "
        + _IP_DETAILS.format(txq=64, rxq=64, tso=65536)
        + " parentbus pci parentdev 0000:c1:00.0 ",
        "    altname enp193s0f0",
    ]
    for number, nic in enumerate(host.nics, start=3):
        flags = (
            "BROADCAST,MULTICAST,UP,LOWER_UP"
            if nic.link_up
            else "NO-CARRIER,BROADCAST,MULTICAST,UP"
        )
        lines += [
            f"{number}: {nic.netdev}: <{flags}> mtu {nic.mtu} qdisc mq state"
            f" {'UP' if nic.link_up else 'DOWN'} mode DEFAULT group default qlen 1000",
            f"    link/ether {_mac(nic.mac)} brd ff:ff:ff:ff:ff:ff promiscuity 0  allmulti 0"
            " minmtu 68 maxmtu 9978 "
            + _IP_DETAILS.format(txq=760, rxq=95, tso=524280)
            + f" parentbus pci parentdev 0000:{nic.pci_bus:02x}:00.0 ",
            f"    altname enp{nic.pci_bus}s0np0",
        ]
    return "\n".join(lines) + "\n"


def _dscp2prio_lines(nic: Nic) -> list[str]:
    """The dscp2prio block as mlnx_qos prints it: descending DSCPs, 8 per line per priority."""
    by_prio: dict[int, list[int]] = {}
    for dscp in sorted(nic.dscp2prio, reverse=True):
        by_prio.setdefault(nic.dscp2prio[dscp], []).append(dscp)
    lines = []
    for prio in range(8):
        dscps = by_prio.get(prio, [])
        for start in range(0, len(dscps), 8):
            chunk = "".join(f"{d:02d}," for d in dscps[start : start + 8])
            lines.append(f"\tprio:{prio} dscp:{chunk}")
    return lines


_PRIO_TO_TC = {0: 1, 1: 0, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7}


def render_mlnx_qos(nic: Nic) -> str:
    """`mlnx_qos -i IF` (mlnx-tools format: trust, dscp2prio, buffers, PFC, ETS per TC)."""
    lines = ["DCBX mode: OS controlled", f"Priority trust state: {nic.trust}"]
    if nic.trust == "dscp":
        lines += ["dscp2prio mapping:", *_dscp2prio_lines(nic)]
    lossless = 1 if nic.pfc else 0
    buffers = [str(1 if p in nic.pfc else 0) for p in range(8)]
    lines += [
        "default priority:",
        f"Receive buffer size (bytes): 262016,{262016 * lossless},0,0,0,0,0,0,total_size=4194304",
        "Cable len: 7",
        "PFC configuration:",
        "\tpriority    0   1   2   3   4   5   6   7",
        "\tenabled     " + "".join(f"{int(p in nic.pfc)}   " for p in range(8)),
        "\tbuffer      " + "".join(f"{b}   " for b in buffers),
    ]
    for tc in range(8):
        tsa = f"ets, bw: {nic.tc_bw[tc]}%" if tc in nic.tc_bw else "strict"
        lines.append(f"tc: {tc} ratelimit: unlimited, tsa: {tsa}")
        lines += [f"\t priority:  {p}" for p, t in _PRIO_TO_TC.items() if t == tc]
    return "\n".join(lines) + "\n"


_RP_PARAMS = (
    ("clamp_tgt_rate", 0),
    ("clamp_tgt_rate_after_time_inc", 1),
    ("dce_tcp_g", 1019),
    ("dce_tcp_rtt", 1),
    ("initial_alpha_value", 1023),
    ("rate_reduce_monitor_period", 4),
    ("rate_to_set_on_first_cnp", 0),
    ("rpg_ai_rate", 5),
    ("rpg_byte_reset", 32767),
    ("rpg_gd", 11),
    ("rpg_hai_rate", 50),
    ("rpg_max_rate", 0),
    ("rpg_min_dec_fac", 50),
    ("rpg_min_rate", 1),
    ("rpg_threshold", 1),
    ("rpg_time_reset", 300),
)


def render_ecn(nic: Nic) -> str:
    """`grep -rH . /sys/class/net/IF/ecn`: DCQCN notification/reaction point per priority."""
    base = f"/sys/class/net/{nic.netdev}/ecn"
    lines = [f"{base}/roce_np/enable/{p}:{int(p in nic.ecn_np)}" for p in range(8)]
    lines += [
        f"{base}/roce_np/min_time_between_cnps:4",
        f"{base}/roce_np/cnp_dscp:{nic.cnp_dscp}",
        f"{base}/roce_np/cnp_802p_prio:{nic.cnp_prio}",
    ]
    lines += [f"{base}/roce_rp/enable/{p}:{int(p in nic.ecn_rp)}" for p in range(8)]
    lines += [f"{base}/roce_rp/{name}:{value}" for name, value in _RP_PARAMS]
    return "\n".join(lines) + "\n"


def host_outputs(host: Host) -> dict[str, str]:
    """Every command output of a host, by command (the fixed mlnx-host command set)."""
    out = {
        IBDEV2NETDEV: render_ibdev2netdev(host),
        DEVINFO: render_devinfo(host),
        IP_LINK: render_ip_link(host),
    }
    for nic in host.nics:
        out[mlnx_qos_cmd(nic.netdev)] = render_mlnx_qos(nic)
        out[ecn_cmd(nic.netdev)] = render_ecn(nic)
    for nic in host.nics:
        out[roce_tos_cmd(nic.hca)] = f"{nic.roce_tos}\n"
    return out


# ---- the whole fabric -----------------------------------------------------------------------------


def snapshot_devices(fabric: Fabric) -> dict[str, tuple[str, dict[str, str]]]:
    """{device: (platform, {command: output})}, ready for fabriclint.snapshot.write_snapshot."""
    devices: dict[str, tuple[str, dict[str, str]]] = {
        name: ("eos", switch_outputs(sw)) for name, sw in fabric.switches.items()
    }
    devices |= {name: ("mlnx-host", host_outputs(h)) for name, h in fabric.hosts.items()}
    return devices


def render_inventory(fabric: Fabric) -> str:
    """inventory.yaml for the fabric (management addresses only; credentials by env-var name)."""
    lines = [
        "# yaml-language-server: $schema=../../schemas/inventory.json",
        f"name: {fabric.spec.name}",
        "devices:",
    ]
    for sw in fabric.switches.values():
        lines += _inventory_device(sw.name, "eos", sw.role, sw.mgmt_address)
    for host in fabric.hosts.values():
        lines += _inventory_device(host.name, "mlnx-host", host.role, host.mgmt_address)
    lines.append("links:")
    for a, b in fabric.links:
        lines += [f"  - a: {a}", f"    b: {b}"]
    return "\n".join(lines) + "\n"


def _inventory_device(name: str, platform: str, role: str, address: str) -> list[str]:
    return [
        f"  {name}:",
        f"    platform: {platform}",
        f"    role: {role}",
        f"    host: {address}",
        "    credentials: {username_env: FABRICLINT_USER, password_env: FABRICLINT_PASSWORD}",
    ]
