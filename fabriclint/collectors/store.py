"""Write a live snapshot atomically: a hidden temp folder, files as devices finish, manifest
last, then one rename into place. An interrupted run leaves no manifest (the temp folder is
removed) and never touches an existing snapshot: the target must not exist. Two runs never
write the same name (a lock per name, taken before any device is contacted).

A run killed outright (SIGKILL, the OOM killer, a power cut) cannot remove its temp folder:
each run holds an flock on its own from the moment it is made until it is renamed or removed,
and the next collection removes the ones in FABRIC/snapshots that no process holds and that
are older than leftovers.GRACE (`sweep_partials`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import re
import secrets
import shutil
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fabriclint import __version__, leftovers
from fabriclint.collectors.base import DeviceResult
from fabriclint.models.names import check_device_name
from fabriclint.snapshot import (
    MANIFEST,
    Manifest,
    ManifestDevice,
    atomic_write,
    command_to_filename,
    sha256_of,
)

COLLECT_RECORD = "collect.json"
"""How the snapshot was collected (options, host-key checking, per-device timing, skipped commands)."""
PARTIAL = re.compile(r"\.(?P<name>.+)\.partial-[0-9a-f]{8}")
"""The temp folder of a snapshot being collected, `.NAME.partial-XXXXXXXX` (8 hex digits)."""


class SnapshotExists(Exception):
    """The target snapshot folder exists already; it is never overwritten."""


def default_name(now: dt.datetime | None = None) -> str:
    """A snapshot folder name from the UTC time: 2026-11-29T020000Z."""
    return (now or dt.datetime.now(dt.UTC)).strftime("%Y-%m-%dT%H%M%SZ")


class SnapshotWriter:
    """Collects device results into a temp folder next to `target`; `finish` publishes it.

    The name is reserved before any device is contacted: an exclusive lock on the hidden file
    `.NAME.lock` next to it (flock, so a killed run leaves nothing that blocks the next). With
    `unique` (the default timestamp name) a name that exists or another run holds is replaced
    by NAME-2, NAME-3...; otherwise SnapshotExists says which of the two it is. The temp
    folder is under this run's flock from just after it is made until it is renamed into
    place or removed (`sweep_partials` of another run keeps it).
    """

    def __init__(self, target: Path, unique: bool = False) -> None:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            self.target, lock = _reserve(target, unique)
        except OSError as exc:  # `--out FILE/sub`, a read-only folder: the user's path, exit 2
            why = exc.strerror or str(exc)
            raise SnapshotExists(f"{target}: cannot create the snapshot folder: {why}") from None
        self._lock: int | None = lock
        self.temp = self.target.parent / f".{self.target.name}.partial-{secrets.token_hex(4)}"
        self._held: int | None = None
        try:
            self.temp.mkdir()
            self._held = _hold(self.temp)
        except BaseException:
            self.discard()
            raise
        self.entries: dict[str, ManifestDevice] = {}

    def add(self, result: DeviceResult) -> None:
        """Write one device's outputs (only an ok device has files) and remember its entry."""
        check_device_name(result.name)  # validated with the inventory; a folder never a path
        entry = ManifestDevice(platform=result.platform, status=result.status, error=result.reason)
        if result.status == "ok":
            folder = os.path.join(self.temp, result.name)
            os.makedirs(folder, exist_ok=True)
            for key, text in result.outputs.items():
                filename = command_to_filename(key)
                data = text.encode("utf-8")
                _write(os.path.join(folder, filename), data)
                entry.files[key] = filename
                entry.sha256[filename] = sha256_of(data)
        self.entries[result.name] = entry

    def finish(
        self, order: list[str], record: dict[str, Any], publishing: Callable[[], None] | None = None
    ) -> Path:
        """Write collect.json, then the manifest, then rename the folder into place.
        `publishing` is called just before the rename (the CLI defers Ctrl-C from then on)."""
        entries = {name: self.entries[name] for name in order if name in self.entries}
        atomic_write(self.temp / COLLECT_RECORD, json.dumps(record, indent=2) + "\n")
        created = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        manifest = Manifest(fabriclint=__version__, created=created, source="live", devices=entries)
        atomic_write(self.temp / MANIFEST, manifest.model_dump_json(indent=2) + "\n")
        _fsync_dir(self.temp)
        if self.target.exists():  # made meanwhile outside fabriclint: keep theirs, fail
            raise SnapshotExists(f"{self.target}: appeared during collection; not replaced")
        if publishing is not None:
            publishing()
        os.rename(self.temp, self.target)
        _fsync_dir(self.target.parent)
        self._release()
        return self.target

    def discard(self) -> None:
        """Remove the temp folder (an interrupted or failed run)."""
        shutil.rmtree(self.temp, ignore_errors=True)
        self._release()

    def _release(self) -> None:
        if self._held is not None:  # the temp folder's lock: renamed into place, or removed
            os.close(self._held)
            self._held = None
        if self._lock is not None:
            _unlock(self._lock, self.target)
            self._lock = None


def _hold(folder: Path) -> int:
    """An open descriptor of the temp folder just made, under this run's exclusive flock until
    it is closed (what tells `sweep_partials` of another run that this one is alive)."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(folder, flags)
    leftovers.lock_file(fd)
    return fd


def sweep_partials(snapshots: Path) -> list[Path]:
    """Remove the temp folders collections killed outright left in `snapshots` (the fabric's
    FABRIC/snapshots): entries named `.NAME.partial-XXXXXXXX` that are real folders (a link
    is never followed, nor removed), older than leftovers.GRACE and locked by no process
    (a live run holds its own). Returns what was removed; what cannot be (a read-only
    folder, gone meanwhile) is left and never fails the run."""
    try:
        entries = list(os.scandir(snapshots))
    except OSError:
        return []
    now, removed = time.time(), []
    for entry in entries:
        if PARTIAL.fullmatch(entry.name) is None:
            continue
        path = Path(entry.path)
        if not leftovers.abandoned(path, now, leftovers.GRACE, folder=True):
            continue
        shutil.rmtree(path, ignore_errors=True)  # by descriptors: links inside are not followed
        with contextlib.suppress(OSError):
            if not os.path.lexists(path):
                removed.append(path)
    return removed


def sweepable(snapshots: Path, temp: Path) -> bool:
    """Whether to sweep `snapshots` (FABRIC/snapshots): a real folder, or, when it is a link,
    the folder this run writes its own temp folder in (it follows that link anyway)."""
    try:
        if stat.S_ISDIR(snapshots.lstat().st_mode):
            return True
        return os.path.samefile(snapshots, temp.parent)
    except OSError:
        return False


def _write(path: str, data: bytes) -> None:
    """`Path(path).write_bytes(data)` (created or truncated, the umask's mode) without the
    pathlib objects and the buffered file around two system calls: ~6 files per device, every
    one written on the run's own thread while the sessions wait for it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _lock_path(target: Path) -> Path:
    return target.parent / f".{target.name}.lock"


def _try_lock(target: Path) -> int | None:
    """An fd holding the exclusive lock of `target`'s name, or None when another run has it."""
    fd = os.open(_lock_path(target), os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _unlock(fd: int, target: Path) -> None:
    with contextlib.suppress(OSError):
        _lock_path(target).unlink()
    os.close(fd)


def _reserve(target: Path, unique: bool) -> tuple[Path, int]:
    """(name, lock fd) for a new snapshot; SnapshotExists when `target` cannot be had."""
    for attempt in range(1, 1000):
        name = target if attempt == 1 else target.with_name(f"{target.name}-{attempt}")
        fd = _try_lock(name)
        if fd is not None and not name.exists():
            return name, fd
        held = fd is None
        if fd is not None:
            _unlock(fd, name)  # the folder exists: this name is taken for good
        if not unique:
            why = (
                "is being collected by another fabriclint run right now"
                if held
                else "exists already; snapshots are never overwritten"
            )
            raise SnapshotExists(f"{name}: {why}")
    raise SnapshotExists(f"{target}: no free snapshot name (tried {target.name}-2 to -999)")


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems refuse fsync on directories; the rename still holds
        pass
    finally:
        os.close(fd)
