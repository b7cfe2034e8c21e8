"""Faults a lab device can be told to show: `--fault 'GLOB=kind[:value][,kind...]'`.

wrong-password   every login is rejected                     -> auth-failed
refuse           the port refuses TCP connections            -> unreachable
hang             TCP is accepted, nothing is ever sent       -> timeout
stall            logs in, then never answers a command       -> timeout
slow[:BPS]       output trickles at BPS bytes/s (default 200) -> timeout if too slow
latency:S        every command is answered after S seconds   -> ok, later
legacy-ssh       offers only diffie-hellman-group1/14-sha1 kex -> unreachable
fail-command     the first command gets the platform's error -> command-failed
"""

from __future__ import annotations

import fnmatch
import math
from dataclasses import dataclass, replace

KINDS = (
    "wrong-password",
    "refuse",
    "hang",
    "stall",
    "slow",
    "latency",
    "legacy-ssh",
    "fail-command",
)


class FaultError(ValueError):
    """A fault specification that cannot be read."""


@dataclass(frozen=True)
class Fault:
    """What is wrong with one lab device (several kinds may combine)."""

    wrong_password: bool = False
    refuse: bool = False
    hang: bool = False
    stall: bool = False
    slow_bps: float | None = None
    latency: float = 0.0
    legacy_ssh: bool = False
    fail_command: bool = False


def _number(kind: str, value: str | None, default: float | None) -> float:
    if value is None:
        if default is None:
            raise FaultError(f"fault '{kind}' needs a value ({kind}:N)")
        return default
    try:
        number = float(value)
    except ValueError:
        raise FaultError(f"fault '{kind}:{value}': not a number") from None
    if not math.isfinite(number) or number < 0:  # float() accepts nan and inf
        raise FaultError(f"fault '{kind}:{value}': must be a finite number, 0 or more")
    return number


def add_fault(fault: Fault, item: str) -> Fault:
    """`fault` with one more `kind[:value]` applied."""
    kind, _, value = item.strip().partition(":")
    arg = value or None
    flags = {
        "wrong-password": "wrong_password",
        "refuse": "refuse",
        "hang": "hang",
        "stall": "stall",
        "legacy-ssh": "legacy_ssh",
        "fail-command": "fail_command",
    }
    if kind in flags:
        return replace(fault, **{flags[kind]: True})
    if kind == "slow":
        return replace(fault, slow_bps=max(1.0, _number(kind, arg, 200.0)))
    if kind == "latency":
        return replace(fault, latency=_number(kind, arg, None))
    raise FaultError(f"unknown fault '{kind}'; known: {', '.join(KINDS)}")


def parse_faults(specs: list[str], names: list[str]) -> dict[str, Fault]:
    """Faults per device from `GLOB=kind[:v][,kind...]` specs (later specs add to earlier)."""
    faults: dict[str, Fault] = {}
    for spec in specs:
        pattern, sep, kinds = spec.partition("=")
        if not sep or not kinds:
            raise FaultError(f"fault {spec!r}: write DEVICE_GLOB=kind[:value][,kind...]")
        matched = fnmatch.filter(names, pattern)
        if not matched:
            raise FaultError(f"fault {spec!r}: no device matches {pattern!r}")
        for name in matched:
            fault = faults.get(name, Fault())
            for item in kinds.split(","):
                fault = add_fault(fault, item)
            faults[name] = fault
    return faults
