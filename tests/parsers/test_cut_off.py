"""Device outputs cut short are never read as whole: each cut shape a parser can tell gives an
unparseable problem (PARSE003) at the file and line where the output stops, and the whole
output it was cut from gives none. The fixtures are written here after each tool's output
format (NX-OS, NVUE, mlnx-tools, rdma-core, iproute2, infiniband-diags, OpenSM man pages)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState
from fabriclint.parsers import get_parser

NXOS_CONFIG = """\
!Command: show running-config
!Running configuration last done at: Mon Nov 30 09:14:02 2026
!Time: Mon Nov 30 10:00:00 2026

version 10.3(4a) Bios:version 05.51
hostname rail03
feature lldp

class-map type qos match-all RDMA
  match dscp 26
policy-map type qos QOS_IN
  class RDMA
    set qos-group 3
policy-map type network-qos NQ
  class type network-qos c-8q-nq3
    pause pfc-cos 3
    mtu 9216
system qos
  service-policy type network-qos NQ

interface Ethernet1/1
  description gpu01:ens1np0
  mtu 9216
  priority-flow-control mode on
  service-policy type qos input QOS_IN
  no shutdown

interface Ethernet1/2
  description gpu02:ens1np0
  mtu 9216
  priority-flow-control mode on
  service-policy type qos input QOS_IN
  no shutdown

interface mgmt0
  vrf member management
line console
line vty
boot nxos bootflash:/nxos64-cs.10.3.4a.M.bin
router bgp 65103
  router-id 10.254.0.3
"""

NVUE = """\
- header:
    model: SN5600
    nvue-api-version: nvue_v1
    rev-id: 1.0
    version: Cumulus Linux 5.10.0
- set:
    interface:
      swp1:
        description: gpu01:ens1np0
        link:
          mtu: 9216
          state:
            up: {}
        type: swp
      swp2:
        link:
          mtu: 9216
        type: swp
    qos:
      roce:
        enable: on
        mode: lossless
    system:
      hostname: rail04
"""

EOS_SHOW = """\
Ethernet1/1 is up, line protocol is up (connected)
  Hardware is Ethernet, address is 001c.7300.0101
  Description: gpu01:ens1np0
  Ethernet MTU 9214 bytes, BW 400000000 kbit
  Full-duplex, 400Gb/s, auto negotiation: off, uni-link: disabled
     0 output errors, 0 collisions
Ethernet2/1 is up, line protocol is up (connected)
  Hardware is Ethernet, address is 001c.7300.0201
  Description: gpu02:ens1np0
  Ethernet MTU 9214 bytes, BW 400000000 kbit
  Full-duplex, 400Gb/s, auto negotiation: off, uni-link: disabled
     0 output errors, 0 collisions
"""

EOS_CONFIG = """\
! Command: show running-config
! device: leaf07 (DCS-7060DX5-64S, EOS-4.31.2F)
!
hostname leaf07
!
interface Ethernet1/1
   mtu 9214
!
interface Ethernet2/1
   mtu 9214
!
interface Ethernet10/1
   mtu 9214
!
interface Loopback0
   ip address 10.255.0.7/32
!
interface Management1
   ip address 192.0.2.7/24
!
interface Vlan100
   mtu 9164
!
end
"""

EOS_ALL = (
    EOS_SHOW
    + """\
Ethernet10/1 is up, line protocol is up (connected)
  Hardware is Ethernet, address is 001c.7300.0a01
  Ethernet MTU 9214 bytes, BW 400000000 kbit
Loopback0 is up, line protocol is up (connected)
  Hardware is Loopback
  Internet address is 10.255.0.7/32
  IP MTU 65535 bytes (default)
Management1 is up, line protocol is up (connected)
  Hardware is Ethernet, address is 001c.7300.0001
  Internet address is 192.0.2.7/24
  IP MTU 1500 bytes (default), BW 1000000 kbit
Vlan100 is up, line protocol is up (connected)
  Hardware is Vlan, address is 001c.7300.0064
  IP MTU 9164 bytes (default)
"""
)
"""`show interfaces` of the whole EOS_CONFIG device, in EOS's order (Ethernet ports by number,
loopbacks, management, SVIs)."""


def before(text: str, marker: str) -> str:
    """`text` cut exactly before the line holding `marker`: whole blocks only."""
    return text[: text.index(marker)]


NXOS_SHOW = """\
Ethernet1/1 is up
admin state is up, Dedicated Interface
  Hardware: 100000/400000 Ethernet, address: 5c71.0d00.0101 (bia 5c71.0d00.0101)
  MTU 9216 bytes, BW 400000000 Kbit , DLY 10 usec
  Port mode is routed
  full-duplex, 400 Gb/s, media type is 400G

Ethernet1/2 is up
admin state is up, Dedicated Interface
  Hardware: 100000/400000 Ethernet, address: 5c71.0d00.0102 (bia 5c71.0d00.0102)
  MTU 9216 bytes, BW 400000000 Kbit , DLY 10 usec
  Port mode is routed
"""

IBDEV = "mlx5_0 port 1 ==> ens1np0 (Up)\nmlx5_1 port 1 ==> ens2np0 (Up)\n"


def _devinfo_hca(name: str, guid: str) -> str:
    return (
        f"hca_id:\t{name}\n"
        "\ttransport:\t\t\tInfiniBand (0)\n"
        "\tfw_ver:\t\t\t\t28.40.1000\n"
        f"\tnode_guid:\t\t\t{guid}\n"
        "\tvendor_part_id:\t\t\t4129\n"
        "\tphys_port_cnt:\t\t\t1\n"
        "\t\tport:\t1\n"
        "\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n"
        "\t\t\tmax_mtu:\t\t4096 (5)\n"
        "\t\t\tactive_mtu:\t\t4096 (5)\n"
        "\t\t\tactive_width:\t\t4X (2)\n"
        "\t\t\tactive_speed:\t\t100.0 Gbps (128)\n"
        "\t\t\tlink_layer:\t\tEthernet\n"
    )


DEVINFO = (
    _devinfo_hca("mlx5_0", "a088:c203:0011:2230")
    + "\n"
    + _devinfo_hca("mlx5_1", "a088:c203:0011:2231")
)

IP_LINK = """\
1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000
    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00 promiscuity 0 minmtu 0 maxmtu 0
4: ens1np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT group default qlen 1000
    link/ether a0:88:c2:11:22:30 brd ff:ff:ff:ff:ff:ff promiscuity 0 minmtu 68 maxmtu 9978
    altname enp65s0f0np0
5: ens2np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT group default qlen 1000
    link/ether a0:88:c2:11:22:31 brd ff:ff:ff:ff:ff:ff promiscuity 0 minmtu 68 maxmtu 9978
"""

MLNX_QOS = (
    "DCBX mode: OS controlled\n"
    "Priority trust state: dscp\n"
    "dscp2prio mapping:\n"
    + "".join(
        f"\tprio:{p} dscp:" + ",".join(f"{d:02d}" for d in range(8 * p + 7, 8 * p - 1, -1)) + ",\n"
        for p in range(8)
    )
    + "Receive buffer size (bytes): 262016,262016,0,0,0,0,0,0,total_size=4194304\n"
    "Cable len: 7\n"
    "PFC configuration:\n"
    "\tpriority    0   1   2   3   4   5   6   7\n"
    "\tenabled     0   0   0   1   0   0   0   0\n"
    "\tbuffer      0   0   0   1   0   0   0   0\n"
    + "".join(
        f"tc: {tc} ratelimit: unlimited, tsa: ets, bw: {50 if tc == 3 else 7}%\n"
        f"\t priority:  {tc}\n"
        for tc in range(7)
    )
    + "tc: 7 ratelimit: unlimited, tsa: strict\n\t priority:  7\n"
)


def _ecn(netdev: str) -> str:
    base = f"/sys/class/net/{netdev}/ecn"
    lines = [f"{base}/roce_np/enable/{p}:{int(p == 3)}" for p in range(8)]
    lines += [f"{base}/roce_np/cnp_dscp:48", f"{base}/roce_np/cnp_802p_prio:6"]
    lines += [f"{base}/roce_rp/enable/{p}:{int(p == 3)}" for p in range(8)]
    lines += [f"{base}/roce_rp/rpg_ai_rate:5", f"{base}/roce_rp/rpg_time_reset:300"]
    return "\n".join(lines) + "\n"


IBSTAT = "".join(
    f"CA 'mlx5_{n}'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tFirmware version: 28.40.1000\n"
    f"\tNode GUID: 0xa088c20300112b3{n}\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n"
    f"\t\tRate: 400\n\t\tBase lid: {20 + n}\n\t\tSM lid: 1\n\t\tLink layer: InfiniBand\n"
    for n in range(2)
)

IB_DEVINFO = "".join(
    _devinfo_hca(f"mlx5_{n}", f"a088:c203:0011:2b3{n}").replace("Ethernet", "InfiniBand")
    for n in range(2)
)

IBNETDISCOVER = """\
#
# Topology file: generated on Mon Nov 30 10:02:11 2026
#
vendid=0x2c9
devid=0xd2f2
switchguid=0xb83fd20300c0a001(b83fd20300c0a001)
Switch\t65 "S-b83fd20300c0a001"\t\t# "MF0;rail01:MQM9790/U1" enhanced port 0 lid 11 lmc 0
[1]\t"H-a088c20300112b30"[1](a088c20300112b30) \t\t# "gpu01 mlx5_0" lid 20 4xNDR
[2]\t"H-a088c20300112b31"[1](a088c20300112b31) \t\t# "gpu01 mlx5_1" lid 21 4xNDR

vendid=0x2c9
devid=0x1021
caguid=0xa088c20300112b30
Ca\t1 "H-a088c20300112b30"\t\t# "gpu01 mlx5_0"
[1](a088c20300112b30) \t"S-b83fd20300c0a001"[1]\t\t# lid 20 lmc 0 "MF0;rail01:MQM9790/U1" lid 11 4xNDR

vendid=0x2c9
devid=0x1021
caguid=0xa088c20300112b31
Ca\t1 "H-a088c20300112b31"\t\t# "gpu01 mlx5_1"
[1](a088c20300112b31) \t"S-b83fd20300c0a001"[2]\t\t# lid 21 lmc 0 "MF0;rail01:MQM9790/U1" lid 11 4xNDR
"""

_BLOCKS = IBNETDISCOVER.split("\n\n")
SWITCH_LAST = "\n\n".join([*_BLOCKS[1:], _BLOCKS[0]])
"""The same discovery with the switch's block last (ibnetdiscover orders blocks as it found
them): cut inside it, it lacks the port line of a link a CA block shows to it."""

PARTITIONS = """\
# rail pod tenants (partitions.conf(5))
Default=0x7fff, ipoib, mtu=5: ALL=limited, SELF=full;
train=0x8001, ipoib, mtu=5, sl=1:
    0xa088c20300112b30=full, 0xa088c20300112b31=full,
    0xa088c20300112c30=full, 0xa088c20300112c31=full;
"""


@dataclass(frozen=True)
class Device:
    """One device's whole outputs and the output a case cuts."""

    platform: str
    outputs: dict[str, str]
    cut: str


NXOS = Device("nxos", {"show running-config": NXOS_CONFIG, "show interface": NXOS_SHOW}, "")
CUMULUS = Device("cumulus", {"nv config show -o yaml": NVUE}, "nv config show -o yaml")
EOS_DEV = Device(
    "eos",
    {"show running-config": "interface Ethernet1/1\n   mtu 9214\n", "show interfaces": EOS_SHOW},
    "show interfaces",
)
EOS_WHOLE = Device(
    "eos", {"show running-config": EOS_CONFIG, "show interfaces": EOS_ALL}, "show interfaces"
)
ROCE_HOST = Device(
    "mlnx-host",
    {
        "ibdev2netdev": IBDEV,
        "ibv_devinfo -v": DEVINFO,
        "ip -d link show": IP_LINK,
        "mlnx_qos -i ens1np0": MLNX_QOS,
        "mlnx_qos -i ens2np0": MLNX_QOS,
        "grep -rH . /sys/class/net/ens1np0/ecn": _ecn("ens1np0"),
        "grep -rH . /sys/class/net/ens2np0/ecn": _ecn("ens2np0"),
    },
    "",
)
IB_HOST = Device("mlnx-host", {"ibstat": IBSTAT, "ibv_devinfo -v": IB_DEVINFO}, "")
SM = Device(
    "opensm",
    {
        "opensm.conf": "sm_priority 15\n",
        "ibnetdiscover": IBNETDISCOVER,
        "partitions.conf": PARTITIONS,
    },
    "",
)


def file_of(cmd: str) -> str:
    return "dev/" + cmd.replace(" ", "_").replace("/", "%2F") + ".txt"


def parse(device: Device, outputs: dict[str, str]) -> DeviceState:
    parser = get_parser(device.platform)
    assert parser is not None
    raw = RawDevice(
        name="dev",
        platform=device.platform,
        outputs={cmd: RawOutput(text=text, file=file_of(cmd)) for cmd, text in outputs.items()},
    )
    return parser(raw)


def unparseable(state: DeviceState) -> list[tuple[str | None, int | None, str]]:
    return [
        (p.source.file if p.source else None, p.source.line if p.source else None, p.message)
        for p in state.problems
        if p.kind == "unparseable"
    ]


def upto(text: str, marker: str, keep: int | None = None) -> str:
    """`text` up to the line holding `marker` (included), that line cut after `keep` characters
    when given: a cut at a line boundary, or mid-line."""
    lines = text.splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if marker in line)
    head = "".join(lines[:index])
    return head + (lines[index] if keep is None else lines[index][:keep])


@pytest.mark.parametrize(
    "device",
    [NXOS, CUMULUS, EOS_DEV, EOS_WHOLE, ROCE_HOST, IB_HOST, SM],
    ids=lambda d: f"{d.platform}-{d.cut or 'all'}",
)
def test_the_whole_outputs_are_not_refused(device: Device) -> None:
    assert unparseable(parse(device, device.outputs)) == []


CASES = [
    # (device, command cut, cut text, what the message names)
    (NXOS, "show running-config", upto(NXOS_CONFIG, "interface Ethernet1/2"), "line vty"),
    (NXOS, "show running-config", upto(NXOS_CONFIG, "line console"), "line vty"),
    (NXOS, "show running-config", upto(NXOS_CONFIG, "  mtu 9216", 7), "line vty"),
    (NXOS, "show interface", upto(NXOS_SHOW, "Ethernet1/2 is up"), "MTU line"),
    (NXOS, "show interface", upto(NXOS_SHOW, "Ethernet1/2 is up", 6), "header"),
    (NXOS, "show interface", upto(NXOS_SHOW, "admin state is up", 8), "header"),
    (CUMULUS, "nv config show -o yaml", upto(NVUE, "        link:"), "without its value"),
    (CUMULUS, "nv config show -o yaml", upto(NVUE, "    qos:"), "without its value"),
    (CUMULUS, "nv config show -o yaml", upto(NVUE, "description: gpu01", 14), "inside a key"),
    (CUMULUS, "nv config show -o yaml", upto(NVUE, "version: Cumulus"), "no '- set:'"),
    (EOS_DEV, "show interfaces", upto(EOS_SHOW, "Description: gpu02"), "MTU line"),
    (EOS_DEV, "show interfaces", upto(EOS_SHOW, "Ethernet2/1 is up", 20), "header"),
    (EOS_DEV, "show interfaces", upto(EOS_SHOW, "Ethernet MTU 9214", 14) + "\n", "MTU line"),
    # cut between two whole blocks: the running-config declares the ports past the cut
    (EOS_WHOLE, "show interfaces", before(EOS_ALL, "Ethernet2/1 is"), "Ethernet2/1 (line 9)"),
    (EOS_WHOLE, "show interfaces", before(EOS_ALL, "Ethernet10/1 is"), "Ethernet10/1 (line 12)"),
    # cut after the last port, or the loopbacks: the device's own config declares Management1
    (EOS_WHOLE, "show interfaces", before(EOS_ALL, "Loopback0 is"), "Management1 (line 18)"),
    (EOS_WHOLE, "show interfaces", before(EOS_ALL, "Management1 is"), "Management1 (line 18)"),
    (ROCE_HOST, "mlnx_qos -i ens2np0", upto(MLNX_QOS, "enabled", 20), "'enabled' row"),
    (ROCE_HOST, "mlnx_qos -i ens2np0", upto(MLNX_QOS, "tc: 4"), "priority 4"),
    (ROCE_HOST, "mlnx_qos -i ens2np0", upto(MLNX_QOS, "dscp:23"), "no PFC 'enabled' row"),
    (ROCE_HOST, "ip -d link show", upto(IP_LINK, "5: ens2np0", 60), "ens2np0"),
    (ROCE_HOST, "ip -d link show", upto(IP_LINK, "5: ens2np0"), "ens2np0"),
    (ROCE_HOST, "ip -d link show", upto(IP_LINK, "altname"), "no entry for ens2np0"),
    (ROCE_HOST, "ibdev2netdev", IBDEV.splitlines(keepends=True)[0], "mlx5_1 port 1"),
    (ROCE_HOST, "ibdev2netdev", IBDEV[:-5], "line 2"),
    (ROCE_HOST, "ibv_devinfo -v", DEVINFO.split("\n\n")[0] + "\n", "no mlx5_1"),
    (ROCE_HOST, "ibv_devinfo -v", upto(DEVINFO, "link_layer:\t\tEthernet", -5), "mlx5_0"),
    (
        ROCE_HOST,
        "grep -rH . /sys/class/net/ens1np0/ecn",
        upto(_ecn("ens1np0"), "roce_np/enable/5"),
        "stops at priority 5",
    ),
    (
        ROCE_HOST,
        "grep -rH . /sys/class/net/ens1np0/ecn",
        upto(_ecn("ens1np0"), "cnp_802p_prio"),
        "roce_rp is not",
    ),
    (
        ROCE_HOST,
        "grep -rH . /sys/class/net/ens1np0/ecn",
        upto(_ecn("ens1np0"), "rpg_time_reset", 40),
        "not a whole 'path:value' line",
    ),
    (IB_HOST, "ibstat", upto(IBSTAT, "CA 'mlx5_1'") + "\tCA type: MT4129\n", "'Number of ports'"),
    (IB_HOST, "ibstat", IBSTAT[:-8], "link layer 'Inf'"),
    (IB_HOST, "ibstat", IBSTAT.split("CA 'mlx5_1'")[0], "CA 'mlx5_1'"),
    (SM, "ibnetdiscover", upto(IBNETDISCOVER, 'Ca\t1 "H-a088c20300112b31"'), "no whole port"),
    (SM, "ibnetdiscover", upto(IBNETDISCOVER, "[1](a088c20300112b31)", 25), "no whole port"),
    (SM, "ibnetdiscover", SWITCH_LAST.rsplit("[2]", 1)[0], "lacks it"),
    (SM, "partitions.conf", upto(PARTITIONS, "0xa088c20300112b30=full"), "not closed by ';'"),
    (SM, "partitions.conf", upto(PARTITIONS, "0xa088c20300112c30", 30), "not closed by ';'"),
]


@pytest.mark.parametrize(("device", "cmd", "text", "named"), CASES)
def test_each_cut_is_refused_where_the_output_stops(
    device: Device, cmd: str, text: str, named: str
) -> None:
    """The device gets one unparseable problem (PARSE003: exit 3), at the cut output's last
    non-blank line, naming what it lacks; nothing is raised."""
    outputs = {**device.outputs, cmd: text}
    problems = unparseable(parse(device, outputs))
    stops = max(n for n, line in enumerate(text.splitlines(), 1) if line.strip())
    assert problems, f"{cmd} cut to {len(text)} characters was read as whole"
    assert all("parser failed" not in message for _, _, message in problems)
    located = [(f, line) for f, line, message in problems if named in message]
    assert located == [(file_of(cmd), stops)], problems


@pytest.mark.parametrize(
    ("device", "cmd", "text"),
    [
        # no `!Running configuration last done at:` header (a rendered config, NX-OS before 9.2)
        (NXOS, "show running-config", upto(NXOS_CONFIG, "interface Ethernet1/2").split("\n", 3)[3]),
        # cut after `line vty`: only routing (not modeled) is lost, and nothing can tell
        (NXOS, "show running-config", upto(NXOS_CONFIG, "router bgp")),
        # an edit after the device wrote it
        (NXOS, "show running-config", NXOS_CONFIG + "logging server 192.0.2.5\n"),
        # a cut right after a whole `key: value` line: a valid document of the same shape
        (CUMULUS, "nv config show -o yaml", upto(NVUE, "mtu: 9216")),
        # NVUE without the header (hand-written startup.yaml, a fragment) is not judged
        (CUMULUS, "nv config show -o yaml", "interface:\n  swp1:\n    link:\n"),
        # EOS: a cut after the management interface, between two types, is not told
        (EOS_WHOLE, "show interfaces", before(EOS_ALL, "Vlan100 is")),
        # a hand-edited snapshot: a port-channel declared that its show interfaces predates
        (EOS_WHOLE, "show running-config", EOS_CONFIG + "interface Port-Channel10\n   mtu 9214\n"),
        # mlnx_qos releases that print no ETS section end after the PFC rows
        (ROCE_HOST, "mlnx_qos -i ens2np0", upto(MLNX_QOS, "buffer      0")),
        # the blocks in another order are as whole
        (SM, "ibnetdiscover", SWITCH_LAST),
        # trailing prose without `=` is no definition (OpenSM skips it; IB009 judges it)
        (SM, "partitions.conf", PARTITIONS + "Note:\n"),
    ],
)
def test_what_cannot_be_told_or_is_no_cut_is_not_refused(
    device: Device, cmd: str, text: str
) -> None:
    assert [m for _, _, m in unparseable(parse(device, {**device.outputs, cmd: text}))] == []


def test_a_rendered_config_does_not_prove_a_management_interface_is_shown() -> None:
    """Only the device's own running-config (`! Command:` header) says the switch has the
    management interface it declares: a rendered or hand-written one may not be that switch's.
    The ports it declares past the last one shown still prove a cut."""
    rendered = EOS_CONFIG.split("\n", 1)[1]
    shown = before(EOS_ALL, "Loopback0 is")
    outputs = {"show running-config": rendered, "show interfaces": shown}
    assert unparseable(parse(EOS_WHOLE, outputs)) == []
    outputs["show interfaces"] = before(EOS_ALL, "Ethernet10/1 is")
    assert [m for _, _, m in unparseable(parse(EOS_WHOLE, outputs)) if "Ethernet10/1" in m]


def test_a_member_port_whose_port_channel_is_not_shown_proves_a_cut() -> None:
    """A port EOS shows as `Member of Port-Channel10` proves the channel exists, and a whole
    `show interfaces` lists it: an output cut exactly before its block (here after Management1,
    where the declared-interface tests cannot tell) is refused at its last line."""
    member = EOS_ALL.replace(
        "  Description: gpu01:ens1np0\n",
        "  Description: gpu01:ens1np0\n  Member of Port-Channel10\n",
        1,
    )
    channel = (
        "Port-Channel10 is up, line protocol is up (connected)\n"
        "  Hardware is Port-Channel, address is 001c.7300.0101\n"
        "  Ethernet MTU 9214 bytes, BW 400000000 kbit\n"
    )
    whole = member.replace("Vlan100 is", channel + "Vlan100 is")
    outputs = {"show running-config": EOS_CONFIG, "show interfaces": whole}
    assert unparseable(parse(EOS_WHOLE, outputs)) == []
    cut = before(whole, "Port-Channel10 is")
    problems = unparseable(parse(EOS_WHOLE, {**outputs, "show interfaces": cut}))
    stops = len(cut.splitlines())
    named = "Ethernet1/1 is a member of Port-Channel10"
    assert [(f, n) for f, n, m in problems if named in m] == [(file_of("show interfaces"), stops)]
    assert len(problems) == 1, problems


def test_eos_and_nxos_read_their_show_output_into_the_one_kit_type() -> None:
    """EOS `show interfaces` and NX-OS `show interface` blocks are one kit.show.ShownInterface
    (kit/whole.py judges both from it); the fields NX-OS alone prints keep their defaults on
    EOS."""
    from fabriclint.parsers.eos.show import parse_show_interfaces
    from fabriclint.parsers.kit.show import ShownInterface
    from fabriclint.parsers.nxos.show import parse_show_interface

    eos = parse_show_interfaces(EOS_SHOW, "e.txt")["Ethernet1/1"]
    nxos = parse_show_interface(NXOS_SHOW, "n.txt")["Ethernet1/1"]
    assert type(eos) is ShownInterface and type(nxos) is ShownInterface
    assert (eos.oper_up, eos.admin_down, eos.mtu and eos.mtu[0]) == (True, False, 9214)
    assert (eos.routed, eos.channel) == (None, False)
    assert (nxos.oper_up, nxos.mtu and nxos.mtu[0], nxos.routed) == (True, 9216, True)


JUNOS_CONFIG = """\
## Last commit: 2026-11-30 09:00:00 UTC by netops
version 23.4R2-S2.1;
system {
    host-name spine09;
}
interfaces {
    et-0/0/0 {
        mtu 9216;
    }
}
"""


EOS_PAGED = (
    "! Command: show running-config\nhostname leaf09\n--More--"
    + "\b" * 8
    + "\ninterface Ethernet1\n   mtu 9214\nend\n"
)


@pytest.mark.parametrize(
    ("device", "cmd", "text"),
    [
        (NXOS, "show running-config", NXOS_CONFIG.replace("interface Ethernet1/2", " --More-- ")),
        (Device("eos", {}, ""), "show running-config", EOS_PAGED),
        (
            Device("junos", {}, ""),
            "show configuration",
            JUNOS_CONFIG.replace("interfaces {", "---(more 42%)---\ninterfaces {"),
        ),
        (ROCE_HOST, "ip -d link show", IP_LINK + "---(more)---\n"),
    ],
    ids=["nxos", "eos-backspaces", "junos-percent", "host"],
)
def test_an_output_stopped_at_a_pager_prompt_is_not_whole(
    device: Device, cmd: str, text: str
) -> None:
    """A session left paging (`terminal length` not 0, a copy from an interactive terminal)
    stops at `--More--`: what follows is missing or was typed over, on any platform."""
    problems = unparseable(parse(device, {**device.outputs, cmd: text}))
    prompt_line = next(
        n for n, line in enumerate(text.splitlines(), 1) if "ore-" in line or "(more" in line
    )
    # at the prompt: the pager check, or the parser's own syntax error there (Junos)
    assert (file_of(cmd), prompt_line) in [(f, line) for f, line, _ in problems], problems
    if device.platform != "junos":
        assert any("pager prompt" in message for _, _, message in problems), problems


def test_more_inside_a_line_is_no_pager_prompt() -> None:
    config = NXOS_CONFIG.replace(
        "  description gpu01:ens1np0", "  description see --More-- in runbook"
    )
    assert unparseable(parse(NXOS, {**NXOS.outputs, "show running-config": config})) == []


def test_a_pager_prompt_after_a_line_mentioning_more_is_found() -> None:
    """Every line holding `--More--` is looked at: a description naming it came first and hid
    the prompt further down."""
    config = NXOS_CONFIG.replace(
        "  description gpu01:ens1np0", "  description see --More-- in runbook"
    ).replace("interface Ethernet1/2", " --More-- ")
    prompt_line = config.splitlines().index(" --More-- ") + 1
    problems = unparseable(parse(NXOS, {**NXOS.outputs, "show running-config": config}))
    assert (file_of("show running-config"), prompt_line) in [(f, n) for f, n, _ in problems]
    assert any("pager prompt" in message for _, _, message in problems), problems


EOS_VXLAN = """\
Vxlan1 is up, line protocol is up (connected)
  Hardware is Vxlan
  Source interface is Loopback1 and is active with 10.255.1.3
  Listening on UDP port 4789
  Replication/Flood Mode is headend with Flood List Source: EVPN
  Remote MAC learning via EVPN
  VNI mapping to VLANs
  Static VLAN to VNI mapping is
    [110, 10110]
  Note: All Dynamic VLANs used by VCS are internal VLANs.
        Use 'show vxlan vni' for details.
  Static VRF to VNI mapping is not configured
  Shared Router MAC is 0000.0000.0000
"""

NXOS_NVE = """\

nve1 is up
admin state is up,  Hardware: NVE
  MTU 9216 bytes
  Encapsulation VXLAN
  Auto-mdix is turned off
  RX
    ucast: 0 pkts, 0 bytes - mcast: 0 pkts, 0 bytes
  TX
    ucast: 0 pkts, 0 bytes - mcast: 0 pkts, 0 bytes
"""


@pytest.mark.parametrize(
    ("device", "cmd", "tail"),
    [(EOS_DEV, "show interfaces", EOS_VXLAN), (NXOS, "show interface", NXOS_NVE)],
    ids=["eos-vxlan1", "nxos-nve1"],
)
def test_a_whole_show_interface_ending_in_the_vxlan_tunnel_is_not_refused(
    device: Device, cmd: str, tail: str
) -> None:
    """An EVPN leaf lists its VXLAN tunnel last, and that block prints no MTU line the parser
    reads (EOS `Vxlan1`: none; NX-OS `nve1`: `MTU 9216 bytes` without BW): the output is whole.
    A cut in the block before it is still refused."""
    whole = device.outputs[cmd] + tail
    assert unparseable(parse(device, {**device.outputs, cmd: whole})) == []
    cut = upto(whole, "Full-duplex" if device is EOS_DEV else "Port mode is routed")
    cut = cut.rsplit("MTU", 1)[0].rsplit("\n", 1)[0] + "\n"
    assert any("MTU line" in m for _, _, m in unparseable(parse(device, {cmd: cut})))


_BANNER = "    system:\n      hostname: rail04\n"


@pytest.mark.parametrize(
    "tail",
    [
        # a login banner (`nv set system message pre-login`), written as a block scalar
        "      message:\n        pre-login: |\n          Authorized access only\n"
        "          Every session is logged\n",
        # a long string the YAML writer folded at 80 columns onto the next line
        "      message:\n        pre-login: Authorized access only to this switch, every session"
        " is\n          logged and reviewed\n",
        # a comment typed after NVUE wrote the file
        "# kept in git as fabric/rail04.yaml\n",
    ],
    ids=["block-scalar", "folded-scalar", "trailing-comment"],
)
def test_a_whole_nvue_document_ending_in_a_value_text_or_a_comment_is_not_refused(
    tail: str,
) -> None:
    """The last line of a whole NVUE document may be text of a value, or a comment: neither is
    a key cut mid-way. A key cut mid-way after the same text is still refused."""
    assert NVUE.endswith(_BANNER)
    whole = NVUE + tail
    assert unparseable(parse(CUMULUS, {"nv config show -o yaml": whole})) == []
    cut = whole + "      dns:\n        serv\n"
    problems = unparseable(parse(CUMULUS, {"nv config show -o yaml": cut}))
    assert [m for _, _, m in problems if "inside a key" in m], problems


@pytest.mark.parametrize(
    ("device", "head", "secret_line"),
    [
        (NXOS, NXOS_CONFIG.split("class-map", 1)[0], "username ops password 0 Hunter2Nexus role x"),
        (
            Device("eos", {}, ""),
            "! Command: show running-config\n! device: rail01 (DCS-7060X5-64S, EOS-4.31.2F)\n!\n",
            "username ops privilege 15 secret 0 Hunter2Arista",
        ),
    ],
    ids=["nxos", "eos"],
)
def test_a_configuration_cut_after_a_secret_does_not_quote_it(
    device: Device, head: str, secret_line: str
) -> None:
    """A running-config that stops at a line holding a secret (an imported snapshot or a
    rendered config is not redacted) is refused at that line, and the message does not show
    the line's text."""
    text = head + secret_line + "\n"
    problems = unparseable(parse(device, {"show running-config": text}))
    stops = len(text.splitlines())
    cut = [(line, m) for _, line, m in problems if "cut off" in m]
    assert [line for line, _ in cut] == [stops], problems
    assert all("Hunter2" not in m for _, _, m in problems), problems


@pytest.mark.parametrize("layer", ["Unknown", "IB"])
def test_an_ibstat_link_layer_the_kernel_or_libibumad_prints_is_no_cut(layer: str) -> None:
    """ibstat prints the port's sysfs `link_layer`: `Unknown` from the kernel for a device of
    no link layer, `IB` from libibumad where the file is absent; a whole value either way. A
    value cut mid-word (`Unkn`) is still refused."""
    whole = IBSTAT.rsplit("InfiniBand", 1)[0] + layer + "\n"
    problems = unparseable(parse(IB_HOST, {**IB_HOST.outputs, "ibstat": whole}))
    assert [m for _, _, m in problems if "truncated" in m] == [], problems
    cut = IBSTAT.rsplit("InfiniBand", 1)[0] + layer[:-1] + "\n"
    problems = unparseable(parse(IB_HOST, {**IB_HOST.outputs, "ibstat": cut}))
    assert [m for _, _, m in problems if "link layer" in m], problems


def test_an_old_style_ibdev2netdev_is_whole() -> None:
    """Old ibdev2netdev releases print `mlx5_0 port 1 <===> eth2`, with no `(State)`: a whole
    output, not one cut before its state. A new-style line cut before its state is refused."""
    old = IBDEV.replace(" ==> ", " <===> ").replace(" (Up)", "")
    problems = unparseable(parse(ROCE_HOST, {**ROCE_HOST.outputs, "ibdev2netdev": old}))
    assert problems == []
    cut = old.splitlines(keepends=True)[0] + "mlx5_1 port 1 ==> ens2np0\n"
    problems = unparseable(parse(ROCE_HOST, {**ROCE_HOST.outputs, "ibdev2netdev": cut}))
    assert [line for _, line, m in problems if "truncated: line 2" in m] == [2], problems
