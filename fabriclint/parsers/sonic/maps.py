"""SONiC QoS maps (DSCP_TO_TC_MAP, TC_TO_QUEUE_MAP, ...): numbers, their lines, conflicts."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from fabriclint.models.common import Source
from fabriclint.models.state import MapConflict
from fabriclint.parsers.sonic.draft import Draft
from fabriclint.parsers.sonic.tables import Entry, Tables, as_int

# PORT_QOS_MAP field -> (map table it names, QosConfig field it fills). MAP_PFC_PRIORITY_TO_QUEUE
# fills no field directly: it decides tc_to_priority (see sonic/qos.py tc_to_priority).
APPLIED: dict[str, tuple[str, str]] = {
    "dscp_to_tc_map": ("DSCP_TO_TC_MAP", "dscp_to_tc"),
    "dot1p_to_tc_map": ("DOT1P_TO_TC_MAP", "pcp_to_tc"),
    "tc_to_queue_map": ("TC_TO_QUEUE_MAP", "tc_to_queue"),
    "tc_to_pg_map": ("TC_TO_PRIORITY_GROUP_MAP", "tc_to_pg"),
    "pfc_to_queue_map": ("MAP_PFC_PRIORITY_TO_QUEUE", "pfc_to_queue"),
    # Egress re-marking (SAI_PORT_ATTR_QOS_TC_AND_COLOR_TO_DSCP_MAP and the DSCP rewrite map):
    # fill `rewrite` (see sonic/qos.py rewrite_of), not a map field of their own.
    "tc_to_dscp_map": ("TC_TO_DSCP_MAP", "rewrite.by_tc"),
    "dscp_to_dscp_map": ("DSCP_TO_DSCP_MAP", "rewrite.by_dscp"),
}

# PORT_QOS_MAP fields that name an object the model does not hold: references only.
REFERENCED: dict[str, str] = {
    "pfc_to_pg_map": "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
    "tc_to_dot1p_map": "TC_TO_DOT1P_MAP",
    "mpls_tc_to_tc_map": "MPLS_TC_TO_TC_MAP",
    "dscp_to_fc_map": "DSCP_TO_FC_MAP",
    "exp_to_fc_map": "EXP_TO_FC_MAP",
    "scheduler": "SCHEDULER",
}

READ_TABLES = frozenset(table for table, _ in APPLIED.values())
OTHER_TABLES = frozenset(t for f, t in REFERENCED.items() if f != "scheduler")


@dataclass(slots=True)
class IntMap:
    """One named map: integer keys to integer values, each with its line."""

    table: str
    name: str
    values: dict[int, int] = field(default_factory=dict)
    sources: dict[int, Source] = field(default_factory=dict)
    clashes: list[tuple[int, list[int], list[Source]]] = field(default_factory=list)
    """Keys written more than once with different values (duplicate JSON keys)."""
    _keyed: dict[str, dict[str, Source]] = field(default_factory=dict)

    def keyed(self, name: str) -> dict[str, Source]:
        """Sources as a QosConfig holds them: `<name>.<key>` (built once per map and field)."""
        found = self._keyed.get(name)
        if found is None:
            found = self._keyed[name] = {f"{name}.{k}": s for k, s in self.sources.items()}
        return found

    def conflicts(self, name: str) -> list[MapConflict]:
        """The clashes as MapConflicts of QosConfig field `name`."""
        if not self.clashes:
            return []
        return [
            MapConflict(map=name, key=key, values=values, sources=sources)
            for key, values, sources in self.clashes
        ]


Maps = dict[str, dict[str, IntMap]]
"""Table -> map name -> map."""


def read_maps(draft: Draft, tables: Tables) -> Maps:
    """Every map the model uses, and a definition for every map table entry (QOS005/QOS006)."""
    out: Maps = {}
    for table in sorted(READ_TABLES | OTHER_TABLES):
        entries = tables.get(table, {})
        for name, entry in entries.items():
            draft.define(table, name, entry.line)
        if table in READ_TABLES:
            out[table] = {name: _read(draft, entry) for name, entry in entries.items()}
        elif entries:
            first = next(iter(entries.values()))
            count = len(entries)
            reason = f"map contents are not modeled ({count} map{'s' if count > 1 else ''})"
            draft.skip(f"{table}|{first.key}", reason, first.line)
    return out


def _number(value: Any) -> int | None:
    if isinstance(value, str):
        return as_int(value)
    return value if type(value) is int else None


def _read(draft: Draft, entry: Entry) -> IntMap:
    found = IntMap(entry.table, entry.key)
    for key_text, value, line in entry.fields.triples():
        key, number = as_int(key_text), _number(value)
        if key is None or number is None:
            text = f"{json.dumps(key_text)}: {json.dumps(value)}"
            draft.skip(text, f"{entry.name}: map entries must be numbers", line)
            continue
        found.values[key] = number
        found.sources[key] = draft.at(line)
    for key_text, history in (entry.fields.dups or {}).items():
        key = as_int(key_text)
        values = [_number(value) for value, _ in history]
        if key is None or None in values or len(set(values)) < 2:
            continue
        clean = [v for v in values if v is not None]
        found.clashes.append((key, clean, [draft.at(line) for _, line in history]))
    return found
