"""SONiC switches (the config_db.json-shaped running configuration)."""

from __future__ import annotations

from fabriclint.platforms.base import (
    LINUX_SESSION,
    CommandSpec,
    CounterPlan,
    Platform,
    exact,
    specs,
)

CONFIG_DB = "config_db.json"
LLDP = "show lldp table"
"""LLDP neighbours as a table: LocalPort, RemoteDevice, RemotePortID, Capability,
RemotePortDescr (SONiC Command Reference, `show lldp table`)."""

TRANSCEIVERS = "show interfaces transceiver eeprom"
"""Each port's module as xcvrd stored it in STATE_DB (`Vendor Name`, `Vendor PN`, `Vendor SN`,
`Active Firmware` on CMIS modules) for the BOM lock (SONiC Command Reference, `show interfaces
transceiver eeprom`); optional. Read from the database: no root needed, unlike `sfputil`."""

_COMMANDS = specs(
    # The running configuration (what the switch uses), as config_db.json-shaped JSON;
    # the saved file is read only where the show command is unavailable.
    CommandSpec(key=CONFIG_DB, run="show runningconfiguration all", optional=True),
    CommandSpec(
        key=CONFIG_DB,
        run="cat /etc/sonic/config_db.json",
        optional=True,
        only_if_missing=CONFIG_DB,
    ),
    CommandSpec(key=LLDP, optional=True),
    CommandSpec(key=TRANSCEIVERS, optional=True),
)

PFCSTAT = "pfcstat"
PFC_COUNTERS = "show pfc counters"
QUEUE_COUNTERS = "show queue counters"
WRED_COUNTERS = "show queue wredcounters"
PFCWD_STATS = "show pfcwd stats"

COUNTERS = CounterPlan(
    "fabriclint.parsers.sonic.counters",
    specs(
        CommandSpec(key=PFCSTAT, optional=True),
        CommandSpec(key=PFC_COUNTERS, optional=True, only_if_missing=PFCSTAT),
        QUEUE_COUNTERS,
        CommandSpec(key=WRED_COUNTERS, optional=True),
        CommandSpec(key=PFCWD_STATS, optional=True),
    ),
)
"""Counter commands (`collect --counters`, docs/counters.md)."""


PLATFORM = Platform(
    name="sonic",
    kind="switch",
    parser="fabriclint.parsers.sonic",
    device_type="linux",
    commands=_COMMANDS,
    exact=exact(_COMMANDS),
    session=LINUX_SESSION,
    config_keys=(CONFIG_DB,),
    required_any=(CONFIG_DB,),
    shell=True,
    counters=COUNTERS,
    lldp=LLDP,
    aliases=("dell-sonic", "dellemc.enterprise_sonic.sonic"),
)
