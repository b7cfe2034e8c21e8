"""Shared helpers for the example-fabric tests: FAULTS.md rows, matching, generator freshness."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from ruamel.yaml import YAML

from fabriclint.models.finding import Finding
from fabriclint.models.inventory import Inventory


@dataclass(frozen=True)
class SeededFault:
    """One row of FAULTS.md."""

    rule: str
    device: str
    object: str
    change: str


def read_faults(faults_md: Path) -> list[SeededFault]:
    """The rows of a FAULTS.md table."""
    rows = re.findall(
        r"^\| ([A-Z]+\d{3}) \| (\S+) \| ([^|]+?) \| (.+) \|$",
        faults_md.read_text(encoding="utf-8"),
        flags=re.MULTILINE,
    )
    return [SeededFault(*row) for row in rows]


def describe(f: Finding) -> str:
    """One line per finding, for assertion messages."""
    return f"{f.rule} {f.device} [{f.object}] {f.path} @ {f.source}: {f.message}"


def load_inventory(fabric: Path) -> Inventory:
    """inventory.yaml as the model (plain load; aliases resolve to their anchors)."""
    data = YAML(typ="safe").load((fabric / "inventory.yaml").read_text(encoding="utf-8"))
    return Inventory.model_validate(data)


def _tokens(text: str) -> list[str]:
    return [t for t in re.split(r"[^a-z0-9]+", text.lower()) if t]


def cable_ends(fault: SeededFault, inventory: Inventory | None) -> set[tuple[str, str]]:
    """(device, object) pairs that count as the fault: its own, and the far end of its cable."""
    ends = {(fault.device, fault.object)}
    port = fault.object.removeprefix("interface ")
    peer = inventory.peers().get((fault.device, port)) if inventory else None
    if peer is not None:
        ends.add((peer[0], f"interface {peer[1]}"))
    return ends


def matches(fault: SeededFault, finding: Finding, inventory: Inventory | None = None) -> bool:
    """Same rule, same device, and every word of the fault's object in the finding's object or
    path (words match by prefix: 'queue' matches 'queues'). With the inventory, a link fault may
    be reported at either end of its cable."""
    if finding.rule != fault.rule:
        return False
    seen = _tokens(f"{finding.object} {finding.path}")
    for device, obj in cable_ends(fault, inventory):
        wanted = [t for t in _tokens(obj) if t != "interface"]
        if finding.device == device and all(any(s.startswith(w) for s in seen) for w in wanted):
            return True
    return False


def load_generator(script: Path) -> ModuleType:
    """A scripts/gen_*.py file as a module (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location(script.stem, script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(script.stem, module)
    spec.loader.exec_module(module)
    return module


def snapshot_files(root: Path) -> dict[str, str]:
    """Every file under a snapshots folder, manifests without their creation time."""
    out = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8")
        if path.name == "manifest.json":
            manifest = json.loads(text)
            manifest.pop("created")
            text = json.dumps(manifest, sort_keys=True)
        out[str(path.relative_to(root))] = text
    return out


def baseline_with(tmp: Path, fabric: Path, name: str, extra: dict[str, dict[str, str]]) -> Path:
    """A copy of the fabric's baseline snapshot at `tmp/name` with `extra` outputs added or
    replaced (device -> command -> text), written as a live collection would."""
    from fabriclint.snapshot import load_snapshot, write_snapshot

    snap = load_snapshot(fabric / "snapshots" / "baseline")
    devices = {}
    for device, loaded in snap.devices.items():
        assert loaded.raw is not None
        outputs = {k: o.text for k, o in loaded.raw.outputs.items()}
        outputs.update(extra.get(device, {}))
        devices[device] = (loaded.raw.platform, outputs)
    return write_snapshot(tmp / name, devices, source="live")
