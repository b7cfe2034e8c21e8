"""`fabriclint inventory import`: inventory.yaml from where teams keep devices and cables.

One module per source (netbox, nautobot, ansible, nornir, avd) turns it into SourceDevices and
SourceLinks (common.py); `import_inventory` maps, filters, compares with the file it replaces
and writes it atomically (a failed import leaves the old file as it was). Nothing here is
imported by `fabriclint --help`: the CLI loads it when the command runs.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fabriclint.inventories.common import (
    SOURCES,
    Filters,
    Imported,
    SourceError,
    build,
    changes,
    load_mapping,
    render,
    shown_url,
)
from fabriclint.models.inventory import Inventory

__all__ = [
    "SOURCES",
    "Filters",
    "ImportRequest",
    "ImportResult",
    "SourceError",
    "import_inventory",
]


@dataclass
class ImportRequest:
    """What `fabriclint inventory import` was asked."""

    source: str
    out: Path
    inputs: list[Path] = field(default_factory=list)
    """Ansible inventory sources, the Nornir folder or the AVD folder."""
    json_file: Path | None = None
    """A saved `ansible-inventory --list` output."""
    url: str | None = None
    token_env: str | None = None
    mapping: Path | None = None
    filters: Filters = field(default_factory=Filters)
    name: str | None = None
    schema: str | None = None
    dry_run: bool = False
    timeout: float = 30.0
    """Seconds to wait for each NetBox/Nautobot page."""


@dataclass
class ImportResult:
    """The inventory written (or that would be), what changed, and what was left out."""

    inventory: Inventory
    changes: list[str]
    skipped: list[str]
    written: bool
    existed: bool


def _one_input(request: ImportRequest) -> Path:
    if len(request.inputs) != 1:
        raise SourceError(f"--from {request.source} reads one folder: give it once with --input")
    return request.inputs[0]


MIN_TOKEN = 4
"""Shorter is refused rather than redacted: messages take the token out wherever it occurs
(a whole-word match would miss it inside a longer word, a URL or a quoted header), and a
one-character token would take that character out of every message ("NetBo[redacted]")."""


def _api(request: ImportRequest) -> Any:
    from fabriclint.inventories.netbox import Api

    if not request.url:
        raise SourceError(f"--from {request.source} needs --url (the server's base URL)")
    check_url(request.url)
    env = request.token_env or f"{request.source.upper()}_TOKEN"
    token = os.environ.get(env) or None
    if token is None:
        raise SourceError(f"no API token: set the environment variable {env} (--token-env)")
    if len(token) < MIN_TOKEN:
        raise SourceError(
            f"{env}: too short to be a token (at least {MIN_TOKEN} characters); "
            "a NetBox or Nautobot API token is 40"
        )
    product = "NetBox" if request.source == "netbox" else "Nautobot"
    return Api(url=request.url, token=token, timeout=request.timeout, product=product)


def check_url(url: str) -> None:
    """SourceError (exit 2) for a base URL the API client cannot use, never echoing a
    user:password or query it holds (the messages reach CI logs)."""
    import urllib.parse

    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError as exc:  # `http://[::1/`; a bad port is the client's to say (Api.get)
        raise SourceError(f"--url: not a URL ({exc})") from None
    shown = shown_url(parts) if parts.scheme else _given(url)
    if parts.scheme not in ("http", "https"):
        raise SourceError(f"--url {shown!r}: not an http:// or https:// URL")
    if "@" in parts.netloc:  # urllib would take `user:password` for part of the host name
        raise SourceError(
            f"--url {shown!r}: a user:password in the URL is not used; the API token comes "
            "from the environment variable --token-env (token_env) names"
        )


def _given(url: str) -> str:
    """A URL whose scheme urllib cannot read (`ht!tp://x`, `netbox.example.com`) as it was
    given, urllib having kept it all as a path: without a `user:password@` or a query in it."""
    text = url.split("?", 1)[0].split("#", 1)[0]
    return re.sub(r"//[^/]*@", "//", text)


def read_source(request: ImportRequest) -> Imported:
    """What the source holds (filters on site and tag go to the server where there is one)."""
    if request.source == "netbox":
        from fabriclint.inventories.netbox import read_netbox

        return read_netbox(_api(request), request.filters)
    if request.source == "nautobot":
        from fabriclint.inventories.nautobot import read_nautobot

        return read_nautobot(_api(request), request.filters)
    if request.source == "ansible":
        from fabriclint.inventories import ansible

        if request.json_file is not None:
            return ansible.from_list(ansible.read_saved(request.json_file), str(request.json_file))
        if not request.inputs:
            raise SourceError("--from ansible needs --input INVENTORY (repeatable) or --json FILE")
        return ansible.from_list(ansible.run_ansible_inventory(request.inputs))
    if request.source == "nornir":
        from fabriclint.inventories.nornir import read_nornir

        return read_nornir(_one_input(request))
    if request.source == "avd":
        from fabriclint.inventories.avd import read_avd

        return read_avd(_one_input(request))
    raise SourceError(f"unknown source {request.source!r} (one of {', '.join(SOURCES)})")


def _existing(path: Path) -> dict[str, Any] | None:
    """The data of the inventory file being replaced, or None when there is none (or it cannot
    be read: then every device shows as added)."""
    from fabriclint.loaders.yaml import load_yaml

    if not path.is_file():
        return None
    doc, _ = load_yaml(path, str(path))
    return doc.data if doc is not None and isinstance(doc.data, dict) else {}


def _keep_hand_written(inventory: Inventory, old: dict[str, Any]) -> Inventory:
    """Credentials and SSH ports added by hand to the old file survive a re-import when the
    source and the mapping give none."""
    from fabriclint.models.inventory import Device

    old_devices = old.get("devices") if isinstance(old.get("devices"), dict) else {}
    assert isinstance(old_devices, dict)
    for name, device in inventory.devices.items():
        before = old_devices.get(name)
        if not isinstance(before, dict):
            continue
        data = device.model_dump(exclude_defaults=True)
        for key in ("credentials", "port"):
            if key not in data and before.get(key) is not None:
                data[key] = before[key]
        try:
            inventory.devices[name] = Device.model_validate(
                {**data, "platform": device.platform, "role": device.role}
            )
        except ValueError:
            continue  # the old value no longer validates: the import's wins
    return inventory


def import_inventory(request: ImportRequest) -> ImportResult:
    """Read, map, filter, compare and (unless a dry run) write; SourceError on any problem,
    before anything is written."""
    from pydantic import ValidationError

    from fabriclint.snapshot import atomic_write

    mapping = load_mapping(request.mapping)
    imported = read_source(request)
    name = request.name or request.out.resolve().parent.name or "fabric"
    try:
        inventory = build(imported, mapping, request.filters, name)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise SourceError(f"the imported inventory is invalid at {where}: {first['msg']}") from None
    if not inventory.devices:
        # an empty source or a mistyped filter would otherwise replace the inventory with nothing
        found = len(imported.devices)
        why = f"the --site/--tag/--role filters kept none of {found}" if found else "it has none"
        raise SourceError(f"no device imported from the source: {why}; nothing written")
    old = _existing(request.out)
    if old is not None:
        inventory = _keep_hand_written(inventory, old)
    diff = changes(old or {}, inventory)
    written = False
    if not request.dry_run:
        try:
            atomic_write(request.out, render(inventory, request.source, request.schema))
        except OSError as exc:
            raise SourceError(f"{request.out}: cannot write: {exc.strerror or exc}") from None
        written = True
    return ImportResult(inventory, diff, imported.skipped, written, old is not None)
