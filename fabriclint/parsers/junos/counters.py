"""Counters of a Juniper Junos switch (QFX), from two read-only show commands.

- `show interfaces extensive`: per `Physical interface: NAME, ...` block,
  - `MAC Priority Flow Control Statistics:` then one `Priority :  P   RX   TX` line per 802.1p
    priority: the PFC frames received and sent (the columns follow the block's `MAC
    statistics: Receive Transmit` order);
  - `Queue counters:  Queued packets  Transmitted packets  Dropped packets`, then one
    `Q  queued  transmitted  dropped` row per egress queue in use: the queue's drops.
- `show interfaces queue` (optional): per `Queue: Q, Forwarding classes: ...` block the
  `ECN-CE packets` this queue marked and its `RED-dropped packets` (WRED). QFX prints
  `Not Available` where the ASIC does not keep a counter: absent, not zero.
Logical units (`Logical interface et-0/0/1.0`) carry no PFC or queue counters and end a block.
Every Junos interface counter is 64-bit.
"""

from __future__ import annotations

import re

from fabriclint.models.counters import DeviceCounters
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.parsers.kit.counters import Builder, NotACount, count, lines
from fabriclint.parsers.kit.internal import counters_never_raise

EXTENSIVE = "show interfaces extensive"
QUEUES = "show interfaces queue"

_PHYSICAL = re.compile(r"^Physical interface:\s*([A-Za-z0-9_./:-]+?),")
_LOGICAL = re.compile(r"^\s*Logical interface\s")
_PRIORITY = re.compile(r"^\s*Priority\s*:\s*(\S+)\s+(\S+)\s+(\S+)\s*$")
_QUEUE_ROW = re.compile(r"^\s*([0-9]{1,2})\s+(\S+)\s+(\S+)\s+(\S+)\s*$")
_QUEUE_BLOCK = re.compile(r"^\s*Queue:\s*([0-9]{1,2}),")
_QUEUE_FIELD = re.compile(r"^\s*(ECN-CE packets|RED-dropped packets)\s*:\s*(.*?)\s*$")
_QUEUE_KEYS = {"ECN-CE packets": "ecn_marked", "RED-dropped packets": "drops.wred"}


class _Reader:
    """State of one output being read: the interface and the section the line is in."""

    def __init__(self, builder: Builder, output: RawOutput) -> None:
        self.builder = builder
        self.output = output
        self.port: str | None = None
        self.section: str | None = None
        self.seen_port = False

    def value(self, token: str, number: int, what: str) -> int | None:
        """A count; `Not Available` and `N/A` are absent; anything else a located problem."""
        if token.lower().startswith("not"):
            return None
        try:
            return count(token)
        except NotACount as exc:
            self.builder.problem(f"{self.port}: {what}: {exc}", self.output.file, number)
            return None

    def header(self, line: str) -> bool:
        """Interface and section headers; True when `line` was one."""
        physical = _PHYSICAL.match(line)
        if physical:
            self.port, self.section, self.seen_port = physical[1], None, True
        elif _LOGICAL.match(line):
            self.port = self.section = None
        elif line.strip().startswith("MAC Priority Flow Control Statistics"):
            self.section = "pfc"
        elif line.strip().startswith("Queue counters:"):
            self.section = "queues"
        else:
            return False
        return True


def _pfc_line(reader: _Reader, number: int, line: str) -> None:
    """One `Priority : P rx tx` line; anything else ends the section."""
    match = _PRIORITY.match(line)
    if match is None:
        if line.strip().startswith("Priority"):  # a damaged line: the next ones still count
            reader.builder.problem(
                f"{reader.port}: unreadable PFC line", reader.output.file, number
            )
        else:
            reader.section = None
        return
    if not re.fullmatch(r"[0-7]", match[1]):
        reader.builder.problem(f"{reader.port}: priority {match[1]!r}", reader.output.file, number)
        return
    for token, field in ((match[2], "rx_pause"), (match[3], "tx_pause")):
        value = reader.value(token, number, f"priority {match[1]} {field}")
        if value is not None and reader.port is not None:
            counter = reader.builder.counter(value, reader.output.file, number)
            reader.builder.priority(reader.port, int(match[1]), field, counter)


def _queue_row(reader: _Reader, number: int, line: str) -> None:
    """One `Q queued transmitted dropped` row; anything else ends the section."""
    match = _QUEUE_ROW.match(line)
    if match is None:
        reader.section = None
        return
    dropped = reader.value(match[4], number, f"queue {match[1]} dropped packets")
    if dropped is not None and reader.port is not None:
        counter = reader.builder.counter(dropped, reader.output.file, number)
        reader.builder.queue(reader.port, int(match[1]), "drops.queue", counter)


def read_extensive(builder: Builder, output: RawOutput) -> None:
    """PFC frames per priority and drops per queue, per physical interface."""
    reader = _Reader(builder, output)
    for number, line in lines(output.text):
        if reader.header(line) or reader.port is None:
            continue
        if reader.section == "pfc":
            _pfc_line(reader, number, line)
        elif reader.section == "queues":
            _queue_row(reader, number, line)
    if not reader.seen_port and output.text.strip():
        builder.problem("no `Physical interface:` block in this output", output.file, 1)


def read_queues(builder: Builder, output: RawOutput) -> None:
    """ECN-marked and WRED-dropped packets per physical interface and egress queue."""
    reader = _Reader(builder, output)
    queue: int | None = None
    for number, line in lines(output.text):
        if _PHYSICAL.match(line) or _LOGICAL.match(line):
            reader.header(line)
            queue = None
            continue
        block = _QUEUE_BLOCK.match(line)
        if block:
            queue = int(block[1])
            continue
        field = _QUEUE_FIELD.match(line)
        if field is None or queue is None or reader.port is None:
            continue
        token = field[2].split()[0] if field[2] else ""
        value = reader.value(token, number, f"queue {queue} {field[1]}")
        if value is not None:
            counter = builder.counter(value, output.file, number)
            builder.queue(reader.port, queue, _QUEUE_KEYS[field[1]], counter)
    if not reader.seen_port and output.text.strip():
        builder.problem("no `Physical interface:` block in this output", output.file, 1)


@counters_never_raise("junos", "Junos")
def parse(raw: RawDevice) -> DeviceCounters:
    """Counters of a Junos switch from whichever of its counter outputs were collected."""
    builder = Builder(raw=raw)
    for key, reader in ((EXTENSIVE, read_extensive), (QUEUES, read_queues)):
        output = raw.outputs.get(key)
        if output is not None:
            builder.inputs.append(key)
            reader(builder, output)
    return builder.build()
