"""`host snapshot` with hostile output folders: nothing written through a link, and the
message names what is in the way."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from fabriclint.cli.app import app

runner = CliRunner()


def test_a_dangling_link_in_place_of_the_host_folder_is_refused_by_name(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "gpu01").symlink_to(tmp_path / "elsewhere")
    result = runner.invoke(app, ["host", "snapshot", "--out", str(out), "--name", "gpu01"])
    assert result.exit_code == 2, result.output
    assert f"{out / 'gpu01'}: exists already" in result.output
    assert not (tmp_path / "elsewhere").exists()
    assert [p.name for p in out.iterdir()] == ["gpu01"]  # no partial folder left
