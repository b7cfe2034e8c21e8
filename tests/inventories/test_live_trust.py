"""A fabric folder from a pull request names its live source's url, token_env and inputs: the
token goes only to origins FABRICLINT_TRUSTED_SOURCES (set outside the folder) lists, with the
token variable it allows; ansible-inventory runs over the folder's files only when allowed; and a
server's `next` link never takes the token to another host."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.inventories.live import TRUST_ENV
from fabriclint.loaders.fabric import CACHE_FILE
from tests.inventories.netbox_server import TOKEN, netbox_data, serve
from tests.inventories.test_live import live_fabric

runner = CliRunner()


def refresh(fabric: Path, trusted: str, **env: str) -> tuple[int, str]:
    result = runner.invoke(
        app,
        ["inventory", "refresh", str(fabric)],
        env={TRUST_ENV: trusted, "POD_NETBOX_TOKEN": TOKEN, **env},
    )
    assert "Traceback" not in result.output
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("trusted", "allowed"),
    [
        ("", False),  # nothing trusted: the default
        ("http://127.0.0.1:*", False),  # the origin, but only with the default NETBOX_TOKEN
        ("http://127.0.0.2:*=POD_NETBOX_TOKEN", False),  # another host
        ("https://127.0.0.1:*=POD_NETBOX_TOKEN", False),  # another scheme
        ("http://127.0.0.1:*=POD_NETBOX_TOKEN", True),
        ("ansible, HTTP://127.0.0.1:PORT/=POD_NETBOX_TOKEN", True),  # exact origin, any case
    ],
)
def test_the_token_goes_only_where_the_environment_trusts(
    tmp_path: Path, trusted: str, allowed: bool
) -> None:
    data = netbox_data()
    with serve(data) as url:
        fabric = live_fabric(tmp_path, url)
        port = url.rsplit(":", 1)[1]
        code, out = refresh(fabric, trusted.replace("PORT", port))
    if allowed:
        assert code == 0, out
        assert (fabric / CACHE_FILE).is_file() and data.requests
        return
    assert code == 2, out
    assert TRUST_ENV in out and TOKEN not in out
    assert not data.requests  # refused before anything was sent
    assert not (fabric / CACHE_FILE).exists()


def test_a_folder_cannot_pick_another_secret_for_a_trusted_server(tmp_path: Path) -> None:
    """`token_env: AWS_SECRET_ACCESS_KEY` in a PR's inventory-source.yaml is refused even for a
    trusted NetBox: only the variable the environment allows for that origin is sent."""
    data = netbox_data()
    with serve(data) as url:
        fabric = live_fabric(tmp_path, url)
        source = fabric / "inventory-source.yaml"
        source.write_text(source.read_text().replace("POD_NETBOX_TOKEN", "AWS_SECRET_ACCESS_KEY"))
        code, out = refresh(
            fabric, "http://127.0.0.1:*=POD_NETBOX_TOKEN", AWS_SECRET_ACCESS_KEY="AKIAXXSECRET"
        )
    assert code == 2 and "token_env AWS_SECRET_ACCESS_KEY" in out, out
    assert "AKIAXXSECRET" not in out and not data.requests


def test_a_next_link_to_another_host_is_not_followed(tmp_path: Path) -> None:
    data = netbox_data()
    data.next_host = "127.0.0.2"  # same port, another address: the token must not go there
    with serve(data) as url:
        fabric = live_fabric(tmp_path, url)
        code, out = refresh(fabric, "http://127.0.0.1:*=POD_NETBOX_TOKEN")
    assert code == 3, out
    assert "next page is on another server (http://127.0.0.2:" in out and TOKEN not in out
    assert len(data.requests) == 1  # the first page only
    assert not (fabric / CACHE_FILE).exists()


def test_an_ansible_source_over_folder_files_needs_trust(tmp_path: Path) -> None:
    """An executable inventory script in the folder would run: refused unless `ansible` is
    trusted; a saved `ansible-inventory --list` (`json:`) needs no trust."""
    fabric = tmp_path / "pod"
    fabric.mkdir()
    script = fabric / "hosts.sh"
    marker = tmp_path / "ran"
    script.write_text(f"#!/bin/sh\ntouch {marker}\necho '{{}}'\n")
    script.chmod(0o755)
    (fabric / "inventory-source.yaml").write_text("source: ansible\ninputs: [hosts.sh]\n")
    code, out = refresh(fabric, "http://127.0.0.1:*")
    assert code == 2 and f"{TRUST_ENV}=ansible" in out, out
    assert not marker.exists()
    (fabric / "inventory-source.yaml").write_text("source: ansible\njson: saved.json\n")
    (fabric / "saved.json").write_text('{"_meta": {"hostvars": {}}, "all": {"children": []}}')
    code, out = refresh(fabric, "")
    assert TRUST_ENV not in out, out  # judged on its content (no device kept), not refused
    assert code == 2 and "no device" in out, out
