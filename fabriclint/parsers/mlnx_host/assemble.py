"""Assemble the DeviceState of a ConnectX host: an Interface and an RdmaPort per RDMA netdev,
the HCA ports without one, InfiniBand addressing, cma_roce_tos, the driver as os_version."""

from __future__ import annotations

from fabriclint.models.common import Located, Source
from fabriclint.models.ib import InfinibandState
from fabriclint.models.state import DeviceState, Interface, QosConfig, RdmaPort
from fabriclint.parsers.kit.lines import At, Log, Text, leading_int, strip_code
from fabriclint.parsers.mlnx_host.draft import Inputs, Parsed
from fabriclint.parsers.mlnx_host.ib import address, apply_ibstat, devinfo_gid0, hca_ports, port_key
from fabriclint.parsers.mlnx_host.linux import Ecn, Link, parse_ecn, parse_ethtool_info
from fabriclint.parsers.mlnx_host.qos import parse_mlnx_qos
from fabriclint.parsers.mlnx_host.verbs import DevPort, Hca, lane_count, parse_roce_tos, port_rate
from fabriclint.platforms.mlnx_models import family


def add_netdev(state: DeviceState, netdev: str, inputs: Inputs, parsed: Parsed, log: Log) -> None:
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


def add_unmapped_ports(state: DeviceState, inputs: Inputs, parsed: Parsed) -> None:
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


def _port_source(hca: str, number: int, inputs: Inputs, parsed: Parsed) -> Source | None:
    """Where HCA port `number` is shown: its `ibv_devinfo -v` block, else its `ibstat` block."""
    block, devinfo = parsed.hcas.get(hca), inputs.devinfo
    if block is not None and devinfo is not None and number in block.ports:
        return devinfo.src(block.ports[number].line)
    stat = parsed.ibstat.get(hca)
    if stat is not None and number in stat[0].ports:
        return stat[1].src(stat[0].ports[number].line)
    return None


def add_ib_addressing(state: DeviceState, inputs: Inputs, parsed: Parsed) -> None:
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
    if board is not None and board.value:
        _put(port, "psid", board.value, text.src(board.line))
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


def add_roce_tos(state: DeviceState, inputs: Inputs, parsed: Parsed, log: Log) -> None:
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


def set_os_version(state: DeviceState) -> None:
    """A host's os_version is its NIC driver version (the first netdev that shows one)."""
    for netdev in sorted(state.rdma):
        port = state.rdma[netdev]
        if port.driver is not None:
            state.os_version = port.driver
            state.mark("os_version", port.sources.get("driver"))
            return
