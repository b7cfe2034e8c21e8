"""`fabriclint history --finding` reads its argument as a fingerprint prefix, never as a
pattern: `%` and `_` are LIKE wildcards in SQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from tests.nightly.conftest import nightly


@pytest.mark.parametrize("given", ["%%%%%%%%", "________", "%_%_%_%_"])
def test_a_wildcard_prefix_matches_no_finding(fabric: Path, given: str) -> None:
    nightly(fabric, "--snapshot", "broken")
    result = CliRunner().invoke(app, ["history", str(fabric), "--finding", given])
    assert result.exit_code == 2 and "0 findings match" in result.stderr
