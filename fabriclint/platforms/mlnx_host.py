"""Linux hosts with NVIDIA (Mellanox) ConnectX NICs: RoCE and InfiniBand HCAs.

A host's plan grows from its outputs: `ibdev2netdev` (or `rdma link show`) names the RDMA
netdevs, and each gets its own `mlnx_qos`, ECN sysfs and `ethtool` reads, each HCA port its
`cma_roce_tos` (`derive`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fabriclint.platforms.base import (
    HCA,
    LINUX_SESSION,
    NETDEV,
    CommandSpec,
    CounterPlan,
    Platform,
    exact,
    pattern,
    specs,
)

IBDEV2NETDEV = "ibdev2netdev"
RDMA_LINK = "rdma link show"
DEVINFO = "ibv_devinfo -v"
IP_LINK = "ip -d link show"
IBSTAT = "ibstat"
LLDP = "lldpctl -f json"
"""LLDP neighbours of the host's ports from lldpd (lldpctl(8), `-f json`)."""
SHOW_GIDS = "show_gids"
"""The GID table of every HCA port (MLNX_OFED's show_gids script): index, GID, IPv4, RoCE
version, netdev; optional, for BENCH006 (NCCL_IB_GID_INDEX)."""
NVIDIA_SMI = "nvidia-smi --query-gpu=index,name,driver_version,vbios_version --format=csv,noheader"
"""The host's GPUs for the BOM lock (nvidia-smi(1) `--query-gpu`); optional: a host without
GPUs or the tool shows none."""
UNAME = "uname -r"
"""The running kernel release for the BOM lock (uname(1) `-r`); optional."""
NVIDIA_SMI_SUMMARY = "nvidia-smi"
"""nvidia-smi's summary table, read for its header line (`Driver Version: 550.54.15  CUDA
Version: 12.4`, nvidia-smi(1)): the CUDA version the driver supports, for the BOM lock (the
`--query-gpu` fields have none). Optional: a host without GPUs shows none."""

MLNX_QOS = "mlnx_qos -i {netdev}"
ECN_SYSFS = "grep -rH . /sys/class/net/{netdev}/ecn"
ETHTOOL = "ethtool -i {netdev}"
ROCE_TOS = "cma_roce_tos -d {hca} -p {port}"
MLXLINK_MODULE = "mlxlink -d {hca} -m --json"
"""The cable or transceiver of an HCA's port (mlxlink(1) `-m`: module info; JSON) for the
BOM lock: vendor, part number, serial, firmware. Optional (MFT/mstflint may be absent)."""

_COMMANDS = specs(
    CommandSpec(key=IBDEV2NETDEV, optional=True),
    CommandSpec(key=RDMA_LINK, optional=True, only_if_missing=IBDEV2NETDEV),
    DEVINFO,
    # Needed for RoCE netdevs (MTU, state); an InfiniBand-only host has none to show (see
    # `missing_required`, which fails a RoCE host that lacks it).
    CommandSpec(key=IP_LINK, optional=True),
    CommandSpec(key=IBSTAT, optional=True),
    CommandSpec(key=LLDP, optional=True),
    CommandSpec(key=NVIDIA_SMI, optional=True),
    CommandSpec(key=NVIDIA_SMI_SUMMARY, optional=True),
    CommandSpec(key=UNAME, optional=True),
    CommandSpec(key=SHOW_GIDS, optional=True),
)


@dataclass(frozen=True)
class HcaPort:
    """One `ibdev2netdev` / `rdma link show` line: an HCA port and its netdev."""

    hca: str
    port: int
    netdev: str | None


_IBDEV2NETDEV = re.compile(rf"({HCA}) port ([0-9]+) (?:==>|<===>) ({NETDEV})(?=\s|$)", re.M)
_RDMA_LINK = re.compile(rf"^link ({HCA})/([0-9]+)(?=\s|$)")
_RDMA_NETDEV = re.compile(rf"\snetdev ({NETDEV})(?=\s|$)")


def hca_ports(collected: dict[str, str]) -> list[HcaPort]:
    """HCA ports from `ibdev2netdev` (or `rdma link show` when that is all there is)."""
    text = collected.get(IBDEV2NETDEV)
    found: list[HcaPort] = []
    if text is not None:
        for match in _IBDEV2NETDEV.finditer(text):
            found.append(HcaPort(match[1], int(match[2]), match[3]))
        return found
    for line in collected.get(RDMA_LINK, "").splitlines():
        link = _RDMA_LINK.match(line.strip())
        if link:
            netdev = _RDMA_NETDEV.search(line)
            found.append(HcaPort(link[1], int(link[2]), netdev[1] if netdev else None))
    return found


def _is_ipoib(netdev: str) -> bool:
    """IPoIB netdevs (ib0, ibp23s0) carry no RoCE QoS: mlnx_qos/ECN do not apply."""
    return netdev.startswith("ib")


def missing_required(collected: dict[str, str]) -> str | None:
    """Why the outputs are not enough once every command ran, or None: a host with RoCE
    netdevs (an `ibdev2netdev` port on an Ethernet netdev) must have `ip -d link show`."""
    mapped = IBDEV2NETDEV in collected or RDMA_LINK in collected
    if not mapped and re.search(r"Link layer:\s*Ethernet", collected.get(IBSTAT, "")):
        return (
            "RoCE HCA ports (ibstat: link layer Ethernet) need 'ibdev2netdev' or 'rdma link show'"
        )
    if IP_LINK in collected:
        return None
    roce = sorted({p.netdev for p in hca_ports(collected) if p.netdev and not _is_ipoib(p.netdev)})
    if not roce:
        return None  # InfiniBand only: no Ethernet link for `ip` to describe
    return f"'{IP_LINK}' is needed for the RoCE netdevs {', '.join(roce)}"


def derive(collected: dict[str, str]) -> list[CommandSpec]:
    """Commands that depend on what the static commands found (per netdev / per HCA port)."""
    out: list[CommandSpec] = []
    ports = [p for p in hca_ports(collected) if p.netdev and not _is_ipoib(p.netdev)]
    for netdev in dict.fromkeys(p.netdev for p in ports if p.netdev):
        out.append(CommandSpec(key=MLNX_QOS.format(netdev=netdev)))
        out.append(CommandSpec(key=ECN_SYSFS.format(netdev=netdev)))
        out.append(CommandSpec(key=ETHTOOL.format(netdev=netdev), optional=True))
    for port in ports:
        command = ROCE_TOS.format(hca=port.hca, port=port.port)
        out.append(CommandSpec(key=command, optional=True))
    for hca in dict.fromkeys(p.hca for p in ports):
        out.append(CommandSpec(key=MLXLINK_MODULE.format(hca=hca), optional=True))
    return out


ETHTOOL_STATS = "ethtool -S {netdev}"
HW_COUNTERS = "grep -rH . /sys/class/infiniband/{hca}/ports/{port}/hw_counters"
PORT_COUNTERS = "grep -rH . /sys/class/infiniband/{hca}/ports/{port}/counters"


def counter_derive(collected: dict[str, str]) -> list[CommandSpec]:
    """Per-netdev and per-HCA-port counter commands from the HCA map."""
    ports = hca_ports(collected)
    out = [
        CommandSpec(key=ETHTOOL_STATS.format(netdev=n))
        for n in dict.fromkeys(p.netdev for p in ports if p.netdev and not _is_ipoib(p.netdev))
    ]
    for port in ports:
        for template in (HW_COUNTERS, PORT_COUNTERS):
            out.append(
                CommandSpec(key=template.format(hca=port.hca, port=port.port), optional=True)
            )
    return out


COUNTERS = CounterPlan(
    "fabriclint.parsers.mlnx_host.counters",
    specs(
        CommandSpec(key=IBDEV2NETDEV, optional=True),
        CommandSpec(key=RDMA_LINK, optional=True, only_if_missing=IBDEV2NETDEV),
    ),
    tuple(pattern(t) for t in (ETHTOOL_STATS, HW_COUNTERS, PORT_COUNTERS)),
    derive=counter_derive,
    maps=frozenset((IBDEV2NETDEV, RDMA_LINK)),
)
"""Counter commands (`collect --counters`, docs/counters.md): the HCA map names the ports."""


PLATFORM = Platform(
    name="mlnx-host",
    kind="host",
    parser="fabriclint.parsers.mlnx_host",
    device_type="linux",
    commands=_COMMANDS,
    exact=exact(_COMMANDS),
    session=LINUX_SESSION,
    patterns=tuple(pattern(t) for t in (MLNX_QOS, ECN_SYSFS, ETHTOOL, ROCE_TOS, MLXLINK_MODULE)),
    # without the HCA -> netdev map the per-netdev QoS commands cannot be derived; an
    # InfiniBand-only host has no such netdevs, and `ibstat` then lists its HCA ports
    required_any=(IBDEV2NETDEV, RDMA_LINK, IBSTAT),
    shell=True,
    derive=derive,
    missing_required=missing_required,
    counters=COUNTERS,
    lldp=LLDP,
    aliases=("linux-connectx",),
    templates=(MLNX_QOS, ECN_SYSFS, ETHTOOL, ROCE_TOS, MLXLINK_MODULE),
)
