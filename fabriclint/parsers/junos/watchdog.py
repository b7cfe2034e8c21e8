"""The PFC watchdog of a Junos congestion notification profile, with the platform's defaults.

`pfc-watchdog { poll-interval MS; detection POLLS; recovery MS; watchdog-action ACTION; }`:
a queue paused for `detection` polls is a storm (detection_ms = polls x poll-interval).
"""

from __future__ import annotations

from fabriclint.models.common import Source
from fabriclint.models.state import PfcWatchdog
from fabriclint.parsers.junos.draft import Cnp, Draft, Lined
from fabriclint.parsers.junos.values import (
    WATCHDOG_ACTION,
    WATCHDOG_DETECTION_POLLS,
    WATCHDOG_POLL_MS,
    WATCHDOG_RECOVERY_MS,
    to_float,
)


def watchdog(d: Draft, cnp: Cnp) -> PfcWatchdog | None:
    """The profile's watchdog; None when the profile has no `pfc-watchdog`."""
    if cnp.watchdog is None:
        return None
    options = cnp.watchdog_options
    poll, poll_src = _number(d, cnp, "poll-interval", WATCHDOG_POLL_MS)
    polls, polls_src = _number(d, cnp, "detection", WATCHDOG_DETECTION_POLLS)
    recovery, recovery_src = _number(d, cnp, "recovery", WATCHDOG_RECOVERY_MS)
    action = options.get("watchdog-action")
    here = d.at(cnp.watchdog)
    return PfcWatchdog(
        enabled=True,
        detection_ms=round(polls * poll, 6),
        restoration_ms=recovery,
        action=action.value if action is not None else WATCHDOG_ACTION,
        sources={
            "": here,
            "enabled": here,
            "detection_ms": polls_src if polls_src.line else poll_src,
            "restoration_ms": recovery_src,
            "action": d.at(action.line if action is not None else None),
        },
    )


def _number(d: Draft, cnp: Cnp, option: str, default: float) -> tuple[float, Source]:
    """A written option, else the default (a value that is not a number is reported)."""
    written: Lined[str] | None = cnp.watchdog_options.get(option)
    value = to_float(written.value) if written is not None else None
    if written is not None and value is None and written.line is not None:
        words = ("class-of-service", "congestion-notification-profile", cnp.name)
        reason = f"not a number; the default {default:g} is assumed"
        d.skip(" ".join((*words, "pfc-watchdog", option, written.value)), reason, written.line)
    if written is None or value is None:
        return default, d.default
    return value, d.at(written.line)
