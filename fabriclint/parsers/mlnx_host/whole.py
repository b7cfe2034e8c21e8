"""Cut-off host outputs that only the other outputs of the same host can tell.

A host's outputs describe the same HCAs and netdevs, collected in one session: an output cut
exactly between two of its blocks (an `ip link` entry, an `ibv_devinfo` HCA, an `ibdev2netdev`
line, an `ibstat` CA) is still well formed, but it lacks what every other output shows. Each
check below names what is missing and where the short output stops (PARSE003 at its last line),
so the host is incomplete instead of being judged on the part that was read:

- an HCA `ibdev2netdev` links to a netdev that `ibv_devinfo` does not show (both list every RDMA
  device of the host, from /sys/class/infiniband);
- an Ethernet HCA port `ibv_devinfo` shows that `ibdev2netdev` does not link (a RoCE port always
  has its netdev);
- a netdev that `ibdev2netdev` links, or that an `mlnx_qos -i` output was collected for, missing
  from `ip -d link show` (which lists every netdev);
- an HCA `ibv_devinfo` shows that a plain `ibstat` (all CAs) does not. The other way round is no
  sign: an HCA only ibstat shows may come from another ibstat output, and ibstat then describes
  it (see `_check_devinfo_complete` in the package).
"""

from __future__ import annotations

from fabriclint.parsers.kit.lines import Log, Text, strip_code
from fabriclint.parsers.mlnx_host.draft import Inputs, Parsed


def check_across(inputs: Inputs, parsed: Parsed, log: Log) -> None:
    """Record one problem per output that lacks what the host's other outputs show."""
    _devinfo_lacks_linked_hca(inputs, parsed, log)
    _ibdev_lacks_ethernet_port(inputs, parsed, log)
    _iplink_lacks_netdev(inputs, parsed, log)
    _ibstat_lacks_hca(inputs, parsed, log)


def _cut(text: Text, log: Log, what: str) -> None:
    """The problem "output truncated: WHAT" at `text`'s last non-blank line."""
    last = max((n for n, line in text.numbered() if line.strip()), default=None)
    log.unparseable(text, f"output truncated: {what}", last)


def _devinfo_lacks_linked_hca(inputs: Inputs, parsed: Parsed, log: Log) -> None:
    if inputs.devinfo is None or inputs.ibdev is None or not parsed.hcas:
        return
    missing = sorted({link.hca for link in parsed.links.values()} - set(parsed.hcas))
    if missing:
        what = f"no {missing[0]}, which ibdev2netdev links to a netdev"
        _cut(inputs.devinfo, log, what)


def _ibdev_lacks_ethernet_port(inputs: Inputs, parsed: Parsed, log: Log) -> None:
    if inputs.ibdev is None or not parsed.links:
        return
    linked = {(link.hca, link.port) for link in parsed.links.values()}
    for hca in sorted(parsed.hcas.values(), key=lambda found: found.line):
        for number, port in sorted(hca.ports.items()):
            layer = port.get("link_layer")
            ethernet = layer is not None and strip_code(layer.value) == "Ethernet"
            if ethernet and (hca.name, number) not in linked:
                what = f"no line for {hca.name} port {number}, an Ethernet port ibv_devinfo shows"
                _cut(inputs.ibdev, log, what)
                return


def _iplink_lacks_netdev(inputs: Inputs, parsed: Parsed, log: Log) -> None:
    if inputs.iplink is None or not parsed.iplinks:
        return
    named = {link.netdev: "ibdev2netdev links it" for link in parsed.links.values()}
    named |= {netdev: "mlnx_qos was collected for it" for netdev in inputs.qos}
    missing = sorted(set(named) - set(parsed.iplinks))
    if missing:
        _cut(inputs.iplink, log, f"no entry for {missing[0]} ({named[missing[0]]})")


def _ibstat_lacks_hca(inputs: Inputs, parsed: Parsed, log: Log) -> None:
    plain = [text for text in inputs.ibstat if text.cmd.strip() == "ibstat"]
    if len(plain) != 1 or len(inputs.ibstat) != 1 or not parsed.ibstat or not parsed.hcas:
        return
    missing = sorted(set(parsed.hcas) - set(parsed.ibstat))
    if missing:
        _cut(plain[0], log, f"no CA '{missing[0]}', which ibv_devinfo shows")
