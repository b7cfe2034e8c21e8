"""Juniper Junos switches."""

from __future__ import annotations

import re

from fabriclint.platforms.base import CommandSpec, CounterPlan, Platform, exact, specs

CONFIGURATION = "show configuration"
LLDP = "show lldp neighbors"
"""LLDP neighbours as a table: Local Interface, Parent Interface, Chassis Id, Port info, System
Name (Junos CLI reference, `show lldp neighbors`)."""
TRANSCEIVERS = "show chassis hardware | display json"
"""The chassis inventory: each `Xcvr N` under its FPC and PIC with `part-number`,
`serial-number` and `description`, for the BOM lock (Junos CLI reference, `show chassis
hardware`; `display json` from Junos OS 14.2); optional."""

PIC = "show chassis pic fpc-slot {fpc} pic-slot {pic}"
"""One PIC's ports, each with `Xcvr vendor`, `Xcvr vendor part number` and `Xcvr Firmware`
(Junos CLI reference, `show chassis pic`: the `PIC port information` table): the vendor and
firmware the chassis inventory lacks. Sent for each PIC the inventory lists (see `derive`);
optional."""
PIC_COMMAND = re.compile(r"show chassis pic fpc-slot [0-9]{1,2} pic-slot [0-9]{1,2}")
_SLOT = re.compile(r'"data"\s*:\s*"(FPC|PIC) ([0-9]{1,2})"')
MAX_PICS = 64
"""More PICs than a fixed-form switch has (one FPC, a few PICs): a bound, not a limit seen."""


def derive(collected: dict[str, str]) -> list[CommandSpec]:
    """`show chassis pic` for each PIC of the chassis inventory, read in its order (an `FPC N`
    name, then the `PIC M` names below it) without parsing the JSON (descriptors parse
    nothing)."""
    keys: dict[str, None] = {}
    fpc = None
    for kind, number in _SLOT.findall(collected.get(TRANSCEIVERS, "")):
        if kind == "FPC":
            fpc = number
        elif fpc is not None and len(keys) < MAX_PICS:
            keys[PIC.format(fpc=fpc, pic=number)] = None
    return [CommandSpec(key=key, optional=True) for key in keys]


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
    patterns=(PIC_COMMAND,),
    derive=derive,
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
