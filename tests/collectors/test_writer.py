"""SnapshotWriter's output files (the bytes of each output, whatever the write calls return), and
the garbage collector's frozen objects around a collection."""

from __future__ import annotations

import gc
import hashlib
import json
import os
import stat
from pathlib import Path

import pytest

from fabriclint.collectors import store
from fabriclint.collectors.base import DeviceResult
from fabriclint.collectors.store import SnapshotWriter


@pytest.mark.parametrize("step", [None, 1, 7])
def test_every_output_is_written_whole_with_its_hash(
    tmp_path: Path, step: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if step is not None:  # a write call may take fewer bytes than given: the rest follows
        kernel = os.write
        monkeypatch.setattr(os, "write", lambda fd, data: kernel(fd, bytes(data[:step])))
    outputs = {"show version": "Arista DCS-7060\nuptime: 1 day\n", "show lldp": "é\n" * 40}
    writer = SnapshotWriter(tmp_path / "snap")
    writer.add(DeviceResult("leaf01", "eos", outputs=outputs))
    writer.add(DeviceResult("leaf02", "eos", "timeout", "device time limit reached"))
    folder = writer.finish(["leaf01", "leaf02"], {"devices": {}})
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    entry = manifest["devices"]["leaf01"]
    for key, text in outputs.items():
        path = folder / "leaf01" / entry["files"][key]
        assert path.read_bytes() == text.encode("utf-8")
        assert entry["sha256"][path.name] == hashlib.sha256(text.encode("utf-8")).hexdigest()
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~_umask()
    assert not (folder / "leaf02").exists()  # a failed device has no files


def test_a_file_written_again_is_replaced_not_appended(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_bytes(b"an older and longer text\n")
    store._write(str(path), b"new\n")
    assert path.read_bytes() == b"new\n"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_the_collection_freezes_the_objects_before_it_and_hands_them_back() -> None:
    from fabriclint.collectors.run import _frozen_gc

    gc.unfreeze()  # an in-process CLI run freezes at its end: nothing frozen to begin with
    with _frozen_gc():
        frozen = gc.get_freeze_count()
        assert frozen > 1000  # the modules, the run's inputs
    assert gc.get_freeze_count() == 0
    gc.freeze()  # a caller that froze its own objects keeps them frozen
    try:
        mine = gc.get_freeze_count()
        with _frozen_gc():
            assert gc.get_freeze_count() == mine
        assert gc.get_freeze_count() == mine
    finally:
        gc.unfreeze()
