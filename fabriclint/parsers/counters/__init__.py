"""Counter parsers: pure functions from a device's raw counter outputs to DeviceCounters.

One module per platform, `parsers/<platform>/counters.py` (`parse(raw) -> DeviceCounters`, at
the path its descriptor's `CounterPlan.parser` names), imported on first use; what they share is
in `kit/counters.py`. Like the configuration parsers they never raise
(`kit.internal.counters_never_raise`): an output they cannot read, or a bug in one, becomes an
`unparseable` problem on the device's counters, and the interval that device's counters measure
is then not trusted (`fabriclint counters` exits 3).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from fabriclint import platforms
from fabriclint.models.counters import DeviceCounters
from fabriclint.models.raw import RawDevice

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
    return parse(raw)
