"""`nv show qos roce -o json`: the RoCE settings the switch runs (mode, trust, PFC, ECN, maps).

The fields mirror the CLI view (`pfc.pfc-priority`, `congestion-control.enabled-tc`,
`min-threshold`, `trust.trust-mode`, ...); the PCP/DSCP -> switch-priority and switch-priority ->
traffic-class tables are recognised by the fields of their rows wherever they sit.
"""

from __future__ import annotations

from fabriclint.models.common import Source, source_at
from fabriclint.models.state import EcnConfig, PfcConfig, SchedulerMode, Trust
from fabriclint.parsers.cumulus.defaults import pfc_on
from fabriclint.parsers.cumulus.draft import Draft
from fabriclint.parsers.cumulus.layers import Ecn, Parts, Sched, assign
from fabriclint.parsers.cumulus.text import load
from fabriclint.parsers.cumulus.tokens import numbers, on_off, parse_bytes, percent, to_int
from fabriclint.parsers.cumulus.tree import Item

_KNOWN = frozenset({"mode", "enable", "pfc", "congestion-control", "trust"})
_TRUST = {
    frozenset({"pcp", "dscp"}): Trust.BOTH,
    frozenset({"dscp"}): Trust.DSCP,
    frozenset({"pcp"}): Trust.PCP,
    frozenset({"port"}): Trust.NONE,
}
_SP_KEYS = ("switch-prio", "switch-priority")


def read_roce_show(draft: Draft, file: str, text: str) -> None:
    """Operational RoCE state; it is layered over the configuration (the switch runs it)."""
    loaded = load(text)
    for key, line, first in loaded.duplicates:
        message = f"duplicate key '{key}' (first at line {first}); a JSON reader keeps only one"
        draft.problem("duplicate-key", message, source_at(file, line))
    root = loaded.root
    if loaded.error is not None or root is None or not root.is_map:
        message, line = loaded.error or ("not a JSON object", root.line if root else 1)
        draft.problem("unparseable", f"nv show qos roce: {message}", source_at(file, line))
        return
    if not any(key in _KNOWN for key, _ in root.items()):
        message = "nv show qos roce: no mode/pfc/congestion-control/trust fields"
        draft.problem("unparseable", message, source_at(file, root.line))
        return
    draft.styles.setdefault("nvue", file)
    _mode(draft, file, root)
    parts = Parts()
    _trust(parts, file, root.get("trust"))
    _pfc(draft, parts, file, root.get("pfc"))
    _ecn(draft, parts, file, root.get("congestion-control"))
    for _, child in root.items():
        _table(parts, file, child)
    draft.config.append(parts)


def _mode(draft: Draft, file: str, root: Item) -> None:
    enable, mode = root.get("enable"), root.get("mode")
    if enable is not None and on_off(enable.value) is False:
        draft.roce = None
        return
    running = str(mode.value) if mode is not None else ""
    # the configuration line stays the source when the switch runs what it says
    if mode is not None and running not in ("", "-") and (draft.roce or ("",))[0] != running:
        draft.roce = (running, source_at(file, mode.line))


def _trust(parts: Parts, file: str, trust: Item | None) -> None:
    mode = trust.get("trust-mode") if trust is not None else None
    if mode is None:
        return
    words = frozenset(w.strip() for w in str(mode.value).lower().split(",") if w.strip())
    found = _TRUST.get(words)
    if found is not None:
        parts.trust = (found, source_at(file, mode.line))


def _pfc(draft: Draft, parts: Parts, file: str, pfc: Item | None) -> None:
    prio = pfc.get("pfc-priority") if pfc is not None else None
    if prio is None:
        return
    src = source_at(file, prio.line)
    value = prio.value if prio.value not in ("-", "", None) else []
    found = numbers(value)
    if found is None:
        draft.skip(f"pfc-priority {prio.value}", "malformed PFC priority list", src)
    elif found:
        parts.pfc = pfc_on(found, src)
    else:
        parts.pfc = PfcConfig(enabled=False)
        parts.pfc.mark("", src)
        parts.pfc.mark("enabled", src)


def _ecn(draft: Draft, parts: Parts, file: str, cc: Item | None) -> None:
    tcs = cc.get("enabled-tc") if cc is not None else None
    if cc is None or tcs is None:
        return
    found = numbers(tcs.value if tcs.value not in ("-", None) else [])
    if found is None:
        draft.skip(
            f"enabled-tc {tcs.value}", "malformed traffic class list", source_at(file, tcs.line)
        )
        return
    config = EcnConfig(enabled=True)
    config.mark("", source_at(file, tcs.line))
    for key, field in (("min-threshold", "min"), ("max-threshold", "max")):
        item = cc.get(key)
        if item is not None:
            setattr(config, f"{field}_raw", str(item.value))
            setattr(config, f"{field}_bytes", parse_bytes(item.value))
            config.mark(f"{field}_bytes", source_at(file, item.line))
    probability = cc.get("probability")
    if probability is not None and percent(probability.value) is not None:
        config.probability_pct = percent(probability.value)
        config.mark("probability_pct", source_at(file, probability.line))
    parts.ecn, parts.ecn_replaces = {tc: Ecn(config) for tc in found}, True


def _rows(table: Item) -> list[Item]:
    if table.is_map:
        return [row for _, row in table.items() if row.is_map]
    if isinstance(table.value, list):
        return [row for row in table.value if row.is_map]
    return []


def _table(parts: Parts, file: str, table: Item) -> None:
    """A PCP/DSCP -> SP table or an SP -> TC/ETS table, recognised by the fields of its rows."""
    for row in _rows(table):
        sp_item = next((row.get(k) for k in _SP_KEYS if row.get(k) is not None), None)
        sp = to_int(sp_item.value) if sp_item is not None else None
        if sp is None or sp_item is None:
            continue
        src = source_at(file, sp_item.line)
        tc = row.get("traffic-class")
        if tc is not None and to_int(tc.value) is not None:
            _sp_row(parts, sp, to_int(tc.value) or 0, row.get("scheduler-weight"), src)
        for key, table_of in (("dscp", parts.dscp), ("pcp", parts.pcp)):
            cell = row.get(key)
            values = numbers(cell.value if cell.value != "-" else []) if cell is not None else None
            if values:
                assign(table_of, values, sp, src)


def _sp_row(parts: Parts, sp: int, tc: int, weight: Item | None, src: Source) -> None:
    parts.sp_tc[sp] = (tc, src)
    if weight is None:
        return
    text = str(weight.value).lower()
    mode = (
        SchedulerMode.STRICT if "strict" in text else SchedulerMode.DWRR if "dwrr" in text else None
    )
    if parts.sched is None:
        parts.sched, parts.sched_replaces = {}, True
    share = percent(text) if mode is SchedulerMode.DWRR else None
    parts.sched[tc] = Sched(mode, share, src)
