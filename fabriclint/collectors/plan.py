"""Run a platform's command plan over an open session: static commands, then derived ones.

`GuardedSession` is the last gate before the wire: a command outside the platform's read-only
allowlist raises instead of being sent, whoever asks (the plan, napalm, a future caller).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from fabriclint.collectors.base import CollectError, Session, Target
from fabriclint.commands import (
    COUNTER_COMMANDS,
    PLATFORMS,
    SUDO,
    CommandSpec,
    counter_derive,
    derive,
    is_allowed,
    missing_required,
)

_CLI_ERROR = re.compile(r"^% ")
_JUNOS_ERROR = re.compile(r"^(?:error:|syntax error|unknown command)", re.IGNORECASE)
_SHELL_ERROR = re.compile(
    r"command not found|No such file or directory|Permission denied|Operation not permitted"
    r"|^sudo: |^Error: |not supported|Module \S+ is not loaded",
    re.IGNORECASE,
)


def command_error(platform: str, text: str) -> str | None:
    """The error line when `text` is the platform's error reply rather than an output."""
    # only the first non-blank lines decide (and a shell error has at most 5): a large output
    # is not split into lines for this
    lines = _first_lines(text, 6)
    if not lines:
        return None
    device_type = PLATFORMS[platform].device_type
    if device_type in ("arista_eos", "cisco_nxos"):
        return lines[0].strip() if _CLI_ERROR.match(lines[0]) else None
    if device_type == "juniper_junos":
        return next((ln.strip() for ln in lines[:3] if _JUNOS_ERROR.match(ln.strip())), None)
    # a shell: the whole (short) output is error lines, e.g. `-bash: mlnx_qos: command not found`
    if len(lines) <= 5 and all(_SHELL_ERROR.search(line) for line in lines):
        return lines[-1].strip()
    return None


def _first_lines(text: str, count: int) -> list[str]:
    """The first `count` non-blank lines of `text` (as `str.splitlines` splits), read from a
    growing prefix: a large output is not split whole for its first lines."""
    size = 4096
    while True:
        lines = [line for line in text[:size].splitlines() if line.strip()]
        # a line past the ones wanted has begun: those are whole (or the text is all read)
        if len(lines) > count or size >= len(text):
            return lines[:count]
        size *= 4


class GuardedSession:
    """A Session that refuses (never sends) any command outside the allowlist."""

    def __init__(self, inner: Session, platform: str) -> None:
        self._inner = inner
        self._platform = platform
        self.sent: list[str] = []

    def send(self, command: str, timeout: float) -> str:
        """Send an allowlisted command; raise CollectError(command-failed) for any other."""
        if not is_allowed(self._platform, command):
            raise CollectError(
                "command-failed",
                f"refused {command!r}: not in the {self._platform} read-only allowlist (never sent)",
            )
        self.sent.append(command)
        return self._inner.send(command, timeout)

    def close(self) -> None:
        """Close the wrapped session."""
        self._inner.close()


@dataclass
class Deadline:
    """The device's time budget; per-command timeouts never run past it."""

    at: float
    command_timeout: float

    def next_timeout(self, command: str) -> float:
        """Timeout for the next command, or CollectError(timeout) when the budget is spent."""
        left = self.at - time.monotonic()
        if left <= 0:
            raise CollectError("timeout", f"device time budget spent before '{command}'")
        return min(self.command_timeout, left)


@dataclass
class PlanResult:
    """Outputs by snapshot key, and the optional commands that failed."""

    outputs: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)


def wire_command(target: Target, spec: CommandSpec) -> str:
    """The command line as sent (with `sudo -n` on shells when asked)."""
    shell = PLATFORMS[target.platform].shell
    return SUDO + spec.command if target.sudo and shell else spec.command


def static_commands(target: Target) -> tuple[CommandSpec, ...]:
    """The device's static commands: its configuration plan, or only its counter commands."""
    if target.counters:
        plan = COUNTER_COMMANDS.get(target.platform)
        return plan.commands if plan else ()
    return PLATFORMS[target.platform].commands


def run_counter_plan(session: Session, target: Target, deadline: Deadline) -> PlanResult:
    """Run the counter commands (`collect --counters`); raises CollectError."""
    result = PlanResult()
    for spec in static_commands(target):
        _run_one(session, target, spec, deadline, result)
    for spec in counter_derive(target.platform, result.outputs):
        _run_one(session, target, spec, deadline, result)
    plan = COUNTER_COMMANDS.get(target.platform)
    maps = plan.maps if plan is not None else frozenset()
    if not any(key not in maps for key in result.outputs):
        tried = "; ".join(result.skipped) or "no counter command for this platform"
        raise CollectError("command-failed", f"no counter output could be read ({tried})")
    return result


def run_plan(session: Session, target: Target, deadline: Deadline) -> PlanResult:
    """Run the static commands, then those derived from their outputs; raises CollectError."""
    if target.counters:
        return run_counter_plan(session, target, deadline)
    result = PlanResult()
    platform = PLATFORMS[target.platform]
    for spec in platform.commands:
        _run_one(session, target, spec, deadline, result)
    for spec in derive(target.platform, result.outputs):
        _run_one(session, target, spec, deadline, result)
    missing = missing_required(target.platform, result.outputs)
    if missing is not None:
        tried = "; ".join(result.skipped) or "no answer"
        raise CollectError("command-failed", f"{missing} ({tried})")
    if platform.required_any and not any(k in result.outputs for k in platform.required_any):
        wanted = " or ".join(f"'{key}'" for key in platform.required_any)
        tried = "; ".join(result.skipped) or "no answer"
        raise CollectError("command-failed", f"could not read {wanted} ({tried})")
    return result


def _run_one(
    session: Session, target: Target, spec: CommandSpec, deadline: Deadline, result: PlanResult
) -> None:
    if spec.only_if_missing and spec.only_if_missing in result.outputs:
        return
    command = wire_command(target, spec)
    text = session.send(command, deadline.next_timeout(command))
    error = command_error(target.platform, text)
    if error is None:
        result.outputs.setdefault(spec.key, text)
    elif spec.optional:
        result.skipped.append(f"{command}: {error}")
    else:
        raise CollectError("command-failed", f"'{command}': {error}")
