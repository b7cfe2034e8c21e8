"""Write a live snapshot atomically: a hidden temp folder, files as devices finish, manifest
last, then one rename into place. An interrupted run leaves no manifest (the temp folder is
removed) and never touches an existing snapshot: the target must not exist.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import secrets
import shutil
from pathlib import Path
from typing import Any

from fabriclint import __version__
from fabriclint.collectors.base import DeviceResult
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


class SnapshotExists(Exception):
    """The target snapshot folder exists already; it is never overwritten."""


def default_name(now: dt.datetime | None = None) -> str:
    """A snapshot folder name from the UTC time: 2026-11-29T020000Z."""
    return (now or dt.datetime.now(dt.UTC)).strftime("%Y-%m-%dT%H%M%SZ")


class SnapshotWriter:
    """Collects device results into a temp folder next to `target`; `finish` publishes it."""

    def __init__(self, target: Path) -> None:
        if target.exists():
            raise SnapshotExists(f"{target}: exists already; snapshots are never overwritten")
        target.parent.mkdir(parents=True, exist_ok=True)
        self.target = target
        self.temp = target.parent / f".{target.name}.partial-{secrets.token_hex(4)}"
        self.temp.mkdir()
        self.entries: dict[str, ManifestDevice] = {}

    def add(self, result: DeviceResult) -> None:
        """Write one device's outputs (only an ok device has files) and remember its entry."""
        entry = ManifestDevice(platform=result.platform, status=result.status, error=result.reason)
        if result.status == "ok":
            folder = self.temp / result.name
            folder.mkdir(exist_ok=True)
            for key, text in result.outputs.items():
                filename = command_to_filename(key)
                data = text.encode("utf-8")
                (folder / filename).write_bytes(data)
                entry.files[key] = filename
                entry.sha256[filename] = sha256_of(data)
        self.entries[result.name] = entry

    def finish(self, order: list[str], record: dict[str, Any]) -> Path:
        """Write collect.json, then the manifest, then rename the folder into place."""
        entries = {name: self.entries[name] for name in order if name in self.entries}
        atomic_write(self.temp / COLLECT_RECORD, json.dumps(record, indent=2) + "\n")
        created = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        manifest = Manifest(fabriclint=__version__, created=created, source="live", devices=entries)
        atomic_write(self.temp / MANIFEST, manifest.model_dump_json(indent=2) + "\n")
        _fsync_dir(self.temp)
        if self.target.exists():  # made meanwhile by someone else: keep theirs, fail
            raise SnapshotExists(f"{self.target}: appeared during collection; not replaced")
        os.rename(self.temp, self.target)
        _fsync_dir(self.target.parent)
        return self.target

    def discard(self) -> None:
        """Remove the temp folder (an interrupted or failed run)."""
        shutil.rmtree(self.temp, ignore_errors=True)


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
