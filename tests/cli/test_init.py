"""`fabriclint init`: a scaffold that validates as written, never overwriting a fabric file."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.schemas import build_schemas

runner = CliRunner()


def test_init_writes_a_fabric_that_validates(tmp_path: Path) -> None:
    folder = tmp_path / "pod-a"
    result = runner.invoke(app, ["init", str(folder)])
    assert result.exit_code == 0, result.output
    for name in ("inventory", "intent", "policy"):
        text = (folder / f"{name}.yaml").read_text()
        assert text.startswith(f"# yaml-language-server: $schema=schemas/{name}.json\n")
        assert (
            json.loads((folder / "schemas" / f"{name}.json").read_text())["$id"] == f"{name}.json"
        )
    assert (folder / "schemas" / "inventory.json").read_text() == build_schemas()["inventory.json"]
    assert "name: pod-a\n" in (folder / "inventory.yaml").read_text()
    assert (folder / "snapshots").is_dir()
    checked = runner.invoke(app, ["validate", str(folder)])
    assert checked.exit_code == 0, checked.output
    assert "ok: 2 devices, 1 links, 1 profile(s)" in checked.output
    assert "warning" not in checked.output


def test_init_never_overwrites(tmp_path: Path) -> None:
    (tmp_path / "intent.yaml").write_text("profiles: {}\n")
    result = runner.invoke(app, ["init", str(tmp_path)])
    assert result.exit_code == 2
    assert "intent.yaml: already there; init never overwrites a fabric file" in result.output
    assert (tmp_path / "intent.yaml").read_text() == "profiles: {}\n"
    assert not (tmp_path / "inventory.yaml").exists()


def test_init_says_how_to_go_on_without_a_netbox(tmp_path: Path) -> None:
    """The next steps named only `inventory import`: a hand-written inventory, rendered configs
    and a collection are what a new user without a source of truth does next."""
    folder = tmp_path / "pod-a"
    out = runner.invoke(app, ["init", str(folder)]).output
    assert f"edit {folder / 'inventory.yaml'}" in out
    for step in (f"fabriclint validate {folder}", f"fabriclint check {folder} --configs DIR"):
        assert step in out, out
    assert f"fabriclint collect {folder} && fabriclint check {folder}" in out
