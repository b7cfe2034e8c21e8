"""`fabriclint collect` on the command line: exit codes, log lines, flags, light imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from tests.collectors.labkit import ROCE_POD, cli_app, copy_fabric, lab_for, write_overlay


def test_command_modules_import_no_ssh_library() -> None:
    code = (
        "import sys\n"
        "import fabriclint.cli.collect, fabriclint.cli.lab\n"
        "heavy = ('netmiko', 'napalm', 'paramiko', 'asyncssh', 'fabriclint.collectors.run')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_help() -> None:
    result = CliRunner(env={"COLUMNS": "200", "TERMINAL_WIDTH": "200"}).invoke(
        cli_app(), ["collect", "--help"]
    )
    assert result.exit_code == 0
    for flag in (
        "--limit",
        "--out",
        "--workers",
        "--timeout",
        "--insecure-no-host-key-check",
        "--ssh-config",
    ):
        assert flag in result.stdout


def test_usage_errors_exit_2_before_connecting(tmp_path: Path) -> None:
    runner = CliRunner(env={"FABRICLINT_PASSWORD": None, "FABRICLINT_USER": None})
    cases = [
        (["--limit", "nothing*"], "selects no device"),
        (["--known-hosts", str(tmp_path / "nope")], "known_hosts file not found"),
        (["--insecure-no-host-key-check"], "FABRICLINT_PASSWORD"),
        (
            ["--ssh-config", str(tmp_path / "nope"), "--insecure-no-host-key-check"],
            "SSH config file not found",
        ),
    ]
    for extra, message in cases:
        result = runner.invoke(
            cli_app(), ["collect", str(ROCE_POD), "--out", str(tmp_path / "s"), *extra]
        )
        assert result.exit_code == 2, (extra, result.stderr)
        assert message in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "s").exists()


def test_known_hosts_and_ssh_config_must_be_utf8_text(tmp_path: Path) -> None:
    names = ("FABRICLINT_PASSWORD", "FABRICLINT_USER", "FABRICLINT_HOST_USER")
    runner = CliRunner(env=dict.fromkeys(names, "x"))
    bad = tmp_path / "known_hosts"
    bad.write_bytes(b"leaf01 ssh-ed25519 AAAA\n# caf\xe9\n")
    config = tmp_path / "ssh_config"
    config.write_bytes(b"Host *\n  User r\xf6ot\n")
    cases = [
        (["--known-hosts", str(bad)], f"{bad}:2: the known_hosts file is not UTF-8 text (byte 29"),
        (
            ["--ssh-config", str(config), "--insecure-no-host-key-check"],
            f"{config}:2: the SSH config file is not UTF-8 text",
        ),
    ]
    for extra, message in cases:
        args = ["collect", str(ROCE_POD), "--out", str(tmp_path / "s"), "--limit", "leaf01"]
        result = runner.invoke(cli_app(), [*args, "--timeout", "1", *extra])
        assert result.exit_code == 2, (extra, result.stderr)
        assert message in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "s").exists()


def test_clean_collection_exits_0_with_log_lines(tmp_path: Path) -> None:
    fabric = copy_fabric(tmp_path, "baseline")
    with lab_for(fabric / "snapshots" / "baseline") as lab:
        args = ["collect", str(fabric), "--overlay", str(write_overlay(lab, tmp_path))]
        args += ["--limit", "leaf01,gpu01", "--insecure-no-host-key-check", "--no-facts"]
        result = CliRunner(env=lab.env()).invoke(cli_app(), args)
    assert result.exit_code == 0, result.stderr
    # the lab serves baseline's LLDP outputs too (`show lldp neighbors detail | json`, `lldpctl`)
    assert "collect: leaf01: ok (3 outputs" in result.stderr
    assert "collect: gpu01: ok (10 outputs" in result.stderr
    assert "host keys were NOT verified" in result.stderr
    snapshots = [p for p in (fabric / "snapshots").iterdir() if p.name != "baseline"]
    assert len(snapshots) == 1 and (snapshots[0] / "manifest.json").is_file()


def test_an_out_path_under_a_file_is_a_usage_error(tmp_path: Path) -> None:
    """`--out FILE/sub` cannot be created: exit 2 naming it, not an internal error (exit 3)."""
    fabric = copy_fabric(tmp_path, "baseline")
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder\n")
    with lab_for(fabric / "snapshots" / "baseline") as lab:
        args = ["collect", str(fabric), "--overlay", str(write_overlay(lab, tmp_path))]
        args += ["--counters", "--limit", "leaf01", "--insecure-no-host-key-check"]
        for out in (blocker / "sub", blocker / "sub" / "deeper"):
            result = CliRunner(env=lab.env()).invoke(cli_app(), [*args, "--out", str(out)])
            assert result.exit_code == 2, result.stderr
            assert f"{out}: cannot create the snapshot folder" in result.stderr
            assert "Traceback" not in result.output and "internal error" not in result.stderr
    assert blocker.read_text() == "not a folder\n"


def test_processes_flag_sets_the_collector_processes(tmp_path: Path) -> None:
    """`--processes 2` collects in two processes (recorded in collect.json), `--processes 0` is a
    usage error before anything connects."""
    import json

    fabric = copy_fabric(tmp_path, "baseline")
    with lab_for(fabric / "snapshots" / "baseline") as lab:
        args = ["collect", str(fabric), "--overlay", str(write_overlay(lab, tmp_path))]
        args += ["--limit", "leaf01,leaf02,gpu01", "--insecure-no-host-key-check", "--no-facts"]
        runner = CliRunner(env=lab.env())
        bad = runner.invoke(cli_app(), [*args, "--processes", "0", "--out", str(tmp_path / "x")])
        two = runner.invoke(cli_app(), [*args, "--processes", "2", "--out", str(tmp_path / "two")])
    assert bad.exit_code == 2 and "--processes" in bad.stderr and not (tmp_path / "x").exists()
    assert two.exit_code == 0, two.stderr
    record = json.loads((tmp_path / "two" / "collect.json").read_text(encoding="utf-8"))
    assert record["processes"] == 2
    assert sorted(record["devices"]) == ["gpu01", "leaf01", "leaf02"]
