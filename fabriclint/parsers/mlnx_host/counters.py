"""Counters of a Linux host with ConnectX NICs: `ethtool -S IF` and the RDMA sysfs counters.

`ethtool -S IF` (mlx5) prints `name: value` lines. The per-priority pause counters
(`rx_prioN_pause`, `tx_prioN_pause`, `*_pause_duration` in microseconds, `rx_prioN_pause_transition`)
exist only for priorities with PFC enabled, so their absence is kept as absence. Source: the
kernel's mlx5 counters documentation
(Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst, "Priority Port
Counters" and "Physical Port Counters").

`grep -rH . /sys/class/infiniband/HCA/ports/N/hw_counters` (and `.../counters`) prints
`PATH:value` lines; the file name is the counter (`np_cnp_sent`, `rp_cnp_ignored`,
`out_of_sequence`, ...). mlx5's transport "Q counters" are 32-bit, its congestion (DCQCN)
counters 64-bit (kernel drivers/infiniband/hw/mlx5/counters.c reads the latter as high/low pairs).
"""

from __future__ import annotations

import re

from fabriclint.models.counters import Counter, DeviceCounters, Width
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.parsers.kit.counters import Builder, NotACount, count, ethtool_cut, lines
from fabriclint.parsers.kit.internal import counters_never_raise
from fabriclint.parsers.kit.whole import last_line
from fabriclint.platforms.base import pattern
from fabriclint.platforms.mlnx_host import ETHTOOL_STATS, HW_COUNTERS, IBDEV2NETDEV, PORT_COUNTERS

_ETHTOOL_KEY = pattern(ETHTOOL_STATS)
_SYSFS_KEYS = (pattern(HW_COUNTERS), pattern(PORT_COUNTERS))

_PRIO = re.compile(
    r"^(rx|tx)_prio([0-7])_(pause|pause_duration|pause_transition|buf_discard|cong_discard"
    r"|discards|marked)$"
)
_PRIO_FIELD = {
    ("rx", "pause"): "rx_pause",
    ("tx", "pause"): "tx_pause",
    ("rx", "pause_duration"): "rx_pause_duration_us",
    ("tx", "pause_duration"): "tx_pause_duration_us",
    ("rx", "pause_transition"): "rx_pause_transitions",
    ("rx", "marked"): "ecn_marked",
    ("rx", "buf_discard"): "drops.buf_discard",
    ("rx", "cong_discard"): "drops.cong_discard",
    ("rx", "discards"): "drops.discards",
}
_PORT_FIELD = {
    "tx_pause_storm_warning_events": "storm_warning",
    "tx_pause_storm_error_events": "storm_error",
    "rx_discards_phy": "drops.rx_discards_phy",
    "rx_out_of_buffer": "drops.rx_out_of_buffer",
}
_ETHTOOL_LINE = re.compile(r"^\s*([A-Za-z0-9_.\[\]-]+):\s*(\S*)\s*$")

Q_COUNTERS_32 = frozenset(
    {
        "out_of_sequence",
        "out_of_buffer",
        "packet_seq_err",
        "local_ack_timeout_err",
        "duplicate_request",
        "rnr_nak_retry_err",
        "implied_nak_seq_err",
        "resp_local_length_error",
        "resp_cqe_error",
        "req_cqe_error",
        "req_remote_invalid_request",
        "req_remote_access_errors",
        "resp_remote_access_errors",
        "resp_cqe_flush_error",
        "req_cqe_flush_error",
        "roce_adp_retrans",
        "roce_adp_retrans_to",
        "roce_slow_restart",
        "roce_slow_restart_cnps",
        "roce_slow_restart_trans",
        "rx_write_requests",
        "rx_read_requests",
        "rx_atomic_requests",
    }
)
"""mlx5 Q counters (32-bit in the device); every other hw_counter is read as 64-bit."""
_NOT_COUNTERS = frozenset({"lifespan"})
"""Files in hw_counters that are settings, not counts (`lifespan`: the cache time in ms)."""
_SYSFS_LINE = re.compile(
    r"^/sys/class/infiniband/([A-Za-z0-9][A-Za-z0-9_.-]{0,31})/ports/([0-9]{1,2})/"
    r"(?:hw_counters|counters)/([A-Za-z0-9_]+):(.*)$"
)


def netdevs(raw: RawDevice) -> dict[tuple[str, int], str]:
    """(HCA, port) -> netdev from `ibdev2netdev` when collected (`mlx5_0 port 1 ==> ens1np0`)."""
    out: dict[tuple[str, int], str] = {}
    text = raw.outputs.get(IBDEV2NETDEV)
    for _n, line in lines(text.text if text else ""):
        found = re.match(r"^\s*(\S+) port ([0-9]{1,2}) (?:==>|<===>) (\S+)", line)
        if found:
            out[(found[1], int(found[2]))] = found[3]
    return out


def read_ethtool(builder: Builder, netdev: str, output: RawOutput) -> None:
    """Per-priority and port counters of one netdev from `ethtool -S`. An output cut short
    (its last line no whole counter line: kit/counters.py `ethtool_cut`) is a problem at that
    line; a counter fabriclint reads printed without a value (ethtool prints a count after every
    name) is one at its line, never an absent counter."""
    cut = ethtool_cut(output, ETHTOOL_STATS.format(netdev=netdev))
    if cut is not None:
        builder.problems.append(cut)
    seen = False
    for number, line in lines(output.text):
        match = _ETHTOOL_LINE.match(line)
        if match is None:
            continue
        name, token = match[1], match[2]
        target = _target(name)
        if target is None:
            seen = seen or token.isdigit()
            continue
        if not token:
            if cut is None or cut.source is None or cut.source.line != number:
                builder.problem(f"{name} is printed without a value", output.file, number)
            continue
        try:
            value = count(token)
        except NotACount as exc:
            builder.problem(f"{name}: {exc}", output.file, number)
            continue
        seen = True
        if value is not None:
            _store(builder, netdev, target, builder.counter(value, output.file, number))
    if not seen and cut is None and output.text.strip():
        builder.problem("no `name: value` counter line in this `ethtool -S` output", output.file, 1)


def _target(name: str) -> tuple[int | None, str] | None:
    """(priority or None for the port, field) of an mlx5 counter name fabriclint models."""
    prio = _PRIO.match(name)
    if prio:
        key = _PRIO_FIELD.get((prio[1], prio[3]))
        return (int(prio[2]), key) if key else None
    field = _PORT_FIELD.get(name)
    return (None, field) if field else None


def _store(builder: Builder, netdev: str, target: tuple[int | None, str], counter: Counter) -> None:
    priority, key = target
    if priority is None:
        builder.port(netdev, key, counter)
    else:
        builder.priority(netdev, priority, key, counter)


def read_sysfs(
    builder: Builder, output: RawOutput, names: dict[tuple[str, int], str], cmd: str
) -> None:
    """RDMA counters of HCA ports from `grep -rH .` over their sysfs counter folders. grep
    prints only lines holding a character (the pattern `.`), so `PATH:` with nothing after it
    is never whole: the last line of an output cut right after a colon (`cmd` is cut off),
    elsewhere a line that is no counter. A last line cut inside its path is no `PATH:value`
    line (a problem too); one cut inside its number cannot be told."""
    last, _ = last_line(output.text)
    for number, line in lines(output.text):
        if not line.strip():
            continue
        match = _SYSFS_LINE.match(line.strip())
        if match is None:
            builder.problem(
                f"not a `PATH:value` sysfs counter line: {line[:80]!r}", output.file, number
            )
            continue
        hca, port, name, token = match[1], int(match[2]), match[3], match[4]
        if not token.strip():
            stop = (
                f"'{cmd}' is cut off: this output stops at line {number}, "
                if number == last
                else ""
            )
            builder.problem(f"{stop}{name} has no value after its ':'", output.file, number)
            continue
        if name in _NOT_COUNTERS:
            continue
        try:
            value = count(token)
        except NotACount as exc:
            builder.problem(f"{name}: {exc}", output.file, number)
            continue
        if value is None:
            continue
        width: Width = 32 if name in Q_COUNTERS_32 else 64
        counter = builder.counter(value, output.file, number, width)
        builder.hca(hca, port, names.get((hca, port)), name, counter)


@counters_never_raise("mlnx-host", "mlnx-host")
def parse(raw: RawDevice) -> DeviceCounters:
    """Counters of a ConnectX host from its `ethtool -S` and sysfs counter outputs."""
    builder = Builder(raw=raw)
    names = netdevs(raw)
    for key, output in raw.outputs.items():
        if _ETHTOOL_KEY.fullmatch(key):
            builder.inputs.append(key)
            read_ethtool(builder, key.rsplit(" ", 1)[1], output)
        elif any(p.fullmatch(key) for p in _SYSFS_KEYS):
            builder.inputs.append(key)
            read_sysfs(builder, output, names, key)
    return builder.build()
