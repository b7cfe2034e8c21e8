"""Generate the JSON Schemas of the user-facing files and of DeviceState (for site rules)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from fabriclint.models.intent import Intent
from fabriclint.models.inventory import Inventory
from fabriclint.models.policy import Policy
from fabriclint.models.state import DeviceState
from fabriclint.snapshot import atomic_write

SCHEMA_MODELS: dict[str, type[BaseModel]] = {
    "inventory.json": Inventory,
    "intent.json": Intent,
    "policy.json": Policy,
    "device-state.json": DeviceState,
}


def build_schemas() -> dict[str, str]:
    """File name -> schema text (stable formatting, so a freshness test can compare bytes)."""
    out: dict[str, str] = {}
    for name, model in SCHEMA_MODELS.items():
        schema: dict[str, Any] = model.model_json_schema(by_alias=True)
        schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": name, **schema}
        out[name] = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    return out


def export(directory: Path) -> list[Path]:
    """Write every schema into `directory` atomically; return the paths written."""
    written = []
    for name, text in build_schemas().items():
        path = directory / name
        atomic_write(path, text)
        written.append(path)
    return written
