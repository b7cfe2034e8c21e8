"""DRIFT001/DRIFT002: settings that differ from intent or are absent.

The comparison itself is the engine's drift stage (engine.py `drift`, over drift/compare.py): it
runs once per device and serves both codes. These classes are the codes' catalog entries and say
how a device's drifts read as findings; their `check` evaluates nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from fabriclint.drift.compare import Drift
from fabriclint.models.finding import Finding
from fabriclint.rules.base import Context, NoOptions, Rule

INCOMPARABLE = "thresholds in bytes (the device states some in segments or time)"
"""The coverage gap of a device that states a compared threshold in other units."""

NO_PROFILE = "an intent profile for the device's role"
"""The coverage gap of a device no intent profile applies to."""


class SettingDrift(Rule[NoOptions]):
    """A setting intent declares differs from the device (outside its tolerance).

    Why: intent is what the benchmark plan assumes; any difference invalidates the result.

    Fails: intent ECN minimum 150000 B (±10 %) and the leaf programs 300000 B.
    Passes: the leaf programs 159744 B (within tolerance).
    """

    code = "DRIFT001"
    name = "setting-drift"
    severity = "error"
    summary = "A setting differs from intent"
    stage = "drift"
    missing = False

    def check(self, ctx: Context) -> Iterator[Finding]:
        """Nothing to evaluate: the engine's drift stage calls `report` per device."""
        return iter(())

    def report(self, ctx: Context, device: str, drifts: Iterable[Drift]) -> Iterator[Finding]:
        """This code's findings among one device's drifts (a gap when some are incomparable)."""
        drifts = list(drifts)
        if any(not d.comparable for d in drifts):
            ctx.skip(self.code, device, INCOMPARABLE)
        mine = [d for d in drifts if d.missing == self.missing and d.comparable]
        for group in _group(mine):
            yield self._finding(device, group)

    def _finding(self, device: str, group: list[Drift]) -> Finding:
        first = group[0]
        if len(group) == 1:
            obj, path, where = first.obj, first.path, first.obj
        else:
            obj, path = "qos", f"interfaces.*.{first.key}"
            where = f"{len(group)} ports ({_names([d.port for d in group])})"
        if self.missing:
            message = f"{first.label} is not configured on {where} (intent: {first.expected})"
        else:
            how = f" ({first.explanation})" if first.explanation else ""
            message = (
                f"{first.label} on {where}: {first.actual}, where intent has {first.expected}{how}"
            )
        return self.finding(
            device,
            obj,
            path,
            message,
            expected=first.expected,
            actual=first.actual,
            source=first.source,
        ).scoped(first.key, [d.port for d in group])


def _names(ports: list[str], limit: int = 3) -> str:
    shown = ", ".join(ports[:limit])
    return shown + (f" and {len(ports) - limit} more" if len(ports) > limit else "")


def _group(drifts: list[Drift]) -> list[list[Drift]]:
    """Merge the same drift on several ports when one config line causes it (one fault, one finding)."""
    groups: dict[tuple[str, str, str, str], list[Drift]] = {}
    for drift in drifts:
        line = str(drift.source) if drift.source else "-"  # no line: one finding, not one per port
        key = (drift.key, repr(drift.expected), repr(drift.actual), line)
        groups.setdefault(key, []).append(drift)
    return list(groups.values())


class SettingMissing(SettingDrift):
    """A setting intent declares is absent on the device.

    Why: an absent setting falls back to a platform default nobody chose.

    Fails: intent declares ECN on the RoCE queue and the queue has no random-detect ecn.
    Passes: the queue marks ECN at the intended thresholds.
    """

    code = "DRIFT002"
    name = "setting-missing"
    severity = "error"
    summary = "A setting intent declares is absent"
    missing = True


RULES: list[type[Rule[Any]]] = [SettingDrift, SettingMissing]
