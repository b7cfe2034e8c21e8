"""SONiC PFC: `pfc_enable` / `pfcwd_sw_enable` of PORT_QOS_MAP and the PFC_WD watchdog table."""

from __future__ import annotations

from dataclasses import dataclass

from fabriclint.models.common import Source
from fabriclint.models.state import PfcConfig, PfcWatchdog, Unparsed
from fabriclint.parsers.sonic.draft import REASONS, Draft
from fabriclint.parsers.sonic.tables import Entry, Tables, as_int

# `pfcwd start_default` (sonic-utilities pfcwd/main.py): 200 ms detection and restoration per
# started group of 32 PFC ports, action drop. orchagent's own default action is drop too.
DEFAULT_TIME_MS = 200
PORTS_PER_STEP = 32
DEFAULT_ACTION = "drop"
ACTIONS = frozenset({"drop", "forward", "alert"})
IGNORED_WATCHDOG_FIELDS = frozenset({"pfc_stat_history"})  # statistics only


@dataclass(slots=True)
class Watchdogs:
    """The watchdog each port gets."""

    entries: dict[str, PfcWatchdog]
    """From PFC_WD entries, by port."""
    started: PfcWatchdog | None
    """What `pfcwd start_default` gives an active PFC port without a PFC_WD entry
    (default_pfcwd_status enable)."""
    off: PfcWatchdog | None
    """Ports without a watchdog when DEVICE_METADATA says how the watchdog starts; None when
    the input does not say (a rendered qos.json)."""
    active: frozenset[str]
    """Ports `start_default` covers (DEVICE_NEIGHBOR and internal ports)."""


def priorities(draft: Draft, entry: Entry, name: str) -> tuple[list[int], int] | None:
    """`pfc_enable` / `pfcwd_sw_enable` ("3,4", "" = none) and its line; None when absent."""
    found = entry.text(name)
    if found is None:
        return None
    out: list[int] = []
    for token in found[0].split(","):
        if not token.strip():
            continue
        number = as_int(token)
        if number is None:
            draft.skip(
                f'"{name}": "{found[0]}"', f"{entry.name}: '{token}' is not a priority", found[1]
            )
            continue
        out.append(number)
    return sorted(set(out)), found[1]


def read_watchdogs(draft: Draft, tables: Tables, pfc_ports: list[str]) -> Watchdogs:
    """Watchdogs from PFC_WD, else what DEVICE_METADATA default_pfcwd_status starts."""
    entries: dict[str, PfcWatchdog] = {}
    for name, entry in tables.get("PFC_WD", {}).items():
        if name == "GLOBAL":
            for key, _, line in entry.fields.triples():
                draft.skip_field("PFC_WD|GLOBAL", key, line)
        else:
            entries[name] = _entry(draft, entry)
    status = _status(draft, tables)
    active = _active(tables)
    started = off = None
    if status is not None:
        off = PfcWatchdog(enabled=False, sources={"": status[1], "enabled": status[1]})
        if status[0]:
            count = len([p for p in pfc_ports if p in active])
            started = _started(draft, status[1], count)
            missed = [p for p in pfc_ports if p not in active and p not in entries]
            _uncovered(draft, missed, status[1])
    return Watchdogs(entries, started, off, active)


def _status(draft: Draft, tables: Tables) -> tuple[bool, Source] | None:
    meta = tables.get("DEVICE_METADATA", {}).get("localhost")
    if meta is None:
        return None
    found = meta.text("default_pfcwd_status")
    if found is None:  # the SONiC default is "disable"
        return False, draft.default
    return found[0].strip().lower() == "enable", draft.at(found[1])


def _active(tables: Tables) -> frozenset[str]:
    """Ports `pfcwd start_default` configures: DEVICE_NEIGHBOR ports and up internal ports."""
    out = set(tables.get("DEVICE_NEIGHBOR", {}))
    for name, entry in tables.get("PORT", {}).items():
        role, admin = entry.text("role"), entry.text("admin_status")
        if role is not None and role[0] == "Int" and admin is not None and admin[0] == "up":
            out.add(name)
    return frozenset(out)


def _started(draft: Draft, line: Source, count: int) -> PfcWatchdog:
    step = max(1, (count - 1) // PORTS_PER_STEP + 1)
    default = draft.default
    return PfcWatchdog(
        enabled=True,
        detection_ms=float(DEFAULT_TIME_MS * step),
        restoration_ms=float(DEFAULT_TIME_MS * step),
        action=DEFAULT_ACTION,
        sources={
            "": line,
            "enabled": line,
            "detection_ms": default,
            "restoration_ms": default,
            "action": default,
        },
    )


def _uncovered(draft: Draft, ports: list[str], status: Source) -> None:
    if not ports:
        return
    shown = ", ".join(ports[:5]) + (f" and {len(ports) - 5} more" if len(ports) > 5 else "")
    reason = (
        "pfcwd start_default only starts the watchdog on ports listed in DEVICE_NEIGHBOR (or "
        f"internal ports); these PFC ports are not: {shown}"
    )
    text = "DEVICE_METADATA|localhost default_pfcwd_status"
    draft.unparsed.append(Unparsed(text=text, reason=reason, source=status))


def _entry(draft: Draft, entry: Entry) -> PfcWatchdog:
    """One PFC_WD|<port> entry (times in ms, as written)."""
    line = draft.at(entry.line)
    dog = PfcWatchdog(enabled=True, sources={"": line, "enabled": line})
    for key, value, at in entry.fields.triples():
        text = str(value).strip()
        if key in ("detection_time", "restoration_time"):
            number = as_int(text)
            if number is None:
                draft.skip(f'"{key}": "{value}"', f"{entry.name}: not a number of ms", at)
                continue
            name = "detection_ms" if key == "detection_time" else "restoration_ms"
            setattr(dog, name, float(number))
            dog.sources[name] = draft.at(at)
        elif key == "action":
            if text not in ACTIONS:
                draft.skip(
                    f'"action": "{value}"', f"{entry.name}: orchagent rejects this action", at
                )
            dog.action, dog.sources["action"] = text, draft.at(at)
        elif key not in IGNORED_WATCHDOG_FIELDS:
            draft.skip_field("PFC_WD", key, at, reason=REASONS.get(key))
    if dog.action is None:
        dog.action, dog.sources["action"] = DEFAULT_ACTION, draft.default
    if dog.detection_ms is None:
        draft.skip(
            entry.name, "no detection_time: orchagent does not start this watchdog", entry.line
        )
        dog.enabled = False
    return dog


def port_pfc(
    draft: Draft, dogs: Watchdogs, port: str, entry: Entry
) -> tuple[PfcConfig | None, dict[str, Source]]:
    """PFC of a PORT_QOS_MAP entry and the QosConfig sources it adds (`pfc`, `pfc.priorities`)."""
    enabled = priorities(draft, entry, "pfc_enable")
    if enabled is None:
        return None, {}
    prios, line = enabled
    src = draft.at(line)
    sources = {"": src, "enabled": src, "priorities": src}
    sources.update({f"priorities.{p}": src for p in prios})
    pfc = PfcConfig(enabled=bool(prios), priorities=prios, sources=sources)
    pfc.watchdog = _port_watchdog(draft, dogs, port, entry, prios)
    return pfc, {"pfc": src, "pfc.priorities": src}


def _port_watchdog(
    draft: Draft, dogs: Watchdogs, port: str, entry: Entry, prios: list[int]
) -> PfcWatchdog | None:
    dog = dogs.entries.get(port)
    if dog is None:
        dog = dogs.started if dogs.started is not None and port in dogs.active else dogs.off
    watched = priorities(draft, entry, "pfcwd_sw_enable")
    if watched is None or not prios:
        return dog
    covered = [p for p in prios if p in watched[0]]
    missing = [p for p in prios if p not in covered]
    if covered and missing:
        reason = (
            f"the PFC watchdog runs only on priorities {covered} of pfc_enable {prios}; "
            f"priorities {missing} have no watchdog"
        )
        draft.skip_field("PORT_QOS_MAP", "pfcwd_sw_enable", watched[1], reason=reason)
    if covered or dog is None or not dog.enabled:
        return dog
    src = draft.at(watched[1])  # pfcwd_sw_enable leaves every PFC priority unwatched
    return dog.model_copy(update={"enabled": False, "sources": {**dog.sources, "enabled": src}})
