"""The `qos:` branch of an NVUE configuration: RoCE, profiles (mapping, pfc, congestion-control,
egress-scheduler, egress-queue-mapping) and the global PFC watchdog timers."""

from __future__ import annotations

from collections.abc import Callable

from fabriclint.models.common import Source, source_at
from fabriclint.models.state import EcnConfig, PfcConfig, PgBuffer, SchedulerMode, Trust
from fabriclint.parsers.cumulus import draft as kinds
from fabriclint.parsers.cumulus.draft import GLOBAL, Draft
from fabriclint.parsers.cumulus.layers import At, Ecn, Parts, Sched, assign
from fabriclint.parsers.cumulus.tokens import numbers, on_off, parse_bytes, percent, to_int
from fabriclint.parsers.cumulus.tree import Item

TRUST = {"l3": Trust.DSCP, "l2": Trust.PCP, "both": Trust.BOTH, "port": Trust.NONE}
_MODES = {"dwrr": SchedulerMode.DWRR, "strict": SchedulerMode.STRICT, "ets": SchedulerMode.ETS}

Reader = Callable[[Draft, str, str, Item], Parts | None]
"""Reads one profile (draft, file, name, item) into Parts."""


def read_qos(draft: Draft, file: str, qos: Item) -> None:
    """Every key under `qos:`; what is not modeled is reported."""
    for key, child in qos.items():
        if key == "roce":
            _roce(draft, file, child)
        elif key == "pfc-watchdog":
            _watchdog(draft, file, child)
        elif key in _PROFILES:
            kind, reader = _PROFILES[key]
            _profiles(draft, file, kind, reader, child)
        elif key in _NAMED_ONLY:
            _profiles(draft, file, _NAMED_ONLY[key], None, child)
        else:
            draft.skip(
                f"qos {key}", _SKIPPED.get(key, "NVUE qos setting not modeled"), _at(file, child)
            )


def _at(file: str, item: Item) -> Source:
    return source_at(file, item.line)


def _roce(draft: Draft, file: str, roce: Item) -> None:
    enable = roce.get("enable")
    mode = roce.get("mode")
    if enable is not None and on_off(enable.value) is False:
        return
    name = str(mode.value) if mode is not None else "lossless"
    draft.roce = (name, _at(file, mode or roce))
    for key, child in roce.items():
        if key not in ("enable", "mode"):
            draft.skip(f"qos roce {key}", "RoCE setting not modeled", _at(file, child))


def _watchdog(draft: Draft, file: str, item: Item) -> None:
    for key, child in item.items():
        value = to_int(child.value)
        if key == "polling-interval" and value is not None:
            draft.poll = (float(value), _at(file, child))
        elif key == "robustness" and value is not None:
            draft.robustness = (value, _at(file, child))
        else:
            draft.skip(f"qos pfc-watchdog {key}", "watchdog setting not modeled", _at(file, child))


def _profiles(draft: Draft, file: str, kind: str, reader: Reader | None, item: Item) -> None:
    for name, body in item.items():
        src = _at(file, body)
        draft.define(kind, name, src)
        if name == GLOBAL:
            draft.refer(kind, name, "every port (global profile)", src)
        if reader is None:
            draft.skip(f"qos {kind.removesuffix('-profile')} {name}", "profile not modeled", src)
            continue
        parts = reader(draft, file, name, body)
        if parts is None:
            continue
        draft.profiles.setdefault(kind, {})[name] = parts
        if name == GLOBAL:
            draft.config.append(parts)


def _unknown(draft: Draft, file: str, where: str, key: str, item: Item) -> None:
    draft.skip(f"{where} {key}", "NVUE qos setting not modeled", _at(file, item))


def _mapping(draft: Draft, file: str, name: str, body: Item) -> Parts:
    parts = Parts()
    where = f"qos mapping {name}"
    for key, child in body.items():
        trust = TRUST.get(str(child.value)) if key == "trust" else None
        if trust is not None:
            parts.trust = (trust, _at(file, child))
        elif key in ("dscp", "pcp"):
            _map_entries(draft, file, f"{where} {key}", child, getattr(parts, key))
        else:
            _unknown(draft, file, where, key, child)
    return parts


def _map_entries(
    draft: Draft, file: str, where: str, item: Item, table: dict[int, list[At[int]]]
) -> None:
    for key, entry in item.items():
        keys = numbers(key)
        target = entry.get("switch-priority")
        value = to_int(target.value) if target is not None else None
        if keys is None or value is None:
            draft.skip(f"{where} {key}", "malformed mapping entry", _at(file, entry))
        else:
            assign(table, keys, value, _at(file, target or entry))


def _pfc(draft: Draft, file: str, name: str, body: Item) -> Parts:
    src = _at(file, body)
    pfc = PfcConfig(enabled=True)
    pfc.mark("", src)
    pfc.mark("enabled", src)
    buffers: dict[str, At[int]] = {}
    off: list[Item] = []
    for key, child in body.items():
        if key == "switch-priority":
            _pfc_priorities(draft, file, pfc, child)
        elif key in ("port-buffer", "xoff-threshold", "xon-threshold"):
            _size(draft, file, f"qos pfc {name} {key}", child, buffers, key)
        elif key in ("tx", "rx") and on_off(child.value) is not None:
            if not on_off(child.value):
                off.append(child)
        elif key != "cable-length":  # cable length only sizes the headroom the switch computes
            _unknown(draft, file, f"qos pfc {name}", key, child)
    if len(off) == 2:  # PFC is off only when it neither sends nor honours pause frames
        pfc.enabled = False
        pfc.mark("enabled", _at(file, off[-1]))
    elif off:
        draft.skip(f"qos pfc {name}", "PFC in one direction only is not modeled", _at(file, off[0]))
    return Parts(pfc=pfc, buffers=pg_buffers(pfc.priorities, buffers))


def _size(
    draft: Draft, file: str, where: str, item: Item, into: dict[str, At[int]], key: str
) -> None:
    size = parse_bytes(item.value)
    if size is None:
        draft.skip(f"{where} {item.value}", "malformed size", _at(file, item))
    else:
        into[key] = (size, _at(file, item))


def _pfc_priorities(draft: Draft, file: str, pfc: PfcConfig, item: Item) -> None:
    if item.is_map:
        keys: list[object] = [key for key, _ in item.items()]
    elif isinstance(item.value, list):
        keys = [entry.value for entry in item.value]
    else:
        keys = [item.value]
    found = numbers(keys)
    if found is None:
        draft.skip(f"qos pfc switch-priority {keys}", "malformed switch priority", _at(file, item))
        return
    pfc.priorities = sorted(set(found))
    pfc.mark("priorities", _at(file, item))


def pg_buffers(
    priorities: list[int], written: dict[str, tuple[int, Source]]
) -> dict[int, PgBuffer]:
    """Per lossless priority: headroom = port buffer - xoff; xon = xoff - xon delta."""
    if not written:
        return {}
    pg = PgBuffer()
    buffer, xoff, delta = (
        written.get(k) for k in ("port-buffer", "xoff-threshold", "xon-threshold")
    )
    if xoff is not None:
        pg.xoff_bytes = xoff[0]
        pg.mark("xoff_bytes", xoff[1])
        if delta is not None:
            pg.xon_bytes = max(xoff[0] - delta[0], 0)
            pg.mark("xon_bytes", delta[1])
    if buffer is not None:
        pg.headroom_bytes = max(buffer[0] - (xoff[0] if xoff else 0), 0)
        pg.mark("headroom_bytes", buffer[1])
    pg.mark("", min((v[1] for v in written.values()), key=lambda s: s.line or 1 << 30))
    return {prio: pg for prio in priorities}


def _congestion(draft: Draft, file: str, name: str, body: Item) -> Parts:
    parts = Parts(ecn={})
    for key, child in body.items():
        if key != "traffic-class":
            _unknown(draft, file, f"qos congestion-control {name}", key, child)
            continue
        for tcs, entry in child.items():
            found = numbers(tcs)
            ecn = _ecn_entry(
                draft, file, f"qos congestion-control {name} traffic-class {tcs}", entry
            )
            if found is None:
                draft.skip(
                    f"qos congestion-control {name} traffic-class {tcs}",
                    "malformed traffic class",
                    _at(file, entry),
                )
            elif ecn is not None:
                parts.ecn.update(dict.fromkeys(found, ecn))  # type: ignore[union-attr]
    return parts if parts.ecn else Parts()


def _ecn_entry(draft: Draft, file: str, where: str, entry: Item) -> Ecn | None:
    src = _at(file, entry)
    config = EcnConfig(enabled=True)
    config.mark("", src)
    red = None
    for key, child in entry.items():
        at = _at(file, child)
        if key == "ecn":
            config.enabled = on_off(child.value) is not False
            config.mark("enabled", at)
        elif key == "red":
            red = (on_off(child.value) is True, at)
        elif key in ("min-threshold", "max-threshold"):
            _threshold(draft, config, key, child, at)
        elif key == "probability" and percent(child.value) is not None:
            config.probability_pct = percent(child.value)
            config.mark("probability_pct", at)
        else:
            draft.skip(f"{where} {key}", "ECN setting not modeled", at)
    return Ecn(config, red)


def _threshold(draft: Draft, config: EcnConfig, key: str, item: Item, at: Source) -> None:
    size = parse_bytes(item.value)
    field = "min" if key.startswith("min") else "max"
    setattr(config, f"{field}_raw", str(item.value))
    if size is None:
        draft.skip(f"{key} {item.value}", "threshold not in bytes", at)
        return
    setattr(config, f"{field}_bytes", size)
    config.mark(f"{field}_bytes", at)


def _scheduler(draft: Draft, file: str, name: str, body: Item) -> Parts:
    parts = Parts(sched={}, sched_replaces=True)
    for key, child in body.items():
        if key != "traffic-class":
            _unknown(draft, file, f"qos egress-scheduler {name}", key, child)
            continue
        for tcs, entry in child.items():
            found = numbers(tcs)
            mode, weight = entry.get("mode"), entry.get("bw-percent")
            chosen = _MODES.get(str(mode.value).lower()) if mode is not None else None
            if found is None or (mode is not None and chosen is None):
                draft.skip(
                    f"qos egress-scheduler {name} traffic-class {tcs}",
                    "malformed scheduler entry",
                    _at(file, entry),
                )
                continue
            share = percent(weight.value) if weight is not None else None
            if chosen is None and share is not None:
                chosen = SchedulerMode.DWRR
            plan = Sched(chosen, share, _at(file, mode or weight or entry))
            parts.sched.update(dict.fromkeys(found, plan))  # type: ignore[union-attr]
    return parts if parts.sched else Parts()


def _queue_mapping(draft: Draft, file: str, name: str, body: Item) -> Parts:
    parts = Parts()
    for key, child in body.items():
        if key != "switch-priority":
            _unknown(draft, file, f"qos egress-queue-mapping {name}", key, child)
            continue
        for sps, entry in child.items():
            found, target = numbers(sps), entry.get("traffic-class")
            tc = to_int(target.value) if target is not None else None
            if found is None or tc is None or target is None:
                draft.skip(
                    f"qos egress-queue-mapping {name} switch-priority {sps}",
                    "malformed entry",
                    _at(file, entry),
                )
                continue
            parts.sp_tc.update(dict.fromkeys(found, (tc, _at(file, target))))
    if name != GLOBAL:
        draft.skip(
            f"qos egress-queue-mapping {name}", "NVUE applies only default-global", _at(file, body)
        )
        return Parts()
    return parts


_PROFILES: dict[str, tuple[str, Reader]] = {
    "mapping": (kinds.MAPPING, _mapping),
    "pfc": (kinds.PFC, _pfc),
    "congestion-control": (kinds.CONGESTION, _congestion),
    "egress-scheduler": (kinds.SCHEDULER, _scheduler),
    "egress-queue-mapping": (kinds.QUEUE_MAP, _queue_mapping),
}
_NAMED_ONLY = {"egress-shaper": kinds.SHAPER, "link-pause": kinds.PAUSE, "remark": kinds.REMARK}
_SKIPPED = {
    "traffic-pool": "buffer pool percentages are not modeled (no byte sizes)",
    "advance-buffer-config": "advanced buffer settings are not modeled",
}
