"""Port groups of the legacy datapath files: `<feature>.port_group_list = [a, b]` names the groups
switchd applies, `<feature>.<group>.<setting>` defines them, `<feature>.<group>.port_set` lists
their ports (`allports` = every port). A group defined but not listed is ignored by switchd
(QOS006); a listed group with no settings is dangling (QOS005)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from fabriclint.models.common import Source, source_at
from fabriclint.models.state import EcnConfig, PfcConfig, SchedulerMode
from fabriclint.parsers.cumulus import draft as kinds
from fabriclint.parsers.cumulus.draft import Draft
from fabriclint.parsers.cumulus.layers import At, Ecn, Parts, Sched, assign
from fabriclint.parsers.cumulus.nvue_qos import pg_buffers
from fabriclint.parsers.cumulus.tokens import (
    expand_ports,
    numbers,
    on_off,
    parse_bytes,
    source_set,
    to_int,
)

if TYPE_CHECKING:
    from fabriclint.parsers.cumulus.legacy import Entries

Attrs = dict[str, str]
"""Setting name (`cos_list`, `egr_queue_3.bw_percent`) -> its full key."""
GroupReader = Callable[[Draft, "Entries", Attrs, Parts], Parts | None]

ALL_PORTS = "allports"
# traffic.conf defaults of a PFC group (CL 4.x user guide): used for the buffer settings a group
# leaves out when it writes some of them.
_PFC_BUFFER_DEFAULTS = {"port_buffer_bytes": 25_000, "xoff_size": 10_000, "xon_delta": 2_000}
_BUFFER_NAMES = {
    "port_buffer_bytes": "port-buffer",
    "xoff_size": "xoff-threshold",
    "xon_delta": "xon-threshold",
}
_QUEUE_BW = re.compile(r"egr_queue_(\d+)\.bw_percent")
_SOURCE_MAP = re.compile(r"cos_(\d+)\.priority_source\.(8021p|dscp)")


def read_groups(draft: Draft, entries: Entries, glob: Parts) -> None:
    """Every feature's groups; `glob` is the device-wide layer (it takes `allports` groups)."""
    for prefix, (kind, reader) in _FEATURES.items():
        listed_key = f"{prefix}.port_group_list"
        listed = entries.take(listed_key)
        names = [n.strip() for n in (listed or "").strip("[] ").split(",") if n.strip()]
        for name in names:
            draft.refer(kind, name, listed_key, entries.at(listed_key))
        for name, attrs in _group_keys(entries, prefix, names).items():
            first = min(entries.values[key][1] for key in attrs.values())
            draft.define(kind, name, source_at(entries.file, first))
            if name in names:
                _apply(draft, entries, (kind, name), attrs, reader, glob)
    ecn = {k.split(".", 1)[1]: k for k in entries.values if k.startswith("default_ecn_red_conf.")}
    if ecn:
        entries.used.update(ecn.values())
        parts = _ecn(draft, entries, ecn, glob)
        if parts is not None:
            glob.ecn, glob.ecn_replaces = parts.ecn, True


def _group_keys(entries: Entries, prefix: str, names: list[str]) -> dict[str, Attrs]:
    """Group name -> its settings; CL 5 also writes ECN groups without the prefix (`g.port_set`)."""
    out: dict[str, Attrs] = {}
    bare = prefix == "ecn_red"
    for key in entries.values:
        head, _, rest = key.partition(".")
        if head == prefix and not rest.startswith("port_group_list"):
            name, _, attr = rest.partition(".")
        elif bare and head in names:
            name, attr = head, rest
        else:
            continue
        if attr:
            out.setdefault(name, {})[attr] = key
            entries.used.add(key)
    return out


def _apply(
    draft: Draft,
    entries: Entries,
    what: tuple[str, str],
    attrs: Attrs,
    reader: GroupReader | None,
    glob: Parts,
) -> None:
    kind, name = what
    port_set = attrs.get("port_set")
    src = entries.at(port_set) if port_set else entries.at(next(iter(attrs.values())))
    spec = entries.values[port_set][0] if port_set else ""
    parts = reader(draft, entries, attrs, glob) if reader is not None else None
    if reader is None and kind != kinds.WATCHDOG:
        draft.skip(f"{kind.removesuffix('-profile')} group {name}", "not modeled", src)
    if spec.strip("[] ") == ALL_PORTS:
        _everywhere(draft, kind, parts, src, glob)
        return
    ports = expand_ports(spec) if spec else []
    if ports is None:
        draft.skip(f"{port_set} = {spec}", "port set not understood", src)
        return
    if parts is not None:
        draft.profiles.setdefault(kind, {})[name] = parts
    _attach(draft, entries.file, what, ports, src)


def _attach(draft: Draft, file: str, what: tuple[str, str], ports: list[str], src: Source) -> None:
    """Put group `what` (kind, name) on `ports`; a port in two groups of a kind keeps the later."""
    kind, name = what
    for port in ports:
        found = draft.port(port, source_at(file))
        if kind == kinds.WATCHDOG:
            found.watchdog = (True, src)
        elif kind in found.uses and found.uses[kind][0] != name:
            other = found.uses[kind][0]
            draft.skip(f"{kind} {name}", f"{port} is also in {other}; the later group wins", src)
        found.uses[kind] = (name, src)


def _everywhere(draft: Draft, kind: str, parts: Parts | None, src: Source, glob: Parts) -> None:
    """A group on `allports` is device-wide."""
    if kind == kinds.WATCHDOG:
        draft.watchdog_all = (True, src)
    if parts is None:
        return
    if parts.pfc is not None:
        glob.pfc = parts.pfc
        glob.buffers.update(parts.buffers)
    if parts.ecn is not None:
        glob.ecn, glob.ecn_replaces = parts.ecn, True
    if parts.sched is not None:
        glob.sched, glob.sched_replaces = parts.sched, True
    if parts.trust is not None:
        glob.trust = parts.trust
    glob.dscp.update(parts.dscp)
    glob.pcp.update(parts.pcp)


def _pfc(draft: Draft, entries: Entries, attrs: Attrs, glob: Parts) -> Parts | None:
    cos_key = attrs.get("cos_list")
    cos = numbers(entries.values[cos_key][0]) if cos_key else None
    src = entries.at(cos_key or next(iter(attrs.values())))
    if cos is None:
        draft.skip(f"{cos_key or 'pfc group'}", "PFC group without a readable cos_list", src)
        return None
    pfc = PfcConfig(enabled=bool(cos), priorities=sorted(set(cos)))
    for key in ("", "enabled", "priorities"):
        pfc.mark(key, src)
    directions = {
        k: on_off(entries.values[attrs[k]][0]) for k in ("tx_enable", "rx_enable") if k in attrs
    }
    if directions and any(directions.values()) != pfc.enabled:
        # tx_enable/rx_enable switch PFC on or off whatever cos_list holds: `true` with an empty
        # cos_list is PFC on for no priority (PFC006), not PFC off.
        pfc.enabled = not pfc.enabled
        decided = [k for k, value in directions.items() if value is pfc.enabled]
        pfc.mark("enabled", entries.at(attrs[decided[0] if decided else next(iter(directions))]))
    return Parts(pfc=pfc, buffers=pg_buffers(pfc.priorities, _buffers(entries, attrs)))


def _buffers(entries: Entries, attrs: Attrs) -> dict[str, At[int]]:
    written = {k: attrs[k] for k in _PFC_BUFFER_DEFAULTS if k in attrs}
    if not written:
        return {}
    out: dict[str, At[int]] = {}
    for key, default in _PFC_BUFFER_DEFAULTS.items():
        size = parse_bytes(entries.values[written[key]][0]) if key in written else None
        at = (
            entries.at(written[key])
            if key in written and size is not None
            else source_at(entries.file)
        )
        out[_BUFFER_NAMES[key]] = (size if size is not None else default, at)
    return out


def _ecn(draft: Draft, entries: Entries, attrs: Attrs, glob: Parts) -> Parts | None:
    """`cos_list` (switch priorities, sent to their queues) or `egress_queue_list` (queues)."""
    key = attrs.get("egress_queue_list") or attrs.get("cos_list")
    values = numbers(entries.values[key][0]) if key else None
    if key is None or values is None:
        return None
    queues = (
        values
        if key.endswith("egress_queue_list")
        else [glob.sp_tc[sp][0] if sp in glob.sp_tc else sp for sp in values]
    )
    config = EcnConfig(enabled=on_off(_value(entries, attrs, "ecn_enable") or "true") is not False)
    config.mark("", entries.at(key))
    config.mark("enabled", entries.at(attrs.get("ecn_enable", key)))
    for name, field in (("min_threshold_bytes", "min"), ("max_threshold_bytes", "max")):
        raw = _value(entries, attrs, name)
        if raw is not None:
            setattr(config, f"{field}_raw", raw)
            setattr(config, f"{field}_bytes", parse_bytes(raw))
            config.mark(f"{field}_bytes", entries.at(attrs[name]))
    probability = to_int(_value(entries, attrs, "probability"))
    if probability is not None:
        config.probability_pct = float(probability)
        config.mark("probability_pct", entries.at(attrs["probability"]))
    red_raw = _value(entries, attrs, "red_enable")
    red = (
        (on_off(red_raw) is True, entries.at(attrs["red_enable"])) if red_raw is not None else None
    )
    return Parts(ecn={queue: Ecn(config, red) for queue in queues}, ecn_replaces=True)


def _value(entries: Entries, attrs: Attrs, name: str) -> str | None:
    key = attrs.get(name)
    return entries.values[key][0] if key is not None else None


def _sched(draft: Draft, entries: Entries, attrs: Attrs, glob: Parts) -> Parts | None:
    plans: dict[int, Sched] = {}
    for attr, key in attrs.items():
        found = _QUEUE_BW.fullmatch(attr)
        share = to_int(entries.values[key][0]) if found else None
        if found is not None and share is not None:
            mode = SchedulerMode.STRICT if share == 0 else SchedulerMode.DWRR
            plans[int(found.group(1))] = Sched(
                mode, float(share) if share else None, entries.at(key)
            )
    return Parts(sched=plans, sched_replaces=True) if plans else None


def _source(draft: Draft, entries: Entries, attrs: Attrs, glob: Parts) -> Parts | None:
    parts = Parts()
    trust = _value(entries, attrs, "packet_priority_source_set")
    if trust is not None:
        found = source_set(trust)
        src = entries.at(attrs["packet_priority_source_set"])
        if found is None:
            draft.skip(f"{attrs['packet_priority_source_set']} = {trust}", "unknown trust", src)
        else:
            parts.trust = (found, src)
    for attr, key in attrs.items():
        matched = _SOURCE_MAP.fullmatch(attr)
        values = numbers(entries.values[key][0]) if matched else None
        if matched is not None and values is not None:
            table = parts.dscp if matched.group(2) == "dscp" else parts.pcp
            assign(table, values, int(matched.group(1)), entries.at(key))
    return parts


_FEATURES: dict[str, tuple[str, GroupReader | None]] = {
    "pfc": (kinds.PFC, _pfc),
    "ecn_red": (kinds.CONGESTION, _ecn),
    "ecn": (kinds.CONGESTION, _ecn),
    "egress_sched": (kinds.SCHEDULER, _sched),
    "source": (kinds.MAPPING, _source),
    "pfc_watchdog": (kinds.WATCHDOG, None),
    "link_pause": (kinds.PAUSE, None),
    "remark": (kinds.REMARK, None),
    "shaping": (kinds.SHAPER, None),
}
