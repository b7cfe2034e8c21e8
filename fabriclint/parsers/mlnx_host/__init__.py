"""Parser for Linux hosts with ConnectX NICs (RoCE or InfiniBand): raw command outputs -> DeviceState.

The command set is fixed (see docs/platforms/mlnx-host.md): `ibdev2netdev`, `ibv_devinfo -v`
and/or `ibstat`, `ip -d link show`, and per RDMA netdev / HCA `mlnx_qos -i IF`,
`grep -rH . /sys/class/net/IF/ecn`, `cma_roce_tos -d DEV -p PORT`, optionally `ethtool -i IF`.
Commands are recognised by pattern (draft.py); keys the parser does not know are ignored. The
line parsers live in `verbs` (RDMA tools), `ib` (ibstat, InfiniBand ports), `linux` (ip link,
sysfs, ethtool) and `qos` (mlnx_qos); assemble.py builds the DeviceState from what they read.
HCA ports without a netdev are `rdma["mlx5_0/1"]` (ib).

Cut-off outputs (a collection that stopped, half a file): each reader refuses the cut shapes of
its output (see its docstring), and `whole` refuses an output that lacks an HCA, port or netdev
the host's other outputs show. What no output can tell is listed in docs/architecture.md
("Cut-off outputs").
"""

from __future__ import annotations

from fabriclint.models.common import construct
from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.internal import never_raises
from fabriclint.parsers.kit.lines import Log, Text, checked, strip_code
from fabriclint.parsers.mlnx_host.assemble import (
    add_ib_addressing,
    add_netdev,
    add_roce_tos,
    add_unmapped_ports,
    set_os_version,
)
from fabriclint.parsers.mlnx_host.draft import Inputs, Parsed
from fabriclint.parsers.mlnx_host.gids import read_gids
from fabriclint.parsers.mlnx_host.gpu import read_gpus
from fabriclint.parsers.mlnx_host.ib import Sourced, parse_ibstat
from fabriclint.parsers.mlnx_host.linux import parse_ip_link
from fabriclint.parsers.mlnx_host.lldp import read_lldp
from fabriclint.parsers.mlnx_host.optics import read_module
from fabriclint.parsers.mlnx_host.verbs import NetdevLink, parse_devinfo, parse_ibdev2netdev
from fabriclint.parsers.mlnx_host.versions import read_cuda, read_kernel
from fabriclint.parsers.mlnx_host.whole import check_across
from fabriclint.platforms.mlnx_host import DEVINFO, IP_LINK


@never_raises("mlnx-host", "mlnx-host")
def parse(raw: RawDevice) -> DeviceState:
    """Parse one ConnectX host. Pure; never raises: bad input becomes `problems`/`unparsed`."""
    state = construct(DeviceState, name=raw.name, platform=raw.platform)
    inputs = Inputs()
    log = Log()
    for cmd, out in sorted(raw.outputs.items()):
        inputs.add(cmd, checked(Text.of(cmd, out.file, out.text), log))
    state.inputs = sorted(inputs.used)
    if inputs.devinfo is None and not inputs.ibstat:
        log.missing(DEVINFO, "required output is missing")
    parsed = Parsed(
        links=_netdev_links(inputs, log),
        hcas=parse_devinfo(inputs.devinfo, log) if inputs.devinfo else {},
        iplinks=parse_ip_link(inputs.iplink, log) if inputs.iplink else {},
        ibstat=_ibstat(inputs, log),
    )
    if inputs.iplink is None and not _infiniband_only(parsed):
        log.missing(IP_LINK, "required output is missing")
    for netdev in sorted(set(parsed.links) | set(inputs.qos) | set(inputs.ecn)):
        add_netdev(state, netdev, inputs, parsed, log)
    _check_devinfo_complete(inputs, parsed, log)
    check_across(inputs, parsed, log)
    add_unmapped_ports(state, inputs, parsed)
    add_ib_addressing(state, inputs, parsed)
    add_roce_tos(state, inputs, parsed, log)
    set_os_version(state)
    _read_bom_extras(state, inputs, log)
    state.unparsed, state.problems = log.unparsed, log.problems
    read_lldp(raw, state)
    return state


def _read_bom_extras(state: DeviceState, inputs: Inputs, log: Log) -> None:
    """The optional outputs the BOM lock and the BENCH rules read: GPUs, GID table, optics,
    kernel and CUDA versions."""
    if inputs.gpus is not None:
        read_gpus(state, inputs.gpus, log)
    if inputs.kernel is not None:
        read_kernel(state, inputs.kernel, log)
    if inputs.summary is not None:
        read_cuda(state, inputs.summary, log)
    if inputs.gids is not None:
        read_gids(state, inputs.gids, log)
    for hca, text in sorted(inputs.modules.items()):
        read_module(state, hca, text, log)


def _netdev_links(inputs: Inputs, log: Log) -> dict[str, NetdevLink]:
    """netdev -> its HCA port (first line wins when a netdev is listed twice)."""
    links: dict[str, NetdevLink] = {}
    if inputs.ibdev is not None:
        for link in parse_ibdev2netdev(inputs.ibdev, log):
            links.setdefault(link.netdev, link)
    return links


def _ibstat(inputs: Inputs, log: Log) -> dict[str, Sourced]:
    """CAs of every `ibstat` output (the first output naming a CA wins)."""
    found: dict[str, Sourced] = {}
    for text in inputs.ibstat:
        for name, hca in parse_ibstat(text, log).items():
            found.setdefault(name, (hca, text))
    return found


def _infiniband_only(parsed: Parsed) -> bool:
    """True when every HCA port shown is InfiniBand (no netdev MTU to read then)."""
    layers = [p.get("link_layer") for h in parsed.hcas.values() for p in h.ports.values()]
    layers += [p.get("Link layer") for h, _ in parsed.ibstat.values() for p in h.ports.values()]
    values = [strip_code(found.value).lower() for found in layers if found is not None]
    return bool(values) and all(v == "infiniband" for v in values)


def _check_devinfo_complete(inputs: Inputs, parsed: Parsed, log: Log) -> None:
    """The last HCA block of `ibv_devinfo -v` lacking a port that ibstat shows means a cut-off
    output (a timeout, a full disk): an input problem at its last line, not a guess. (An HCA
    ibstat alone shows is no sign of it: ibstat may come from elsewhere, and adds such HCAs.)"""
    devinfo = inputs.devinfo
    if devinfo is None or not parsed.hcas:
        return
    last = max(parsed.hcas.values(), key=lambda hca: hca.line)
    stat = parsed.ibstat.get(last.name)
    missing = sorted(set(stat[0].ports) - set(last.ports)) if stat is not None else []
    if missing:
        message = f"{last.name} has no port {missing[0]} although ibstat shows it: the output looks cut off"
        log.unparseable(devinfo, message, len(devinfo.lines) or None)
