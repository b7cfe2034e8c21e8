"""NVIDIA Cumulus Linux switches: NVUE, NCLU, or the legacy traffic.conf."""

from __future__ import annotations

import re

from fabriclint.platforms.base import (
    LINUX_SESSION,
    CommandSpec,
    CounterPlan,
    Platform,
    exact,
    specs,
)

NVUE_CONFIG = "nv config show -o yaml"
NCLU_CONFIG = "net show configuration commands"
NVUE_ROCE = "nv show qos roce -o json"
TRAFFIC_CONF = "/etc/cumulus/datapath/traffic.conf"
LLDP = "nv show interface lldp"
"""LLDP neighbours as a table: Interface, Speed, Type, Remote Host, Remote Port (NVUE command
reference, `nv show interface lldp`, Cumulus Linux 5.0 and later)."""
TRANSCEIVERS = "nv show platform transceiver -o json"
"""Every port's module by interface (`vendor-name`, `vendor-pn`, `vendor-sn`, `fw-version`) for
the BOM lock (NVUE command reference, `nv show platform transceiver`, Cumulus Linux 5.11 and
later); optional."""
NVUE_PLUGGABLES = "nv show interface pluggables -o json"
"""Before 5.11, the same modules without firmware: every interface's `pluggable` (`identifier`,
`vendor-name`, `vendor-pn`, `vendor-rev`, `vendor-sn`; NVUE command reference, `nv show
interface <interface-id> pluggable`; the Cumulus Linux 5.11 release notes list `nv show
interface pluggables` as replaced by `nv show platform transceiver`); optional, only where the
5.11 command gave nothing."""
NCLU_PLUGGABLES = "net show interface pluggables"
"""Cumulus Linux 4.x (NCLU): a table of Interface, Identifier, Vendor Name, Vendor PN, Vendor
SN, Vendor Rev, one row per port or breakout (NCLU `net show interface pluggables [json]`);
no firmware; optional, only on a switch without NVUE."""

_COMMANDS = specs(
    CommandSpec(key=NVUE_CONFIG, optional=True),
    CommandSpec(key=NCLU_CONFIG, optional=True, only_if_missing=NVUE_CONFIG),
    CommandSpec(key=NVUE_ROCE, optional=True),
    CommandSpec(key=TRAFFIC_CONF, run=f"cat {TRAFFIC_CONF}", optional=True),
    CommandSpec(key=LLDP, optional=True),
    CommandSpec(key=TRANSCEIVERS, optional=True),
    CommandSpec(key=NVUE_PLUGGABLES, optional=True, only_if_missing=TRANSCEIVERS),
    CommandSpec(key=NCLU_PLUGGABLES, optional=True, only_if_missing=NVUE_CONFIG),
)


def config_form(text: str) -> str:
    """Cumulus has three config forms: NVUE YAML, NCLU `net add` commands and the legacy
    traffic.conf; the text says which it is."""
    if "\nnet add " in f"\n{text}" or "\nnet del " in f"\n{text}":
        return NCLU_CONFIG
    if "priority_source" in text or "traffic.packet_priority_source_set" in text:
        return TRAFFIC_CONF
    return NVUE_CONFIG


LINKS = "ip -o link show"
SWP = r"swp[0-9]{1,3}(?:s[0-9]{1,2})?"
"""A front-panel port (`swp12`) or a breakout of one (`swp12s3`): all a counter command may name."""
ETHTOOL_STATS = "ethtool -S {port}"


def swp_ports(links: str) -> list[str]:
    """Front-panel ports named by `ip -o link show` (`12: swp1: <...>`, `13: swp1s0@...`)."""
    found = re.findall(rf"^[0-9]+:\s+({SWP})[:@]", links, re.MULTILINE)
    return list(dict.fromkeys(found))


def counter_derive(collected: dict[str, str]) -> list[CommandSpec]:
    """One `ethtool -S swpN` per front-panel port of the link list."""
    ports = swp_ports(collected.get(LINKS, ""))
    return [CommandSpec(key=ETHTOOL_STATS.format(port=p), optional=True) for p in ports]


COUNTERS = CounterPlan(
    "fabriclint.parsers.cumulus.counters",
    specs(LINKS),
    (re.compile(rf"ethtool -S {SWP}"),),
    derive=counter_derive,
    maps=frozenset({LINKS}),
)
"""Counter commands (`collect --counters`, docs/counters.md): the link list names the ports."""


PLATFORM = Platform(
    name="cumulus",
    kind="switch",
    parser="fabriclint.parsers.cumulus",
    device_type="linux",
    commands=_COMMANDS,
    exact=exact(_COMMANDS),
    session=LINUX_SESSION,
    config_keys=(NVUE_CONFIG, NCLU_CONFIG),
    required_any=(NVUE_CONFIG, NCLU_CONFIG),
    shell=True,
    config_form=config_form,
    counters=COUNTERS,
    lldp=LLDP,
    aliases=("cumulus-linux", "nvidia-cumulus", "nvidia.nvue.nvue", "cumulus_linux"),
)
