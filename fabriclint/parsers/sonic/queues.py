"""SONiC egress queues: SCHEDULER, WRED_PROFILE and the QUEUE entries that bind them to ports."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fabriclint.bounded import int_too_long
from fabriclint.models.common import Source
from fabriclint.models.state import EcnConfig, EcnProfile, QueueConfig, SchedulerMode
from fabriclint.parsers.sonic.draft import REASONS, Draft
from fabriclint.parsers.sonic.tables import Entry, Tables, as_int, port_key, reference

SCHEDULER_TYPES = {
    "STRICT": SchedulerMode.STRICT,
    "DWRR": SchedulerMode.DWRR,
    "WRR": SchedulerMode.DWRR,  # packet-based WRR: weighted like DWRR for what the rules check
}
SHAPING_FIELDS = frozenset({"meter_type", "cir", "cbs", "pir", "pbs"})

# ECN marking modes (SAI_ECN_MARK_MODE_*) and whether they mark green packets.
ECN_MODES = {
    "ecn_none": False,
    "ecn_green": True,
    "ecn_yellow": False,
    "ecn_red": False,
    "ecn_green_yellow": True,
    "ecn_green_red": True,
    "ecn_yellow_red": False,
    "ecn_all": True,
}
COLOR_FIELDS = frozenset(
    f"{color}_{what}"
    for color in ("yellow", "red")
    for what in ("min_threshold", "max_threshold", "drop_probability")
) | {"wred_yellow_enable", "wred_red_enable"}

WRED_MODELED = frozenset(
    {"ecn", "wred_green_enable", "green_min_threshold", "green_max_threshold"}
    | {"green_drop_probability"}
)

# orchagent creates a WRED object with drop probability 100 % for a colour that has none.
DEFAULT_PROBABILITY = 100.0


@dataclass(slots=True)
class Scheduler:
    """A SCHEDULER entry: mode and weight, with their lines."""

    mode: SchedulerMode | None = None
    weight: float | None = None
    sources: dict[str, Source] = field(default_factory=dict)


@dataclass(slots=True)
class Wred:
    """A WRED_PROFILE entry, as it acts on green (unpoliced) traffic."""

    ecn: EcnConfig
    drop: bool
    drop_source: Source | None


def read_schedulers(draft: Draft, tables: Tables) -> dict[str, Scheduler]:
    """SCHEDULER entries by name (also definitions for QOS005/QOS006)."""
    out: dict[str, Scheduler] = {}
    for name, entry in tables.get("SCHEDULER", {}).items():
        draft.define("SCHEDULER", name, entry.line)
        found = out[name] = Scheduler()
        for key, value, line in entry.fields.triples():
            if key == "type":
                _mode(draft, entry, found, str(value), line)
            elif key == "weight":
                _weight(draft, entry, found, str(value), line)
            elif key in SHAPING_FIELDS:
                draft.skip_field("SCHEDULER", key, line, reason=REASONS["shaping"])
            else:
                draft.skip_field("SCHEDULER", key, line, reason=REASONS.get(key))
    return out


def _mode(draft: Draft, entry: Entry, found: Scheduler, value: str, line: int) -> None:
    mode = SCHEDULER_TYPES.get(value.strip().upper())
    if mode is None:
        draft.skip(f'"type": "{value}"', f"{entry.name}: unknown scheduler type", line)
        return
    found.mode = mode
    found.sources["scheduler"] = draft.at(line)


def _weight(draft: Draft, entry: Entry, found: Scheduler, value: str, line: int) -> None:
    try:
        found.weight = float(value)
    except ValueError:
        draft.skip(f'"weight": "{value}"', f"{entry.name}: weight is not a number", line)
        return
    found.sources["weight"] = draft.at(line)


def read_wred(draft: Draft, tables: Tables) -> dict[str, Wred]:
    """WRED_PROFILE entries by name (also definitions for QOS005/QOS006)."""
    out: dict[str, Wred] = {}
    for name, entry in tables.get("WRED_PROFILE", {}).items():
        draft.define("WRED_PROFILE", name, entry.line)
        out[name] = _wred(draft, entry)
    return out


def _wred(draft: Draft, entry: Entry) -> Wred:
    sources: dict[str, Source] = {"": draft.at(entry.line)}
    mode = entry.text("ecn")
    marks_green = False
    if mode is not None:
        marks_green = ECN_MODES.get(mode[0].strip(), False)
        sources["enabled"] = draft.at(mode[1])
        if mode[0].strip() not in ECN_MODES:
            draft.skip(f'"ecn": "{mode[0]}"', f"{entry.name}: unknown ECN mode", mode[1])
    green = _green(draft, entry)
    if marks_green and not green[0] and mode is not None:
        _curve_off(draft, entry, mode)
    low = _bytes(draft, entry, "green_min_threshold", sources, "min_bytes")
    high = _bytes(draft, entry, "green_max_threshold", sources, "max_bytes")
    probability = _probability(draft, entry, sources)
    ecn = EcnConfig(
        enabled=marks_green and green[0],
        min_bytes=low,
        max_bytes=high,
        probability_pct=probability,
        sources=sources,
    )
    for key, _, line in entry.fields.triples():
        if key in COLOR_FIELDS:
            draft.skip_field("WRED_PROFILE", key, line, reason=REASONS["colors"])
        elif key not in WRED_MODELED:
            draft.skip_field("WRED_PROFILE", key, line)
    drop = green[0] and not marks_green
    return Wred(ecn=ecn, drop=drop, drop_source=green[1] if drop else None)


def _curve_off(draft: Draft, entry: Entry, mode: tuple[str, int]) -> None:
    reason = (
        f"{entry.name}: ecn {mode[0]} marks green packets, but wred_green_enable is not "
        "true, so the green WRED/ECN curve is off: nothing is marked"
    )
    draft.skip(f'"ecn": "{mode[0]}"', reason, mode[1])


def _green(draft: Draft, entry: Entry) -> tuple[bool, Source | None]:
    """wred_green_enable (SAI default false) and its line."""
    found = entry.text("wred_green_enable")
    if found is None:
        return False, None
    value = found[0].strip().lower()
    if value not in ("true", "false"):
        draft.skip(f'"wred_green_enable": "{found[0]}"', f"{entry.name}: not true/false", found[1])
    return value == "true", draft.at(found[1])


def _bytes(
    draft: Draft, entry: Entry, name: str, sources: dict[str, Source], key: str
) -> int | None:
    found = entry.text(name)
    if found is None:
        return None
    number = as_int(found[0])
    if number is None:
        why = int_too_long(found[0].strip()) or "thresholds are bytes"
        draft.skip(f'"{name}": "{found[0]}"', f"{entry.name}: {why}", found[1])
        return None
    sources[key] = draft.at(found[1])
    return number


def _probability(draft: Draft, entry: Entry, sources: dict[str, Source]) -> float | None:
    found = entry.text("green_drop_probability")
    if found is None:
        sources["probability_pct"] = draft.default
        return DEFAULT_PROBABILITY
    try:
        value = float(found[0])
    except ValueError:
        draft.skip(
            f'"green_drop_probability": "{found[0]}"', f"{entry.name}: not a number", found[1]
        )
        return None
    sources["probability_pct"] = draft.at(found[1])
    return value


@dataclass(slots=True)
class QueueObjects:
    """What QUEUE entries refer to."""

    schedulers: dict[str, Scheduler]
    wred: dict[str, Wred]


@dataclass(slots=True)
class _Shape:
    """What QUEUE entries with one scheduler and one wred_profile value resolve to."""

    refs: list[tuple[str, str, str]] = field(default_factory=list)
    """(kind, name, field) of each reference."""
    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, Source] = field(default_factory=dict)


def read_queues(
    draft: Draft, tables: Tables, objects: QueueObjects
) -> dict[str, dict[int, QueueConfig]]:
    """Port -> queue number -> QueueConfig, from QUEUE entries (`Ethernet0|3`, ranges, lists).
    Entries naming the same scheduler and WRED profile share the work (a 64-port switch has
    hundreds); each still gets its own QueueConfig, whose source is its own line."""
    out: dict[str, dict[int, QueueConfig]] = {}
    shapes: dict[tuple[Any, Any], _Shape] = {}
    for key, entry in tables.get("QUEUE", {}).items():
        parsed = port_key(key)
        if parsed is None:
            reason = "QUEUE keys are PORT|QUEUE (Ethernet0|3, Ethernet0,Ethernet4|3-4)"
            draft.skip(entry.name, reason, entry.line)
            continue
        fields = entry.fields
        sched, wred = fields.get("scheduler"), fields.get("wred_profile")
        look = (repr(sched), repr(wred))
        shape = shapes.get(look)
        if shape is None:
            shape = shapes[look] = _shape(draft, entry, objects)
        for kind, name, by in shape.refs:
            if not draft.known(kind, name, "QUEUE"):
                draft.refer_entry(kind, name, "QUEUE", key, fields.line(by))
        if len(fields) > (sched is not None) + (wred is not None):
            _extra_fields(draft, entry)
        own = draft.at(entry.line)
        for number in parsed[1]:
            conf = QueueConfig(queue=number, sources={"": own, **shape.sources}, **shape.values)
            for port in parsed[0]:
                out.setdefault(port, {})[number] = conf
    return out


def _extra_fields(draft: Draft, entry: Entry) -> None:
    for name, _, line in entry.fields.triples():
        if name not in ("scheduler", "wred_profile"):
            draft.skip_field("QUEUE", name, line)


def _shape(draft: Draft, entry: Entry, objects: QueueObjects) -> _Shape:
    shape = _Shape()
    sched_name = _named(draft, entry, "scheduler", "SCHEDULER", shape)
    wred_name = _named(draft, entry, "wred_profile", "WRED_PROFILE", shape)
    sched = objects.schedulers.get(sched_name or "")
    if sched is not None:
        shape.values.update(scheduler=sched.mode, weight=sched.weight)
        shape.sources.update(sched.sources)
    wred = objects.wred.get(wred_name or "")
    if wred is not None:
        shape.values.update(ecn=wred.ecn, wred_drop=wred.drop)
        if wred.drop_source is not None:
            shape.sources["wred_drop"] = wred.drop_source
    return shape


def _named(draft: Draft, entry: Entry, name: str, table: str, shape: _Shape) -> str | None:
    """A reference field: the reference goes to `shape.refs`; the name is returned when it is
    of the expected table."""
    found = entry.text(name)
    if found is None:
        return None
    kind, target = reference(found[0])
    if not target:
        draft.skip(f'"{name}": "{found[0]}"', f"{entry.name}: empty reference", found[1])
        return None
    shape.refs.append((kind or table, target, name))
    if kind is not None and kind != table:
        reason = f"{entry.name}: {name} names a {kind} entry, not a {table} entry"
        draft.skip(f'"{name}": "{found[0]}"', reason, found[1])
        return None
    return target


def unbound_wred(tables: Tables, wred: dict[str, Wred]) -> list[EcnProfile]:
    """WRED_PROFILE entries no QUEUE entry names, as profiles ECN007 still checks."""
    bound = set()
    for entry in tables.get("QUEUE", {}).values():
        found = entry.text("wred_profile")
        if found is not None:
            bound.add(reference(found[0])[1])
    return [
        EcnProfile(kind="WRED_PROFILE", name=name, ecn=found.ecn, sources=found.ecn.sources)
        for name, found in wred.items()
        if name not in bound
    ]
