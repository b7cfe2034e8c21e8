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


def test_finding_and_open_longer_than_together_are_a_usage_error(fabric: Path) -> None:
    """Both were accepted and --open-longer-than silently ignored (exit 0 with one finding's
    life for a question about old findings)."""
    nightly(fabric, "--snapshot", "broken")
    listed = CliRunner().invoke(
        app, ["history", str(fabric), "--open-longer-than", "0", "-f", "json"]
    )
    prefix = listed.stdout.split('"fingerprint": "', 1)[1][:12]
    args = ["history", str(fabric), "--finding", prefix, "--open-longer-than", "3"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "--finding and --open-longer-than are exclusive" in result.stderr
