"""Every fault kind of the lab gives its device status, a one-line reason and exit 3.

One run against a lab where most devices are broken in a different way; the healthy ones
must still be collected. Timing is asserted by benchmarks, not here: only statuses and exits.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.snapshot import read_manifest
from tests.collectors.labkit import ROCE_POD, cli_app, lab_for, write_overlay

FAULTS = {
    "leaf02": ("wrong-password", "auth-failed", "authentication failed"),
    "gpu03": ("refuse", "unreachable", "connection refused"),
    "spine02": ("hang", "timeout", "no SSH handshake"),
    "gpu04": ("stall", "timeout", "no complete output for 'ibdev2netdev'"),
    "leaf03": ("slow:200", "timeout", "no complete output for 'show running-config'"),
    "leaf04": ("legacy-ssh", "unreachable", "diffie-hellman-group1-sha1"),
    "gpu02": ("fail-command", "command-failed", "command not found"),
    "spine01": ("latency:0.2", "ok", ""),
}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, Path, dict[str, int]]:
    """Collect the faulty lab once through the CLI: exit code, stderr, snapshot, logins."""
    tmp = tmp_path_factory.mktemp("faults")
    specs = [f"{name}={kind}" for name, (kind, _, _) in FAULTS.items()]
    with lab_for(ROCE_POD / "snapshots" / "broken", specs) as lab:
        args = ["collect", str(ROCE_POD), "--overlay", str(write_overlay(lab, tmp))]
        args += ["--out", str(tmp / "snap"), "--connect-timeout", "4", "--timeout", "4"]
        args += ["--device-timeout", "20", "--workers", "16", "--retries", "2"]
        result = CliRunner(env=lab.env()).invoke(cli_app(), args)
        logins = {name: stats.logins for name, stats in lab.stats.items()}
    return result.exit_code, result.stderr, tmp / "snap", logins


def test_exit_3_and_no_traceback(run: tuple[int, str, Path, dict[str, int]]) -> None:
    code, stderr, _, _ = run
    assert code == 3, stderr
    assert "Traceback" not in stderr and "Exception" not in stderr


@pytest.mark.parametrize("device", sorted(FAULTS))
def test_fault_gives_status_and_one_line_reason(
    run: tuple[int, str, Path, dict[str, int]], device: str
) -> None:
    _, stderr, snap, _ = run
    kind, status, words = FAULTS[device]
    entry = read_manifest(snap).devices[device]
    assert entry.status == status, (kind, entry.error)
    if status == "ok":
        assert entry.error is None and entry.files
        return
    assert entry.error is not None and "\n" not in entry.error and words in entry.error
    assert not entry.files
    assert f"collect: {device}: {status}: " in stderr  # one log line per failed device


def test_healthy_devices_are_collected(run: tuple[int, str, Path, dict[str, int]]) -> None:
    _, _, snap, _ = run
    statuses = {n: d.status for n, d in read_manifest(snap).devices.items()}
    assert statuses["leaf01"] == statuses["gpu01"] == "ok"
    assert len(statuses) == 10


def test_auth_failure_is_never_retried_and_refusal_is(
    run: tuple[int, str, Path, dict[str, int]],
) -> None:
    _, _, snap, logins = run
    assert logins["leaf02"] == 1
    record = json.loads((snap / "collect.json").read_text())["devices"]
    assert record["leaf02"]["attempts"] == 1
    assert record["gpu03"]["attempts"] == 3  # refused: two retries with backoff
    assert record["spine02"]["attempts"] == 1  # timeouts are not retried either
