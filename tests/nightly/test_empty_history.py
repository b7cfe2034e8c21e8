"""A history file that exists but is empty (0 bytes) is a lost history, not a new one: exit 2
naming it, the file left untouched. A missing file is still created (the first night)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.history.store import HistoryError, open_store
from tests.nightly.conftest import nightly


def _empty(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    return path


@pytest.mark.parametrize("where", ["default", "option"])
def test_nightly_refuses_an_empty_history_file(fabric: Path, tmp_path: Path, where: str) -> None:
    if where == "default":
        db, args = _empty(fabric / ".fabriclint" / "history.sqlite"), []
    else:
        db = _empty(tmp_path / "nights.sqlite")
        args = ["--history", str(db)]
    code, doc, err = nightly(fabric, "--snapshot", "baseline", *args)
    assert code == 2
    assert doc == {}
    assert str(db) in " ".join(err.split()) and "empty file (0 bytes)" in err
    assert db.stat().st_size == 0  # left as found: the user decides whether it is lost
    assert not (fabric / "reports").exists()


def test_a_missing_history_file_is_created(fabric: Path) -> None:
    db = fabric / ".fabriclint" / "history.sqlite"
    code, doc, _ = nightly(fabric, "--snapshot", "baseline")
    assert code == 0 and doc["run"]["id"] == 1
    assert db.stat().st_size > 0
    code, doc, _ = nightly(fabric, "--snapshot", "baseline")  # and read again the next night
    assert code == 0 and doc["run"]["id"] == 2


def test_reading_an_empty_history_file_is_refused(fabric: Path) -> None:
    db = _empty(fabric / ".fabriclint" / "history.sqlite")
    result = CliRunner().invoke(app, ["history", str(fabric)])
    assert result.exit_code == 2
    assert "empty file (0 bytes)" in result.output and str(db) in " ".join(result.output.split())


@pytest.mark.parametrize("size", [0, 1, 99, 100, 4096])
def test_open_store_tells_short_from_damaged(tmp_path: Path, size: int) -> None:
    db = tmp_path / "h.sqlite"
    db.write_bytes(b"x" * size)
    with pytest.raises(HistoryError) as caught:
        open_store(f"sqlite:///{db}").dispose()
    expected = {0: "empty file (0 bytes)", 1: "a file of 1 bytes (truncated)"}.get(size)
    expected = expected or ("a file of 99 bytes" if size == 99 else "not a history database")
    assert expected in str(caught.value)
