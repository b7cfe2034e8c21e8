"""RoCE switch configurations of five vendors, rendered in the formats their collectors store.

One dataclass per platform holds a routed RoCE switch at NVIDIA-style defaults (RoCE DSCP 26 on
priority 3, lossless with a PFC watchdog and ECN; CNP DSCP 48 on priority 6 in a strict queue);
each field that a seeded fault changes says which line it renders. The renderers are pure:
dataclass in, the text of one command out. Arista EOS reuses `benchmarks.fabricgen` (its `Switch`
and `show interfaces`), as do the ConnectX hosts.

| platform | outputs |
|---|---|
| junos (QFX, Junos OS Evolved) | `show configuration` (curly-brace form) |
| eos | `show running-config`, `show interfaces` |
| nxos (Nexus 9000) | `show running-config`, `show interface` |
| sonic (Spectrum) | `config_db.json` (as `show runningconfiguration all` prints it) |
| cumulus (NVUE) | `nv config show -o yaml`, `nv show qos roce -o json` |

Used by scripts/gen_multivendor_pod.py (the example inventories/multivendor-pod).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from benchmarks.fabricgen import (
    SHOW_INTERFACES,
    SHOW_RUN,
    Switch,
    eos_header,
    render_show_interfaces,
)

SHOW_CONFIGURATION = "show configuration"
SHOW_INTERFACE = "show interface"
CONFIG_DB = "config_db.json"
NV_CONFIG = "nv config show -o yaml"
NV_SHOW_ROCE = "nv show qos roce -o json"

IP_MTU = 9170
"""The switch MTU of the pod, an IP MTU every platform writes as is (Junos `family inet mtu`)."""


@dataclass
class Cable:
    """A routed front-panel port in the cabling plan."""

    port: str
    peer: str
    """The far end, 'device:port'."""
    address: str
    """This end's address with prefix (a /31)."""
    mtu: int | None = IP_MTU
    """IP MTU as written on the port; None leaves the line out (the platform default applies)."""


@dataclass
class Neighbor:
    """An eBGP neighbor across one cable."""

    address: str
    asn: int
    name: str


@dataclass
class Node:
    """What every switch has: identity, management, routing, cabled ports."""

    name: str
    role: str
    mgmt_address: str
    loopback: str
    asn: int
    cables: dict[str, Cable] = field(default_factory=dict)
    neighbors: list[Neighbor] = field(default_factory=list)


def _mac(value: int, dotted: bool) -> str:
    if dotted:
        return f"{value >> 32 & 0xFFFF:04x}.{value >> 16 & 0xFFFF:04x}.{value & 0xFFFF:04x}"
    return ":".join(f"{value >> s & 0xFF:02x}" for s in range(40, -8, -8))


# ---- Juniper Junos (QFX5240, Junos OS Evolved): show configuration ------------------------------


@dataclass
class JunosSwitch(Node):
    """A QFX spine. Classifier DSCP 26 -> forwarding class `roce` (queue 3, no-loss, pfc-priority
    3), DSCP 48 -> `cnp` (queue 6, strict-high); one CNP profile and scheduler map on `et-*`."""

    version: str = "23.4R2-S3.9-EVO"
    roce_pfc: bool = True
    """`pfc;` under the CNP's `input dscp code-point 011010` (DSCP-based PFC for RoCE)."""
    pfc_watchdog: bool = True
    """The `pfc-watchdog` block of the CNP."""
    roce_ecn: bool = True
    """`explicit-congestion-notification;` in scheduler s-roce (without it the drop profile drops)."""


def _junos_block(name: str, body: list[str], indent: int) -> list[str]:
    pad = " " * indent
    return [f"{pad}{name} {{", *body, f"{pad}}}"]


def _junos_interfaces(sw: JunosSwitch) -> list[str]:
    lines = ["interfaces {"]
    for cable in sw.cables.values():
        inet = [f"                mtu {cable.mtu};"] if cable.mtu is not None else []
        inet.append(f"                address {cable.address};")
        lines += [
            f"    {cable.port} {{",
            f"        description {cable.peer};",
            "        mtu 9216;",
            "        unit 0 {",
            *_junos_block("family inet", inet, 12),
            "        }",
            "    }",
        ]
    lines += _junos_block("lo0", _junos_unit(f"{sw.loopback}/32"), 4)
    lines += _junos_block("re0:mgmt-0", _junos_unit(f"{sw.mgmt_address}/24"), 4)
    return [*lines, "}"]


def _junos_unit(address: str) -> list[str]:
    inet = _junos_block("family inet", [f"                address {address};"], 12)
    return _junos_block("unit 0", inet, 8)


def _junos_cnp(sw: JunosSwitch) -> list[str]:
    pfc = ["                        pfc;"]
    point = _junos_block("code-point 011010", pfc, 20) if sw.roce_pfc else []
    lines = [
        "    congestion-notification-profile {",
        "        roce-cnp {",
        "            input {",
        "                dscp {",
        *(point or ["                    code-point 011010;"]),
        "                }",
        "            }",
        "            output {",
        "                ieee-802.1 {",
        "                    code-point 011 {",
        "                        flow-control-queue 3;",
        "                    }",
        "                }",
        "            }",
    ]
    if sw.pfc_watchdog:
        lines += [
            "            pfc-watchdog {",
            "                poll-interval 100;",
            "                detection 2;",
            "                recovery 400;",
            "                watchdog-action drop;",
            "            }",
        ]
    return [*lines, "        }", "    }"]


def _junos_schedulers(sw: JunosSwitch) -> list[str]:
    ecn = ["            explicit-congestion-notification;"] if sw.roce_ecn else []
    return [
        "    scheduler-maps {",
        "        roce-map {",
        "            forwarding-class best-effort scheduler s-be;",
        "            forwarding-class roce scheduler s-roce;",
        "            forwarding-class cnp scheduler s-cnp;",
        "            forwarding-class network-control scheduler s-nc;",
        "        }",
        "    }",
        "    schedulers {",
        "        s-be {",
        "            transmit-rate percent 40;",
        "        }",
        "        s-roce {",
        "            transmit-rate percent 50;",
        "            drop-profile-map loss-priority any protocol any drop-profile dp-roce;",
        *ecn,
        "        }",
        "        s-cnp {",
        "            transmit-rate percent 5;",
        "            priority strict-high;",
        "        }",
        "        s-nc {",
        "            transmit-rate percent 5;",
        "        }",
        "    }",
    ]


_JUNOS_COS_HEAD = """\
class-of-service {
    classifiers {
        dscp roce-dscp {
            forwarding-class best-effort {
                loss-priority low code-points 000000;
            }
            forwarding-class roce {
                loss-priority low code-points 011010;
            }
            forwarding-class cnp {
                loss-priority low code-points 110000;
            }
            forwarding-class network-control {
                loss-priority low code-points 111000;
            }
        }
    }
    drop-profiles {
        dp-roce {
            interpolate {
                fill-level [ 55 90 ];
                drop-probability [ 0 100 ];
            }
        }
    }
    forwarding-classes {
        class best-effort queue-num 0;
        class roce queue-num 3 no-loss pfc-priority 3;
        class cnp queue-num 6;
        class network-control queue-num 7;
    }"""

_JUNOS_COS_INTERFACES = """\
    interfaces {
        et-* {
            congestion-notification-profile roce-cnp;
            scheduler-map roce-map;
            unit * {
                classifiers {
                    dscp roce-dscp;
                }
            }
        }
    }"""


def _junos_protocols(sw: JunosSwitch) -> list[str]:
    lines = [
        "routing-options {",
        f"    router-id {sw.loopback};",
        f"    autonomous-system {sw.asn};",
        "}",
        "protocols {",
        "    bgp {",
        "        group LEAVES {",
        "            type external;",
        "            multipath {",
        "                multiple-as;",
        "            }",
    ]
    for peer in sw.neighbors:
        lines += [
            f"            neighbor {peer.address} {{",
            f"                description {peer.name};",
            f"                peer-as {peer.asn};",
            "            }",
        ]
    return [*lines, "        }", "    }", "    lldp {", "        interface all;", "    }", "}"]


def render_junos(sw: JunosSwitch) -> str:
    """`show configuration` of a QFX RoCE spine (curly-brace form)."""
    lines = [
        "## Last commit: 2026-11-28 22:41:07 UTC by netops",
        f"version {sw.version};",
        "system {",
        f"    host-name {sw.name};",
        "    services {",
        "        ssh;",
        "        netconf {",
        "            ssh;",
        "        }",
        "    }",
        "    name-server {",
        "        192.0.2.53;",
        "    }",
        "}",
        *_junos_interfaces(sw),
        _JUNOS_COS_HEAD,
        *_junos_cnp(sw),
        _JUNOS_COS_INTERFACES,
        *_junos_schedulers(sw),
        "}",
        *_junos_protocols(sw),
    ]
    return "\n".join(lines) + "\n"


def junos_outputs(sw: JunosSwitch) -> dict[str, str]:
    """Every command output of a Junos switch, by command."""
    return {SHOW_CONFIGURATION: render_junos(sw)}


# ---- Arista EOS: show running-config (show interfaces comes from fabricgen) -------------------------


@dataclass
class EosSwitch(Switch):
    """A `fabricgen.Switch` (qos profile ROCE on every port) with the global watchdog action."""

    watchdog_action: str = "drop"
    """`priority-flow-control pause watchdog action`; EOS errdisables the port without it."""


def _eos_queue_lines(sw: EosSwitch) -> list[str]:
    lines: list[str] = []
    for number, q in sorted(sw.queues.items()):
        lines += ["   !", f"   tx-queue {number}"]
        lines.append("      priority strict" if q.strict else "      no priority")
        if q.bandwidth_pct is not None:
            lines.append(f"      bandwidth percent {q.bandwidth_pct}")
        if q.ecn_kbytes is not None:
            low, high = q.ecn_kbytes
            lines.append(
                f"      random-detect ecn minimum-threshold {low} kbytes maximum-threshold {high}"
                f" kbytes max-mark-probability {q.ecn_probability}"
            )
    return lines


def _eos_qos(sw: EosSwitch) -> list[str]:
    lines = [f"qos map dscp {d} to traffic-class {tc}" for d, tc in sorted(sw.dscp_map.items())]
    lines += [
        "!",
        f"priority-flow-control pause watchdog default timeout {sw.watchdog_timeout_s:g}",
        f"priority-flow-control pause watchdog default recovery-time {sw.watchdog_recovery_s:g}",
        f"priority-flow-control pause watchdog action {sw.watchdog_action}",
        "!",
        f"qos profile {sw.profile}",
        f"   qos trust {sw.trust}",
        *_eos_queue_lines(sw),
        "   !",
        "   priority-flow-control on",
    ]
    lines += [f"   priority-flow-control priority {p} no-drop" for p in sw.pfc_priorities]
    if sw.pfc_watchdog:
        lines.append("   priority-flow-control pause watchdog")
    return [*lines, "!"]


def _eos_interfaces(sw: EosSwitch) -> list[str]:
    lines: list[str] = []
    for port in sw.ports.values():
        lines += [f"interface {port.name}", f"   description {port.description}"]
        lines += ["   shutdown"] if port.shutdown else []
        lines += [f"   mtu {port.mtu}"] if port.mtu is not None else []
        lines.append("   no switchport")
        lines += [f"   ip address {port.address}"] if port.address else []
        lines += [f"   service-profile {port.profile}"] if port.profile else []
        lines += [f"   qos trust {port.trust}"] if port.trust else []
        lines.append("!")
    return [
        *lines,
        "interface Loopback0",
        "   description ROUTER_ID",
        f"   ip address {sw.loopback}/32",
        "!",
        "interface Management1",
        "   description OOB_MANAGEMENT",
        "   vrf MGMT",
        f"   ip address {sw.mgmt_address}/24",
        "!",
    ]


def _eos_bgp(sw: EosSwitch) -> list[str]:
    lines = [
        f"router bgp {sw.asn}",
        f"   router-id {sw.loopback}",
        "   maximum-paths 64",
        "   neighbor SPINES peer group",
        "   neighbor SPINES send-community",
    ]
    for address, asn, description in sw.bgp_neighbors:
        lines += [
            f"   neighbor {address} peer group SPINES",
            f"   neighbor {address} remote-as {asn}",
            f"   neighbor {address} description {description}",
        ]
    return [*lines, "   redistribute connected", "!"]


def render_eos(sw: EosSwitch) -> str:
    """`show running-config` of an EOS RoCE leaf."""
    lines = [
        *eos_header(sw.name, sw.model, sw.eos_version),
        *_eos_qos(sw),
        *_eos_interfaces(sw),
        "ip routing",
        "no ip routing vrf MGMT",
        "!",
        "ip route vrf MGMT 0.0.0.0/0 192.0.2.1",
        "!",
        *_eos_bgp(sw),
        "end",
    ]
    return "\n".join(lines) + "\n"


def eos_outputs(sw: EosSwitch) -> dict[str, str]:
    """Every command output of an EOS switch, by command."""
    return {SHOW_RUN: render_eos(sw), SHOW_INTERFACES: render_show_interfaces(sw)}


# ---- Cisco NX-OS (Nexus 9364D-GX2A): show running-config, show interface -----------------------


@dataclass
class NxosSwitch(Node):
    """A Nexus 9000 leaf: type qos policy ROCE-CLASSIFY on every cabled port (DSCP 26 -> qos-group
    3, 48 -> 6), network-qos ROCE-NQ (c-8q-nq3 no-drop on CoS 3), queuing ROCE-EGRESS (q3 DWRR 50 with
    ECN, q6 priority), PFC `mode on` per port, the PFC watchdog on globally."""

    version: str = "10.4(3)"
    ports: int = 64
    pause_pfc_cos: bool = True
    """`pause pfc-cos 3` in network-qos class c-8q-nq3."""
    pfc_mode: dict[str, str] = field(default_factory=dict)
    """Port -> `priority-flow-control mode` other than `on` (cabled ports not listed are `on`)."""
    watchdog: bool = True
    """`priority-flow-control watch-dog-interval on` (global)."""


_NXOS_POLICIES = """\
class-map type qos match-all ROCE
  match dscp 26
class-map type qos match-all CNP
  match dscp 48
policy-map type qos ROCE-CLASSIFY
  class ROCE
    set qos-group 3
  class CNP
    set qos-group 6
  class class-default
    set qos-group 0
policy-map type queuing ROCE-EGRESS
  class type queuing c-out-8q-q7
    bandwidth remaining percent 0
  class type queuing c-out-8q-q6
    priority level 1
  class type queuing c-out-8q-q5
    bandwidth remaining percent 0
  class type queuing c-out-8q-q4
    bandwidth remaining percent 0
  class type queuing c-out-8q-q3
    bandwidth remaining percent 50
    random-detect minimum-threshold 150 kbytes maximum-threshold 1500 kbytes drop-probability 100 weight 0 ecn
  class type queuing c-out-8q-q2
    bandwidth remaining percent 0
  class type queuing c-out-8q-q1
    bandwidth remaining percent 0
  class type queuing c-out-8q-q-default
    bandwidth remaining percent 50"""


def _nxos_qos(sw: NxosSwitch) -> list[str]:
    pause = ["    pause pfc-cos 3"] if sw.pause_pfc_cos else []
    lines = [
        _NXOS_POLICIES,
        "policy-map type network-qos ROCE-NQ",
        "  class type network-qos c-8q-nq3",
        *pause,
        "    mtu 9216",
        "  class type network-qos c-8q-nq-default",
        "    mtu 9216",
        "system qos",
        "  service-policy type network-qos ROCE-NQ",
        "  service-policy type queuing output ROCE-EGRESS",
        "",
    ]
    if sw.watchdog:
        lines += [
            "priority-flow-control watch-dog-interval on",
            "priority-flow-control watch-dog interval 100",
            "priority-flow-control watch-dog shutdown-multiplier 2",
            "priority-flow-control auto-restore multiplier 4",
            "",
        ]
    return lines


def _nxos_port_names(sw: NxosSwitch) -> list[str]:
    return [f"Ethernet1/{n}" for n in range(1, sw.ports + 1)]


def _nxos_interface(sw: NxosSwitch, name: str) -> list[str]:
    cable = sw.cables.get(name)
    if cable is None:
        return [f"interface {name}", "  shutdown", ""]
    lines = [f"interface {name}", f"  description {cable.peer}", "  no switchport"]
    lines += [f"  mtu {cable.mtu}"] if cable.mtu is not None else []
    lines += [
        f"  priority-flow-control mode {sw.pfc_mode.get(name, 'on')}",
        "  service-policy type qos input ROCE-CLASSIFY",
        f"  ip address {cable.address}",
        "  no shutdown",
        "",
    ]
    return lines


def _nxos_bgp(sw: NxosSwitch) -> list[str]:
    lines = [
        f"router bgp {sw.asn}",
        f"  router-id {sw.loopback}",
        "  bestpath as-path multipath-relax",
        "  address-family ipv4 unicast",
        "    redistribute direct route-map RM-CONN",
        "    maximum-paths 64",
    ]
    for peer in sw.neighbors:
        lines += [
            f"  neighbor {peer.address}",
            f"    remote-as {peer.asn}",
            f"    description {peer.name}",
            "    address-family ipv4 unicast",
        ]
    return lines


def render_nxos(sw: NxosSwitch) -> str:
    """`show running-config` of a Nexus 9000 RoCE leaf."""
    lines = [
        "!Command: show running-config",
        "!Running configuration last done at: Sat Nov 28 22:02:11 2026",
        "!Time: Sun Nov 29 02:00:03 2026",
        "",
        f"version {sw.version} Bios:version 01.12",
        f"hostname {sw.name}",
        f"vdc {sw.name} id 1",
        "  limit-resource vlan minimum 16 maximum 4094",
        "  limit-resource vrf minimum 2 maximum 4096",
        "",
        "feature bgp",
        "feature lldp",
        "",
        "no password strength-check",
        "ip domain-lookup",
        "",
        *_nxos_qos(sw),
        "ip prefix-list PL-LOOPBACK seq 10 permit 10.254.0.0/24 eq 32",
        "route-map RM-CONN permit 10",
        "  match ip address prefix-list PL-LOOPBACK",
        "",
        "vrf context management",
        "  ip route 0.0.0.0/0 192.0.2.1",
        "",
    ]
    for name in _nxos_port_names(sw):
        lines += _nxos_interface(sw, name)
    lines += [
        "interface mgmt0",
        "  vrf member management",
        f"  ip address {sw.mgmt_address}/24",
        "",
        "interface loopback0",
        f"  ip address {sw.loopback}/32",
        "line console",
        "line vty",
        f"boot nxos bootflash:/nxos64-cs.{sw.version.replace('(', '.').rstrip(')')}.M.bin",
        *_nxos_bgp(sw),
    ]
    return "\n".join(lines) + "\n"


def _nxos_port_status(sw: NxosSwitch, number: int, name: str) -> list[str]:
    cable = sw.cables.get(name)
    mac = _mac(0x2C4F52001000 + number, True)
    if cable is None:
        head = [
            f"{name} is down (Administratively down)",
            "admin state is down, Dedicated Interface",
        ]
        mtu, mode, extra = 1500, "access", ["  auto-duplex, auto-speed"]
    else:
        head = [f"{name} is up", "admin state is up, Dedicated Interface"]
        mtu = cable.mtu if cable.mtu is not None else 1500
        mode, extra = "routed", ["  full-duplex, 400 Gb/s, media type is 400G"]
    lines = [*head, f"  Hardware: 100000/400000 Ethernet, address: {mac} (bia {mac})"]
    if cable is not None:
        lines += [f"  Description: {cable.peer}", f"  Internet Address is {cable.address}"]
    lines += [
        f"  MTU {mtu} bytes, BW 400000000 Kbit , DLY 10 usec",
        "  reliability 255/255, txload 1/255, rxload 1/255",
        "  Encapsulation ARPA, medium is broadcast",
        f"  Port mode is {mode}",
        *extra,
        "  Input flow-control is off, output flow-control is off",
        '  Last clearing of "show interface" counters never',
        "  RX",
        "    0 Rx pause",
        "  TX",
        "    0 Tx pause",
        "",
    ]
    return lines


def render_nxos_show_interface(sw: NxosSwitch) -> str:
    """`show interface` of the leaf's front-panel ports, mgmt0 and loopback0."""
    lines: list[str] = []
    for number, name in enumerate(_nxos_port_names(sw), start=1):
        lines += _nxos_port_status(sw, number, name)
    lines += [
        "mgmt0 is up",
        "admin state is up,",
        "  Hardware: GigabitEthernet, address: 2c4f.5200.0fff (bia 2c4f.5200.0fff)",
        f"  Internet Address is {sw.mgmt_address}/24",
        "  MTU 1500 bytes, BW 1000000 Kbit , DLY 10 usec",
        "",
        "loopback0 is up",
        "admin state is up,",
        "  Hardware: Loopback",
        f"  Internet Address is {sw.loopback}/32",
        "  MTU 1500 bytes, BW 8000000 Kbit , DLY 5000 usec",
    ]
    return "\n".join(lines) + "\n"


def nxos_outputs(sw: NxosSwitch) -> dict[str, str]:
    """Every command output of an NX-OS switch, by command."""
    return {SHOW_RUN: render_nxos(sw), SHOW_INTERFACE: render_nxos_show_interface(sw)}


# ---- SONiC (NVIDIA Spectrum-3 SN4700, traditional buffer model): config_db.json ----------------


@dataclass
class SonicSwitch(Node):
    """A SONiC leaf: DSCP_TO_TC_MAP ROCE (26 -> 3, 48 -> 6, others 0) bound globally and per cabled
    port, PFC on 3 with PFC_WD per port, queue 3 DWRR 50 with WRED/ECN profile ROCE_LOSSLESS,
    queue 6 strict, lossless PG 3 on a 400G/5m headroom profile."""

    hwsku: str = "ACS-MSN4700"
    asic_platform: str = "x86_64-mlnx_msn4700-r0"
    ports: int = 32
    pfc_enable: dict[str, str] = field(default_factory=dict)
    """Port -> PORT_QOS_MAP `pfc_enable` other than "3" (cabled ports not listed have "3")."""
    wred_ecn: str = "ecn_all"
    """WRED_PROFILE ROCE_LOSSLESS `ecn` mode (`ecn_none`: green WRED drops instead of marking)."""


def _sonic_port_names(sw: SonicSwitch) -> list[str]:
    return [f"Ethernet{8 * n}" for n in range(sw.ports)]


def _sonic_ports(sw: SonicSwitch) -> dict[str, dict[str, str]]:
    ports: dict[str, dict[str, str]] = {}
    for n, name in enumerate(_sonic_port_names(sw)):
        cable = sw.cables.get(name)
        entry = {
            "alias": f"etp{n + 1}",
            "lanes": ",".join(str(8 * n + lane) for lane in range(8)),
            "speed": "400000",
            "index": str(n + 1),
            "admin_status": "up" if cable else "down",
        }
        if cable is not None:
            entry["description"] = cable.peer
        mtu = cable.mtu if cable is not None else 9100  # unused ports keep the SONiC default
        if mtu is not None:
            entry["mtu"] = str(mtu)
        ports[name] = entry
    return ports


def _sonic_maps() -> dict[str, Any]:
    dscp = {str(d): "0" for d in range(64)} | {"26": "3", "48": "6"}
    identity = {str(n): str(n) for n in range(8)}
    return {
        "DSCP_TO_TC_MAP": {"ROCE": dscp},
        "TC_TO_QUEUE_MAP": {"ROCE": identity},
        "TC_TO_PRIORITY_GROUP_MAP": {"ROCE": {str(n): "3" if n == 3 else "0" for n in range(8)}},
        "MAP_PFC_PRIORITY_TO_QUEUE": {"ROCE": dict(identity)},
    }


def _sonic_port_qos(sw: SonicSwitch) -> dict[str, Any]:
    qos: dict[str, Any] = {"global": {"dscp_to_tc_map": "ROCE"}}
    for port in _sonic_cabled(sw):
        pfc = sw.pfc_enable.get(port, "3")
        qos[port] = {
            "dscp_to_tc_map": "ROCE",
            "tc_to_queue_map": "ROCE",
            "tc_to_pg_map": "ROCE",
            "pfc_to_queue_map": "ROCE",
            "pfc_enable": pfc,
            "pfcwd_sw_enable": pfc,
        }
    return qos


def _sonic_cabled(sw: SonicSwitch) -> list[str]:
    """Cabled ports in port order (Ethernet8 before Ethernet240), as SONiC lists them."""
    return sorted(sw.cables, key=lambda port: int(port.removeprefix("Ethernet")))


def _sonic_queues(sw: SonicSwitch) -> dict[str, Any]:
    ports = ",".join(_sonic_cabled(sw))
    return {
        "WRED_PROFILE": {
            "ROCE_LOSSLESS": {
                "ecn": sw.wred_ecn,
                "wred_green_enable": "true",
                "green_min_threshold": "150000",
                "green_max_threshold": "1500000",
                "green_drop_probability": "100",
            }
        },
        "SCHEDULER": {
            "scheduler.be": {"type": "DWRR", "weight": "25"},
            "scheduler.roce": {"type": "DWRR", "weight": "50"},
            "scheduler.cnp": {"type": "STRICT"},
        },
        "QUEUE": {
            f"{ports}|0-1": {"scheduler": "scheduler.be"},
            f"{ports}|3": {"scheduler": "scheduler.roce", "wred_profile": "ROCE_LOSSLESS"},
            f"{ports}|6": {"scheduler": "scheduler.cnp"},
        },
        "PFC_WD": {
            port: {"action": "drop", "detection_time": "200", "restoration_time": "400"}
            for port in _sonic_cabled(sw)
        },
    }


def _sonic_buffers(sw: SonicSwitch) -> dict[str, Any]:
    pgs: dict[str, dict[str, str]] = {}
    for port in _sonic_cabled(sw):
        pgs[f"{port}|0"] = {"profile": "ingress_lossy_profile"}
        pgs[f"{port}|3"] = {"profile": "pg_lossless_400000_5m_profile"}
    return {
        "BUFFER_POOL": {
            "ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "47218432"},
            "egress_lossless_pool": {"type": "egress", "mode": "dynamic", "size": "60817392"},
        },
        "BUFFER_PROFILE": {
            "ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "0"},
            "pg_lossless_400000_5m_profile": {
                "pool": "ingress_lossless_pool",
                "size": "108544",
                "xon": "19456",
                "xoff": "89088",
            },
        },
        "BUFFER_PG": pgs,
    }


def _sonic_routing(sw: SonicSwitch) -> dict[str, Any]:
    interface: dict[str, dict[str, str]] = {}
    for port, cable in sw.cables.items():
        interface[port] = {}
        interface[f"{port}|{cable.address}"] = {}
    neighbors = {
        n.address: {"asn": str(n.asn), "name": n.name, "local_addr": _local(sw, n)}
        for n in sw.neighbors
    }
    return {
        "INTERFACE": interface,
        "LOOPBACK_INTERFACE": {"Loopback0": {}, f"Loopback0|{sw.loopback}/32": {}},
        "MGMT_INTERFACE": {f"eth0|{sw.mgmt_address}/24": {"gwaddr": "192.0.2.1"}},
        "BGP_NEIGHBOR": neighbors,
        "DEVICE_NEIGHBOR": {
            port: {"name": cable.peer.split(":")[0], "port": cable.peer.split(":")[1]}
            for port, cable in sw.cables.items()
        },
    }


def _local(sw: SonicSwitch, peer: Neighbor) -> str:
    """This switch's address on the cable to `peer` (the other host of its /31)."""
    for cable in sw.cables.values():
        if cable.peer.startswith(f"{peer.name}:"):
            return cable.address.split("/")[0]
    return ""


def render_sonic(sw: SonicSwitch) -> str:
    """config_db.json of a SONiC RoCE leaf, as `show runningconfiguration all` prints it."""
    db: dict[str, Any] = {
        "DEVICE_METADATA": {
            "localhost": {
                "hostname": sw.name,
                "hwsku": sw.hwsku,
                "platform": sw.asic_platform,
                "type": "LeafRouter",
                "bgp_asn": str(sw.asn),
                "buffer_model": "traditional",
                "default_pfcwd_status": "enable",
                "mac": _mac(0x1C34DA7C0000, False),
            }
        },
        "VERSIONS": {"DATABASE": {"VERSION": "version_202405_01"}},
        "PORT": _sonic_ports(sw),
        **_sonic_routing(sw),
        **_sonic_maps(),
        "PORT_QOS_MAP": _sonic_port_qos(sw),
        **_sonic_queues(sw),
        **_sonic_buffers(sw),
    }
    return json.dumps(db, indent=4, sort_keys=True) + "\n"


def sonic_outputs(sw: SonicSwitch) -> dict[str, str]:
    """Every output of a SONiC switch, by snapshot key."""
    return {CONFIG_DB: render_sonic(sw)}


# ---- NVIDIA Cumulus Linux 5 (SN4700, NVUE): nv config show, nv show qos roce ----------------------


@dataclass
class CumulusSwitch(Node):
    """A Cumulus leaf: `qos roce mode lossless` (PFC on switch priority 3, TC 3/0 DWRR 50, TC 6
    strict), mapping default-global trusting DSCP, ECN on TC 0 and 3 pinned at 150 KB / 1.5 MB, the PFC
    watchdog on every cabled port."""

    version: str = "5.9.1"
    model: str = "SN4700"
    ecn_bytes: tuple[int, int] = (150000, 1500000)
    """(min-threshold, max-threshold) of congestion-control default-global traffic-class 0 and 3
    (the RoCE mode's ECN classes), pinned to the RoCE defaults."""


def _yaml_tree(tree: dict[str, Any], indent: int) -> list[str]:
    """Block YAML the way NVUE writes it: nested mappings, `{}` for empty ones, scalars inline."""
    pad = " " * indent
    lines: list[str] = []
    for name, value in tree.items():
        key = f"'{name}'" if name.isdigit() else name  # NVUE quotes numeric keys
        if isinstance(value, dict) and value:
            lines += [f"{pad}{key}:", *_yaml_tree(value, indent + 2)]
        elif isinstance(value, dict):
            lines.append(f"{pad}{key}: {{}}")
        else:
            lines.append(f"{pad}{key}: {value}")
    return lines


def _cumulus_interfaces(sw: CumulusSwitch) -> dict[str, Any]:
    out: dict[str, Any] = {
        "eth0": {"ip": {"address": {f"{sw.mgmt_address}/24": {}}}, "type": "eth", "vrf": "mgmt"},
        "lo": {"ip": {"address": {f"{sw.loopback}/32": {}}}, "type": "loopback"},
    }
    for port, cable in sorted(sw.cables.items(), key=lambda item: int(item[0][3:])):
        link: dict[str, Any] = {"mtu": cable.mtu} if cable.mtu is not None else {}
        link |= {"speed": "400G", "state": {"up": {}}}
        out[port] = {
            "description": cable.peer,
            "ip": {"address": {cable.address: {}}},
            "link": link,
            "qos": {"pfc-watchdog": {"state": "enable"}},
            "type": "swp",
        }
    return out


def _cumulus_qos(sw: CumulusSwitch) -> dict[str, Any]:
    low, high = sw.ecn_bytes
    ecn = {
        "ecn": "enable",
        "max-threshold": high,
        "min-threshold": low,
        "probability": 100,
        "red": "disable",
    }
    return {
        "congestion-control": {
            "default-global": {
                "traffic-class": {tc: ecn for tc in ("0", "3")},
            }
        },
        "mapping": {
            "default-global": {
                "dscp": {"26": {"switch-priority": 3}, "48": {"switch-priority": 6}},
                "trust": "l3",
            }
        },
        "pfc-watchdog": {"polling-interval": 100, "robustness": 2},
        "roce": {"enable": "on", "mode": "lossless"},
    }


def _cumulus_routing(sw: CumulusSwitch) -> dict[str, Any]:
    neighbors = {n.address: {"remote-as": n.asn, "type": "numbered"} for n in sw.neighbors}
    return {
        "router": {"bgp": {"autonomous-system": sw.asn, "enable": "on", "router-id": sw.loopback}},
        "vrf": {
            "default": {
                "router": {
                    "bgp": {
                        "address-family": {
                            "ipv4-unicast": {
                                "enable": "on",
                                "redistribute": {"connected": {"enable": "on"}},
                            }
                        },
                        "enable": "on",
                        "neighbor": neighbors,
                    }
                }
            }
        },
    }


def render_cumulus(sw: CumulusSwitch) -> str:
    """`nv config show -o yaml` of a Cumulus RoCE leaf."""
    tree = {
        "interface": _cumulus_interfaces(sw),
        "qos": _cumulus_qos(sw),
        **_cumulus_routing(sw),
        "system": {"hostname": sw.name},
    }
    lines = [
        "- header:",
        f"    model: {sw.model}",
        "    nvue-api-version: nvue_v1",
        "    rev-id: 1.0",
        f"    version: Cumulus Linux {sw.version}",
        "- set:",
        *_yaml_tree(tree, 4),
    ]
    return "\n".join(lines) + "\n"


def render_cumulus_roce(sw: CumulusSwitch) -> str:
    """`nv show qos roce -o json`: the RoCE state the switch runs."""
    low, high = sw.ecn_bytes
    state = {
        "enable": "on",
        "mode": "lossless",
        "pfc": {"pfc-priority": "3", "rx-enabled": "enabled", "tx-enabled": "enabled"},
        "congestion-control": {
            "congestion-mode": "ECN",
            "enabled-tc": "0,3",
            "min-threshold": low,
            "max-threshold": high,
            "probability": 100,
        },
        "trust": {"trust-mode": "dscp"},
    }
    return json.dumps(state, indent=2) + "\n"


def cumulus_outputs(sw: CumulusSwitch) -> dict[str, str]:
    """Every command output of a Cumulus switch, by command."""
    return {NV_CONFIG: render_cumulus(sw), NV_SHOW_ROCE: render_cumulus_roce(sw)}
