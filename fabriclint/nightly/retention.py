"""`--keep-nights N`: keep the per-night detail (device statuses, finding sightings) of the N
newest runs and compress the older runs' snapshot folders; the history itself (every run's
counts and every finding's life: first/last seen, nights open, resolved) is never pruned.

The rows go in the night's own transaction; the folders are compressed after the commit, each
into `NAME.tar.gz` written atomically before the folder is removed, and only folders inside
FABRIC/snapshots that hold a manifest and that no kept run still names.
"""

from __future__ import annotations

import os
import shutil
import tarfile
from pathlib import Path

from sqlalchemy import Connection, delete, select

from fabriclint.history.schema import run_devices, run_findings, runs


def prune(conn: Connection, fabric: str, keep: int) -> list[str]:
    """Delete the detail rows of runs older than the `keep` newest; return their snapshot
    paths (as stored) that no kept run uses."""
    ordered = conn.execute(
        select(runs.c.id, runs.c.snapshot_path)
        .where(runs.c.fabric == fabric)
        .order_by(runs.c.id.desc())
    ).all()
    kept, old = ordered[:keep], ordered[keep:]
    if not old:
        return []
    ids = [row.id for row in old]
    conn.execute(delete(run_findings).where(run_findings.c.run_id.in_(ids)))
    conn.execute(delete(run_devices).where(run_devices.c.run_id.in_(ids)))
    still = {row.snapshot_path for row in kept}
    return sorted({row.snapshot_path for row in old} - still)


def compress(fabric_dir: Path, stored: list[str]) -> tuple[list[Path], list[str]]:
    """Compress each old snapshot folder into NAME.tar.gz beside it: the archives made, and
    one located line per folder that could not be (left whole, tried again the next night)."""
    root = (fabric_dir / "snapshots").resolve()
    made, problems = [], []
    for path in stored:
        folder = (fabric_dir / path).resolve() if not Path(path).is_absolute() else Path(path)
        if folder.parent != root or not (folder / "manifest.json").is_file():
            continue  # not ours to touch: outside FABRIC/snapshots, or already gone
        try:
            made.append(_archive(folder))
        except (OSError, tarfile.TarError) as exc:
            why = getattr(exc, "strerror", None) or exc
            problems.append(f"{folder}: cannot compress the old snapshot: {why}")
    return made, problems


def _archive(folder: Path) -> Path:
    """`folder` -> NAME.tar.gz, written atomically; the folder is renamed aside before it is
    removed, so a removal cut short never leaves a partial folder under the snapshot's name
    (the next night would archive that over the whole one)."""
    archive = folder.with_name(folder.name + ".tar.gz")
    tmp = folder.with_name(f".{folder.name}.{os.getpid()}.tar.gz.tmp")
    try:
        with tarfile.open(tmp, "w:gz") as tar:
            tar.add(folder, arcname=folder.name)
        os.replace(tmp, archive)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    doomed = folder.with_name(f".{folder.name}.{os.getpid()}.removed")
    os.replace(folder, doomed)
    shutil.rmtree(doomed, ignore_errors=True)
    return archive
