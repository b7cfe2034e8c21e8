"""--keep-nights never loses a snapshot: an archive already there (a snapshot name the
tooling reuses) is not replaced, and what a compression killed outright left behind is
removed the next night, but never a half-written archive another run is writing now."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tarfile
from pathlib import Path

import pytest

from fabriclint.nightly import delivery
from tests.nightly.conftest import nightly


def _manifest(archive: Path, name: str) -> dict[str, object]:
    with tarfile.open(archive) as tar:
        member = tar.extractfile(f"{name}/manifest.json")
        assert member is not None
        return dict(json.loads(member.read()))


def test_a_reused_snapshot_name_keeps_the_earlier_archive(fabric: Path) -> None:
    snapshots = fabric / "snapshots"
    for name in ("monday", "tuesday", "wednesday", "thursday", "friday"):
        shutil.copytree(snapshots / "baseline", snapshots / name)
    keep = ("--keep-nights", "2")
    for name in ("monday", "tuesday", "wednesday"):
        assert nightly(fabric, "-s", name, *keep)[0] == 0
    first = snapshots / "monday.tar.gz"
    assert first.is_file() and not (snapshots / "monday").exists()
    week1 = first.read_bytes()
    shutil.copytree(snapshots / "broken", snapshots / "monday")  # next week's monday
    week2 = json.loads((snapshots / "monday" / "manifest.json").read_text())
    assert nightly(fabric, "-s", "monday", *keep)[0] == 1
    for name in ("thursday", "friday"):
        assert nightly(fabric, "-s", name, *keep)[0] == 0
    assert not (snapshots / "monday").exists()
    assert first.read_bytes() == week1  # not replaced by next week's
    assert _manifest(snapshots / "monday.2.tar.gz", "monday") == week2


def test_what_a_killed_compression_left_is_removed(
    fabric: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshots = fabric / "snapshots"
    removed = snapshots / ".night0.4242.removed"
    shutil.copytree(snapshots / "baseline", removed)  # archived, then killed while removing
    half = snapshots / ".night0.4242.tar.gz.tmp"
    half.write_bytes(b"\x1f\x8b half an archive")
    live = snapshots / ".night9.4343.tar.gz.tmp"  # another run is writing this one now
    live.write_bytes(b"\x1f\x8b being written")
    monkeypatch.setattr(delivery, "GRACE", 0.0)
    with open(live, "rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        code, _, err = nightly(fabric, "-s", "baseline", "--keep-nights", "2")
    assert code == 0, err
    assert not removed.exists() and not half.exists()
    assert live.read_bytes() == b"\x1f\x8b being written"
    lines = [line for line in err.splitlines() if "killed compression" in line]
    assert sorted(lines) == sorted(
        f"nightly: removed what a killed compression left: {p}" for p in (removed, half)
    )
    assert os.path.isdir(snapshots / "baseline")
