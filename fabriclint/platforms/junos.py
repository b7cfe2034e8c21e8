"""Juniper Junos switches."""

from __future__ import annotations

from fabriclint.platforms.base import Platform, exact, specs

CONFIGURATION = "show configuration"

_COMMANDS = specs(CONFIGURATION)

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
    aliases=("juniper-junos", "juniper_junos", "junipernetworks.junos.junos"),
)
