"""`--keep-nights N`: keep the per-night detail (device statuses, finding sightings) of the N
newest runs and compress the older runs' snapshot folders; the history itself (every run's
counts and every finding's life: first/last seen, nights open, resolved) is never pruned.

The rows go in the night's own transaction; the folders are compressed after the commit, each
into `NAME.tar.gz` written atomically before the folder is removed, and only folders inside
FABRIC/snapshots that hold a manifest and that no kept run still names.
"""

from __future__ import annotations

import os
import re
import shutil
import tarfile
import time
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
    (the next night would archive that over the whole one). An archive already there (of an
    earlier snapshot of the same name: tooling that reuses `monday`) is never replaced: this
    one becomes NAME.2.tar.gz, NAME.3.tar.gz, ... The archive being written is locked by its
    run (see `sweep_snapshots`)."""
    from fabriclint.leftovers import lock_file

    tmp = folder.with_name(f".{folder.name}.{os.getpid()}.tar.gz.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o666)
        with os.fdopen(fd, "wb") as raw:
            lock_file(fd)
            with tarfile.open(fileobj=raw, mode="w:gz") as tar:
                tar.add(folder, arcname=folder.name)
            raw.flush()
            os.fsync(fd)
            archive = _place(tmp, folder)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    doomed = folder.with_name(f".{folder.name}.{os.getpid()}.removed")
    os.replace(folder, doomed)
    shutil.rmtree(doomed, ignore_errors=True)
    return archive


def _place(tmp: Path, folder: Path) -> Path:
    """Give `tmp` the first archive name of `folder` not taken, never replacing one."""
    for n in range(1, 10_000):
        archive = folder.with_name(folder.name + (f".{n}" if n > 1 else "") + ".tar.gz")
        try:
            os.link(tmp, archive)
        except FileExistsError:
            continue
        except OSError:  # no hard links here: the same, short of another run racing us
            if os.path.lexists(archive):
                continue
            os.replace(tmp, archive)
            return archive
        tmp.unlink()
        return archive
    raise OSError(f"{folder.name}.tar.gz: 9,999 archives of that name already there")


_LEFT = re.compile(r"\.(?P<name>.+)\.[0-9]+\.(?:tar\.gz\.tmp|removed)")


def sweep_snapshots(fabric_dir: Path) -> list[Path]:
    """What a compression killed outright left in FABRIC/snapshots: a half-written
    `.NAME.PID.tar.gz.tmp` (older than delivery.GRACE and locked by no process: not one
    another run is writing now) and a `.NAME.PID.removed` folder (already archived when it
    was renamed aside; removing it alongside a live run that removes it too is harmless)."""
    from fabriclint.leftovers import abandoned
    from fabriclint.nightly import delivery

    root = fabric_dir / "snapshots"
    try:
        entries = list(os.scandir(root))
    except OSError:
        return []
    now, removed = time.time(), []
    for entry in entries:
        match = _LEFT.fullmatch(entry.name)
        if match is None:
            continue
        path = Path(entry.path)
        if entry.name.endswith(".removed") and entry.is_dir(follow_symlinks=False):
            shutil.rmtree(path, ignore_errors=True)
        elif entry.is_file(follow_symlinks=False):
            try:
                if not abandoned(path, now, delivery.GRACE):
                    continue
                path.unlink()
            except OSError:  # gone meanwhile, or not ours to remove: never fails the night
                continue
        else:
            continue
        if not os.path.lexists(path):
            removed.append(path)
    return removed
