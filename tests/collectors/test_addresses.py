"""A device's `host` is an address or DNS name alone: `host: 192.0.2.1:99999` (or `:0`, `:-1`)
is refused where it is written (file:line, exit 2) before anything connects, rather than
handed to SSH as a host name that cannot resolve (exit 3)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.models.address import host_problem
from tests.collectors.labkit import copy_fabric

ENV = {"FABRICLINT_USER": "u", "FABRICLINT_PASSWORD": "p"}


@pytest.mark.parametrize(
    "host",
    ["192.0.2.11", "leaf01", "leaf01.pod.example.net", "2001:db8::11", "fe80::1%eth0", "::1"],
)
def test_an_address_or_a_name_alone_is_accepted(host: str) -> None:
    assert host_problem(host) is None


@pytest.mark.parametrize(
    ("host", "wanted"),
    [
        ("192.0.2.11:99999", "port 99999 is out of range 1-65535"),
        ("192.0.2.11:0", "port 0 is out of range 1-65535"),
        ("192.0.2.11:-1", "port -1 is out of range 1-65535"),
        ("leaf01:", "port '' is not a number"),
        ("leaf01:ssh", "port 'ssh' is not a number"),
        ("[2001:db8::11]:70000", "port 70000 is out of range 1-65535"),
        ("192.0.2.11:2222", "and the port as `port: 2222`"),
        ("[2001:db8::11]:22", "and the port as `port: 22`"),
        ("[2001:db8::11]", "brackets"),
        # no address at all: said so, not "write the host as ''"
        (":22", "host ':22' has no address before the port: write the device's address"),
        ("[]:22", "host '[]:22' has no address before the port"),
        (":", "host ':' has no address before the port"),
    ],
)
def test_a_host_that_carries_a_port_is_refused(host: str, wanted: str) -> None:
    problem = host_problem(host)
    assert problem is not None and wanted in problem
    assert "write the host as ''" not in problem


@pytest.mark.parametrize(
    "host",
    [
        "192.0.2.11 ",
        " leaf01",
        "leaf 01",
        "192.0.2.11\t",
        "leaf01\x00",
        "leaf01\n",
        "\u200bleaf01",
    ],
)
def test_a_host_with_a_blank_or_a_control_character_is_refused(host: str) -> None:
    """`host: "192.0.2.11 "` (a quoted value with a blank, an escape) resolves as no name:
    refused where it is written, like a port in the host, not reported unreachable (exit 3)."""
    problem = host_problem(host)
    assert problem is not None and repr(host) in problem


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


@pytest.mark.parametrize("port", ["99999", "0", "-1"])
def test_an_inventory_host_with_a_bad_port_is_a_located_usage_error(
    tmp_path: Path, port: str
) -> None:
    fabric = copy_fabric(tmp_path, "baseline")
    inventory = fabric / "inventory.yaml"
    text = inventory.read_text()
    inventory.write_text(re.sub(r"host: 192\.0\.2\.10\n", f'host: "192.0.2.10:{port}"\n', text))
    line = _line_of(inventory, f"192.0.2.10:{port}")
    runner = CliRunner(env=ENV)
    for argv in (
        ["collect", str(fabric), "--out", str(tmp_path / "s"), "--insecure-no-host-key-check"],
        ["validate", str(fabric)],
    ):
        result = runner.invoke(app, argv)
        assert result.exit_code == 2, result.output
        assert f"inventory.yaml:{line}:" in result.output, result.output
        assert f"port {port} is out of range 1-65535" in result.output
        assert "Traceback" not in result.output
    assert not (tmp_path / "s").exists(), "nothing collected"


def test_an_overlay_host_with_a_bad_port_is_a_located_usage_error(tmp_path: Path) -> None:
    fabric = copy_fabric(tmp_path, "baseline")
    overlay = tmp_path / "lab.yaml"
    overlay.write_text('devices:\n  spine01: {host: "127.0.0.1:0"}\n')
    result = CliRunner(env=ENV).invoke(
        app,
        [
            *("collect", str(fabric), "--out", str(tmp_path / "s")),
            *("--insecure-no-host-key-check", "--overlay", str(overlay)),
        ],
    )
    assert result.exit_code == 2, result.output
    assert "lab.yaml:2:" in result.output and "port 0 is out of range" in result.output
    assert not (tmp_path / "s").exists()
