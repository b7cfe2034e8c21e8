"""Counter parsers: pure functions from a device's raw counter outputs to DeviceCounters.

One module per platform (`parse(raw) -> DeviceCounters`), imported on first use. Like the
configuration parsers they never raise: an output they cannot read, or a bug in one, becomes an
`unparseable` problem on the device's counters, and the interval that device's counters measure
is then not trusted (`fabriclint counters` exits 3).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from fabriclint import platforms
from fabriclint.models.common import source_at
from fabriclint.models.counters import DeviceCounters
from fabriclint.models.raw import RawDevice
from fabriclint.models.state import InputProblem

CounterParser = Callable[[RawDevice], DeviceCounters]

MODULES: dict[str, str] = {
    p.name: p.counters.parser for p in platforms.ALL if p.counters is not None
}
"""Platform -> its counter parser module (platforms not listed have no counter parser yet)."""


def get_counter_parser(platform: str) -> CounterParser | None:
    """The counter parser of `platform`, or None when it has none yet."""
    module = MODULES.get(platform)
    if module is None:
        return None
    parse: CounterParser = importlib.import_module(module).parse
    return parse


def parse_counters(raw: RawDevice) -> DeviceCounters | None:
    """The device's counters; None when its platform has no counter parser. Never raises."""
    parse = get_counter_parser(raw.platform)
    if parse is None:
        return None
    try:
        return parse(raw)
    except Exception as exc:  # a parser bug: this device's interval is incomplete, never a crash
        first = next(iter(raw.outputs.values()), None)
        message = f"counter parser failed: {type(exc).__name__}: {exc} (an internal error: please report it)"
        source = source_at(first.file) if first else None
        problem = InputProblem(kind="unparseable", message=message, source=source)
        return DeviceCounters(name=raw.name, platform=raw.platform, problems=[problem])
