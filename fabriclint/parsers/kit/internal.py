"""The never-raise contract of every parser, and the input problem for a parser's own failure,
located at the output (and line) it was reading.

Every parser promises never to raise: `never_raises` wraps its `parse` once, so an unexpected
exception becomes an `unparseable` problem (the device is then incomplete, exit 3) on a state
that holds nothing else (half a parse must not feed the rules). `counters_never_raise` is the
same contract for a counter parser (`parse(raw) -> DeviceCounters`): the interval that device's
counters measure is then not trusted (`fabriclint counters` exits 3). A bare `KeyError(1)` tells nobody which of a host's
ten outputs to look at, so the traceback's frames are searched, innermost first, for what they
were reading: an object with a `file` (a `Text` or a `Draft`), or a local `file`,
and a line counter (`num`, `lineno`, or `number` beside the `line` text being read).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, Any, TypeVar

from fabriclint.models.common import construct, source_at
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState, InputProblem

if TYPE_CHECKING:  # the counter parsers import the models themselves; a check never loads them
    from fabriclint.models.counters import DeviceCounters

Parse = Callable[[RawDevice], DeviceState]
ParseCounters = Callable[[RawDevice], "DeviceCounters"]
_Result = TypeVar("_Result", DeviceState, "DeviceCounters")

_LINE_NAMES = ("num", "lineno", "line_no")
_TEXT_NAMES = ("line", "raw", "body")


def never_raises(platform: str, name: str) -> Callable[[Parse], Parse]:
    """Decorate a platform's `parse`: a bug inside it gives a DeviceState of `platform` whose only
    content is the problem "`name` parser failed on this input at FILE:LINE: ...", never an
    exception (the engine and the CLI then report the device as incomplete)."""

    def failed(raw: RawDevice, problem: InputProblem) -> DeviceState:
        state = construct(DeviceState, name=raw.name, platform=platform)
        state.problems.append(problem)
        return state

    return _guard(f"{name} parser failed on this input", failed)


def counters_never_raise(platform: str, name: str) -> Callable[[ParseCounters], ParseCounters]:
    """Decorate a platform's counter `parse`: a bug inside it gives DeviceCounters whose only
    content is the problem "`name` counter parser failed on this input at FILE:LINE: ..."."""

    def failed(raw: RawDevice, problem: InputProblem) -> DeviceCounters:
        from fabriclint.models.counters import DeviceCounters

        return DeviceCounters(name=raw.name, platform=platform, problems=[problem])

    return _guard(f"{name} counter parser failed on this input", failed)


def _guard(
    prefix: str, failed: Callable[[RawDevice, InputProblem], _Result]
) -> Callable[[Callable[[RawDevice], _Result]], Callable[[RawDevice], _Result]]:
    """The decorator both contracts share: an exception becomes `failed(raw, problem)`."""

    def wrap(parse: Callable[[RawDevice], _Result]) -> Callable[[RawDevice], _Result]:
        @functools.wraps(parse)
        def safe(raw: RawDevice) -> _Result:
            try:
                return parse(raw)
            except Exception as exc:  # the contract is "never raise": report instead
                return failed(raw, internal_error(prefix, exc, raw))

        return safe

    return wrap


def internal_error(prefix: str, exc: BaseException, raw: RawDevice) -> InputProblem:
    """`prefix at FILE:LINE: <exception>` as an unparseable problem with that source."""
    file, line = _where(exc)
    if file is None and len(raw.outputs) == 1:
        file = next(iter(raw.outputs.values())).file
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else repr(exc)
    if file is None:
        files = ", ".join(sorted(out.file for out in raw.outputs.values())) or "no input"
        message = f"{prefix} while reading one of {files}: {detail}"
        return InputProblem(kind="unparseable", message=message)
    place = f"{file}:{line}" if line else file
    message = f"{prefix} at {place}: {detail} (an internal error: please report it)"
    return InputProblem(kind="unparseable", message=message, source=source_at(file, line))


def _frames(exc: BaseException) -> list[FrameType]:
    """The traceback's frames, innermost first."""
    out: list[FrameType] = []
    tb = exc.__traceback__
    while tb is not None:
        out.append(tb.tb_frame)
        tb = tb.tb_next
    return out[::-1]


def _where(exc: BaseException) -> tuple[str | None, int | None]:
    """(file, line) of the input the innermost frame that names one was reading."""
    line: int | None = None
    for frame in _frames(exc):
        local = frame.f_locals
        if line is None:
            line = _line_of(local)
        file = _file_of(local)
        if file is not None:
            return file, line
    return None, None


def _line_of(local: dict[str, Any]) -> int | None:
    for name in _LINE_NAMES:
        value = local.get(name)
        if type(value) is int and value > 0:
            return value
    value = local.get("number")
    if type(value) is int and value > 0 and any(isinstance(local.get(n), str) for n in _TEXT_NAMES):
        return value  # `for number, line in enumerate(lines, 1)`
    return None


def _file_of(local: dict[str, Any]) -> str | None:
    named = local.get("file")
    if isinstance(named, str) and named:
        return named
    for value in local.values():
        if isinstance(value, type | RawOutput):  # a RawOutput is often a loop's leftover
            continue
        found = getattr(value, "file", None)
        if isinstance(found, str) and found:
            return found
    return None
