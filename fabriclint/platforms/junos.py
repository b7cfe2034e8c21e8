"""Juniper Junos switches."""

from __future__ import annotations

from fabriclint.platforms.base import CommandSpec, Platform, exact, specs

CONFIGURATION = "show configuration"
LLDP = "show lldp neighbors"
"""LLDP neighbours as a table: Local Interface, Parent Interface, Chassis Id, Port info, System
Name (Junos CLI reference, `show lldp neighbors`)."""

_COMMANDS = specs(CONFIGURATION, CommandSpec(key=LLDP, optional=True))

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
    lldp=LLDP,
    aliases=("juniper-junos", "juniper_junos", "junipernetworks.junos.junos"),
)
