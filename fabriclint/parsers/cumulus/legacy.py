"""Legacy datapath files (`/etc/cumulus/datapath/traffic.conf` of CL 3.x/4.x, and the same key
format in CL 5 `qos_features.conf`): device-wide classification, queues and scheduling.

Port groups (`pfc.`, `ecn_red.`, `egress_sched.`, `source.`, ... `port_group_list`) are read by
cumulus/legacy_groups.py.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from fabriclint.models.common import Source, source_at
from fabriclint.models.state import SchedulerMode
from fabriclint.parsers.cumulus.draft import Draft
from fabriclint.parsers.cumulus.layers import Parts, Sched, assign
from fabriclint.parsers.cumulus.legacy_groups import read_groups
from fabriclint.parsers.cumulus.tokens import numbers, source_set, to_int

_LINE = re.compile(r"\s*([A-Za-z0-9_.-]+)\s*=\s*(.*?)\s*$", re.ASCII)
# cos/queue numbers of at most 30 digits: a longer one is no key (and int() refuses 4300+)
_COS_MAP = re.compile(
    r"traffic\.cos_(\d{1,30})\.(?:priority_source|packet_priorities)\.(8021p|dscp)"
)
_COS_QUEUE = re.compile(r"cos_egr_queue\.cos_(\d{1,30})\.uc")
_SCHED = re.compile(r"default_egress_sched\.egr_queue_(\d{1,30})\.bw_percent")
_PG = re.compile(r"priority_group\.([A-Za-z0-9_-]+)\.(cos_list|weight)")
# First key segments that make a line QoS-relevant (reported when not modeled).
QOS_SEGMENTS = frozenset(
    {"traffic", "priority_group", "scheduling", "cos_egr_queue", "default_egress_sched"}
    | {"default_ecn_red_conf", "pfc", "ecn", "ecn_red", "link_pause", "source", "remark"}
    | {"egress_sched", "pfc_watchdog", "shaping", "ingress_service_pool", "egress_service_pool"}
    | {"flow_control", "egress_buffer", "port", "priority_flow_control"}
)


@dataclass
class Entries:
    """`key = value` lines of the file: key -> (value, 1-based line); the last assignment wins."""

    file: str
    values: dict[str, tuple[str, int]] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)

    def at(self, key: str) -> Source:
        """Where `key` is written."""
        return source_at(self.file, self.values[key][1])

    def take(self, key: str) -> str | None:
        """The value of `key` (None when absent), marking it as modeled."""
        found = self.values.get(key)
        if found is None:
            return None
        self.used.add(key)
        return found[0]


def read_legacy(draft: Draft, file: str, text: str) -> None:
    """Read traffic.conf / qos_features.conf into `draft` (global layer, port groups)."""
    entries = Entries(file)
    bad = _scan(draft, entries, text)
    if not entries.values:
        line = bad[0][0] if bad else 1
        message = "not a Cumulus datapath file: no 'key = value' lines"
        draft.problem("unparseable", message, source_at(file, line))
        return
    draft.styles.setdefault("legacy", file)
    for number, raw in bad:
        draft.skip(raw, "not a 'key = value' line", source_at(file, number))
    parts = Parts()
    _classification(draft, entries, parts)
    _scheduling(draft, entries, parts)
    read_groups(draft, entries, parts)
    draft.config.append(parts)
    for key, (value, line) in entries.values.items():
        if key not in entries.used and key.split(".", 1)[0] in QOS_SEGMENTS:
            draft.skip(f"{key} = {value}", "datapath setting not modeled", source_at(file, line))


def _scan(draft: Draft, entries: Entries, text: str) -> list[tuple[int, str]]:
    """Fill `entries` (a repeated key is PARSE002); return the (number, text) of the non-comment
    lines that are not `key = value`."""
    bad: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0]
        if not line.strip():
            continue
        found = _LINE.fullmatch(line)
        if found is None:
            bad.append((number, raw))
            continue
        key, value = found.group(1), found.group(2)
        if key in entries.values:
            first = entries.values[key][1]
            message = f"key '{key}' repeated (first at line {first}); switchd uses the last one"
            draft.problem("duplicate-key", message, source_at(entries.file, number))
        entries.values[key] = (value, number)
    return bad


def _classification(draft: Draft, entries: Entries, parts: Parts) -> None:
    trust = entries.take("traffic.packet_priority_source_set")
    if trust is not None:
        found = source_set(trust)
        src = entries.at("traffic.packet_priority_source_set")
        if found is None:
            draft.skip(f"traffic.packet_priority_source_set = {trust}", "unknown trust", src)
        else:
            parts.trust = (found, src)
    for key in list(entries.values):
        matched = _COS_MAP.fullmatch(key) or _COS_QUEUE.fullmatch(key)
        if matched is not None:
            _cos_line(draft, entries, parts, key, matched)
    _default_priority(entries, parts)
    _remark(draft, entries)


def _remark(draft: Draft, entries: Entries) -> None:
    """An empty remark set means no rewrite (modeled); a non-empty one is not modeled."""
    for key in ("traffic.packet_priority_remark_set", "traffic.remark_packet_priority"):
        value = entries.take(key)
        if value is not None and value.strip("[] ") not in ("", "none"):
            draft.skip(
                f"{key} = {value}", "egress priority remarking is not modeled", entries.at(key)
            )


def _cos_line(draft: Draft, entries: Entries, parts: Parts, key: str, found: re.Match[str]) -> None:
    value = entries.take(key) or ""
    cos, src = int(found.group(1)), entries.at(key)
    if found.re is _COS_QUEUE:
        queue = to_int(value)
        if queue is not None:
            parts.sp_tc[cos] = (queue, src)
        return
    values = numbers(value)
    if values is None:
        draft.skip(f"{key} = {value}", "malformed value list", src)
        return
    assign(parts.dscp if found.group(2) == "dscp" else parts.pcp, values, cos, src)


def _default_priority(entries: Entries, parts: Parts) -> None:
    """`traffic.port_default_priority`: the switch priority of values no line maps."""
    value = to_int(entries.take("traffic.port_default_priority"))
    if value is None:
        return
    src = entries.at("traffic.port_default_priority")
    for table, size in ((parts.dscp, 64), (parts.pcp, 8)):
        for key in range(size):
            if key not in table:
                assign(table, [key], value, src)


def _scheduling(draft: Draft, entries: Entries, parts: Parts) -> None:
    algorithm = entries.take("scheduling.algorithm")
    if algorithm not in (None, "dwrr"):
        draft.skip(
            f"scheduling.algorithm = {algorithm}",
            "only dwrr is modeled",
            entries.at("scheduling.algorithm"),
        )
    groups: dict[str, dict[str, str]] = {}
    for key in list(entries.values):
        found = _PG.fullmatch(key)
        if found is not None:
            groups.setdefault(found.group(1), {})[found.group(2)] = key
        direct = _SCHED.fullmatch(key)
        if direct is not None:
            _bw_percent(entries, parts, key, int(direct.group(1)))
    listed = entries.take("traffic.priority_group_list")
    if listed is not None:
        names = {n.strip() for n in listed.strip("[] ").split(",") if n.strip()}
        groups = {name: keys for name, keys in groups.items() if name in names}
    plans = _group_plans(draft, entries, parts, groups)
    if plans:
        parts.sched, parts.sched_replaces = plans, True


def _bw_percent(entries: Entries, parts: Parts, key: str, queue: int) -> None:
    """`default_egress_sched.egr_queue_N.bw_percent = P` (0 = strict priority)."""
    share = to_int(entries.take(key))
    if share is None:
        return
    mode = SchedulerMode.STRICT if share == 0 else SchedulerMode.DWRR
    if parts.sched is None:
        parts.sched, parts.sched_replaces = {}, True
    parts.sched[queue] = Sched(mode, None if share == 0 else float(share), entries.at(key))


def _group_plans(
    draft: Draft, entries: Entries, parts: Parts, groups: dict[str, dict[str, str]]
) -> dict[int, Sched]:
    """Priority groups: weight 0 = strict; other weights are relative DWRR weights (0-127), turned
    into percents of the sum over every weighted queue (each queue of a group has its weight)."""
    queues: dict[int, tuple[int, Source]] = {}
    for name, keys in groups.items():
        cos_text = entries.take(keys.get("cos_list", ""))
        cos = numbers(cos_text) if cos_text is not None else None
        weight = to_int(entries.take(keys.get("weight", "")))
        if cos is None or weight is None:
            src = entries.at(next(iter(keys.values())))
            draft.skip(f"priority_group.{name}", "priority group without cos_list or weight", src)
            continue
        src = entries.at(keys["weight"])
        for sp in cos:
            queue = parts.sp_tc[sp][0] if sp in parts.sp_tc else sp
            queues[queue] = (weight, src)
    total = sum(weight for weight, _ in queues.values())
    plans: dict[int, Sched] = {}
    for queue, (weight, src) in sorted(queues.items()):
        if weight == 0:
            plans[queue] = Sched(SchedulerMode.STRICT, None, src)
        else:
            plans[queue] = Sched(SchedulerMode.DWRR, math.floor(weight * 10000 / total) / 100, src)
    return plans
