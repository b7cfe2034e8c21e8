"""Nornir SimpleInventory (hosts.yaml, groups.yaml, defaults.yaml) as a source.

A host's `hostname`, `platform` and `data` are looked up as Nornir does: the host, then its
groups in order (and their groups), then the defaults. From `data`: `role` (or
`fabriclint_role`), `site`, `tags`, and cables as `ethernet_interfaces[].peer/peer_interface`
or `fabriclint_peers: {port: "device:port"}`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fabriclint.inventories.common import (
    Imported,
    SourceDevice,
    SourceError,
    SourceLink,
    listed,
    merge_peers,
    peer_links,
)


def _read(path: Path, required: bool) -> dict[str, Any]:
    """One SimpleInventory file as a mapping; SourceError with file:line:col when it is bad."""
    from fabriclint.loaders.yaml import load_yaml

    if not path.exists():
        if required:
            raise SourceError(f"{path}: not found (a Nornir SimpleInventory needs hosts.yaml)")
        return {}
    doc, problems = load_yaml(path, str(path))
    if doc is None or problems:
        raise SourceError([str(p) for p in problems] or [f"{path}: cannot read"])
    if doc.data is None:
        return {}
    if not isinstance(doc.data, dict):
        raise SourceError(f"{path}:1:1: a SimpleInventory file is a mapping of names")
    not_text = _not_text(doc) + _not_shaped(doc)
    if not_text:
        raise SourceError(not_text)
    return {str(k): v if isinstance(v, dict) else {} for k, v in doc.data.items()}


TEXT_KEYS = ("platform", "hostname")
"""The entry keys Nornir reads as strings: any other YAML value is a mistake to locate here,
not a schema error on the imported inventory that names neither file nor line."""


def _not_text(doc: Any) -> list[str]:
    """`file:line:col: platform: 5 is not text` for each entry's TEXT_KEYS value that is not one."""
    out: list[str] = []
    for name, entry in doc.data.items():
        for key in TEXT_KEYS:
            value = entry.get(key) if isinstance(entry, dict) else None
            if value is None or isinstance(value, str):
                continue
            shown = f"a {type(value).__name__}" if isinstance(value, list | dict) else value
            out.append(str(doc.problem((name, key), f"{key}: {shown} is not text", value=True)))
    return out


SHAPED_KEYS = (
    (("groups",), list, "a list of group names"),
    (("data", "ethernet_interfaces"), list, "a list of interfaces"),
    (("data", "fabriclint_peers"), dict, "a mapping of port to 'device:port'"),
)
"""Entry keys read as a list or a mapping: a number there was a TypeError (an internal error),
a string was read letter by letter."""


def _not_shaped(doc: Any) -> list[str]:
    """`file:line:col: groups: not a list of group names` for each SHAPED_KEYS value that is not."""
    out: list[str] = []
    for name, entry in doc.data.items():
        for path, kind, what in SHAPED_KEYS:
            value: Any = entry
            for key in path:
                value = value.get(key) if isinstance(value, dict) else None
            if value is not None and not isinstance(value, kind):
                message = f"{'.'.join(path)}: not {what}"
                out.append(str(doc.problem((name, *path), message, value=True)))
    return out


def _chain(
    entry: dict[str, Any], groups: dict[str, dict[str, Any]], where: str
) -> list[dict[str, Any]]:
    """The entry and its groups, depth first in order (Nornir's inheritance), once each;
    SourceError naming `where` for a `groups` that is not a list."""
    out: list[dict[str, Any]] = [entry]
    seen: set[str] = set()
    stack = [str(g) for g in reversed(listed(entry.get("groups"), f"{where}: groups"))]
    while stack:
        name = stack.pop()
        if name in seen or name not in groups:
            continue
        seen.add(name)
        out.append(groups[name])
        stack += [
            str(g)
            for g in reversed(listed(groups[name].get("groups"), f"{where}: group {name}: groups"))
        ]
    return out


def _lookup(chain: list[dict[str, Any]], key: str, data_key: bool = False) -> Any:
    for entry in chain:
        holder = entry.get("data") if data_key else entry
        if isinstance(holder, dict) and holder.get(key) is not None:
            return holder[key]
    return None


def _merged_data(chain: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for entry in reversed(chain):
        data = entry.get("data")
        if isinstance(data, dict):
            out.update(data)
    return out


def read_nornir(folder: Path) -> Imported:
    """Devices and links of the SimpleInventory in `folder` (or a hosts.yaml path)."""
    base = folder.parent if folder.is_file() else folder
    hosts = _read(folder if folder.is_file() else base / "hosts.yaml", required=True)
    groups = _read(base / "groups.yaml", required=False)
    defaults = _read(base / "defaults.yaml", required=False)
    devices: list[SourceDevice] = []
    links: list[SourceLink] = []
    peers: list[SourceDevice] = []
    for name, entry in hosts.items():
        chain = [*_chain(entry, groups, f"{base / 'hosts.yaml'}: host {name}"), defaults]
        data = _merged_data(chain)
        tags = data.get("tags")
        platform, role = _lookup(chain, "platform"), data.get("fabriclint_role") or data.get("role")
        devices.append(
            SourceDevice(
                name=name,
                platform=str(platform) if platform else None,
                role=str(role) if role else None,
                host=str(entry["hostname"]) if entry.get("hostname") else None,
                site=str(data["site"]) if data.get("site") else None,
                tags=[str(t) for t in tags] if isinstance(tags, list) else [],
                groups=[str(g) for g in entry.get("groups") or []],
            )
        )
        found, named = peer_links(name, data, f"{base / 'hosts.yaml'}: host {name}")
        links += found
        peers += named
    return Imported(devices=merge_peers(devices, peers), links=links)
