"""InfiniBand side of the mlnx-host parser: `ibstat`, HCA ports without a netdev, IB addressing.

`ibstat` (infiniband-diags; indentation is tabs):

    CA 'mlx5_0'
        CA type: MT4129
        Number of ports: 1
        Firmware version: 28.39.1002
        Node GUID: 0x946dae0300cde72c
        Port 1:
            State: Active
            Physical state: LinkUp
            Rate: 400
            Base lid: 75
            LMC: 0
            SM lid: 334
            Port GUID: 0x946dae0300cde72c
            Link layer: InfiniBand

An HCA port that `ibdev2netdev` maps to no netdev (an InfiniBand port without IPoIB, or any port
when only `ibstat` was collected) is modeled as `rdma["<hca>/<port>"]`, e.g. `rdma["mlx5_0/1"]`.
`ibv_devinfo -v` wins over `ibstat` where both print a fact; `ibstat` fills what devinfo lacks.

Cut-off outputs: a CA with fewer `Port N:` blocks than its `Number of ports` (or with neither), a port block
without `State` or `Link layer` (its last line), or a `Link layer` cut mid-word (it is
`InfiniBand` or `Ethernet`) was cut. A cut exactly between two CA blocks is told by an HCA that
`ibv_devinfo` shows and a plain `ibstat` does not (mlnx_host/whole.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from fabriclint.models.common import Located, Source
from fabriclint.models.ib import HcaPort
from fabriclint.models.state import RdmaPort
from fabriclint.parsers.kit.lines import At, Log, Text, key_value, leading_int, strip_code
from fabriclint.parsers.mlnx_host.verbs import DevPort, Hca
from fabriclint.platforms.mlnx_models import family

_CA = re.compile(r"^CA '([^']+)'\s*$")
_PORT = re.compile(r"^\s*Port (\d+):\s*$")
_GID0 = re.compile(r"^\s*GID\[\s*0\]:\s*([0-9a-fA-F:]+)")
_IBSTAT_FIELDS = {  # RdmaPort field -> ibstat port key
    "state": "State",
    "phys_state": "Physical state",
    "link_layer": "Link layer",
}

LINK_LAYERS = frozenset({"InfiniBand", "Ethernet", "Unknown", "IB"})
"""What ibstat prints as a port's `Link layer` (infiniband-diags `ibstat.c` prints the port's
sysfs `link_layer`: the kernel writes `InfiniBand`, `Ethernet` or `Unknown` (a device of no
link layer, as AWS EFA), and libibumad puts `IB` where the file is absent). None is the start
of another, so a value cut mid-word is still none of them."""

Sourced = tuple[Hca, Text]
"""An HCA block and the output it was read from."""


def port_key(hca: str, port: int) -> str:
    """Name of an HCA port that has no netdev: `mlx5_0/1`."""
    return f"{hca}/{port}"


def parse_ibstat(text: Text, log: Log) -> dict[str, Hca]:
    """CAs by name, with their ports; problems for garbage and for truncated blocks."""
    hcas: dict[str, Hca] = {}
    hca: Hca | None = None
    port: DevPort | None = None
    for num, line in text.numbered():
        ca, number = _CA.match(line), _PORT.match(line)
        if ca is not None:
            hca, port = Hca(name=ca.group(1), line=num), None
            hcas[hca.name] = hca
        elif hca is not None and number is not None:
            port = DevPort(number=int(number.group(1)), line=num)
            hca.ports[port.number] = port
        elif hca is not None and (pair := key_value(line)) is not None:
            (port.attrs if port else hca.attrs).setdefault(pair[0], At(pair[1], num))
    if not hcas and not text.is_blank():
        where, first = text.first_text()
        log.unparseable(text, f"no \"CA '<name>'\" block (first line: {first!r})", where)
    for found in hcas.values():
        _check_complete(text, found, log)
    return hcas


def _check_complete(text: Text, hca: Hca, log: Log) -> None:
    count = hca.get("Number of ports")
    expected = leading_int(count.value) if count else None
    if count is None and not hca.ports:  # ibstat prints it before the first port block
        message = f"output truncated: {hca.name} has no 'Number of ports' and no port"
        log.unparseable(text, message, len(text.lines))
        return
    if expected is not None and len(hca.ports) < expected:
        message = f"output truncated: {hca.name} has {expected} port(s), {len(hca.ports)} printed"
        log.unparseable(text, message, len(text.lines))
        return
    for port in hca.ports.values():
        layer = port.get("Link layer")
        if port.get("State") is None or layer is None:
            log.unparseable(text, f"output truncated: {hca.name} port {port.number}", port.line)
        elif layer.value.strip() not in LINK_LAYERS:
            message = f"output truncated: {hca.name} port {port.number} link layer {layer.value!r}"
            log.unparseable(text, message, layer.line)


def _put(obj: Located, key: str, value: object, source: Source) -> None:
    if value is None or getattr(obj, key) is not None:
        return  # devinfo (applied first) wins
    setattr(obj, key, value)
    obj.mark(key, source)


def apply_ibstat(port: RdmaPort, found: Sourced) -> None:
    """Fill the facts `ibv_devinfo` did not give from `ibstat`."""
    hca, text = found
    ca_port = hca.ports.get(port.port)
    firmware, ca_type = hca.get("Firmware version"), hca.get("CA type")
    if firmware is not None and firmware.value:
        _put(port, "firmware", firmware.value, text.src(firmware.line))
    if ca_type is not None and ca_type.value:  # `MT4129`: the family, as ibv_devinfo's id gives
        model = family(ca_type.value, firmware.value if firmware else None)
        _put(port, "model", model, text.src(ca_type.line))
    if ca_port is None:
        return
    for key, name in _IBSTAT_FIELDS.items():
        value = ca_port.get(name)
        if value is not None:
            _put(port, key, strip_code(value.value), text.src(value.line))
    rate = ca_port.get("Rate")
    if rate is not None:
        _put(port, "rate_gbps", _float(rate.value), text.src(rate.line))


def _float(value: str) -> float | None:
    match = re.match(r"\s*(\d+(?:\.\d+)?)", value)
    return float(match.group(1)) if match else None


def hca_ports(devinfo: dict[str, Hca], ibstat: dict[str, Sourced]) -> Iterator[tuple[str, int]]:
    """Every (HCA, port) either output shows, in name order."""
    seen = {(h.name, p) for h in devinfo.values() for p in h.ports}
    seen |= {(h.name, p) for h, _ in ibstat.values() for p in h.ports}
    yield from sorted(seen)


# ---- addressing (InfinibandState.hca_ports) ------------------------------------------------------


def guid(value: str | None) -> str | None:
    """`0x946dae0300cde72c` or `946d:ae03:00cd:e72c` -> 0x + 16 hex digits; None if neither."""
    if not value:
        return None
    digits = value.strip().lower().removeprefix("0x").replace(":", "")
    if not re.fullmatch(r"[0-9a-f]{1,16}", digits):
        return None
    return f"0x{int(digits, 16):016x}"


def address(
    port: RdmaPort, dev: Sourced | None, stat: Sourced | None, gids: dict[tuple[str, int], str]
) -> HcaPort:
    """IB addressing of one HCA port: ibstat first (it prints the port GUID), then devinfo."""
    info = HcaPort(hca=port.hca or "", port=port.port, source=port.src())
    if stat is not None:
        _address_from(info, stat, ("Port GUID", "Node GUID", "Base lid", "SM lid", "LMC"))
    if dev is not None:
        _address_from(info, dev, ("", "node_guid", "port_lid", "sm_lid", "port_lmc"))
    if info.port_guid is None:
        info.port_guid = guid(gids.get((info.hca, info.port), "")[-19:])
    return info


def _address_from(info: HcaPort, found: Sourced, names: tuple[str, ...]) -> None:
    hca, _ = found
    ca_port = hca.ports.get(info.port)
    attrs = dict(ca_port.attrs) if ca_port else {}
    node = hca.get(names[1])
    values = {
        "port_guid": guid(attrs[names[0]].value) if names[0] in attrs else None,
        "node_guid": guid(node.value) if node else None,
        "base_lid": _int(attrs.get(names[2])),
        "sm_lid": _int(attrs.get(names[3])),
        "lmc": _int(attrs.get(names[4])),
    }
    for key, value in values.items():
        if getattr(info, key) is None and value is not None:
            setattr(info, key, value)


def _int(found: At[str] | None) -> int | None:
    if found is None:
        return None
    text = found.value.split()[0] if found.value.split() else ""
    try:
        return int(text, 0)
    except ValueError:
        return None


def devinfo_gid0(text: Text | None) -> dict[tuple[str, int], str]:
    """GID[0] of each (HCA, port) in `ibv_devinfo -v`: an IB port's GUID is its low 64 bits."""
    out: dict[tuple[str, int], str] = {}
    hca, port = "", 0
    for _, line in text.numbered() if text else ():
        pair = key_value(line)
        if pair is not None and pair[0] in ("hca_id", "port"):
            hca, port = (pair[1], 0) if pair[0] == "hca_id" else (hca, leading_int(pair[1]) or 0)
        gid = _GID0.match(line)
        if gid is not None and hca and port:
            out.setdefault((hca, port), gid.group(1))
    return out
