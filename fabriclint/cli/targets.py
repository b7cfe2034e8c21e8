"""Output files must not replace what a command reads: a report written over a snapshot's
manifest or a config destroyed the snapshot, one over intent.yaml the fabric, one over the
history database every night recorded. `check` and `bom lock` guard their own outputs
(cli/check.py, cli/bom.py); `diff`, `counters` and `nightly` use this."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from fabriclint.cli.errors import fail

FABRIC_FILES = ("inventory.yaml", "intent.yaml", "policy.yaml", "inventory-source.yaml")
"""The fabric folder's own files."""


def snapshot_folder(fabric: Path, side: str | Path) -> Path:
    """A snapshot as `check --snapshot` and `counters` take it: a folder, or a name under
    FABRIC/snapshots/."""
    path = Path(side)
    return path if path.is_dir() else fabric / "snapshots" / str(side)


def refuse_inputs(
    targets: Iterable[tuple[str, Path | None]],
    files: Iterable[Path],
    folders: Iterable[Path],
    what: str,
) -> None:
    """Exit 2, before anything is read or written, when a target (`(option, path)`) is one of
    `files` or lies inside one of `folders` (links resolved: a link to the manifest is the
    manifest). `what` says what those inputs are."""
    kept = {file.resolve() for file in files}
    roots = [folder.resolve() for folder in folders]
    for option, target in targets:
        if target is None or str(target) == "-":
            continue
        path = target.resolve()
        if path in kept or any(path == root or root in path.parents for root in roots):
            raise fail(
                [f"{option} {target}: {what} this command reads or keeps: write it somewhere else"]
            )
