"""Inventory overlay: per-device host/port/credentials that replace the inventory's for one
run (the lab prints one; also handy for a staging copy of a fabric). Never secrets: credentials
still name environment variables.

    known_hosts: /tmp/fabriclint-lab-x/known_hosts     # optional, relative to this file
    devices:
      leaf01: {host: 127.0.0.1, port: 40001, credentials: {username_env: U, password_env: P}}
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from fabriclint.loaders.yaml import Problem, load_yaml, validate_doc
from fabriclint.models.address import Host
from fabriclint.models.inventory import Credentials, Device, Strict
from fabriclint.models.names import NAMES_SCHEMA, DeviceName
from fabriclint.models.types import Port


class DeviceOverlay(Strict):
    """What replaces one device's connection settings."""

    host: Host | None = None
    """Address to connect to instead of the inventory's (the port goes in `port`)."""
    port: Port | None = None
    """SSH port instead of the inventory's."""
    credentials: Credentials | None = None
    """Credentials (environment variable names) instead of the inventory's."""


class Overlay(Strict):
    """An inventory overlay file."""

    known_hosts: str | None = None
    """known_hosts file to verify host keys against (relative to the overlay file)."""
    devices: dict[DeviceName, DeviceOverlay] = Field(
        default_factory=dict, json_schema_extra=NAMES_SCHEMA
    )
    """Overrides by device name."""


def load_overlay(
    path: Path, devices: dict[str, Device]
) -> tuple[Overlay | None, list[Problem | str]]:
    """Read and validate an overlay; unknown device names are problems."""
    if not path.is_file():
        return None, [f"{path}: overlay file not found"]
    doc, problems = load_yaml(path, str(path))
    if doc is None:
        return None, list(problems)
    overlay, errors = validate_doc(doc, Overlay)
    found: list[Problem | str] = [*problems, *errors]
    if overlay is not None:
        for name in overlay.devices:
            if name not in devices:
                found.append(
                    doc.problem(("devices", name), f"overlay names unknown device '{name}'")
                )
        if overlay.known_hosts:
            overlay.known_hosts = str((path.parent / overlay.known_hosts).expanduser())
    return (overlay if not found else None), found


def apply_overlay(devices: dict[str, Device], overlay: Overlay | None) -> dict[str, Device]:
    """Devices with the overlay's settings applied (the inventory itself is not changed)."""
    if overlay is None:
        return dict(devices)
    out = dict(devices)
    for name, over in overlay.devices.items():
        changes = {
            k: v for k, v in over.model_dump(exclude_none=True).items() if k != "credentials"
        }
        if over.credentials is not None:
            changes["credentials"] = over.credentials
        out[name] = devices[name].model_copy(update=changes)
    return out
