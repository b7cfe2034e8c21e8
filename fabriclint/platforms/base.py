"""The shape of a platform descriptor: everything fabriclint knows about one platform, in one place.

A `Platform` says what kind of device it is (switch, host, subnet manager), which parser reads it
(a module path, imported only when a device of the platform is parsed), what is collected from it
(`CommandSpec`s, the read-only allowlist, the netmiko/napalm driver names, the commands netmiko
sends around a session), which output is its configuration (`--configs`, signature checks) and the
few semantic facts rules need (can an MTU be set per class?). This layer imports nothing else of
the project, so models, parsers, rules and collectors can all read it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

DeviceKind = Literal["switch", "host", "subnet-manager"]
"""What a device is: a switch (ports, QoS, PFC), a host with RDMA NICs, or an InfiniBand
subnet-manager node (OpenSM: configuration files only, no ports of its own to check)."""

KINDS: tuple[DeviceKind, ...] = ("switch", "host", "subnet-manager")


@dataclass(frozen=True)
class CommandSpec:
    """One command of a platform's collection plan."""

    key: str
    """Snapshot key (manifest `files` key) the output is stored under; what parsers look up."""
    run: str = ""
    """The command sent to the device; empty means `key` itself."""
    optional: bool = False
    """A failure (command not found, no such file) is skipped, not a device failure."""
    only_if_missing: str | None = None
    """Run only when this key was not collected by an earlier command (a fallback)."""

    @property
    def command(self) -> str:
        """The command line sent to the device."""
        return self.run or self.key


Derive = Callable[[dict[str, str]], list[CommandSpec]]
"""Commands that depend on what the static commands returned (per netdev, per HCA port)."""
Missing = Callable[[dict[str, str]], str | None]
"""Why the collected outputs are not enough once every command ran, or None."""
ConfigForm = Callable[[str], str]
"""The snapshot key a rendered configuration text stands for (platforms with several forms)."""


def _no_derived(_collected: dict[str, str]) -> list[CommandSpec]:
    return []


def _nothing_missing(_collected: dict[str, str]) -> str | None:
    return None


@dataclass(frozen=True)
class CounterPlan:
    """What `fabriclint collect --counters` sends to one platform (and nothing else): read-only
    counter outputs for `fabriclint counters` (docs/counters.md)."""

    parser: str
    """Module path of the counter parser (`parse(raw) -> DeviceCounters`), imported on use."""
    commands: tuple[CommandSpec, ...]
    """Static counter commands, in order."""
    patterns: tuple[re.Pattern[str], ...] = ()
    """Allowlisted per-netdev / per-HCA-port counter commands."""
    derive: Derive = _no_derived
    """Counter commands that depend on what the static ones returned (hosts: per HCA port)."""
    maps: frozenset[str] = frozenset()
    """Outputs read only to name the ports (HCA -> netdev maps): collected, but not counters."""

    @property
    def exact(self) -> frozenset[str]:
        """Allowlisted counter commands, exact strings."""
        return frozenset(spec.command for spec in self.commands)


@dataclass(frozen=True)
class Platform:
    """One platform's descriptor. Field names shared with the collectors' view (`device_type`,
    `commands`, `exact`, `patterns`, `required_any`, `shell`) keep their meaning there."""

    name: str
    """Platform key, as written in inventory.yaml and the snapshot manifest."""
    kind: DeviceKind
    parser: str
    """Module path of the parser (`parse(raw) -> DeviceState`); imported on first use."""
    device_type: str
    """netmiko device type."""
    commands: tuple[CommandSpec, ...]
    """Static commands, in order; `derive` adds those that depend on their outputs."""
    exact: frozenset[str]
    """Allowlisted commands, exact strings."""
    session: frozenset[str]
    """What netmiko itself sends for `device_type` on login and logout (paging, width, exit):
    session set-up only, never configuration, so never in the allowlist."""
    config_keys: tuple[str, ...] = ()
    """Outputs that are the device's configuration, main one first: the key of a rendered config
    in `--configs` and what the signature check fingerprints. Empty: no single config (hosts,
    OpenSM's several files), so `--configs` cannot stand for such a device."""
    patterns: tuple[re.Pattern[str], ...] = ()
    """Allowlisted commands, full-match patterns (per-interface / per-HCA commands)."""
    required_any: tuple[str, ...] = ()
    """At least one of these keys must be collected, or the device failed."""
    shell: bool = False
    """A Linux shell: commands may be prefixed with `sudo -n ` (--sudo)."""
    napalm: str | None = None
    """napalm driver name, where fabriclint reads facts through napalm."""
    facts: tuple[str, ...] = ()
    """Commands the napalm driver sends for get_facts (allowlisted with the rest)."""
    class_mtu: bool = False
    """A traffic class can carry its own MTU (NX-OS network-qos `mtu`), so MTU004 applies."""
    derive: Derive = _no_derived
    missing_required: Missing = _nothing_missing
    config_form: ConfigForm | None = None
    """Which config key a rendered text is, when the platform has several forms (Cumulus)."""
    counters: CounterPlan | None = None
    """The counter commands (`collect --counters`); None: counters not supported yet."""
    templates: tuple[str, ...] = ()
    """Per-interface / per-HCA command templates (`{netdev}`, `{hca}`, `{port}` holes) whose
    filled-in forms `patterns` allow: how other tools' output files are named back to keys."""
    lldp: str | None = None
    """Snapshot key of the LLDP neighbour output (optional, read-only), which the CAB rules
    compare with the cabling plan (docs/cabling.md); None: not collected on this platform."""
    aliases: tuple[str, ...] = ()
    """Other tools' names for this platform (NetBox/Nautobot slugs, Ansible network OS names,
    netmiko/napalm drivers), read by `fabriclint inventory import`."""

    def rendered_key(self, text: str) -> str | None:
        """The snapshot key a rendered configuration stands for; None: the platform has none."""
        if self.config_form is not None:
            return self.config_form(text)
        return self.config_keys[0] if self.config_keys else None


def specs(*items: CommandSpec | str) -> tuple[CommandSpec, ...]:
    """Command specs from specs or plain keys (the command sent is the key)."""
    return tuple(CommandSpec(key=i) if isinstance(i, str) else i for i in items)


def exact(items: Iterable[CommandSpec], *extra: str) -> frozenset[str]:
    """The exact allowlist: every command the plan sends, plus `extra`."""
    return frozenset([s.command for s in items] + list(extra))


# Linux names: IFNAMSIZ is 16 (15 usable); HCA names (mlx5_0, mlx5_bond_0, rocep23s0f0) are short.
NETDEV = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,14}"
HCA = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}"
SUDO = "sudo -n "


def pattern(template: str) -> re.Pattern[str]:
    """A full-match allowlist pattern from a template with {netdev}, {hca} and {port} holes."""
    escaped = re.escape(template).replace(r"\{netdev\}", NETDEV).replace(r"\{hca\}", HCA)
    return re.compile(escaped.replace(r"\{port\}", r"[0-9]{1,2}"))


# What netmiko sends around fabriclint's commands (see `Platform.session`).
CLI_SESSION = frozenset({"", "terminal width 511", "terminal length 0", "exit"})
LINUX_SESSION = frozenset({"", "exit"})
