"""The read-only allowlist over what each platform's descriptor says is collected.

The command specs themselves live in the platform descriptors (`fabriclint/platforms/<name>.py`),
which both the collectors (what to send) and the parsers (which keys to read) import. A
`CommandSpec` separates the command *sent* (`run`) from the snapshot *key* the output is stored
under (`key`): for most commands they are equal; files are read with `cat` but keyed by the name
the parser expects (`config_db.json`, `opensm.conf`, ...).

Read-only by construction: every command a collector sends must pass `is_allowed` for the
device's platform, an exact string or a pattern with a strict character class (no spaces,
quotes or shell metacharacters can appear in an interface or HCA name). There is no pattern
that could match a configuration command. See docs/collect.md.
"""

from __future__ import annotations

from collections.abc import Iterable

from fabriclint import platforms
from fabriclint.platforms.base import HCA, NETDEV, SUDO, CommandSpec, CounterPlan, Platform
from fabriclint.platforms.mlnx_host import (
    ECN_SYSFS,
    ETHTOOL,
    ETHTOOL_STATS,
    HW_COUNTERS,
    IP_LINK,
    MLNX_QOS,
    ROCE_TOS,
    HcaPort,
    hca_ports,
)

__all__ = [
    "COUNTER_COMMANDS",
    "ECN_SYSFS",
    "ETHTOOL",
    "ETHTOOL_STATS",
    "HCA",
    "HW_COUNTERS",
    "IP_LINK",
    "MLNX_QOS",
    "NETDEV",
    "PLATFORMS",
    "ROCE_TOS",
    "SESSION_COMMANDS",
    "SUDO",
    "CommandRefused",
    "CommandSpec",
    "HcaPort",
    "Platform",
    "check_allowed",
    "counter_allowed",
    "counter_derive",
    "derive",
    "hca_ports",
    "is_allowed",
    "is_counter_key",
    "key_to_command",
    "missing_required",
]

PLATFORMS: dict[str, Platform] = {p.name: p for p in platforms.ALL}
"""The collection view of every descriptor, by platform key (tests swap entries in it)."""


def _session_commands() -> dict[str, frozenset[str]]:
    """Session commands by netmiko device type; descriptors sharing a type must agree."""
    out: dict[str, frozenset[str]] = {}
    for platform in platforms.ALL:
        known = out.setdefault(platform.device_type, platform.session)
        assert known == platform.session, f"{platform.name}: session commands of its type differ"
    return out


# Counter commands (`fabriclint collect --counters`) live in each descriptor's `counters` plan.
COUNTER_COMMANDS: dict[str, CounterPlan] = {
    p.name: p.counters for p in platforms.ALL if p.counters is not None
}
"""Platform -> its counter commands (platforms not listed have none yet)."""


def counter_allowed(platform: str, command: str) -> bool:
    """True when `command` is one of the platform's counter commands (exact or by pattern)."""
    plan = COUNTER_COMMANDS.get(platform)
    if plan is None:
        return False
    return command in plan.exact or any(p.fullmatch(command) for p in plan.patterns)


def is_counter_key(platform: str, key: str) -> bool:
    """True when snapshot `key` holds a counter output (not configuration) of `platform`.
    The HCA-to-netdev maps are both: counter collection reads them to name the ports."""
    plan = COUNTER_COMMANDS.get(platform)
    return plan is not None and key not in plan.maps and counter_allowed(platform, key)


def counter_derive(platform: str, collected: dict[str, str]) -> list[CommandSpec]:
    """Per-netdev and per-HCA-port counter commands from what the static ones returned."""
    plan = COUNTER_COMMANDS.get(platform)
    return plan.derive(collected) if plan is not None else []


# What netmiko itself sends around fabriclint's commands, per device type: terminal setup on
# login (paging, width) and the logout. They change only the session, never the configuration;
# fabriclint never asks for them, so they are not in any allowlist. The lab answers them and the
# command-audit test accepts exactly these (tests/collectors/test_audit.py).
SESSION_COMMANDS: dict[str, frozenset[str]] = _session_commands()


class CommandRefused(Exception):
    """A command outside the platform's read-only allowlist; it is never sent."""


def is_allowed(platform: str, command: str) -> bool:
    """True when `command` is in the read-only allowlist of `platform` (exact or by pattern)."""
    spec = PLATFORMS.get(platform)
    if spec is None:
        return False
    if spec.shell and command.startswith(SUDO):
        command = command.removeprefix(SUDO)
    if command in spec.exact or counter_allowed(platform, command):
        return True
    return any(p.fullmatch(command) for p in spec.patterns)


def check_allowed(platform: str, commands: Iterable[str]) -> None:
    """Raise CommandRefused for the first command outside the allowlist."""
    for command in commands:
        if not is_allowed(platform, command):
            raise CommandRefused(f"refused {command!r}: not in the {platform} read-only allowlist")


def key_to_command(platform: str, key: str) -> str | None:
    """The command that produces snapshot `key` (first one in the plan), for the lab."""
    for spec in PLATFORMS[platform].commands if platform in PLATFORMS else ():
        if spec.key == key:
            return spec.command
    return key if platform in PLATFORMS and is_allowed(platform, key) else None


def missing_required(platform: str, collected: dict[str, str]) -> str | None:
    """Why the outputs are not enough once every command ran, or None (the descriptor says)."""
    spec = PLATFORMS.get(platform)
    return spec.missing_required(collected) if spec is not None else None


def derive(platform: str, collected: dict[str, str]) -> list[CommandSpec]:
    """Commands that depend on what the static commands found (per netdev / per HCA port)."""
    spec = PLATFORMS.get(platform)
    return spec.derive(collected) if spec is not None else []
