"""SONiC tables from the three input forms: nested config_db, flat `TABLE|key`, swssconfig ops.

All three become one `Tables` mapping (table -> key -> Entry), keys in config_db spelling
(`Ethernet0|3`), table names without the APP_DB `_TABLE` suffix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from fabriclint.bounded import int_too_long
from fabriclint.parsers.sonic.text import JObj, jobj

_TABLE_NAME = re.compile(r"[A-Z][A-Z0-9_]*\Z")
_REFERENCE = re.compile(r"\[([A-Z][A-Z0-9_]*)[|:]([^\]]*)\]\Z")


@dataclass(slots=True)
class Entry:
    """One table entry: `PORT_QOS_MAP|Ethernet0` and its fields."""

    table: str
    key: str
    fields: JObj
    """Field -> value (and each field's line)."""
    line: int
    """Line of the entry's key."""

    @property
    def name(self) -> str:
        """`TABLE|key`, as SONiC tools print it."""
        return f"{self.table}|{self.key}"

    def text(self, name: str) -> tuple[str, int] | None:
        """A field's value as text and its line; None when absent or not a scalar."""
        fields = self.fields
        value = fields.get(name)
        if value is None or isinstance(value, (dict, list)):
            return None
        return (value if isinstance(value, str) else _scalar(value)), fields.line(name)


Tables = dict[str, dict[str, Entry]]


@dataclass(slots=True)
class Loaded:
    """What the input holds, before any QoS meaning is given to it."""

    tables: Tables = field(default_factory=dict)
    form: str = "config_db"
    """`config_db` (nested, flat or both) or `swssconfig` (list of ops)."""
    collisions: list[tuple[str, int, int]] = field(default_factory=list)
    """(TABLE|key, first line, second line): one entry written in both nested and flat form."""
    skipped: list[tuple[str, str, int]] = field(default_factory=list)
    """(text, reason, line) of things in QoS tables that are not entries."""
    foreign: int = 0
    """Top-level keys that are not SONiC table names."""
    recognized: int = 0
    """Top-level keys (or ops) that are SONiC tables."""

    def add(self, table: str, key: str, fields: JObj, line: int) -> None:
        """Add an entry; a second entry for the same key is merged field by field, later wins."""
        entries = self.tables.setdefault(table, {})
        old = entries.get(key)
        if old is None:
            entries[key] = Entry(table, key, fields, line)
            return
        if self.form != "swssconfig":  # two SETs of one key are normal in a list of ops
            self.collisions.append((f"{table}|{key}", old.line, line))
        merged = jobj([])
        for name, value, at in (*old.fields.triples(), *fields.triples()):
            if name in merged:
                merged.lines[list(merged).index(name)] = at
            else:
                merged.lines.append(at)
            merged[name] = value
        entries[key] = Entry(table, key, merged, line)


def _scalar(value: Any) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def load_tables(root: Any, qos_tables: frozenset[str]) -> Loaded:
    """Tables of a decoded input (JObj for config_db, list for swssconfig)."""
    loaded = Loaded()
    if isinstance(root, list):
        loaded.form = "swssconfig"
        for number, item in enumerate(root):
            _op(loaded, item, number, qos_tables)
    elif isinstance(root, JObj):
        for name, value, line in root.triples():
            _top(loaded, name, value, line, qos_tables)
    return loaded


def _top(loaded: Loaded, name: str, value: Any, line: int, qos_tables: frozenset[str]) -> None:
    table, flat, key = name.partition("|")
    if not _TABLE_NAME.match(table):
        loaded.foreign += 1
        return
    loaded.recognized += 1
    if flat:
        if isinstance(value, JObj):
            loaded.add(table, key, value, line)
        elif table in qos_tables:
            loaded.skipped.append((name, "entry is not a JSON object", line))
        return
    if not isinstance(value, JObj):
        if table in qos_tables:
            loaded.skipped.append((name, "table is not a JSON object", line))
        return
    for key, fields, key_line in value.triples():
        if isinstance(fields, JObj):
            loaded.add(table, key, fields, key_line)
        elif table in qos_tables:
            loaded.skipped.append((f"{table}|{key}", "entry is not a JSON object", key_line))


def _op(loaded: Loaded, item: Any, number: int, qos_tables: frozenset[str]) -> None:
    """One swssconfig operation: {"TABLE_NAME:key": {fields}, "OP": "SET"|"DEL"}."""
    if not isinstance(item, JObj):
        loaded.foreign += 1
        return
    op = str(item.get("OP", "SET")).upper()
    for name, value, line in item.triples():
        if name == "OP":
            continue
        table, _, key = name.partition(":")
        table = table.removesuffix("_TABLE")
        if not _TABLE_NAME.match(table) or not isinstance(value, JObj):
            loaded.foreign += 1
            continue
        loaded.recognized += 1
        if op != "SET":
            if table in qos_tables:
                loaded.skipped.append(
                    (f"{name} (OP {op})", f"operation #{number + 1} is not applied", line)
                )
            continue
        loaded.add(table, key.replace(":", "|"), value, line)


def reference(text: str) -> tuple[str | None, str]:
    """`[TABLE|name]` (old style, also APP_DB `[TABLE_TABLE:name]`) or a bare `name`."""
    text = text.strip()
    if text[:1] != "[":
        return None, text
    match = _REFERENCE.match(text)
    if match is None:
        return None, text
    return match.group(1).removesuffix("_TABLE"), match.group(2)


def numbers(text: str) -> tuple[int, ...] | None:
    """`3`, `3-4`, `0,3-4` -> the numbers; None when malformed."""
    if _digits(text):
        return (int(text),)
    out: list[int] = []
    for part in text.split(","):
        low, dash, high = part.strip().partition("-")
        if not _digits(low) or (dash and not _digits(high)):
            return None
        first, last = int(low), int(high) if dash else int(low)
        if last < first or last - first > 64:
            return None
        out.extend(range(first, last + 1))
    return tuple(out)


@lru_cache(maxsize=1 << 14)
def port_key(key: str) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
    """`Ethernet0|3`, `Ethernet0,Ethernet4|3-4` -> (ports, numbers); None when malformed.
    Cached: the same keys recur in every config_db of a fabric."""
    ports, sep, ids = key.rpartition("|")
    found = numbers(ids) if sep else None
    names = tuple(p.strip() for p in ports.split(",") if p.strip())
    if found is None or not names:
        return None
    return names, found


def as_int(text: str) -> int | None:
    """A base-10 integer as SONiC writes it ('26', ' 3 '); None otherwise (also past
    FABRICLINT_MAX_INT_DIGITS: a threshold of 10**400 bytes is no setting)."""
    if int_too_long(text.strip()) is not None:
        return None
    if text.isdigit() and text.isascii():
        return int(text)
    text = text.strip()
    if text[:1] == "-":
        return -int(text[1:]) if _digits(text[1:]) else None
    return int(text) if _digits(text) else None


def _digits(text: str) -> bool:
    # a bound on length (FABRICLINT_MAX_INT_DIGITS): past 4300 digits int() raises
    return text.isascii() and text.isdigit() and int_too_long(text) is None
