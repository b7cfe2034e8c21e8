"""`mlnx_qos -i IF` output -> the port's QosConfig (trust, dscp2prio, PFC, ETS, receive buffers).

Format (mlnx-tools `python/mlnx_qos`, `pretty_print`; older releases omit some lines):

    DCBX mode: OS controlled
    Priority trust state: dscp
    dscp2prio mapping:
            prio:0 dscp:07,06,05,04,03,02,01,00,      (8 DSCPs a line; a priority may wrap)
    default priority:
    Receive buffer size (bytes): 130944,130944,0,0,0,0,0,0,max_buffer_size=262016
    Cable len: 7
    PFC configuration:
            priority    0   1   2   3   4   5   6   7
            enabled     0   0   0   1   0   0   0   0
            buffer      0   0   0   1   0   0   0   0
    tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%
             priority:  3

On a host the "traffic class" of `dscp_to_tc` is the 802.1p priority (dscp2prio), so
`tc_to_priority` stays None (identity); the NIC's own TCs are the egress queues.

Cut-off outputs: a PFC row with fewer values than the `priority` header, no `enabled` row, or an
ETS section (`tc:` blocks) that lists fewer than the 8 priorities (mlnx_qos prints each priority
under the TC it maps to) was cut: PARSE003 at its last line. An output cut exactly after the PFC
rows, before any `tc:` line, cannot be told (older mlnx_qos releases print no ETS section).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from fabriclint.models.common import Source
from fabriclint.models.state import (
    BufferConfig,
    MapConflict,
    PfcConfig,
    QosConfig,
    QueueConfig,
    SchedulerMode,
    Trust,
)
from fabriclint.parsers.kit.common import is_digits
from fabriclint.parsers.kit.lines import At, Log, Text

_TRUST = {"dscp": Trust.DSCP, "pcp": Trust.PCP, "none": Trust.NONE, "both": Trust.BOTH}
_TSA = {"strict": SchedulerMode.STRICT, "ets": SchedulerMode.ETS}
_IGNORED = re.compile(
    r"^(?:Priority trust state is not supported|Buffers commands are not supported"
    r"|Rate limit is not supported)"
)


@dataclass
class QosResult:
    """What one `mlnx_qos` output gives: the port QoS (None when unparseable) and port facts."""

    qos: QosConfig | None
    facts: dict[str, str] = field(default_factory=dict)


Handler = Callable[["_Reader", re.Match[str], int], None]


class _Reader:
    """Line-by-line reader: each recognised line shape has a handler; the rest is unparsed."""

    def __init__(self, text: Text, log: Log) -> None:
        self.text, self.outer = text, log
        self.log = Log()  # unparsed lines are kept only if the output is mlnx_qos at all
        self.qos = QosConfig()
        self.facts: dict[str, str] = {}
        self.recognised = False
        self.header: list[int] = list(range(8))
        self.dscp: dict[int, At[int]] | None = None
        self.enabled: At[list[int]] | None = None
        self.buffer_row: At[list[int]] | None = None
        self.buffer_sizes: At[list[int]] | None = None
        self.tc: int | None = None
        self.conflicts: list[MapConflict] = []

    def src(self, line: int) -> Source:
        return self.text.src(line)

    def read(self) -> None:
        for num, raw in self.text.numbered():
            line = raw.strip()
            if line:
                self.line(line, num)

    def line(self, line: str, num: int) -> None:
        for pattern, handler in _HANDLERS:
            match = pattern.match(line)
            if match is not None:
                self.recognised = True
                handler(self, match, num)
                return
        if not _IGNORED.match(line):
            self.log.unmodeled(self.text, num, "unrecognized mlnx_qos line")

    # --- handlers -------------------------------------------------------------------------

    def warning(self, match: re.Match[str], num: int) -> None:
        self.log.unmodeled(self.text, num, "mlnx_qos warning: settings may be overwritten")

    def dcbx(self, match: re.Match[str], num: int) -> None:
        self.facts["dcbx"] = match.group(1).strip()

    def trust(self, match: re.Match[str], num: int) -> None:
        word = match.group(1).lower()
        if word in _TRUST:
            self.qos.trust = _TRUST[word]
            self.qos.mark("trust", self.src(num))
        else:
            self.log.unmodeled(self.text, num, f"unknown trust state {word!r}")

    def section_start(self, match: re.Match[str], num: int) -> None:
        # an empty "dscp2prio mapping:" still means "trust dscp, nothing mapped" ({}, not None)
        if match.group(0).startswith("dscp2prio") and self.dscp is None:
            self.dscp = {}

    def dscp_line(self, match: re.Match[str], num: int) -> None:
        prio = int(match.group(1))
        table = self.dscp if self.dscp is not None else {}
        self.dscp = table
        for item in match.group(2).split(","):
            if is_digits(item.strip()):
                self.add_dscp(table, int(item), prio, num)

    def add_dscp(self, table: dict[int, At[int]], dscp: int, prio: int, num: int) -> None:
        first = table.get(dscp)
        if first is None:
            table[dscp] = At(prio, num)
            return
        if first.value != prio:
            sources = [self.src(first.line), self.src(num)]
            self.conflicts.append(
                MapConflict(map="dscp_to_tc", key=dscp, values=[first.value, prio], sources=sources)
            )

    def default_prio(self, match: re.Match[str], num: int) -> None:
        self.log.unmodeled(self.text, num, "default priority not modeled")

    def buffer_size(self, match: re.Match[str], num: int) -> None:
        sizes = []
        for item in match.group(1).split(","):
            if not is_digits(item.strip()):
                break
            sizes.append(int(item))
        self.buffer_sizes = At(sizes, num)

    def cable_len(self, match: re.Match[str], num: int) -> None:
        self.facts["cable_len"] = match.group(1)

    def pfc_row(self, match: re.Match[str], num: int) -> None:
        values = [int(v) for v in match.group(2).split()]
        row = match.group(1)
        if row == "priority":
            self.header = values
            return
        if len(values) < len(self.header):
            shown = f"the PFC '{row}' row has {len(values)} of {len(self.header)} values"
            self.outer.unparseable(self.text, f"output truncated: {shown}", num)
        if row == "enabled":
            self.enabled = At(values, num)
        else:
            self.buffer_row = At(values, num)

    def tc_line(self, match: re.Match[str], num: int) -> None:
        tc, rate, tsa, bw = int(match.group(1)), match.group(2).strip(), match.group(3), match[4]
        self.tc = tc
        queue = QueueConfig(queue=tc, scheduler=_TSA.get(tsa))
        queue.mark("", self.src(num))
        if queue.scheduler is not None:
            queue.mark("scheduler", self.src(num))
        if tsa == "ets" and bw is not None:
            queue.weight = float(bw)
            queue.mark("weight", self.src(num))
        if tsa not in _TSA and tsa != "vendor":
            self.log.unmodeled(self.text, num, f"transmission algorithm {tsa!r} not modeled")
        if rate != "unlimited":
            self.log.unmodeled(self.text, num, "per-TC rate limit not modeled")
        self.qos.queues = {**(self.qos.queues or {}), tc: queue}

    def tc_priority(self, match: re.Match[str], num: int) -> None:
        if self.tc is None:
            self.log.unmodeled(self.text, num, "priority line outside a tc block")
            return
        mapping = self.qos.tc_to_queue if self.qos.tc_to_queue is not None else {}
        src = self.src(num)
        for item in match.group(1).split():
            prio = int(item)
            if prio in mapping and mapping[prio] != self.tc:
                conflict = MapConflict(
                    map="tc_to_queue", key=prio, values=[mapping[prio], self.tc], sources=[src]
                )
                self.conflicts.append(conflict)
                continue
            mapping[prio] = self.tc
            self.qos.mark(f"tc_to_queue.{prio}", src)
        self.qos.tc_to_queue = mapping

    # --- assembly -------------------------------------------------------------------------

    def finish(self) -> QosResult:
        if not self.recognised:
            where, first = self.text.first_text()
            self.outer.unparseable(self.text, f"not mlnx_qos output (first line: {first!r})", where)
            return QosResult(qos=None)
        self.outer.unparsed.extend(self.log.unparsed)
        if self.enabled is None:
            self.outer.unparseable(
                self.text, "output truncated: no PFC 'enabled' row", len(self.text.lines)
            )
        self.check_ets()
        start, _ = self.text.first_text()
        self.qos.mark("", self.qos.sources.get("trust") or self.text.src(start))
        self.finish_dscp()
        self.finish_pfc()
        self.finish_buffers()
        self.qos.conflicts = self.conflicts
        return QosResult(qos=self.qos, facts=self.facts)

    def check_ets(self) -> None:
        """An ETS section lists every priority of the header under some TC: fewer means cut."""
        if self.tc is None:
            return
        listed = set(self.qos.tc_to_queue or {})
        listed |= {c.key for c in self.conflicts if c.map == "tc_to_queue"}
        missing = sorted(set(self.header) - listed)
        if missing:
            last = len(self.text.lines)
            message = f"output truncated: the ETS section lists no TC for priority {missing[0]}"
            self.outer.unparseable(self.text, f"{message} (cut after tc {self.tc})", last)

    def finish_dscp(self) -> None:
        if self.dscp is None:
            return
        self.qos.dscp_to_tc = {d: at.value for d, at in sorted(self.dscp.items())}
        for dscp, at in self.dscp.items():
            self.qos.mark(f"dscp_to_tc.{dscp}", self.src(at.line))

    def finish_pfc(self) -> None:
        if self.enabled is None:
            return
        pairs = zip(self.header, self.enabled.value, strict=False)
        prios = sorted(prio for prio, on in pairs if on == 1)
        pfc = PfcConfig(enabled=bool(prios), priorities=prios)
        pfc.mark("", self.src(self.enabled.line))
        pfc.mark("priorities", self.src(self.enabled.line))
        self.qos.pfc = pfc
        self.qos.mark("pfc", self.src(self.enabled.line))

    def finish_buffers(self) -> None:
        """prio2buffer -> tc_to_pg; the lossless pool = the buffers PFC priorities land in."""
        if self.buffer_row is None:
            return
        row = self.buffer_row
        self.qos.tc_to_pg = dict(zip(self.header, row.value, strict=False))
        for prio in self.qos.tc_to_pg:
            self.qos.mark(f"tc_to_pg.{prio}", self.src(row.line))
        sizes = self.buffer_sizes
        if sizes is None or self.qos.pfc is None or not self.qos.pfc.priorities:
            return
        used = {self.qos.tc_to_pg[p] for p in self.qos.pfc.priorities if p in self.qos.tc_to_pg}
        total = sum(sizes.value[b] for b in used if b < len(sizes.value))
        buffers = BufferConfig(lossless_pool_bytes=total)
        buffers.mark("", self.src(sizes.line))
        buffers.mark("lossless_pool_bytes", self.src(sizes.line))
        self.qos.buffers = buffers
        self.qos.mark("buffers", self.src(sizes.line))


_HANDLERS: list[tuple[re.Pattern[str], Handler]] = [
    (re.compile(r"^\*+\s*WARNING:.*$"), _Reader.warning),
    (re.compile(r"^DCBX mode:\s*(.+)$"), _Reader.dcbx),
    (re.compile(r"^Priority trust state:\s*(\S+)"), _Reader.trust),
    (
        re.compile(r"^(?:dscp2prio mapping|default priority|PFC configuration):$"),
        _Reader.section_start,
    ),
    (re.compile(r"^prio:\s*(\d+)\s+dscp:\s*([\d,\s]*)$"), _Reader.dscp_line),
    (re.compile(r"^prio:\s*(\d+)$"), _Reader.default_prio),
    (re.compile(r"^Receive buffer size \(bytes\):\s*(.*)$"), _Reader.buffer_size),
    (re.compile(r"^Cable len:\s*(\d+)"), _Reader.cable_len),
    (re.compile(r"^(priority|enabled|buffer)((?:\s+\d+)+)$"), _Reader.pfc_row),
    (
        re.compile(r"^tc:\s*(\d+)\s+ratelimit:\s*([^,]+),\s*tsa:\s*(\w+)(?:,\s*bw:\s*(\d+)\s*%)?"),
        _Reader.tc_line,
    ),
    (re.compile(r"^priority:\s*(\d+(?:\s+\d+)*)$"), _Reader.tc_priority),
]


def parse_mlnx_qos(text: Text, log: Log) -> QosResult:
    """Parse one `mlnx_qos -i IF` output; a blank output yields no QoS and no problem."""
    if text.is_blank():
        return QosResult(qos=None)
    reader = _Reader(text, log)
    reader.read()
    return reader.finish()
