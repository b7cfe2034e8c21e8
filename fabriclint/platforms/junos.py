"""Juniper Junos switches."""

from __future__ import annotations

from fabriclint.platforms.base import CommandSpec, CounterPlan, Platform, exact, specs

CONFIGURATION = "show configuration"
LLDP = "show lldp neighbors"
"""LLDP neighbours as a table: Local Interface, Parent Interface, Chassis Id, Port info, System
Name (Junos CLI reference, `show lldp neighbors`)."""
TRANSCEIVERS = "show chassis hardware | display json"
"""The chassis inventory: each `Xcvr N` under its FPC and PIC with `part-number`,
`serial-number` and `description`, for the BOM lock (Junos CLI reference, `show chassis
hardware`; `display json` from Junos OS 14.2); optional."""

_COMMANDS = specs(
    CONFIGURATION,
    CommandSpec(key=LLDP, optional=True),
    CommandSpec(key=TRANSCEIVERS, optional=True),
)

COUNTERS = CounterPlan(
    "fabriclint.parsers.junos.counters",
    specs("show interfaces extensive", CommandSpec(key="show interfaces queue", optional=True)),
)
"""Counter commands (`collect --counters`, docs/counters.md): PFC frames per priority and drops
per queue from the first, ECN marks per queue from the second."""


PLATFORM = Platform(
    name="junos",
    kind="switch",
    parser="fabriclint.parsers.junos",
    device_type="juniper_junos",
    commands=_COMMANDS,
    exact=exact(_COMMANDS),
    session=frozenset(
        {
            "",
            "set cli screen-width 511",
            "set cli complete-on-space off",
            "set cli screen-length 0",
            "exit",
        }
    ),
    config_keys=(CONFIGURATION,),
    napalm="junos",
    counters=COUNTERS,
    lldp=LLDP,
    aliases=("juniper-junos", "juniper_junos", "junipernetworks.junos.junos"),
)
