"""Device names: each one becomes a folder name in a snapshot, so it must be one safe path part.

A name is 1-128 characters of letters, digits, `.`, `_` and `-`, starting with a letter, a digit
or `_` (so never `.`, `..`, a hidden name or something a command could read as an option). It
can hold no `/`, `\\`, `:` or space: `rack1/leaf01` or `../../etc` would otherwise reach folders
outside the snapshot. Every place a device name enters fabriclint (inventory.yaml, a snapshot's
manifest.json, an inventory overlay) validates it with `check_device_name`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import AfterValidator

DEVICE_NAME_PATTERN = r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$"
_DEVICE_NAME = re.compile(DEVICE_NAME_PATTERN)


def device_name_problem(name: str) -> str | None:
    """Why `name` is not a valid device name, or None when it is."""
    if _DEVICE_NAME.fullmatch(name):
        return None
    if not name:
        return "device name must not be empty"
    if len(name) > 128:
        return "a device name is at most 128 characters"
    return (
        "a device name must be one path component: letters, digits, '.', '_' and '-', "
        "starting with a letter, a digit or '_' (no '/', '..', spaces, leading '-' or '.')"
    )


def refusing(problem: Callable[[str], str | None]) -> Callable[[str], str]:
    """A pydantic validator from a `problem` function: the value itself when `problem` finds
    none, ValueError with the reason otherwise."""

    def check(value: str) -> str:
        reason = problem(value)
        if reason is not None:
            raise ValueError(reason)
        return value

    return check


check_device_name = refusing(device_name_problem)
"""`name` itself when valid; ValueError with the reason otherwise."""


DeviceName = Annotated[str, AfterValidator(check_device_name)]
"""A validated device name (dict keys of inventory, manifest and overlay)."""

NAMES_SCHEMA: dict[str, Any] = {"propertyNames": {"pattern": DEVICE_NAME_PATTERN}}
"""JSON Schema of a mapping keyed by device names (editors flag a bad name as it is typed)."""
