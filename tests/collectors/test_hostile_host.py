"""A `host` from an untrusted inventory is never handed to SSH unless it is a host name or an
address: an SSH config's `ProxyCommand ssh -W %h:%p jump` puts it into a command line, where
`x:22 -oProxyCommand=touch${IFS}/tmp/p;:` ran a command (host-key checking on or not)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.collectors.base import Target, Timeouts
from fabriclint.collectors.device import Settings
from fabriclint.collectors.run import _early_result
from tests.collectors.labkit import ROCE_POD, cli_app

HOSTILE = [
    "x:22 -oProxyCommand=touch${IFS}/tmp/p;:",
    "-oProxyCommand=id",
    "leaf01 extra",
    "leaf01\nHost *",
    "leaf01;id",
    "$(id)",
    "a/b",
]
FINE = ["leaf01", "leaf01.pod-a.example.net", "192.0.2.11", "2001:db8::11", "fe80::1%eth0", "[::1]"]


@pytest.mark.parametrize("host", HOSTILE + FINE)
def test_only_a_host_name_or_an_address_is_connected_to(host: str) -> None:
    target = Target(name="leaf01", platform="eos", host=host, port=22, username="ops")
    early = _early_result(target, Settings(Timeouts()))
    if host in FINE:
        assert early is None
        return
    assert early is not None and early.status == "unreachable"
    assert early.reason is not None and "no host name or address" in early.reason


def test_a_proxy_command_never_runs_for_a_hostile_host(tmp_path: Path) -> None:
    fabric = tmp_path / "pr"
    fabric.mkdir()
    (fabric / "intent.yaml").write_text((ROCE_POD / "intent.yaml").read_text())
    hostile = HOSTILE[0].replace("/tmp/p", str(tmp_path / "pwned"))
    (fabric / "inventory.yaml").write_text(
        "name: pr\ndevices:\n"
        f"  leaf01: {{platform: eos, role: leaf, host: {hostile!r}, "
        "credentials: {username_env: LAB_USER, password_env: LAB_PASSWORD}}\n"
    )
    marker = tmp_path / "proxy-ran"
    config = tmp_path / "ssh_config"
    script = f"open({str(marker)!r}, 'w')"
    config.write_text(f'Host *\n  ProxyCommand {sys.executable} -c "{script}" %h %p\n')
    args = ["collect", str(fabric), "--ssh-config", str(config), "--out", str(tmp_path / "s")]
    args += ["--insecure-no-host-key-check", "--timeout", "2"]
    result = CliRunner(env={"LAB_USER": "u", "LAB_PASSWORD": "p"}).invoke(cli_app(), args)
    assert result.exit_code == 2, result.stderr  # refused where it is written, before any SSH
    assert "inventory.yaml:3:" in result.stderr and "devices.leaf01.host" in result.stderr
    assert not marker.exists() and not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("host", HOSTILE)
def test_the_inventory_refuses_a_hostile_host_at_its_line(host: str) -> None:
    from fabriclint.models.address import host_problem

    assert host_problem(host) is not None


@pytest.mark.parametrize("host", [h for h in FINE if not h.startswith("[")])
def test_the_inventory_takes_a_host_name_or_an_address(host: str) -> None:
    """(A bracketed IPv6 address is refused there too, with how to write it.)"""
    from fabriclint.models.address import host_problem

    assert host_problem(host) is None
