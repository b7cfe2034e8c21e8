"""`--changed-since REF`: the devices whose inputs changed in git since REF, plus link neighbours.

Cross-device rules need both ends of a cable, so each changed device brings its neighbours.
A change to inventory.yaml, intent.yaml, policy.yaml or a snapshot manifest selects every device.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from fabriclint.models.inventory import Inventory


class ChangedError(Exception):
    """git could not answer (not a repository, unknown REF): a usage error, exit 2."""


def _git(args: list[str], cwd: Path) -> list[str]:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ChangedError(f"git failed: {exc}") from exc
    if done.returncode != 0:
        raise ChangedError(f"git {' '.join(args)}: {done.stderr.strip() or 'failed'}")
    return [line for line in done.stdout.splitlines() if line.strip()]


def changed_files(ref: str, cwd: Path) -> set[Path]:
    """Absolute paths changed since `ref` (committed, staged, unstaged, untracked)."""
    top = Path(_git(["rev-parse", "--show-toplevel"], cwd)[0])
    names = _git(["diff", "--name-only", ref, "--"], cwd)
    names += _git(["ls-files", "--others", "--exclude-standard"], top)
    return {(top / name).resolve() for name in names}


def _device_of(path: Path, inputs: Path, devices: set[str]) -> str | None:
    """The device a changed file belongs to: inputs/DEVICE/... (snapshot) or inputs/DEVICE.cfg."""
    try:
        rel = path.relative_to(inputs)
    except ValueError:
        return None
    name = rel.parts[0] if len(rel.parts) > 1 else rel.stem
    return name if name in devices else None


def select_devices(
    inventory: Inventory, fabric_dir: Path, inputs: Path, changed: set[Path]
) -> set[str] | None:
    """Devices to check, or None for all of them (a fabric-wide file changed)."""
    fabric_files = {
        (fabric_dir / n).resolve() for n in ("inventory.yaml", "intent.yaml", "policy.yaml")
    }
    if changed & fabric_files or (inputs / "manifest.json").resolve() in changed:
        return None
    names = set(inventory.devices)
    picked = {d for p in changed if (d := _device_of(p, inputs.resolve(), names)) is not None}
    for (device, _), (peer, _) in inventory.peers().items():
        if device in picked:
            picked.add(peer)
    return picked
