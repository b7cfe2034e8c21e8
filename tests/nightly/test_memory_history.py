"""`--history sqlite://` (or `sqlite:///:memory:`, `sqlite:///`) is an in-memory database:
`nightly` recorded the night there, exit 0/1, and lost it at exit; `history` listed
"Runs (0)" (but for `:memory:`, already "no history there"). Both refuse it, exit 2, and nothing is recorded anywhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from tests.nightly.conftest import nightly

URLS = [
    "sqlite://",
    "sqlite:///:memory:",
    "sqlite:///",
    # SQLite's URI file names (uri=true): `file::memory:` and `mode=memory` are in memory too
    "sqlite:///file::memory:?uri=true",
    "sqlite:///file:night?mode=memory&uri=true",
]


@pytest.mark.parametrize("url", URLS)
def test_nightly_refuses_an_in_memory_history(fabric: Path, url: str) -> None:
    code, doc, err = nightly(fabric, "--snapshot", "broken", "--history", url)
    assert code == 2 and doc == {}, err
    assert "in-memory SQLite database keeps no history" in err
    assert not (fabric / ".fabriclint").exists() and not (fabric / "reports").exists()


@pytest.mark.parametrize("url", URLS)
def test_history_refuses_an_in_memory_history(fabric: Path, url: str) -> None:
    result = CliRunner().invoke(app, ["history", str(fabric), "--history", url])
    assert result.exit_code == 2, result.output
    assert "Runs" not in result.output
    assert "keeps no history" in result.stderr or "no history there" in result.stderr
