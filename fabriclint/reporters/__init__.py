"""Reporters: one module per format, each a pure `Report -> str`, imported only when chosen."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fabriclint.formats import FORMATS, REPORTERS
from fabriclint.models.finding import DeviceSummary, Gap, Report
from fabriclint.models.policy import Severity

Reporter = Callable[[Report], str]

__all__ = ["FORMATS", "Cable", "Reporter", "gap_text", "get_reporter", "names", "unchecked", "why"]


@dataclass(frozen=True)
class Cable:
    """One cable the check knows, for the HTML map: its two ends (device, port as the device
    spells it) and where it is known from (`plan`: the cabling plan; `lldp`: only LLDP shows it)."""

    a: tuple[str, str]
    b: tuple[str, str]
    seen: str = "plan"


NOT_CHECKED = "not-checked"
"""Status of a device deliberately outside the check (a host in a --configs run): not a gap."""


def unchecked(report: Report) -> list[DeviceSummary]:
    """Devices that should have been checked and were not: they make the report incomplete."""
    return [d for d in report.devices if d.status not in ("ok", NOT_CHECKED)]


def why(device: DeviceSummary) -> str:
    """A device's status with its reason, in one line."""
    return f"{device.status}: {device.error}" if device.error else device.status


def names(devices: list[str], limit: int = 4) -> str:
    """`a, b, c, d and 3 more`: a device list short enough for one line."""
    shown = ", ".join(devices[:limit])
    return shown + (f" and {len(devices) - limit} more" if len(devices) > limit else "")


def gap_text(gap: Gap, limit: int = 4) -> str:
    """One coverage gap in one sentence, naming what to add."""
    count = len(gap.devices)
    where = f"{count} device{'s' if count != 1 else ''} ({names(gap.devices, limit)})"
    return f"{gap.rule} not (fully) evaluated on {where}: missing {gap.missing}"


def get_reporter(
    fmt: str,
    color: bool = False,
    *,
    fail_on: Severity = "error",
    anchor: str | None = None,
    quiet: bool = False,
    show_suppressed: bool = False,
    cables: Sequence[Cable] = (),
) -> Reporter:
    """The reporter for `fmt`.

    text honours `color`, `quiet` and `show_suppressed`; junit makes findings at or above
    `fail_on` failures; sarif points findings without a source at the `anchor` file (GitHub
    rejects results without a file); html draws `cables` on its fabric map.
    """
    render = importlib.import_module(REPORTERS[fmt]).render  # UnknownName (a ValueError) names all
    if fmt == "text":
        from fabriclint.reporters.text import TextOptions

        options = TextOptions(
            color=color, quiet=quiet, show_suppressed=show_suppressed, fail_on=fail_on
        )
        return functools.partial(render, options=options)
    if fmt == "junit":
        return functools.partial(render, fail_on=fail_on)
    if fmt == "html":
        return functools.partial(render, cables=cables)
    if fmt in ("sarif", "gitlab"):
        return functools.partial(render, anchor=anchor)
    return functools.partial(render)
