"""What fabriclint reads from each platform: the commands, their snapshot keys, the read-only allowlist.

This is the one place both the collectors (what to send) and the parsers (which keys to read)
agree on. A `CommandSpec` separates the command *sent* (`run`) from the snapshot *key* the
output is stored under (`key`): for most commands they are equal; files are read with `cat`
but keyed by the name the parser expects (`config_db.json`, `opensm.conf`, ...).

Read-only by construction: every command a collector sends must pass `is_allowed` for the
device's platform, an exact string or a pattern with a strict character class (no spaces,
quotes or shell metacharacters can appear in an interface or HCA name). There is no pattern
that could match a configuration command. See docs/collect.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass


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


@dataclass(frozen=True)
class Platform:
    """How one platform is collected."""

    device_type: str
    """netmiko device type."""
    commands: tuple[CommandSpec, ...]
    """Static commands, in order. Host platforms derive more from their outputs (`derive`)."""
    exact: frozenset[str]
    """Allowlisted commands, exact strings."""
    patterns: tuple[re.Pattern[str], ...] = ()
    """Allowlisted commands, full-match patterns (per-interface / per-HCA commands)."""
    required_any: tuple[str, ...] = ()
    """At least one of these keys must be collected, or the device failed."""
    shell: bool = False
    """A Linux shell: commands may be prefixed with `sudo -n ` (--sudo)."""


def _specs(*items: CommandSpec | str) -> tuple[CommandSpec, ...]:
    return tuple(CommandSpec(key=i) if isinstance(i, str) else i for i in items)


def _exact(specs: Iterable[CommandSpec], *extra: str) -> frozenset[str]:
    return frozenset([s.command for s in specs] + list(extra))


# Linux names: IFNAMSIZ is 16 (15 usable); HCA names (mlx5_0, mlx5_bond_0, rocep23s0f0) are short.
NETDEV = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,14}"
HCA = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}"
SUDO = "sudo -n "

MLNX_QOS = "mlnx_qos -i {netdev}"
ECN_SYSFS = "grep -rH . /sys/class/net/{netdev}/ecn"
ETHTOOL = "ethtool -i {netdev}"
ROCE_TOS = "cma_roce_tos -d {hca} -p {port}"

_EOS = _specs("show running-config", "show interfaces")
# napalm's EOS driver over SSH sends these for get_facts (collectors/facts.py).
EOS_FACTS = ("show version | json", "show hostname | json")
_NXOS = _specs("show running-config", "show interface")
_JUNOS = _specs("show configuration")
_SONIC = _specs(
    # The running configuration (what the switch uses), as config_db.json-shaped JSON;
    # the saved file is read only where the show command is unavailable.
    CommandSpec(key="config_db.json", run="show runningconfiguration all", optional=True),
    CommandSpec(
        key="config_db.json",
        run="cat /etc/sonic/config_db.json",
        optional=True,
        only_if_missing="config_db.json",
    ),
)
_CUMULUS = _specs(
    CommandSpec(key="nv config show -o yaml", optional=True),
    CommandSpec(
        key="net show configuration commands",
        optional=True,
        only_if_missing="nv config show -o yaml",
    ),
    CommandSpec(key="nv show qos roce -o json", optional=True),
    CommandSpec(
        key="/etc/cumulus/datapath/traffic.conf",
        run="cat /etc/cumulus/datapath/traffic.conf",
        optional=True,
    ),
)
_HOST = _specs(
    CommandSpec(key="ibdev2netdev", optional=True),
    CommandSpec(key="rdma link show", optional=True, only_if_missing="ibdev2netdev"),
    "ibv_devinfo -v",
    # Needed for RoCE netdevs (MTU, state); an InfiniBand-only host has none to show (see
    # `missing_required`, which fails a RoCE host that lacks it).
    CommandSpec(key="ip -d link show", optional=True),
    CommandSpec(key="ibstat", optional=True),
)
_OPENSM = _specs(
    CommandSpec(key="opensm.conf", run="cat /etc/opensm/opensm.conf"),
    CommandSpec(key="partitions.conf", run="cat /etc/opensm/partitions.conf", optional=True),
    CommandSpec(key="qos-policy.conf", run="cat /etc/opensm/qos-policy.conf", optional=True),
    CommandSpec(key="sminfo", optional=True),
)


def _pattern(template: str) -> re.Pattern[str]:
    escaped = re.escape(template).replace(r"\{netdev\}", NETDEV).replace(r"\{hca\}", HCA)
    return re.compile(escaped.replace(r"\{port\}", r"[0-9]{1,2}"))


PLATFORMS: dict[str, Platform] = {
    "eos": Platform("arista_eos", _EOS, _exact(_EOS, *EOS_FACTS)),
    "nxos": Platform("cisco_nxos", _NXOS, _exact(_NXOS)),
    "junos": Platform("juniper_junos", _JUNOS, _exact(_JUNOS)),
    "sonic": Platform("linux", _SONIC, _exact(_SONIC), (), ("config_db.json",), True),
    "cumulus": Platform(
        "linux",
        _CUMULUS,
        _exact(_CUMULUS),
        (),
        ("nv config show -o yaml", "net show configuration commands"),
        True,
    ),
    "mlnx-host": Platform(
        "linux",
        _HOST,
        _exact(_HOST),
        tuple(_pattern(t) for t in (MLNX_QOS, ECN_SYSFS, ETHTOOL, ROCE_TOS)),
        # without the HCA -> netdev map the per-netdev QoS commands cannot be derived; an
        # InfiniBand-only host has no such netdevs, and `ibstat` then lists its HCA ports
        ("ibdev2netdev", "rdma link show", "ibstat"),
        True,
    ),
    "opensm": Platform("linux", _OPENSM, _exact(_OPENSM), shell=True),
}


# --- Counter commands ----------------------------------------------------------------------
# What `fabriclint collect --counters` sends (and nothing else): read-only counter outputs for
# `fabriclint counters` (docs/counters.md). One block, merged into the allowlist by `is_allowed`,
# so it can move as a unit into the platform descriptors.

ETHTOOL_STATS = "ethtool -S {netdev}"
HW_COUNTERS = "grep -rH . /sys/class/infiniband/{hca}/ports/{port}/hw_counters"
PORT_COUNTERS = "grep -rH . /sys/class/infiniband/{hca}/ports/{port}/counters"


@dataclass(frozen=True)
class CounterPlan:
    """How one platform's counters are collected."""

    commands: tuple[CommandSpec, ...]
    """Static commands, in order (hosts derive per-netdev and per-HCA ones: `counter_derive`)."""
    patterns: tuple[re.Pattern[str], ...] = ()
    """Allowlisted per-netdev / per-HCA-port counter commands."""

    @property
    def exact(self) -> frozenset[str]:
        """Allowlisted counter commands, exact strings."""
        return _exact(self.commands)


COUNTER_COMMANDS: dict[str, CounterPlan] = {
    "eos": CounterPlan(
        _specs(
            "show priority-flow-control counters detail | json",
            CommandSpec(
                key="show priority-flow-control counters | json",
                optional=True,
                only_if_missing="show priority-flow-control counters detail | json",
            ),
            CommandSpec(key="show qos interfaces ecn counters queue | json", optional=True),
        )
    ),
    "nxos": CounterPlan(_specs("show interface priority-flow-control")),
    "sonic": CounterPlan(
        _specs(
            CommandSpec(key="pfcstat", optional=True),
            CommandSpec(key="show pfc counters", optional=True, only_if_missing="pfcstat"),
            "show queue counters",
            CommandSpec(key="show queue wredcounters", optional=True),
            CommandSpec(key="show pfcwd stats", optional=True),
        )
    ),
    "mlnx-host": CounterPlan(
        _specs(
            CommandSpec(key="ibdev2netdev", optional=True),
            CommandSpec(key="rdma link show", optional=True, only_if_missing="ibdev2netdev"),
        ),
        tuple(_pattern(t) for t in (ETHTOOL_STATS, HW_COUNTERS, PORT_COUNTERS)),
    ),
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
    if key in ("ibdev2netdev", "rdma link show"):
        return False
    return counter_allowed(platform, key)


def counter_derive(platform: str, collected: dict[str, str]) -> list[CommandSpec]:
    """Per-netdev and per-HCA-port counter commands from the HCA map (hosts)."""
    if platform != "mlnx-host":
        return []
    ports = hca_ports(collected)
    out = [
        CommandSpec(key=ETHTOOL_STATS.format(netdev=n))
        for n in dict.fromkeys(p.netdev for p in ports if p.netdev and not _is_ipoib(p.netdev))
    ]
    for port in ports:
        out.append(CommandSpec(key=HW_COUNTERS.format(hca=port.hca, port=port.port), optional=True))
        out.append(
            CommandSpec(key=PORT_COUNTERS.format(hca=port.hca, port=port.port), optional=True)
        )
    return out


# --- end of counter commands ---------------------------------------------------------------


# What netmiko itself sends around fabriclint's commands, per device type: terminal setup on
# login (paging, width) and the logout. They change only the session, never the configuration;
# fabriclint never asks for them, so they are not in any allowlist. The lab answers them and the
# command-audit test accepts exactly these (tests/collectors/test_audit.py).
SESSION_COMMANDS: dict[str, frozenset[str]] = {
    "arista_eos": frozenset({"", "terminal width 511", "terminal length 0", "exit"}),
    "cisco_nxos": frozenset({"", "terminal width 511", "terminal length 0", "exit"}),
    "juniper_junos": frozenset(
        {
            "",
            "set cli screen-width 511",
            "set cli complete-on-space off",
            "set cli screen-length 0",
            "exit",
        }
    ),
    "linux": frozenset({"", "exit"}),
}


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


@dataclass(frozen=True)
class HcaPort:
    """One `ibdev2netdev` / `rdma link show` line: an HCA port and its netdev."""

    hca: str
    port: int
    netdev: str | None


_IBDEV2NETDEV = re.compile(rf"({HCA}) port ([0-9]+) (?:==>|<===>) ({NETDEV})(?=\s|$)", re.M)
_RDMA_LINK = re.compile(rf"^link ({HCA})/([0-9]+)(?=\s|$)")
_RDMA_NETDEV = re.compile(rf"\snetdev ({NETDEV})(?=\s|$)")


def hca_ports(collected: dict[str, str]) -> list[HcaPort]:
    """HCA ports from `ibdev2netdev` (or `rdma link show` when that is all there is)."""
    text = collected.get("ibdev2netdev")
    found: list[HcaPort] = []
    if text is not None:
        for match in _IBDEV2NETDEV.finditer(text):
            found.append(HcaPort(match[1], int(match[2]), match[3]))
        return found
    for line in collected.get("rdma link show", "").splitlines():
        link = _RDMA_LINK.match(line.strip())
        if link:
            netdev = _RDMA_NETDEV.search(line)
            found.append(HcaPort(link[1], int(link[2]), netdev[1] if netdev else None))
    return found


def _is_ipoib(netdev: str) -> bool:
    """IPoIB netdevs (ib0, ibp23s0) carry no RoCE QoS: mlnx_qos/ECN do not apply."""
    return netdev.startswith("ib")


IP_LINK = "ip -d link show"


def missing_required(platform: str, collected: dict[str, str]) -> str | None:
    """Why the outputs are not enough once every command ran, or None: a host with RoCE
    netdevs (an `ibdev2netdev` port on an Ethernet netdev) must have `ip -d link show`."""
    if platform != "mlnx-host":
        return None
    mapped = "ibdev2netdev" in collected or "rdma link show" in collected
    if not mapped and re.search(r"Link layer:\s*Ethernet", collected.get("ibstat", "")):
        return (
            "RoCE HCA ports (ibstat: link layer Ethernet) need 'ibdev2netdev' or 'rdma link show'"
        )
    if IP_LINK in collected:
        return None
    roce = sorted({p.netdev for p in hca_ports(collected) if p.netdev and not _is_ipoib(p.netdev)})
    if not roce:
        return None  # InfiniBand only: no Ethernet link for `ip` to describe
    return f"'{IP_LINK}' is needed for the RoCE netdevs {', '.join(roce)}"


def derive(platform: str, collected: dict[str, str]) -> list[CommandSpec]:
    """Commands that depend on what the static commands found (per netdev / per HCA port)."""
    if platform != "mlnx-host":
        return []
    out: list[CommandSpec] = []
    ports = [p for p in hca_ports(collected) if p.netdev and not _is_ipoib(p.netdev)]
    for netdev in dict.fromkeys(p.netdev for p in ports if p.netdev):
        out.append(CommandSpec(key=MLNX_QOS.format(netdev=netdev)))
        out.append(CommandSpec(key=ECN_SYSFS.format(netdev=netdev)))
        out.append(CommandSpec(key=ETHTOOL.format(netdev=netdev), optional=True))
    for port in ports:
        command = ROCE_TOS.format(hca=port.hca, port=port.port)
        out.append(CommandSpec(key=command, optional=True))
    return out
