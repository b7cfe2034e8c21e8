"""RDMA-side inputs of the mlnx-host parser: `ibdev2netdev`, `ibv_devinfo -v`, `cma_roce_tos`.

Formats (rdma-core `libibverbs/examples/devinfo.c`, mlnx-tools `ibdev2netdev` and
`cma_roce_tos`); in `ibv_devinfo` the indentation and the gap after each key are tabs:

    mlx5_0 port 1 ==> ens1np0 (Up)                        ibdev2netdev
    0000:17:00.0 mlx5_0 (MT4129 - ...) ... fw 28.39.1002 port 1 (ACTIVE) ==> ens1np0 (Up)   (-v)
    mlx5_0 port 1 <===> eth2                              (old style)

    hca_id: mlx5_0                                        ibv_devinfo -v
        fw_ver:                 28.39.1002
            port:   1
                state:                  PORT_ACTIVE (4)
                active_width:           4X (2)
                active_speed:           100.0 Gbps (128)

    106                                                   cma_roce_tos (cat of default_roce_tos)

Cut-off outputs: an `ibv_devinfo` HCA with fewer ports than `phys_port_cnt`, a port without
`state`/`link_layer`, or a `state`/`link_layer` value cut mid-word; an `ibdev2netdev` whose last
line is no whole `... ==> netdev (State)` line. A cut exactly between two blocks or lines is told
by the other outputs (mlnx_host/whole.py): an HCA ibdev2netdev links that devinfo does not show,
an Ethernet port devinfo shows that ibdev2netdev does not link. `cma_roce_tos` prints one number:
a cut inside it (`106` -> `10`) cannot be told.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fabriclint.parsers.kit.common import is_digits
from fabriclint.parsers.kit.lines import At, Log, Text, key_value, leading_int
from fabriclint.parsers.kit.whole import last_line

_PCI_PREFIX = re.compile(r"^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d+\s+(\S+)")
_ARROW = re.compile(r"(?:==>|<===>)\s*([^\s(]+)")
_PORT = re.compile(r"\bport\s+(\d+)\b")
_WIDTH = re.compile(r"^\s*(\d+)X\b")
_SPEED = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*Gbps\b")
_STATE_SUFFIX = re.compile(r"\(\w+\)\s*$")
_PORT_STATE = re.compile(r"^\s*PORT_[A-Z_]+ \(\d+\)\s*$")
"""`PORT_ACTIVE (4)`: devinfo prints the name and its number (`devinfo.c`, port_state_str)."""
_LINK_LAYERS = frozenset({"InfiniBand", "Ethernet", "Unknown"})


@dataclass(frozen=True)
class NetdevLink:
    """One `ibdev2netdev` line: an HCA port and the netdev on top of it."""

    hca: str
    port: int
    netdev: str
    line: int


@dataclass
class DevPort:
    """One `port:` block of `ibv_devinfo`: its attributes as written, with line numbers."""

    number: int
    line: int
    attrs: dict[str, At[str]] = field(default_factory=dict)

    def get(self, key: str) -> At[str] | None:
        """The attribute `key`, if printed."""
        return self.attrs.get(key)


@dataclass
class Hca:
    """One `hca_id:` block of `ibv_devinfo`."""

    name: str
    line: int
    attrs: dict[str, At[str]] = field(default_factory=dict)
    ports: dict[int, DevPort] = field(default_factory=dict)

    def get(self, key: str) -> At[str] | None:
        """The device attribute `key`, if printed."""
        return self.attrs.get(key)


def parse_ibdev2netdev(text: Text, log: Log) -> list[NetdevLink]:
    """HCA port -> netdev links, in output order."""
    links: list[NetdevLink] = []
    for num, line in text.numbered():
        link = _link(line, num)
        if link is not None:
            links.append(link)
    if not links and not text.is_blank():
        where, first = text.first_text()
        message = f"no 'HCA port N ==> netdev' line (first line: {first!r})"
        log.unparseable(text, message, where)
    elif links:
        _check_last_link(text, links[-1], log)
    return links


def _check_last_link(text: Text, last: NetdevLink, log: Log) -> None:
    """ibdev2netdev prints only link lines, each `==>` one ending in the netdev's `(State)`; an
    old-style `<===>` line has no state (and holds `==>` within its arrow)."""
    number, line = last_line("\n".join(text.lines))
    new_style = "==>" in line.replace("<===>", "")
    if number == last.line and (not new_style or _STATE_SUFFIX.search(line)):
        return
    log.unparseable(text, f"output truncated: line {number} ({line.strip()[:60]!r})", number)


def _link(line: str, num: int) -> NetdevLink | None:
    arrow = _ARROW.search(line)
    if arrow is None:
        return None
    before = line[: arrow.start()]
    ports = _PORT.findall(before)
    pci = _PCI_PREFIX.match(before)
    tokens = before.split()
    hca = pci.group(1) if pci else (tokens[0] if tokens else "")
    if not ports or not hca or hca == "port":
        return None
    return NetdevLink(hca=hca, port=int(ports[-1]), netdev=arrow.group(1), line=num)


def parse_devinfo(text: Text, log: Log) -> dict[str, Hca]:
    """HCAs by name, with their ports; problems for garbage and for truncated blocks."""
    hcas: dict[str, Hca] = {}
    hca: Hca | None = None
    port: DevPort | None = None
    for num, line in text.numbered():
        pair = key_value(line)
        if pair is None:
            continue
        key, value = pair
        if key == "hca_id":
            hca, port = Hca(name=value, line=num), None
            hcas[value] = hca
        elif hca is None:
            continue
        elif key == "port" and is_digits(value):
            port = DevPort(number=int(value), line=num)
            hca.ports[port.number] = port
        else:
            (port.attrs if port else hca.attrs).setdefault(key, At(value, num))
    if not hcas:
        where, first = text.first_text()
        log.unparseable(text, f"no 'hca_id:' block (first line: {first!r})", where)
    for found in hcas.values():
        _check_complete(text, found, log)
    return hcas


def _check_complete(text: Text, hca: Hca, log: Log) -> None:
    """A block with fewer ports than phys_port_cnt, or a port without state, was cut short."""
    count = hca.get("phys_port_cnt")
    expected = leading_int(count.value) if count else None
    last = len(text.lines)
    if expected is not None and len(hca.ports) < expected:
        log.unparseable(
            text,
            f"output truncated: {hca.name} has {expected} port(s), {len(hca.ports)} printed",
            last,
        )
        return
    for port in hca.ports.values():
        state, layer = port.get("state"), port.get("link_layer")
        if state is None or layer is None:
            log.unparseable(text, f"output truncated: {hca.name} port {port.number}", port.line)
        elif _PORT_STATE.match(state.value) is None or layer.value.strip() not in _LINK_LAYERS:
            value = state if _PORT_STATE.match(state.value) is None else layer
            message = f"output truncated: {hca.name} port {port.number} {value.value!r}"
            log.unparseable(text, message, value.line)


def lane_count(width: str) -> int | None:
    """Lanes of an `active_width` value: '4X (2)' -> 4; None for 'invalid width'."""
    match = _WIDTH.match(width)
    return int(match.group(1)) if match else None


def lane_gbps(speed: str) -> float | None:
    """Per-lane rate of an `active_speed` value: '100.0 Gbps (128)' -> 100.0."""
    match = _SPEED.match(speed)
    return float(match.group(1)) if match else None


def port_rate(port: DevPort) -> float | None:
    """Link rate in Gb/s: lanes x per-lane speed (4X x 100.0 Gbps = 400)."""
    width, speed = port.get("active_width"), port.get("active_speed")
    if width is None or speed is None:
        return None
    lanes, per_lane = lane_count(width.value), lane_gbps(speed.value)
    if lanes is None or per_lane is None:
        return None
    return round(lanes * per_lane, 3)


def roce_tos_target(cmd: str) -> tuple[str, int] | None:
    """(HCA, port) a `cma_roce_tos -d DEV [-p PORT]` command reads; port defaults to 1."""
    dev = re.search(r"(?:^|\s)-d\s*(\S+)", cmd)
    if dev is None:
        return None
    port = re.search(r"(?:^|\s)-p\s*(\d+)", cmd)
    return dev.group(1), int(port.group(1)) if port else 1


def parse_roce_tos(text: Text, log: Log) -> At[int] | None:
    """The ToS: the integer alone on the last non-empty line (the script's `cat`)."""
    for num in range(len(text.lines), 0, -1):
        line = text.lines[num - 1].strip()
        if not line:
            continue
        if re.fullmatch(r"\d+", line):
            return At(int(line), num)
        log.unparseable(text, f"expected the default RoCE ToS as an integer, got {line!r}", num)
        return None
    return None
