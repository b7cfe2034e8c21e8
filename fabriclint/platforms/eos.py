"""Arista EOS switches."""

from __future__ import annotations

from fabriclint.platforms.base import CLI_SESSION, Platform, exact, specs

RUNNING_CONFIG = "show running-config"
INTERFACES = "show interfaces"

FACTS = ("show version | json", "show hostname | json")
"""What napalm's EOS driver sends over SSH for get_facts (collectors/facts.py)."""

_COMMANDS = specs(RUNNING_CONFIG, INTERFACES)

PLATFORM = Platform(
    name="eos",
    kind="switch",
    parser="fabriclint.parsers.eos",
    device_type="arista_eos",
    commands=_COMMANDS,
    exact=exact(_COMMANDS, *FACTS),
    session=CLI_SESSION,
    config_keys=(RUNNING_CONFIG,),
    napalm="eos",
    facts=FACTS,
)
