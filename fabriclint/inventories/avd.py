"""Arista AVD structured configs (one `<hostname>.yml` per switch, as eos_designs writes them)
as a source.

Each file gives a switch (`hostname`, `management_interfaces[].ip_address`, platform `eos`) and
its cables (`ethernet_interfaces[].peer/peer_interface`, `peer_type`). Peers without a file of
their own (servers) become devices too, their `peer_type` a group for the mapping file
(`groups: {server: {platform: mlnx-host, role: gpu}}`). A switch's role is its `type` when the
file has one (`spine`, `l3leaf`); else the mapping's `names` patterns give it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fabriclint.inventories.common import (
    Imported,
    SourceDevice,
    SourceError,
    SourceLink,
    merge_peers,
    peer_links,
)


def _files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise SourceError(f"{folder}: not a folder of AVD structured configs")
    found = sorted(p for p in folder.iterdir() if p.suffix in (".yml", ".yaml") and p.is_file())
    if not found:
        raise SourceError(f"{folder}: no structured config (*.yml) in it")
    return found


def _config(path: Path) -> dict[str, Any]:
    from fabriclint.loaders.yaml import load_yaml

    doc, problems = load_yaml(path, str(path))
    if doc is None or problems:
        raise SourceError([str(p) for p in problems] or [f"{path}: cannot read"])
    if not isinstance(doc.data, dict):
        raise SourceError(f"{path}:1:1: a structured config is a mapping")
    return doc.data


def _management_ip(config: dict[str, Any]) -> str | None:
    for item in config.get("management_interfaces") or []:
        if isinstance(item, dict) and isinstance(item.get("ip_address"), str):
            return str(item["ip_address"]).split("/")[0]
    return None


def read_avd(folder: Path) -> Imported:
    """Switches, their peers and the cables between them."""
    devices: list[SourceDevice] = []
    links: list[SourceLink] = []
    peers: list[SourceDevice] = []
    for path in _files(folder):
        config = _config(path)
        name = str(config.get("hostname") or path.stem)
        role = config.get("type")
        devices.append(
            SourceDevice(
                name=name,
                platform="eos",
                role=str(role) if role else None,
                host=_management_ip(config),
                groups=["avd"],
            )
        )
        found, named = peer_links(name, config, str(path))
        links += found
        peers += named
    return Imported(devices=merge_peers(devices, peers), links=links)
