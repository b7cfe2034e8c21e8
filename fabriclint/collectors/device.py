"""Collect one device: connect (with retries for transient errors), run its plan, redact.

Retries happen only for errors marked transient (connection refused, reset, closed before
login) and only while the device's time budget allows another attempt. Authentication and
host-key failures are never retried: repeated failures can lock an account.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field, replace

from fabriclint.collectors.base import CollectError, Collector, DeviceResult, Target, Timeouts
from fabriclint.collectors.credentials import Scrubber
from fabriclint.collectors.facts import FACTS, FACTS_KEY
from fabriclint.collectors.plan import (
    Deadline,
    GuardedSession,
    PlanResult,
    run_plan,
    static_commands,
    wire_command,
)
from fabriclint.collectors.redact import redact
from fabriclint.commands import PLATFORMS, CommandRefused, check_allowed


@dataclass(frozen=True)
class Settings:
    """How hard to try, per device."""

    timeouts: Timeouts = field(default_factory=Timeouts)
    retries: int = 2
    """Extra attempts after a transient connection error."""
    backoff: float = 0.5
    """First wait before a retry, in seconds; doubles each time (with jitter)."""
    facts: bool = True
    """Read napalm facts where a platform has them (EOS)."""


def planned_commands(target: Target, settings: Settings) -> list[str]:
    """Every static command the device will be sent (derived ones are checked when made)."""
    commands = [wire_command(target, spec) for spec in static_commands(target)]
    if settings.facts and target.platform in FACTS and not target.counters:
        commands += list(PLATFORMS[target.platform].facts)
    return commands


def preflight(target: Target, settings: Settings) -> DeviceResult | None:
    """A failed result when the plan holds a command outside the allowlist (nothing is opened)."""
    if target.platform not in PLATFORMS:
        reason = f"no collector for platform '{target.platform}'"
        return DeviceResult(target.name, target.platform, "command-failed", reason)
    try:
        check_allowed(target.platform, planned_commands(target, settings))
    except CommandRefused as exc:
        reason = f"{exc} (no connection was opened)"
        return DeviceResult(target.name, target.platform, "command-failed", reason)
    return None


def collect_device(
    collector: Collector,
    target: Target,
    settings: Settings,
    scrub: Scrubber,
    aborted: threading.Event,
) -> DeviceResult:
    """Collect one device; never raises (every failure becomes a status and a reason)."""
    start = time.monotonic()
    limits = settings.timeouts
    deadline = Deadline(start + limits.device, limits.command)
    result = DeviceResult(target.name, target.platform)
    while True:
        result.attempts += 1
        try:
            plan = _attempt(collector, target, settings, deadline, result)
        except CollectError as raised:
            err = _cut(limits) if aborted.is_set() else raised
            wait = _retry_wait(err, result.attempts, settings, deadline)
            if wait is None:
                reason = redact(scrub.reason(err.reason), target.platform)
                result.status, result.reason = err.status, reason
                break
            time.sleep(wait)
            continue
        platform = target.platform
        result.outputs = {
            k: redact(scrub.clean(text), platform) for k, text in plan.outputs.items()
        }
        # a reason may quote the device's error line, which may quote a secret
        result.skipped = [redact(scrub.reason(s), platform) for s in plan.skipped]
        break
    result.seconds = round(time.monotonic() - start, 3)
    return result


def _cut(limits: Timeouts) -> CollectError:
    """The error of a device the pool cut at its time limit (whatever the session then raised)."""
    return CollectError("timeout", f"device time limit ({limits.device:g} s) reached")


def _retry_wait(
    err: CollectError, attempts: int, settings: Settings, deadline: Deadline
) -> float | None:
    """Seconds to wait before the next attempt, or None when there is none."""
    if not err.transient or attempts > settings.retries:
        return None
    wait = settings.backoff * 2 ** (attempts - 1) * random.uniform(0.8, 1.2)
    left = deadline.at - time.monotonic()
    return wait if left > wait + 1.0 else None


def _attempt(
    collector: Collector,
    target: Target,
    settings: Settings,
    deadline: Deadline,
    result: DeviceResult,
) -> PlanResult:
    left = deadline.at - time.monotonic()
    if left <= 0:
        raise CollectError("timeout", "device time budget spent before connecting")
    timeouts = replace(settings.timeouts, connect=min(settings.timeouts.connect, left))
    session = GuardedSession(collector.open(target, timeouts), target.platform)
    try:
        plan = run_plan(session, target, deadline)
        if settings.facts and target.platform in FACTS and not target.counters:
            _add_facts(session, target, deadline, plan, result)
        return plan
    finally:
        session.close()


def _add_facts(
    session: GuardedSession,
    target: Target,
    deadline: Deadline,
    plan: PlanResult,
    result: DeviceResult,
) -> None:
    try:
        plan.outputs[FACTS_KEY] = FACTS[target.platform](session, deadline.next_timeout)
    except CollectError as err:
        result.notes.append(f"facts unavailable: {err.reason}")
    except Exception as exc:  # napalm on an unexpected reply: facts are optional
        result.notes.append(f"facts unavailable: {type(exc).__name__}")
