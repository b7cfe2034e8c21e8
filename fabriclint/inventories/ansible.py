"""Ansible inventories as a source, through `ansible-inventory --list` (every form Ansible reads:
INI, YAML, dynamic scripts and plugins), or a saved copy of that JSON.

From each host's variables: `ansible_host` (the address), `fabriclint_platform` or
`ansible_network_os` (`arista.eos.eos`), `fabriclint_role` or `role`, `site`, `tags`, and its
cables as AVD's `ethernet_interfaces[].peer/peer_interface` or `fabriclint_peers`. A host's
groups (with their parents) let the mapping file say what hosts without those variables are.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
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

TIMEOUT_S = 300


def _binary() -> str:
    """ansible-inventory from the PATH, else next to this Python (a venv not activated)."""
    found = shutil.which("ansible-inventory")
    if found:
        return found
    beside = Path(sys.executable).parent / "ansible-inventory"
    if beside.is_file():
        return str(beside)
    raise SourceError(
        "ansible-inventory not found: install ansible-core (pip install 'fabriclint[ansible]'), "
        "or pass the saved output of `ansible-inventory --list` with --json"
    )


def run_ansible_inventory(sources: list[Path]) -> Any:
    """The JSON of `ansible-inventory --list` over `sources` (exit 2 when Ansible refuses)."""
    command = [_binary(), "--list"]
    for source in sources:
        command += ["-i", str(source)]
    env = {**os.environ, "ANSIBLE_NOCOLOR": "1", "ANSIBLE_INVENTORY_UNPARSED_FAILED": "1"}
    try:
        # Ansible's local temp folder (else ~/.ansible/tmp, created and left in $HOME): one of
        # our own, removed when the listing ends
        with tempfile.TemporaryDirectory(prefix="fabriclint-ansible-") as scratch:
            env["ANSIBLE_LOCAL_TEMP"] = scratch
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=TIMEOUT_S, env=env, check=False
            )
    except subprocess.TimeoutExpired:
        raise SourceError(f"ansible-inventory did not finish in {TIMEOUT_S} s", 3) from None
    except OSError as exc:
        raise SourceError(f"cannot run ansible-inventory: {exc.strerror or exc}", 3) from None
    if done.returncode != 0:
        lines = [ln.strip() for ln in done.stderr.splitlines() if ln.strip()][-5:]
        raise SourceError([f"ansible-inventory failed (exit {done.returncode})", *lines])
    return _parse(done.stdout, "ansible-inventory --list")


def read_saved(path: Path) -> Any:
    """A saved `ansible-inventory --list` JSON file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SourceError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise SourceError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return _parse(text, str(path))


def _parse(text: str, where: str) -> Any:
    from fabriclint.bounded import InputLimitError, json_loads

    try:
        data = json_loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(f"{where}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except InputLimitError as exc:
        raise SourceError(exc.where(where)) from None
    if not isinstance(data, dict) or not isinstance(data.get("_meta", {}), dict):
        raise SourceError(f"{where}: not the output of `ansible-inventory --list`")
    return data


def _memberships(data: dict[str, Any], where: str) -> dict[str, list[str]]:
    """Host -> its groups, the nearest first, then their parents (never `all`/`ungrouped`);
    SourceError naming `where` for a group's `children` or `hosts` that is not a list."""
    parents: dict[str, list[str]] = {}
    direct: dict[str, list[str]] = {}
    for group, body in data.items():
        if group == "_meta" or not isinstance(body, dict):
            continue
        for child in listed(body.get("children"), f"{where}: group {group}: children"):
            parents.setdefault(str(child), []).append(group)
        for host in listed(body.get("hosts"), f"{where}: group {group}: hosts"):
            direct.setdefault(str(host), []).append(group)
    out: dict[str, list[str]] = {}
    for host, groups in direct.items():
        order: list[str] = []
        queue = list(groups)
        while queue:
            group = queue.pop(0)
            if group not in order and group not in ("all", "ungrouped"):
                order.append(group)
                queue += parents.get(group, [])
        out[host] = order
    return out


def _word(value: Any) -> str | None:
    return str(value) if isinstance(value, str | int) and str(value) else None


def from_list(data: dict[str, Any], where: str = "ansible-inventory") -> Imported:
    """Devices and links from `ansible-inventory --list` JSON."""
    hostvars = data.get("_meta", {}).get("hostvars") or {}
    groups = _memberships(data, where)
    devices: list[SourceDevice] = []
    links: list[SourceLink] = []
    peers: list[SourceDevice] = []
    for name in sorted(set(groups) | set(hostvars)):
        found_vars = hostvars.get(name)
        hv: dict[str, Any] = found_vars if isinstance(found_vars, dict) else {}
        tags = hv.get("tags")
        devices.append(
            SourceDevice(
                name=name,
                platform=_word(hv.get("fabriclint_platform") or hv.get("ansible_network_os")),
                role=_word(hv.get("fabriclint_role") or hv.get("role")),
                host=_word(hv.get("ansible_host")),
                site=_word(hv.get("site")),
                tags=[str(t) for t in tags] if isinstance(tags, list) else [],
                groups=groups.get(name, []),
            )
        )
        found, named = peer_links(name, hv, f"{where}: host {name}")
        links += found
        peers += named
    return Imported(devices=merge_peers(devices, peers), links=links)
