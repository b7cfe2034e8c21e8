"""Helpers for tests that collect from the lab: fabrics, labs with faults, finding keys."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer
import yaml

from fabriclint.cli import collect as collect_cli
from fabriclint.cli import lab as lab_cli
from fabriclint.collectors.base import Timeouts
from fabriclint.collectors.run import CollectOptions, CollectResult, collect
from fabriclint.engine import CheckOptions, CheckResult, run_check
from fabriclint.lab.device import load_snapshot_devices
from fabriclint.lab.faults import parse_faults
from fabriclint.lab.server import Lab
from fabriclint.snapshot import write_snapshot

ROOT = Path(__file__).resolve().parents[2]
ROCE_POD = ROOT / "inventories" / "roce-pod"
LAB_PASSWORD = "PLANT-login-pw-99"
"""The lab's login password: tests assert it is written nowhere."""
FAST = Timeouts(connect=10.0, command=10.0, device=40.0)
"""Generous limits for healthy devices on a busy 2-core machine."""

INTENT = """\
profiles:
  roce:
    trust: dscp
    roce: {dscp: [26], priority: 3}
    cnp: {dscp: 48, priority: 6}
    pfc: {priorities: [3]}
roles:
  leaf: {profile: roce}
  gpu: {profile: roce}
  sm: {profile: roce}
"""


def cli_app() -> typer.Typer:
    """The commands of this issue on a local app (the lead registers them in cli/app.py)."""
    app = typer.Typer(pretty_exceptions_enable=False)

    @app.callback()
    def _root() -> None:
        """Test app."""

    app.command("collect")(collect_cli.collect)
    app.add_typer(lab_cli.app, name="lab")
    return app


@contextmanager
def lab_for(snapshot: Path, faults: list[str] | None = None) -> Iterator[Lab]:
    """A running lab serving `snapshot`, with `GLOB=kind` faults."""
    devices = load_snapshot_devices(snapshot)
    found = parse_faults(faults or [], [d.name for d in devices])
    for device in devices:
        device.fault = found.get(device.name, device.fault)
    with Lab(devices, password=LAB_PASSWORD) as lab:
        yield lab


def write_overlay(lab: Lab, folder: Path) -> Path:
    """The lab's inventory overlay as a file in `folder`."""
    path = folder / "overlay.yaml"
    path.write_text(lab.overlay_yaml(), encoding="utf-8")
    return path


def collect_from(lab: Lab, fabric: Path, out: Path, **options: object) -> CollectResult:
    """collect() of `fabric` pointed at `lab` (overlay, known_hosts, env)."""
    opts = CollectOptions(
        out=out,
        overlay=write_overlay(lab, out.parent),
        env=lab.env(),
        timeouts=FAST,
        workers=16,
    )
    for name, value in options.items():
        setattr(opts, name, value)
    return collect(fabric, opts)


def check(fabric: Path, snapshot: Path) -> CheckResult:
    """The offline check of `snapshot`."""
    return run_check(CheckOptions(fabric_dir=fabric, snapshot=snapshot))


def finding_keys(result: CheckResult) -> list[tuple[str, str, str | None, str]]:
    """Findings as (fingerprint, rule, device, object), sorted."""
    return sorted((f.fingerprint, f.rule, f.device, f.object) for f in result.report.findings)


def copy_fabric(tmp: Path, snapshot: str) -> Path:
    """inventory/intent of roce-pod plus one of its snapshots, in a temp folder."""
    fabric = tmp / "roce-pod"
    fabric.mkdir()
    for name in ("inventory.yaml", "intent.yaml"):
        shutil.copy(ROCE_POD / name, fabric / name)
    shutil.copytree(ROCE_POD / "snapshots" / snapshot, fabric / "snapshots" / snapshot)
    return fabric


def write_fabric(root: Path, devices: dict[str, tuple[str, str, dict[str, str]]]) -> Path:
    """A fabric of `devices` (name -> platform, role, {key: text}) with a `seed` snapshot."""
    root.mkdir(parents=True)
    inventory = {
        "name": "lab-test",
        "devices": {
            name: {"platform": platform, "role": role, "host": "192.0.2.1"}
            for name, (platform, role, _) in devices.items()
        },
    }
    (root / "inventory.yaml").write_text(yaml.safe_dump(inventory), encoding="utf-8")
    (root / "intent.yaml").write_text(INTENT, encoding="utf-8")
    seed = {name: (platform, outputs) for name, (platform, _, outputs) in devices.items()}
    write_snapshot(root / "snapshots" / "seed", seed, source="import")
    return root


def all_text(folder: Path) -> str:
    """Every file under `folder`, concatenated (for grep-style assertions)."""
    return "\n".join(
        p.read_text(encoding="utf-8", errors="replace")
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    )
