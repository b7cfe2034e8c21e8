"""Per-platform parsers: pure functions from RawDevice to DeviceState (no I/O).

A platform's parser is the `parse` function of the module its descriptor names
(`fabriclint/platforms/<name>.py`, `Platform.parser`); it is imported on first use, so a check
only loads the parsers its fabric needs.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable

from fabriclint import platforms
from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState

Parser = Callable[[RawDevice], DeviceState]

MODULES: dict[str, str] = {p.name: p.parser for p in platforms.ALL}
"""Parser module of each platform, from its descriptor (fabriclint/platforms/)."""


def _exists(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


SUPPORTED_PLATFORMS: tuple[str, ...] = tuple(p for p, m in MODULES.items() if _exists(m))


def get_parser(platform: str) -> Parser | None:
    """The parser for `platform`; None when the platform has no parser yet. The parser first
    recognises whether the text is its platform's at all (parsers/kit/signature.py): another OS's
    configuration that parsed without error gives a state with only a PARSE003 problem ("this
    looks like Dell OS10, not eos"), never a clean device; an output holding a CLI pager prompt
    (`--More--`, kit/whole.py `paged`) gets a PARSE003 problem at that line. The parser never
    raises."""
    module = MODULES.get(platform)
    if module is None or platform not in SUPPORTED_PLATFORMS:
        return None
    parse: Parser = importlib.import_module(module).parse
    from fabriclint.parsers.kit.internal import never_raises
    from fabriclint.parsers.kit.signature import not_this_platform
    from fabriclint.parsers.kit.whole import paged

    @never_raises(platform, platform)  # the parse is safe already; this covers the signature check
    def checked(raw: RawDevice) -> DeviceState:
        state = parse(raw)
        if any(p.kind == "unparseable" for p in state.problems):
            return state  # already unreadable: the parser's own reason says more
        foreign = not_this_platform(raw)
        if foreign is not None:
            return foreign
        pager = paged(raw)  # a session stopped at `--More--`: the output is not whole
        if pager is not None:
            state.problems.append(pager)
        return state

    return checked
