"""What the counter parsers share: counter values, column tables, and a builder per device.

Counter outputs are tables or `name: value` lists meant for people, so the helpers here read
them defensively: a thousands separator (`1,200`) is a number, `N/A` or `-` is *absent* (never
zero), and anything else where a count belongs is a located problem, not a crash.

Cut-off outputs: `ethtool -S IF` has no end marker and no count, so a cut between two whole
lines, or inside the last number (`rx_prio3_pause: 12` for `1234`), cannot be told; what can is
a last line that is no whole counter line (`ethtool_cut`). A missing final newline is no sign:
outputs imported from other collectors (an Ansible `stdout`) lose theirs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from fabriclint.models.common import Source, source_at
from fabriclint.models.counters import (
    Counter,
    DeviceCounters,
    PortCounters,
    PriorityCounters,
    QueueCounters,
    RdmaCounters,
    Width,
)
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import InputProblem
from fabriclint.parsers.kit.common import to_int
from fabriclint.parsers.kit.whole import has_header, last_line, stops

ABSENT = frozenset({"n/a", "na", "-", "--", ""})
"""What devices print for a counter they do not have."""

_MAX_LINES = 1_000_000
"""At most this many lines are read of one output (a counter output has a few thousand)."""


class NotACount(ValueError):
    """A token where a count belongs that is neither a number nor an absent marker."""


def count(token: str) -> int | None:
    """A counter token as an integer; None when absent (`N/A`, `-`); NotACount otherwise."""
    text = token.strip()
    if text.lower() in ABSENT:
        return None
    if re.fullmatch(r"[0-9]{1,3}(,[0-9]{3})+", text):
        text = text.replace(",", "")  # a thousands separator (SONiC prints 1,200)
    value = to_int(text)
    if value is None:
        raise NotACount(f"{token!r} is not a counter value")
    return value


def lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, line) of `text`, bounded."""
    for number, line in enumerate(text.splitlines(), start=1):
        if number > _MAX_LINES:
            return
        yield number, line


ETHTOOL_HEADER = "NIC statistics:"
"""The first line of `ethtool -S IF` (ethtool's own, whatever the driver)."""
_ETHTOOL_WHOLE = re.compile(r"\s*\S.*:\s*[0-9]+\s*")
"""A whole counter line as ethtool prints it (`     %s: %llu`): a name, then a decimal count."""


def ethtool_cut(output: RawOutput, cmd: str) -> InputProblem | None:
    """`ethtool -S IF` as ethtool prints it (its first line `NIC statistics:`) cut short: after
    the header every line is one counter, `name: count`, so a last line that is not one (cut
    inside the name, `rx_prio3_pa`; right after the colon, `rx_prio3_pause:`) or the header
    alone was cut; the counters past it would read as absent (no PFC on their priority). A
    text without the header (an error message, `no stats available`) is not judged here."""
    if not has_header(output.text, (ETHTOOL_HEADER,)):
        return None
    _, line = last_line(output.text)
    if line.strip() != ETHTOOL_HEADER and _ETHTOOL_WHOLE.fullmatch(line):
        return None
    return stops(output, cmd, f"every line after {ETHTOOL_HEADER!r} is a whole 'name: count'")


@dataclass
class Table:
    """One column table (tabulate style: a header line, a line of dashes, rows)."""

    header: list[str]
    rows: list[tuple[int, list[str]]]
    """(line number, cells)."""
    line: int
    """Line of the header."""


_DASHES = re.compile(r"^\s*-{2,}(\s+-{2,})*\s*$")


def _spans(dashes: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"-+", dashes)]


def _header_cells(header: str, spans: list[tuple[int, int]]) -> list[str]:
    """Header names by the dash spans under them (names hold single spaces: `Port Rx`)."""
    cells = []
    for index in range(len(spans)):
        stop = spans[index + 1][0] if index + 1 < len(spans) else len(header)
        begin = spans[index - 1][1] if index else 0
        cells.append(header[begin:stop].strip())
    return cells


def tables(text: str) -> list[Table]:
    """Every tabulate-style table in `text`; rows are split on whitespace (cells hold none)."""
    found: list[Table] = []
    previous: tuple[int, str] | None = None
    current: Table | None = None
    for number, line in lines(text):
        if _DASHES.match(line) and previous is not None and previous[1].strip():
            header = _header_cells(previous[1], _spans(line))
            current = Table(header=header, rows=[], line=previous[0])
            found.append(current)
        elif not line.strip():
            current = None
        elif current is not None:
            current.rows.append((number, line.split()))
        previous = (number, line)
    return found


def plain_table(text: str, first: str) -> list[Table]:
    """Tables whose header starts with `first` and has no line of dashes under it, as some
    outputs and documents print them; the header is then split on whitespace like the rows
    (only for tables whose column names hold no space)."""
    found: list[Table] = []
    current: Table | None = None
    for number, line in lines(text):
        stripped = line.strip()
        if stripped.startswith(first) and not _DASHES.match(line):
            current = Table(header=stripped.split(), rows=[], line=number)
            found.append(current)
        elif not stripped:
            current = None
        elif current is not None and not _DASHES.match(line):
            current.rows.append((number, stripped.split()))
    return found


@dataclass
class _Port:
    priorities: dict[int, dict[str, object]] = field(default_factory=dict)
    queues: dict[int, dict[str, object]] = field(default_factory=dict)
    fields: dict[str, object] = field(default_factory=dict)


@dataclass
class Builder:
    """Mutable counters of one device while its outputs are read; `build` freezes them."""

    raw: RawDevice
    ports: dict[str, _Port] = field(default_factory=dict)
    rdma: dict[str, tuple[str, int, str | None, dict[str, Counter]]] = field(default_factory=dict)
    problems: list[InputProblem] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)

    def counter(self, value: int, file: str, line: int, width: Width = 64) -> Counter:
        """A Counter at file:line."""
        return Counter(value=value, width=width, source=source_at(file, line))

    def problem(self, message: str, file: str, line: int | None = None) -> None:
        """An unreadable counter output (the device's interval is then incomplete)."""
        source: Source = source_at(file, line)
        self.problems.append(InputProblem(kind="unparseable", message=message, source=source))

    def _port(self, name: str) -> _Port:
        return self.ports.setdefault(name, _Port())

    def priority(self, port: str, priority: int, key: str, counter: Counter) -> None:
        """Set a PriorityCounters field (`drops.REASON` for a drop reason)."""
        target = self._port(port).priorities.setdefault(priority, {})
        self._once(target, key, counter, f"{port} priority {priority} {key}")

    def queue(self, port: str, queue: int, key: str, counter: Counter) -> None:
        """Set a QueueCounters field (`drops.REASON` for a drop reason)."""
        self._once(
            self._port(port).queues.setdefault(queue, {}),
            key,
            counter,
            f"{port} queue {queue} {key}",
        )

    def port(self, port: str, key: str, counter: Counter) -> None:
        """Set a PortCounters field (`drops.REASON` for a drop reason)."""
        self._once(self._port(port).fields, key, counter, f"{port} {key}")

    def hca(self, hca: str, port: int, netdev: str | None, name: str, counter: Counter) -> None:
        """Set one RDMA counter of HCA port `hca/port`."""
        entry = self.rdma.setdefault(f"{hca}/{port}", (hca, port, netdev, {}))
        self._once(entry[3], name, counter, f"{hca} port {port} {name}")

    def _once(self, target: dict[str, Any], key: str, counter: Counter, label: str) -> None:
        """Set one counter; read again with another value (a repeated line, a port twice in a
        table, a duplicate JSON key), it is a problem at the second reading: keeping either
        value would make a CTR finding (or its absence) out of data the device did not give."""
        drops = key.startswith("drops.")
        slot = target.setdefault("drops", {}) if drops else target
        assert isinstance(slot, dict)
        name = key.removeprefix("drops.") if drops else key
        before = slot.get(name)
        if isinstance(before, Counter) and before.value != counter.value:
            message = (
                f"{label} is read twice with two values: {before.value:,} at {before.source}, "
                f"then {counter.value:,}: which one the device meant is unknown"
            )
            self.problems.append(
                InputProblem(kind="unparseable", message=message, source=counter.source)
            )
            return
        slot.setdefault(name, counter)  # the same value again: the first reading stands

    def build(self) -> DeviceCounters:
        """The frozen DeviceCounters."""
        ports = {
            name: PortCounters(
                name=name,
                priorities={p: PriorityCounters(**v) for p, v in sorted(b.priorities.items())},
                queues={q: QueueCounters(**v) for q, v in sorted(b.queues.items())},
                **b.fields,
            )
            for name, b in self.ports.items()
        }
        rdma = {
            key: RdmaCounters(hca=hca, port=port, netdev=netdev, counters=dict(values))
            for key, (hca, port, netdev, values) in self.rdma.items()
        }
        return DeviceCounters(
            name=self.raw.name,
            platform=self.raw.platform,
            ports=ports,
            rdma=rdma,
            problems=list(self.problems),
            inputs=list(self.inputs),
        )
