"""What the CTR rules read: two counter readings per device, their deltas, and the interval.

`fabriclint counters` (counterrun.py) parses the BEFORE and AFTER snapshots' counters, puts a
`CounterRun` in the rule context's memo under `COUNTERS`, and runs the CTR rules. In a plain
`check` there is no run and the CTR rules yield nothing.

A delta exists only when the counter was read on both sides: absent is not zero. A counter that
went backwards or disappeared is a `Regression`: the device was cleared, its driver reloaded or
it rebooted during the interval, so none of its deltas can be trusted (CTR009, incomplete).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from fabriclint.models import resolve
from fabriclint.models.resolve import effective_qos
from fabriclint.models.state import DeviceState, QosConfig

if TYPE_CHECKING:  # built only by `fabriclint counters`: a check need not build these models
    from fabriclint.models.counters import Counter, DeviceCounters, PortCounters

COUNTERS = "counters.run"
"""Context memo key of the CounterRun."""


@dataclass(frozen=True)
class Delta:
    """How much one counter advanced over the interval."""

    label: str
    """What it counts, in the device's terms (`tx_prio3_pause`, `np_cnp_sent`)."""
    before: Counter
    after: Counter

    @property
    def value(self) -> int:
        """after - before (never negative: a regression is never made a Delta)."""
        return self.after.value - self.before.value

    def lines(self) -> str:
        """Both readings with their source lines, for a message (thousands separated)."""
        return (
            f"{self.label} {self.before.value:,} at {self.before.source} -> "
            f"{self.after.value:,} at {self.after.source}"
        )

    def evidence(self, interval_s: float) -> dict[str, object]:
        """The finding's `actual`: the delta, its rate and both sources."""
        return {
            "counter": self.label,
            "delta": self.value,
            "per_second": round(self.value / interval_s, 3) if interval_s > 0 else None,
            "before": str(self.before.source),
            "after": str(self.after.source),
        }


@dataclass(frozen=True)
class Regression:
    """A counter that went backwards or disappeared between the two snapshots."""

    device: str
    label: str
    before: Counter
    after: Counter | None
    kind: Literal["backwards", "wrapped", "disappeared"]


def delta(label: str, before: Counter | None, after: Counter | None) -> Delta | None:
    """The Delta of a counter read on both sides that did not go backwards; else None."""
    if before is None or after is None or after.value < before.value:
        return None
    return Delta(label, before, after)


def flatten(device: DeviceCounters) -> dict[str, Counter]:
    """Every counter of a device under a stable label (for regressions)."""
    out: dict[str, Counter] = {}
    for port in device.ports.values():
        out.update(_port_labels(port))
    for key, hca in device.rdma.items():
        for name, counter in hca.counters.items():
            out[f"{key} {name}"] = counter
    return out


def _fields(prefix: str, model: object) -> Iterator[tuple[str, Counter]]:
    """`prefix name` of every Counter field of a counters model, and of its drops by reason."""
    from fabriclint.models.counters import Counter

    for name, value in model:  # type: ignore[attr-defined]
        if isinstance(value, Counter):
            yield f"{prefix} {name}", value
    for reason, value in getattr(model, "drops", {}).items():
        yield f"{prefix} drops {reason}", value


def _port_labels(port: PortCounters) -> Iterator[tuple[str, Counter]]:
    for prio, counters in port.priorities.items():
        yield from _fields(f"{port.name} priority {prio}", counters)
    for queue, qc in port.queues.items():
        yield from _fields(f"{port.name} queue {queue}", qc)
    yield from _fields(port.name, port)


def regressions(before: DeviceCounters, after: DeviceCounters) -> list[Regression]:
    """Counters of `before` that are lower, or missing, in `after`."""
    now = flatten(after)
    out: list[Regression] = []
    for label, old in flatten(before).items():
        new = now.get(label)
        if new is None:
            out.append(Regression(before.name, label, old, None, "disappeared"))
        elif new.value < old.value:
            near_top = old.width == 32 and old.value >= 2**31
            kind: Literal["backwards", "wrapped"] = "wrapped" if near_top else "backwards"
            out.append(Regression(before.name, label, old, new, kind))
    return out


@dataclass
class CounterRun:
    """Both sides' counters, the interval between them, and what makes a device untrusted."""

    before: dict[str, DeviceCounters]
    after: dict[str, DeviceCounters]
    interval_s: float
    regressions: list[Regression] = field(default_factory=list)

    def __post_init__(self) -> None:
        for name, old in self.before.items():
            new = self.after.get(name)
            if new is not None:
                self.regressions += regressions(old, new)
        self.untrusted = {r.device for r in self.regressions}

    def pairs(self) -> Iterator[tuple[DeviceCounters, DeviceCounters]]:
        """(before, after) of every device read on both sides whose interval is trusted."""
        for name in sorted(self.after):
            old = self.before.get(name)
            if old is not None and name not in self.untrusted:
                yield old, self.after[name]

    def share(self, microseconds: int) -> float:
        """A duration as a share of the interval (0.25 = a quarter of it)."""
        return microseconds / (self.interval_s * 1e6) if self.interval_s > 0 else 0.0


def port_of(device: DeviceCounters, name: str) -> PortCounters | None:
    """A port's counters by the cabling plan's spelling (exact, then any case)."""
    found = device.ports.get(name)
    if found is not None:
        return found
    lowered = {n.lower(): p for n, p in device.ports.items()}
    return lowered.get(name.lower())


def _port_qos(state: DeviceState | None, port: str) -> QosConfig | None:
    """The effective QoS of `port` (any case) on `state`; None when either is unknown."""
    if state is None:
        return None
    iface = next((i for n, i in state.interfaces.items() if n.lower() == port.lower()), None)
    return effective_qos(state, iface.name) if iface is not None else None


def lossless_priorities(state: DeviceState | None, port: str) -> set[int] | None:
    """The PFC priorities the port's configuration makes lossless; None when unknown."""
    qos = _port_qos(state, port)
    return set(resolve.lossless_priorities(qos)) if qos is not None else None


def lossless_queues(state: DeviceState | None, port: str) -> set[int] | None:
    """Egress queues of the port's lossless traffic classes; None when unknown."""
    qos = _port_qos(state, port)
    return resolve.lossless_queues(qos) if qos is not None else None
