"""Counters of an NVIDIA Cumulus Linux switch: `ethtool -S swpN`, one output per front-panel port.

The port list comes from `ip -o link show` (collected only to name the ports). Two driver
families print the per-priority counters under different names; both are read:
- Spectrum switches on the kernel's mlxsw driver (`drivers/net/ethernet/mellanox/mlxsw/
  spectrum_ethtool.c`): `rx_pause_prio_P` / `tx_pause_prio_P` (PFC frames),
  `rx_pause_duration_prio_P` / `tx_pause_duration_prio_P` (microseconds paused, from the PPCNT
  per-priority group), and per traffic class `tc_no_buffer_discard_uc_tc_Q` (unicast packets
  dropped for want of buffer). Traffic classes 8-15 are the multicast ones: skipped.
- Cumulus' own switchd (the "ethtool Counter Definitions" of the Cumulus Linux user guide):
  `HwIfInPfcPPkt` / `HwIfOutPfcPPkt` (PFC frames received / sent on priority P) and
  `HwIfOutQQWredDrops` (WRED drops of egress queue Q); `HwIfInBufferDrops` and `HwIfOutQDrops`
  are port-wide drops.
mlxsw's `ecn_marked` counts marks over all queues of the port: the model keeps ECN marks per
queue, so it is not read. Every counter here is 64-bit. A counter not printed is absent.
"""

from __future__ import annotations

import re

from fabriclint.models.counters import DeviceCounters
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.parsers.kit.counters import Builder, NotACount, count, ethtool_cut, lines
from fabriclint.parsers.kit.internal import counters_never_raise

LINKS = "ip -o link show"
ETHTOOL_S = re.compile(r"^ethtool -S (swp[0-9]{1,3}(?:s[0-9]{1,2})?)$")
"""A per-port counter command; the port name is strict (a front-panel port or breakout)."""

_LINE = re.compile(r"^\s*([A-Za-z0-9_]+):\s*(\S*)\s*$")
_PRIORITY = {
    re.compile(r"^rx_pause_prio_([0-7])$"): "rx_pause",
    re.compile(r"^tx_pause_prio_([0-7])$"): "tx_pause",
    re.compile(r"^rx_pause_duration_prio_([0-7])$"): "rx_pause_duration_us",
    re.compile(r"^tx_pause_duration_prio_([0-7])$"): "tx_pause_duration_us",
    re.compile(r"^HwIfInPfc([0-7])Pkt$"): "rx_pause",
    re.compile(r"^HwIfOutPfc([0-7])Pkt$"): "tx_pause",
}
_QUEUE = {
    re.compile(r"^tc_no_buffer_discard_uc_tc_([0-7])$"): "drops.no_buffer",
    re.compile(r"^HwIfOutQ([0-7])WredDrops$"): "drops.wred",
}
_PORT = {"HwIfInBufferDrops": "drops.rx_buffer", "HwIfOutQDrops": "drops.tx_queue"}


def _field(name: str) -> str | None:
    """The model field counter `name` is read into; None for a counter fabriclint does not read."""
    for table in (_PRIORITY, _QUEUE):
        for pattern, field in table.items():
            if pattern.match(name):
                return field
    return _PORT.get(name)


def _store(builder: Builder, port: str, name: str, counter_at: tuple[int, str, int]) -> bool:
    """Put one known counter in the model; False when `name` is not one fabriclint reads."""
    value, file, number = counter_at
    for pattern, field in _PRIORITY.items():
        match = pattern.match(name)
        if match:
            builder.priority(port, int(match[1]), field, builder.counter(value, file, number))
            return True
    for pattern, field in _QUEUE.items():
        match = pattern.match(name)
        if match:
            builder.queue(port, int(match[1]), field, builder.counter(value, file, number))
            return True
    if name in _PORT:
        builder.port(port, _PORT[name], builder.counter(value, file, number))
        return True
    return False


def read_ethtool(builder: Builder, port: str, output: RawOutput) -> None:
    """The counters fabriclint reads from one port's `ethtool -S`. An output cut short (its
    last line no whole counter line: kit/counters.py `ethtool_cut`) is a problem at that line;
    a counter fabriclint reads printed without a value is one at its line, never absent."""
    cut = ethtool_cut(output, f"ethtool -S {port}")
    if cut is not None:
        builder.problems.append(cut)
    known = 0
    for number, line in lines(output.text):
        match = _LINE.match(line)
        if match is not None and not match[2] and _field(match[1]) is not None:
            if cut is None or cut.source is None or cut.source.line != number:
                builder.problem(
                    f"{port}: {match[1]} is printed without a value", output.file, number
                )
            continue
        if match is None or not match[2]:
            continue  # `NIC statistics:` and other headers
        try:
            value = count(match[2])
        except NotACount as exc:
            builder.problem(f"{port}: {match[1]}: {exc}", output.file, number)
            continue
        if value is not None and _store(builder, port, match[1], (value, output.file, number)):
            known += 1
    if not known and cut is None and output.text.strip():
        message = f"{port}: no counter fabriclint reads in this `ethtool -S` output"
        builder.problem(message, output.file, 1)


@counters_never_raise("cumulus", "Cumulus")
def parse(raw: RawDevice) -> DeviceCounters:
    """Counters of a Cumulus switch from the `ethtool -S swpN` outputs collected."""
    builder = Builder(raw=raw)
    for key, output in sorted(raw.outputs.items()):
        port = ETHTOOL_S.match(key)
        if port is not None:
            builder.inputs.append(key)
            read_ethtool(builder, port[1], output)
    return builder.build()
