"""Cisco NX-OS switches."""

from __future__ import annotations

from fabriclint.platforms.base import CLI_SESSION, CommandSpec, CounterPlan, Platform, exact, specs

RUNNING_CONFIG = "show running-config"
INTERFACE = "show interface"
LLDP = "show lldp neighbors detail"
"""LLDP neighbours, one `Chassis id:` block each (Cisco Nexus 9000 Interfaces Configuration
Guide, "Configuring LLDP")."""

TRANSCEIVERS = "show interface transceiver details | json"
"""Each port's transceiver (vendor `name`, `partnum`, `serialnum`) for the BOM lock (Cisco
Nexus 9000 Interfaces Configuration Guide, `show interface transceiver`); optional."""

_COMMANDS = specs(
    RUNNING_CONFIG,
    INTERFACE,
    CommandSpec(key=LLDP, optional=True),
    CommandSpec(key=TRANSCEIVERS, optional=True),
)

PFC_COUNTERS = "show interface priority-flow-control"

COUNTERS = CounterPlan("fabriclint.parsers.nxos.counters", specs(PFC_COUNTERS))
"""Counter commands (`collect --counters`, docs/counters.md)."""


PLATFORM = Platform(
    name="nxos",
    kind="switch",
    parser="fabriclint.parsers.nxos",
    device_type="cisco_nxos",
    commands=_COMMANDS,
    exact=exact(_COMMANDS),
    session=CLI_SESSION,
    config_keys=(RUNNING_CONFIG,),
    napalm="nxos_ssh",
    # network-qos class `mtu` (Cisco Nexus 9000 Quality of Service Configuration Guide, "MTU")
    class_mtu=True,
    counters=COUNTERS,
    lldp=LLDP,
    aliases=("nx-os", "cisco-nxos", "cisco_nxos", "cisco.nxos.nxos", "cisco-nx-os"),
)
