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


def resolve_ref(ref: str, cwd: Path) -> str:
    """The commit hash `ref` names. A ref is user input: one that starts with '-' or holds
    blanks or control characters is refused before git sees it (`--output=FILE` would be an
    option), and git is told where options end, so nothing in REF is ever read as one."""
    if not ref or ref.startswith("-") or any(c.isspace() or ord(c) < 32 for c in ref):
        raise ChangedError(f"{ref!r} is not a git revision (it must not start with '-')")
    try:
        found = _git(
            ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"], cwd
        )
    except ChangedError:
        found = []
    if len(found) != 1:
        raise ChangedError(f"{ref!r}: unknown revision (not a commit in this repository)")
    return found[0]


def changed_files(ref: str, cwd: Path) -> set[Path]:
    """Absolute paths changed since `ref` (committed, staged, unstaged, untracked)."""
    top = Path(_git(["rev-parse", "--show-toplevel"], cwd)[0])
    commit = resolve_ref(ref, cwd)  # a hash: safe in any position of the diff below
    names = _git(["diff", "--name-only", commit, "--"], cwd)
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
        (fabric_dir / n).resolve()
        for n in ("inventory.yaml", "inventory-source.yaml", "intent.yaml", "policy.yaml")
    }
    if changed & fabric_files or (inputs / "manifest.json").resolve() in changed:
        return None
    names = set(inventory.devices)
    picked = {d for p in changed if (d := _device_of(p, inputs.resolve(), names)) is not None}
    # The cable neighbours of the changed devices, not theirs in turn (collected apart, so the
    # answer does not depend on the order of the cabling plan).
    neighbours = {peer for (device, _), (peer, _) in inventory.peers().items() if device in picked}
    return picked | neighbours
