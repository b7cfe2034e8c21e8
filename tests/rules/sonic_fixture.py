"""The SONiC leaf fixture of the ECN-shape and BUF tests (tests/rules/data/sonic_leaf_buffers.json,
written for these tests after the SONiC buffer and QoS table layout): loaded, edited, parsed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState
from fabriclint.parsers.sonic import parse

FIXTURE = Path(__file__).parent / "data" / "sonic_leaf_buffers.json"

Edit = Callable[[dict[str, Any]], None]


def leaf07(*edits: Edit) -> DeviceState:
    """The fixture leaf, parsed after `edits` changed its tables."""
    config: dict[str, Any] = json.loads(FIXTURE.read_text())
    for edit in edits:
        edit(config)
    text = json.dumps(config, indent=4)
    outputs = {"config_db.json": RawOutput(text=text, file="leaf07/config_db.json")}
    return parse(RawDevice(name="leaf07", platform="sonic", outputs=outputs))


def setting(table: str, key: str, **fields: str) -> Edit:
    """An edit that sets `fields` of entry `table|key` (creating it)."""

    def edit(config: dict[str, Any]) -> None:
        config.setdefault(table, {}).setdefault(key, {}).update(fields)

    return edit


def dropping(table: str, key: str) -> Edit:
    """An edit that removes entry `table|key`."""

    def edit(config: dict[str, Any]) -> None:
        del config[table][key]

    return edit
