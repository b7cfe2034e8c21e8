"""Arista EOS switches."""

from __future__ import annotations

from fabriclint.platforms.base import CLI_SESSION, CommandSpec, CounterPlan, Platform, exact, specs

RUNNING_CONFIG = "show running-config"
INTERFACES = "show interfaces"
LLDP = "show lldp neighbors detail | json"
"""LLDP neighbours as JSON (EOS Command API Guide, `show lldp neighbors detail`)."""

TRANSCEIVERS = "show inventory | json"
"""The transceiver in each front-panel slot (`xcvrSlots`: vendor, model, serial) for the BOM
lock (Arista EOS Command API Guide, `show inventory`); optional."""

FACTS = ("show version | json", "show hostname | json")
"""What napalm's EOS driver sends over SSH for get_facts (collectors/facts.py)."""

_COMMANDS = specs(
    RUNNING_CONFIG,
    INTERFACES,
    CommandSpec(key=LLDP, optional=True),
    CommandSpec(key=TRANSCEIVERS, optional=True),
)

PFC_DETAIL = "show priority-flow-control counters detail | json"
PFC_TOTALS = "show priority-flow-control counters | json"
ECN_QUEUES = "show qos interfaces ecn counters queue | json"

COUNTERS = CounterPlan(
    "fabriclint.parsers.eos.counters",
    specs(
        PFC_DETAIL,
        CommandSpec(key=PFC_TOTALS, optional=True, only_if_missing=PFC_DETAIL),
        CommandSpec(key=ECN_QUEUES, optional=True),
    ),
)
"""Counter commands (`collect --counters`, docs/counters.md)."""


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
    counters=COUNTERS,
    lldp=LLDP,
    aliases=("arista-eos", "arista_eos", "arista.eos.eos", "arista"),
)
