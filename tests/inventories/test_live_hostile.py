"""A live inventory source in a fabric folder from an untrusted PR: links in the folder never
lead fabriclint to write outside it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.loaders.fabric import CACHE_FILE
from tests.inventories.netbox_server import TOKEN, netbox_data, serve
from tests.inventories.test_live import ROOT, live_fabric

runner = CliRunner()


@pytest.mark.parametrize("link", ["cache file", "cache folder"])
def test_a_linked_cache_is_never_written_outside_the_fabric(tmp_path: Path, link: str) -> None:
    victim_dir = tmp_path / "elsewhere"
    victim_dir.mkdir()
    victim = victim_dir / CACHE_FILE.name
    victim.write_text("precious\n")
    with serve(netbox_data()) as url:
        fabric = live_fabric(tmp_path / "pr", url)
        cache = fabric / CACHE_FILE
        if link == "cache file":
            cache.parent.mkdir()
            cache.symlink_to(victim)
        else:
            cache.parent.symlink_to(victim_dir)
        result = runner.invoke(
            app, ["inventory", "refresh", str(fabric)], env={"POD_NETBOX_TOKEN": TOKEN}
        )
    assert victim.read_text() == "precious\n"
    assert [p.name for p in victim_dir.iterdir()] == [victim.name]
    assert result.exit_code == 2, result.output
    assert "outside" in result.output and str(CACHE_FILE.parent) in result.output


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://admin:SECRETPW@127.0.0.1:9/", "not an http:// or https:// URL"),
        ("http://admin:SECRETPW@nonexistent.invalid/", "user:password"),
        ("http://admin:SECRETPW@127.0.0.1:9/?token=SECRETQ", "user:password"),
        ("http://[::1/", "not a URL"),
        ("https://admin:SECRETPW@127.0.0.1:port/", "user:password"),
    ],
)
def test_a_wrong_url_is_a_usage_error_that_shows_no_secret(
    tmp_path: Path, url: str, message: str
) -> None:
    fabric = live_fabric(tmp_path, f'"{url}"')
    result = runner.invoke(
        app, ["inventory", "refresh", str(fabric)], env={"POD_NETBOX_TOKEN": TOKEN}
    )
    assert result.exit_code == 2, result.output
    assert message in result.output, result.output
    assert "SECRET" not in result.output and "internal error" not in result.output
    assert not (fabric / CACHE_FILE).exists()


@pytest.mark.parametrize("max_age", ["99999999999999999999999d", "9" * 400])
def test_a_huge_max_age_is_located_not_an_internal_error(tmp_path: Path, max_age: str) -> None:
    fabric = live_fabric(tmp_path, "http://127.0.0.1:9", f"max_age: '{max_age}'\n")
    result = runner.invoke(
        app, ["inventory", "refresh", str(fabric)], env={"POD_NETBOX_TOKEN": TOKEN}
    )
    assert result.exit_code == 2, result.output
    assert "inventory-source.yaml:6:" in result.output and "max_age" in result.output
    assert "internal error" not in result.output


def test_a_fifo_for_a_cache_is_no_cache_and_never_blocks(tmp_path: Path) -> None:
    fabric = live_fabric(tmp_path, "http://127.0.0.1:9")
    (fabric / CACHE_FILE).parent.mkdir()
    os.mkfifo(fabric / CACHE_FILE)
    snapshot = str(ROOT / "inventories" / "roce-pod" / "snapshots" / "baseline")
    argv = [sys.executable, "-m", "fabriclint", "check", str(fabric), "-s", snapshot, "--offline"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--offline: no inventory cache" in done.stderr + done.stdout


def _nornir_fabric(root: Path) -> Path:
    """A fabric folder whose inventory is a Nornir SimpleInventory under nr/."""
    (root / "nr").mkdir(parents=True)
    (root / "nr" / "hosts.yaml").write_text(
        "leaf01: {hostname: 10.0.0.1, platform: eos, data: {role: leaf}}\n"
    )
    (root / "inventory-source.yaml").write_text("source: nornir\ninputs: [nr]\n")
    return root


@pytest.mark.parametrize(
    ("link", "target", "refused"),
    [
        ("nr/hosts.yaml", "secret", True),  # the file an importer reads
        ("nr/group_vars/all.yml", "secret", True),  # what ansible-inventory would read
        ("nr/sub", "folder", True),  # a linked folder holding a link out
        ("nr/hosts.yaml", "inside", False),  # a link to a file of the fabric folder
        ("nr/loop", "loop", False),  # a link back up: walked once, not forever
    ],
)
def test_links_inside_an_input_folder_stay_in_the_fabric(
    tmp_path: Path, link: str, target: str, refused: bool
) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text("leaf66: {hostname: 10.6.6.6, platform: eos, data: {role: leaf}}\n")
    fabric = _nornir_fabric(tmp_path / "pr")
    path = fabric / link
    path.parent.mkdir(parents=True, exist_ok=True)
    if target == "inside":
        path.rename(fabric / "real.yaml")
        path.symlink_to(Path("..") / "real.yaml")
    elif target == "folder":
        (fabric / "other").mkdir()
        (fabric / "other" / "x.yml").symlink_to(secret)
        path.symlink_to(Path("..") / "other")
    elif target == "loop":
        path.symlink_to("..")
    else:
        path.unlink(missing_ok=True)
        path.symlink_to(secret)
    result = runner.invoke(app, ["inventory", "refresh", str(fabric)])
    cache = fabric / CACHE_FILE
    if not refused:
        assert result.exit_code == 0, result.output
        assert "leaf01" in cache.read_text()
        return
    assert result.exit_code == 2, result.output
    assert f"resolves to {secret}, outside {fabric}" in result.output
    assert not cache.exists() and "leaf66" not in result.output
