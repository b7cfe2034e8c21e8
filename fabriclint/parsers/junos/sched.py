"""Junos egress scheduling: scheduler maps to queues, with their priority, rate, ECN and WRED.

A scheduler with `explicit-congestion-notification` marks ECN by its drop profile (the fill
levels are percent of the queue's buffer, kept as written); one with a drop profile and no ECN
drops by it (WRED drop). See docs/platforms/junos.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from fabriclint.models.common import Source
from fabriclint.models.state import EcnConfig, QueueConfig, SchedulerMode
from fabriclint.parsers.junos.draft import Draft, DropProfile, Scheduler


@dataclass
class Queues:
    """Queue settings of scheduler maps; `queue_of` gives a forwarding class's queue."""

    d: Draft
    queue_of: Callable[[str], int | None]
    made: dict[str, dict[int, QueueConfig] | None] = field(default_factory=dict)

    def of_map(self, name: str) -> dict[int, QueueConfig] | None:
        """Queues of a scheduler map (one dict per map, shared by the ports that apply it)."""
        if name not in self.made:
            self.made[name] = self._build(name)
        return self.made[name]

    def _build(self, name: str) -> dict[int, QueueConfig] | None:
        smap = self.d.scheduler_maps.get(name)
        if smap is None:
            return None  # dangling: QOS005
        out: dict[int, QueueConfig] = {}
        for fc, (scheduler, line) in smap.entries.items():
            queue, found = self.queue_of(fc), self.d.schedulers.get(scheduler)
            if queue is not None and found is not None and queue not in out:
                out[queue] = self._queue(queue, found, self.d.at(line))
        return dict(sorted(out.items())) or None

    def _queue(self, number: int, sched: Scheduler, here: Source) -> QueueConfig:
        strict = sched.priority is not None and sched.priority.value == "strict-high"
        mode = SchedulerMode.STRICT if strict else SchedulerMode.DWRR
        queue = QueueConfig(queue=number, scheduler=mode)
        mode_line = sched.priority.line if sched.priority is not None else None
        queue.sources = {"": here, "scheduler": self.d.at(mode_line)}
        if sched.rate is not None:
            queue.weight = sched.rate.value
            queue.mark("weight", self.d.at(sched.rate.line))
        drop = _drop_map(sched)
        if sched.ecn is not None:
            queue.ecn = self._ecn(sched.ecn, drop)
        elif drop is not None:
            queue.wred_drop = True
            queue.mark("wred_drop", self.d.at(drop[1]))
        return queue

    def _ecn(self, line: int, drop: tuple[str, int] | None) -> EcnConfig:
        here = self.d.at(line)
        ecn = EcnConfig(enabled=True, sources={"": here, "enabled": here})
        profile = self.d.drop_profiles.get(drop[0]) if drop is not None else None
        found = _thresholds(profile) if profile is not None else None
        if found is not None:
            low, high, probability, at = found
            ecn.min_raw, ecn.max_raw = f"{low:g} percent", f"{high:g} percent"
            ecn.probability_pct = probability
            src = self.d.at(at)
            ecn.sources.update({"min_raw": src, "max_raw": src, "probability_pct": src})
        return ecn


def _drop_map(sched: Scheduler) -> tuple[str, int] | None:
    """(drop profile, line) for loss priority `any`, else `low`, else the first one."""
    for wanted in ("any", "low"):
        for loss, profile, line in sched.drops:
            if loss == wanted:
                return profile, line
    return (sched.drops[0][1], sched.drops[0][2]) if sched.drops else None


def _thresholds(profile: DropProfile) -> tuple[float, float, float, int | None] | None:
    """(lowest fill level, highest fill level, probability at the highest, line)."""
    if profile.fill is not None and profile.probability is not None:
        fills, probs = profile.fill.value, profile.probability.value
        if fills and len(fills) == len(probs):
            pairs = sorted(zip(fills, probs, strict=True))
            return pairs[0][0], pairs[-1][0], pairs[-1][1], profile.fill.line
    if profile.points:
        points = sorted(profile.points)
        return points[0][0], points[-1][0], points[-1][1], points[0][2]
    return None
