"""Counters of a SONiC switch: `pfcstat`, `show queue counters`, `show queue wredcounters`,
`show pfcwd stats` (sonic-utilities' tabulate tables).

- `pfcstat` (also `show pfc counters`): a `Port Rx` table and a `Port Tx` table with columns
  PFC0..PFC7, the PFC frames received and sent per priority.
- `show queue counters`: per port and queue (`UC3`, `MC11`, `ALL3`) `Counter/pkts`,
  `Drop/pkts` and, on platforms that count them, `EcnMarked/pkts`.
- `show queue wredcounters`: `WredDrp/pkts` and `EcnMarked/pkts` per queue (N/A where the ASIC
  does not count them: absent, not zero).
- `show pfcwd stats`: per `PORT:QUEUE`, `STORM DETECTED/RESTORED` and the packets the watchdog
  dropped (`TX OK/DROP`, `RX OK/DROP`).
Multicast queues (`MC`) carry no RoCE and are skipped.
"""

from __future__ import annotations

import re

from fabriclint.models.counters import DeviceCounters
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.parsers.kit.counters import Builder, NotACount, Table, count, plain_table, tables
from fabriclint.parsers.kit.internal import counters_never_raise
from fabriclint.platforms.sonic import (
    PFC_COUNTERS,
    PFCSTAT,
    PFCWD_STATS,
    QUEUE_COUNTERS,
    WRED_COUNTERS,
)

_QUEUE_NAME = re.compile(r"^(UC|ALL|Q)?([0-9]{1,2})$")
_QUEUE_COLUMNS = {
    "Drop/pkts": "drops.queue",
    "WredDrp/pkts": "drops.wred",
    "EcnMarked/pkts": "ecn_marked",
}


def _cell(builder: Builder, output: RawOutput, line: int, token: str) -> int | None:
    try:
        return count(token)
    except NotACount as exc:
        builder.problem(str(exc), output.file, line)
        return None


def _rows(builder: Builder, output: RawOutput, table: Table) -> list[tuple[int, dict[str, str]]]:
    """Rows as header -> cell; a row with another number of cells is a located problem."""
    out = []
    for line, cells in table.rows:
        if len(cells) != len(table.header):
            message = (
                f"{len(cells)} fields where the header at line {table.line} has {len(table.header)}"
            )
            builder.problem(message, output.file, line)
            continue
        out.append((line, dict(zip(table.header, cells, strict=True))))
    return out


def read_pfcstat(builder: Builder, output: RawOutput) -> None:
    """PFC frames per port and priority, received (`Port Rx`) and sent (`Port Tx`)."""
    found = False
    for table in tables(output.text):
        first = table.header[0] if table.header else ""
        field = {"Port Rx": "rx_pause", "Port Tx": "tx_pause"}.get(first)
        if field is None:
            continue
        found = True
        for line, row in _rows(builder, output, table):
            for column, token in row.items():
                prio = re.fullmatch(r"PFC([0-7])", column)
                value = _cell(builder, output, line, token) if prio else None
                if prio and value is not None:
                    counter = builder.counter(value, output.file, line)
                    builder.priority(row[first], int(prio[1]), field, counter)
    if not found and output.text.strip():
        builder.problem("no `Port Rx` / `Port Tx` table in this pfcstat output", output.file, 1)


def read_queues(builder: Builder, output: RawOutput) -> None:
    """Drops and ECN marks per port and unicast queue (queue counters or WRED counters)."""
    found = False
    for table in tables(output.text) or plain_table(output.text, "Port"):
        if "TxQ" not in table.header or "Port" not in table.header:
            continue
        found = True
        for line, row in _rows(builder, output, table):
            queue = _QUEUE_NAME.match(row["TxQ"])
            if queue is None:
                continue  # a multicast queue (MC8) or a VOQ: not a RoCE queue
            for column, key in _QUEUE_COLUMNS.items():
                value = _cell(builder, output, line, row[column]) if column in row else None
                if value is not None:
                    counter = builder.counter(value, output.file, line)
                    builder.queue(row["Port"], int(queue[2]), key, counter)
    if not found and output.text.strip():
        builder.problem("no `Port  TxQ ...` queue counter table in this output", output.file, 1)


def _pair(
    builder: Builder, output: RawOutput, line: int, token: str
) -> tuple[int | None, int | None]:
    """`a/b` cells of pfcwd stats; N/A is absent."""
    left, sep, right = token.partition("/")
    if not sep:
        return _cell(builder, output, line, token), None
    return _cell(builder, output, line, left), _cell(builder, output, line, right)


def read_pfcwd(builder: Builder, output: RawOutput) -> None:
    """PFC watchdog storms and the packets it dropped, per port and queue."""
    for table in tables(output.text):
        if "QUEUE" not in table.header or "STORM DETECTED/RESTORED" not in table.header:
            continue
        for line, row in _rows(builder, output, table):
            port, sep, index = row["QUEUE"].rpartition(":")
            if not sep or not index.isdigit() or len(index) > 2:
                builder.problem(f"queue {row['QUEUE']!r} is not PORT:QUEUE", output.file, line)
                continue
            detected, restored = _pair(builder, output, line, row["STORM DETECTED/RESTORED"])
            values = {"storm_detected": detected, "storm_restored": restored}
            for column, reason in (("TX OK/DROP", "watchdog-tx"), ("RX OK/DROP", "watchdog-rx")):
                if column in row:
                    values[f"drops.{reason}"] = _pair(builder, output, line, row[column])[1]
            for key, value in values.items():
                if value is not None:
                    builder.queue(port, int(index), key, builder.counter(value, output.file, line))


@counters_never_raise("sonic", "sonic")
def parse(raw: RawDevice) -> DeviceCounters:
    """Counters of a SONiC switch from whichever of its counter outputs were collected."""
    builder = Builder(raw=raw)
    readers = {PFCSTAT: read_pfcstat, PFC_COUNTERS: read_pfcstat, QUEUE_COUNTERS: read_queues}
    readers[WRED_COUNTERS] = read_queues
    readers[PFCWD_STATS] = read_pfcwd
    for key, reader in readers.items():
        output = raw.outputs.get(key)
        if output is not None:
            builder.inputs.append(key)
            reader(builder, output)
    return builder.build()
