"""Parser for Linux hosts with ConnectX NICs (RoCE or InfiniBand): raw command outputs -> DeviceState.

The command set is fixed (see docs/platforms/mlnx-host.md): `ibdev2netdev`, `ibv_devinfo -v`
and/or `ibstat`, `ip -d link show`, and per RDMA netdev / HCA `mlnx_qos -i IF`,
`grep -rH . /sys/class/net/IF/ecn`, `cma_roce_tos -d DEV -p PORT`, optionally `ethtool -i IF`.
Commands are recognised by pattern; keys the parser does not know are ignored. The line parsers
live in `verbs` (RDMA tools), `ib` (ibstat, InfiniBand ports), `linux` (ip link,
sysfs, ethtool) and `qos` (mlnx_qos). HCA ports without a netdev are `rdma["mlx5_0/1"]` (ib).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fabriclint.models.common import Located, Source
from fabriclint.models.ib import InfinibandState
from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState, Interface, QosConfig, RdmaPort
from fabriclint.parsers.kit.internal import never_raises
from fabriclint.parsers.kit.lines import At, Log, Text, checked, leading_int, strip_code
from fabriclint.parsers.mlnx_host.ib import (
    Sourced,
    address,
    apply_ibstat,
    devinfo_gid0,
    hca_ports,
    parse_ibstat,
    port_key,
)
from fabriclint.parsers.mlnx_host.linux import (
    Ecn,
    Link,
    parse_ecn,
    parse_ethtool_info,
    parse_ip_link,
)
from fabriclint.parsers.mlnx_host.nic_models import family
from fabriclint.parsers.mlnx_host.qos import parse_mlnx_qos
from fabriclint.parsers.mlnx_host.verbs import (
    DevPort,
    Hca,
    NetdevLink,
    lane_count,
    parse_devinfo,
    parse_ibdev2netdev,
    parse_roce_tos,
    port_rate,
    roce_tos_target,
)

DEVINFO = "ibv_devinfo -v"
IP_LINK = "ip -d link show"

_IBDEV2NETDEV = re.compile(r"^ibdev2netdev(?: -v)?$")
_DEVINFO = re.compile(r"^ibv_devinfo(?: -v| --verbose)?$")
_IP_LINK = re.compile(r"^ip (?:-d|-details) link(?: show)?$")
_MLNX_QOS = re.compile(r"^mlnx_qos -i ?(\S+)$")
_ECN = re.compile(r"^grep -\w+ \. /sys/class/net/([^/\s]+)/ecn/?$")
_ETHTOOL = re.compile(r"^ethtool -i (\S+)$")
_ROCE_TOS = re.compile(r"^cma_roce_tos\b")
_IBSTAT = re.compile(r"^ibstat(?: \S+)?$")


@dataclass
class _Inputs:
    """The recognised outputs of one host, by role."""

    ibdev: Text | None = None
    devinfo: Text | None = None
    iplink: Text | None = None
    qos: dict[str, Text] = field(default_factory=dict)
    ecn: dict[str, Text] = field(default_factory=dict)
    ethtool: dict[str, Text] = field(default_factory=dict)
    tos: dict[tuple[str, int], Text] = field(default_factory=dict)
    ibstat: list[Text] = field(default_factory=list)
    used: list[str] = field(default_factory=list)

    def add(self, cmd: str, text: Text) -> None:
        """File `text` under its role; unknown commands are left out."""
        norm = " ".join(cmd.split())
        for pattern, table in (
            (_MLNX_QOS, self.qos),
            (_ECN, self.ecn),
            (_ETHTOOL, self.ethtool),
        ):
            match = pattern.match(norm)
            if match is not None:
                table.setdefault(match.group(1), text)
                self.used.append(cmd)
                return
        self.add_single(cmd, norm, text)

    def add_single(self, cmd: str, norm: str, text: Text) -> None:
        target = roce_tos_target(norm) if _ROCE_TOS.match(norm) else None
        if target is not None:
            self.tos.setdefault(target, text)
        elif _IBDEV2NETDEV.match(norm) and self.ibdev is None:
            self.ibdev = text
        elif _DEVINFO.match(norm) and self.devinfo is None:
            self.devinfo = text
        elif _IP_LINK.match(norm) and self.iplink is None:
            self.iplink = text
        elif _IBSTAT.match(norm):
            self.ibstat.append(text)
        else:
            return
        self.used.append(cmd)


@dataclass
class _Parsed:
    """Everything read from the host-wide commands."""

    links: dict[str, NetdevLink]
    hcas: dict[str, Hca]
    iplinks: dict[str, Link]
    ibstat: dict[str, Sourced] = field(default_factory=dict)


@never_raises("mlnx-host", "mlnx-host")
def parse(raw: RawDevice) -> DeviceState:
    """Parse one ConnectX host. Pure; never raises: bad input becomes `problems`/`unparsed`."""
    state = DeviceState(name=raw.name, platform=raw.platform)
    inputs = _Inputs()
    log = Log()
    for cmd, out in sorted(raw.outputs.items()):
        inputs.add(cmd, checked(Text.of(cmd, out.file, out.text), log))
    state.inputs = sorted(inputs.used)
    if inputs.devinfo is None and not inputs.ibstat:
        log.missing(DEVINFO, "required output is missing")
    parsed = _Parsed(
        links=_netdev_links(inputs, log),
        hcas=parse_devinfo(inputs.devinfo, log) if inputs.devinfo else {},
        iplinks=parse_ip_link(inputs.iplink, log) if inputs.iplink else {},
        ibstat=_ibstat(inputs, log),
    )
    if inputs.iplink is None and not _infiniband_only(parsed):
        log.missing(IP_LINK, "required output is missing")
    for netdev in sorted(set(parsed.links) | set(inputs.qos) | set(inputs.ecn)):
        _add_netdev(state, netdev, inputs, parsed, log)
    _check_devinfo_complete(inputs, parsed, log)
    _add_unmapped_ports(state, inputs, parsed)
    _add_ib_addressing(state, inputs, parsed)
    _add_roce_tos(state, inputs, parsed, log)
    _set_os_version(state)
    state.unparsed, state.problems = log.unparsed, log.problems
    return state


def _netdev_links(inputs: _Inputs, log: Log) -> dict[str, NetdevLink]:
    """netdev -> its HCA port (first line wins when a netdev is listed twice)."""
    links: dict[str, NetdevLink] = {}
    if inputs.ibdev is not None:
        for link in parse_ibdev2netdev(inputs.ibdev, log):
            links.setdefault(link.netdev, link)
    return links


def _add_netdev(
    state: DeviceState, netdev: str, inputs: _Inputs, parsed: _Parsed, log: Log
) -> None:
    """The Interface (MTU, state, QoS) and the RdmaPort of one RDMA netdev."""
    qos: QosConfig | None = None
    qos_text = inputs.qos.get(netdev)
    if qos_text is not None:
        result = parse_mlnx_qos(qos_text, log)
        qos = result.qos
        for key, value in sorted(result.facts.items()):
            state.facts[f"{key}.{netdev}"] = value
    state.interfaces[netdev] = _interface(netdev, parsed.iplinks.get(netdev), inputs.iplink, qos)
    port = RdmaPort(netdev=netdev)
    link = parsed.links.get(netdev)
    if link is not None and inputs.ibdev is not None:
        port.hca, port.port = link.hca, link.port
        port.mark("", inputs.ibdev.src(link.line))
        _apply_devinfo(port, parsed.hcas.get(link.hca), inputs.devinfo)
        if link.hca in parsed.ibstat:
            apply_ibstat(port, parsed.ibstat[link.hca])
    ecn_text = inputs.ecn.get(netdev)
    if ecn_text is not None:
        _apply_ecn(port, parse_ecn(ecn_text, log), ecn_text)
    eth_text = inputs.ethtool.get(netdev)
    if eth_text is not None:
        _apply_ethtool(port, parse_ethtool_info(eth_text, log), eth_text)
    state.rdma[netdev] = port


def _ibstat(inputs: _Inputs, log: Log) -> dict[str, Sourced]:
    """CAs of every `ibstat` output (the first output naming a CA wins)."""
    found: dict[str, Sourced] = {}
    for text in inputs.ibstat:
        for name, hca in parse_ibstat(text, log).items():
            found.setdefault(name, (hca, text))
    return found


def _infiniband_only(parsed: _Parsed) -> bool:
    """True when every HCA port shown is InfiniBand (no netdev MTU to read then)."""
    layers = [p.get("link_layer") for h in parsed.hcas.values() for p in h.ports.values()]
    layers += [p.get("Link layer") for h, _ in parsed.ibstat.values() for p in h.ports.values()]
    values = [strip_code(found.value).lower() for found in layers if found is not None]
    return bool(values) and all(v == "infiniband" for v in values)


def _add_unmapped_ports(state: DeviceState, inputs: _Inputs, parsed: _Parsed) -> None:
    """HCA ports that no netdev sits on, as rdma["<hca>/<port>"]."""
    mapped = {(link.hca, link.port) for link in parsed.links.values()}
    for hca, number in hca_ports(parsed.hcas, parsed.ibstat):
        if (hca, number) in mapped:
            continue
        port = RdmaPort(netdev=port_key(hca, number), hca=hca, port=number)
        _apply_devinfo(port, parsed.hcas.get(hca), inputs.devinfo)
        stat = parsed.ibstat.get(hca)
        if stat is not None:
            apply_ibstat(port, stat)
        source = _port_source(hca, number, inputs, parsed)
        if source is not None:
            port.mark("", source)
        state.rdma[port.netdev] = port


def _port_source(hca: str, number: int, inputs: _Inputs, parsed: _Parsed) -> Source | None:
    """Where HCA port `number` is shown: its `ibv_devinfo -v` block, else its `ibstat` block."""
    block, devinfo = parsed.hcas.get(hca), inputs.devinfo
    if block is not None and devinfo is not None and number in block.ports:
        return devinfo.src(block.ports[number].line)
    stat = parsed.ibstat.get(hca)
    if stat is not None and number in stat[0].ports:
        return stat[1].src(stat[0].ports[number].line)
    return None


def _check_devinfo_complete(inputs: _Inputs, parsed: _Parsed, log: Log) -> None:
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


def _add_ib_addressing(state: DeviceState, inputs: _Inputs, parsed: _Parsed) -> None:
    """GUIDs and LIDs of the InfiniBand ports (state.infiniband.hca_ports)."""
    gids = devinfo_gid0(inputs.devinfo)
    found = {}
    for key, port in sorted(state.rdma.items()):
        if (port.link_layer or "").lower() != "infiniband" or port.hca is None:
            continue
        dev = parsed.hcas.get(port.hca)
        dev_sourced = (dev, inputs.devinfo) if dev is not None and inputs.devinfo else None
        found[key] = address(port, dev_sourced, parsed.ibstat.get(port.hca), gids)
    if found:
        state.infiniband = InfinibandState(hca_ports=found)


def _interface(
    netdev: str, link: Link | None, text: Text | None, qos: QosConfig | None
) -> Interface:
    iface = Interface(name=netdev, qos=qos)
    if link is None or text is None:
        return iface
    src = text.src(link.line)
    iface.mark("", src)
    _put(iface, "mtu", link.mtu, src)
    _put(iface, "admin_up", link.admin_up, src)
    _put(iface, "oper_up", link.oper_up, src)
    return iface


def _put(obj: Located, key: str, value: object, source: Source) -> None:
    """Set a field and remember its source; None leaves the field unset."""
    if value is None:
        return
    setattr(obj, key, value)
    obj.mark(key, source)


def _apply_devinfo(port: RdmaPort, hca: Hca | None, text: Text | None) -> None:
    if hca is None or text is None:
        return
    fw = hca.get("fw_ver")
    if fw is not None and fw.value:
        _put(port, "firmware", fw.value, text.src(fw.line))
    # The PCI device id names the family; board_id is a PSID (the board): placed by the
    # firmware major when the id is missing (mlnx_host/nic_models.py), kept as printed otherwise.
    board, part = hca.get("board_id"), hca.get("vendor_part_id")
    firmware = fw.value if fw is not None else None
    if part is not None and part.value:
        _put(port, "model", family(f"MT{part.value}", firmware), text.src(part.line))
    elif board is not None and board.value:
        _put(port, "model", family(board.value, firmware), text.src(board.line))
    dev_port = hca.ports.get(port.port)
    if dev_port is not None:
        _apply_devinfo_port(port, dev_port, text)


def _apply_devinfo_port(port: RdmaPort, dev_port: DevPort, text: Text) -> None:
    for key in ("state", "phys_state", "link_layer"):
        found = dev_port.get(key)
        if found is not None:
            _put(port, key, strip_code(found.value), text.src(found.line))
    mtu = dev_port.get("active_mtu")
    if mtu is not None:
        _put(port, "active_mtu", leading_int(mtu.value), text.src(mtu.line))
    width = dev_port.get("active_width")
    lanes = lane_count(width.value) if width else None
    if width is not None and lanes is not None:
        _put(port, "width", f"{lanes}X", text.src(width.line))
    speed = dev_port.get("active_speed")
    if speed is not None:
        _put(port, "rate_gbps", port_rate(dev_port), text.src(speed.line))


def _apply_ecn(port: RdmaPort, ecn: Ecn, text: Text) -> None:
    for name, table, target in (("ecn_np", ecn.np, port.ecn_np), ("ecn_rp", ecn.rp, port.ecn_rp)):
        for prio, at in sorted(table.items()):
            target[prio] = at.value
            port.mark(f"{name}.{prio}", text.src(at.line))
    for key, found in (("cnp_dscp", ecn.cnp_dscp), ("cnp_priority", ecn.cnp_priority)):
        if found is not None:
            _put(port, key, found.value, text.src(found.line))


def _apply_ethtool(port: RdmaPort, fields: dict[str, At[str]], text: Text) -> None:
    version = fields.get("version")
    if version is not None and version.value:
        _put(port, "driver", version.value, text.src(version.line))
    firmware = fields.get("firmware-version")
    if port.firmware is None and firmware is not None and firmware.value.split():
        _put(port, "firmware", firmware.value.split()[0], text.src(firmware.line))


def _add_roce_tos(state: DeviceState, inputs: _Inputs, parsed: _Parsed, log: Log) -> None:
    """cma_roce_tos is per HCA port; attach it to the netdev ibdev2netdev names for that port."""
    by_port = {(link.hca, link.port): netdev for netdev, link in parsed.links.items()}
    for target, text in sorted(inputs.tos.items()):
        tos = parse_roce_tos(text, log)
        if tos is None:
            continue
        netdev = by_port.get(target)
        if netdev is None or netdev not in state.rdma:
            hca, num = target
            log.unmodeled(text, tos.line, f"{hca} port {num} has no netdev in ibdev2netdev")
            continue
        _put(state.rdma[netdev], "roce_tos", tos.value, text.src(tos.line))


def _set_os_version(state: DeviceState) -> None:
    """A host's os_version is its NIC driver version (the first netdev that shows one)."""
    for netdev in sorted(state.rdma):
        port = state.rdma[netdev]
        if port.driver is not None:
            state.os_version = port.driver
            state.mark("os_version", port.sources.get("driver"))
            return
