"""Generate the JSON Schemas of the user-facing files and of DeviceState (for site rules)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from fabriclint.inventories.live import InventorySource
from fabriclint.models.bom import BomLock
from fabriclint.models.docs import json_schema
from fabriclint.models.finding import Report
from fabriclint.models.intent import Intent
from fabriclint.models.inventory import Inventory
from fabriclint.models.policy import Policy
from fabriclint.models.state import DeviceState
from fabriclint.snapshot import atomic_write

SCHEMA_MODELS: dict[str, type[BaseModel]] = {
    "inventory.json": Inventory,
    "inventory-source.json": InventorySource,
    "intent.json": Intent,
    "policy.json": Policy,
    "device-state.json": DeviceState,
    "report.json": Report,
    "bom-lock.json": BomLock,
}

_CODE_PATTERN = "^[A-Z]+[0-9]{0,3}$"  # models/types.py RuleCode: a code or a prefix of one


def build_schemas() -> dict[str, str]:
    """File name -> schema text (stable formatting, so a freshness test can compare bytes)."""
    out: dict[str, str] = {}
    for name, model in SCHEMA_MODELS.items():
        schema: dict[str, Any] = json_schema(model, by_alias=True)
        schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": name, **schema}
        if name == "policy.json":
            schema = _with_rule_codes(schema, _codes())
        out[name] = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    return out


def _codes() -> list[str]:
    """Every built-in code and every prefix of one, plus ALL: what `select`/`ignore` accept."""
    from fabriclint.rules.registry import ALL_RULES

    names = {"ALL"}
    for rule in ALL_RULES:
        family = rule.code.rstrip("0123456789")
        names.update(rule.code[:end] for end in range(len(family), len(rule.code) + 1))
    return sorted(names)


def _with_rule_codes(node: Any, codes: list[str]) -> Any:
    """Replace the rule-code pattern with the catalog, so an editor refuses `PFC99`; site codes
    (families fabriclint does not use, SITE001) stay allowed."""
    if isinstance(node, list):
        return [_with_rule_codes(item, codes) for item in node]
    if not isinstance(node, dict):
        return node
    families = sorted({c.rstrip("0123456789") for c in codes if c != "ALL"})
    site = f"^(?!(?:{'|'.join(families)})[0-9]*$)[A-Z]+[0-9]{{0,3}}$"
    known = [{"enum": codes}, {"type": "string", "pattern": site}]
    if node.get("pattern") == _CODE_PATTERN:
        rest = {k: v for k, v in node.items() if k not in ("pattern", "type")}
        return {**rest, "anyOf": known}
    keyed = node.get("patternProperties", {})
    if list(keyed) == [_CODE_PATTERN]:  # a mapping keyed by rule code (severity)
        rest = {k: v for k, v in node.items() if k != "patternProperties"}
        names = {**rest.get("propertyNames", {}), "anyOf": known}
        return {**rest, "propertyNames": names, "additionalProperties": keyed[_CODE_PATTERN]}
    return {key: _with_rule_codes(value, codes) for key, value in node.items()}


def export(directory: Path) -> list[Path]:
    """Write every schema into `directory` atomically; return the paths written."""
    written = []
    for name, text in build_schemas().items():
        path = directory / name
        atomic_write(path, text)
        written.append(path)
    return written
