"""`fabriclint bom lock` / `bom verify` on the example fabric and on edited copies of it."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.snapshot_import import rehash

ROOT = Path(__file__).resolve().parents[1]
POD = ROOT / "inventories" / "roce-pod"
runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of one command (never a traceback)."""
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output + result.stderr
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def baseline_lock(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lock") / "bom.lock.json"
    code, _, err = run("bom", "lock", str(POD), "--snapshot", "baseline", "--out", str(out))
    assert code == 0, err
    return out


@pytest.fixture
def pod(tmp_path: Path) -> Path:
    """A copy of the example fabric with only its baseline snapshot, free to edit."""
    copy = tmp_path / "pod"
    shutil.copytree(POD, copy, ignore=shutil.ignore_patterns("bench-*", "broken"))
    return copy


def _edit(pod: Path, device: str, file: str, old: str, new: str) -> None:
    """Replace the first `old` by `new` in a baseline output and refresh the checksums."""
    path = pod / "snapshots" / "baseline" / device / file
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    rehash(pod / "snapshots" / "baseline")


def test_lock_matches_its_own_snapshot(baseline_lock: Path) -> None:
    code, out, err = run("bom", "verify", str(POD), "--lock", str(baseline_lock), "-s", "baseline")
    assert (code, out) == (0, "")
    assert "matches the lock" in err


def test_broken_names_firmware_speed_os_and_config_changes(baseline_lock: Path) -> None:
    code, out, _ = run("bom", "verify", str(POD), "--lock", str(baseline_lock), "-s", "broken")
    assert code == 1
    lines = out.splitlines()
    assert "gpu04 mlx5_1 firmware 28.39.1002 -> 28.38.1002: rerun the benchmark" in lines
    assert "gpu03 mlx5_1 rate_gbps 400.0 -> 40.0: rerun the benchmark" in lines
    assert "leaf04 os_version 4.31.2F -> 4.30.1F: rerun the benchmark" in lines
    config = {line.split()[0] for line in lines if "MTU/QoS configuration" in line}
    # leaf01's DSCP map and gpu01's PFC were seeded in broken (FAULTS.md)
    assert {"leaf01", "gpu01", "leaf02"} <= config
    assert all(line.endswith("rerun the benchmark") for line in lines)


def test_lock_is_stable_valid_and_holds_no_secrets(
    baseline_lock: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FABRICLINT_PASSWORD", "s3cret-Pa55")
    again = tmp_path / "again.json"
    assert run("bom", "lock", str(POD), "-s", "baseline", "--out", str(again))[0] == 0
    text = again.read_text()
    assert text == baseline_lock.read_text()  # byte for byte: diffable
    data: dict[str, Any] = json.loads(text)
    schema = json.loads((ROOT / "schemas" / "bom-lock.json").read_text())
    jsonschema.validate(data, schema)
    assert "s3cret" not in text and "192.0.2." not in text and "FABRICLINT_" not in text
    nic = data["hosts"]["gpu04"]["nics"]["mlx5_1"]
    assert nic == {
        "firmware": "28.39.1002",
        "model": "ConnectX-7",
        "netdev": "ens2np0",
        "psid": "MT_0000000838",
        "rate_gbps": 400.0,
        "width": "4X",
    }
    leaf = data["switches"]["leaf01"]
    assert (leaf["model"], leaf["os_version"]) == ("DCS-7060X5-64S", "4.31.2F")
    assert leaf["ports"]["Ethernet1/1"] == 400000


def test_comment_keeps_the_lock_a_semantic_change_breaks_it(pod: Path, tmp_path: Path) -> None:
    lock = tmp_path / "lock.json"
    assert run("bom", "lock", str(pod), "-s", "baseline", "--out", str(lock))[0] == 0
    config = "show_running-config.txt"
    _edit(pod, "leaf01", config, "interface Ethernet1/1\n", "! moved\n!\ninterface Ethernet1/1\n")
    code, out, _ = run("bom", "verify", str(pod), "--lock", str(lock), "-s", "baseline")
    assert (code, out) == (0, "")
    _edit(pod, "leaf01", config, "minimum-threshold 150 kbytes", "minimum-threshold 300 kbytes")
    code, out, _ = run("bom", "verify", str(pod), "--lock", str(lock), "-s", "baseline")
    assert code == 1
    assert out.splitlines()[0].startswith("leaf01 MTU/QoS configuration ")
    assert len(out.splitlines()) == 1


def _unreachable(pod: Path, device: str) -> None:
    manifest = pod / "snapshots" / "baseline" / "manifest.json"
    data = json.loads(manifest.read_text())
    data["devices"][device].update(status="unreachable", error="timed out", files={}, sha256={})
    manifest.write_text(json.dumps(data))


def test_a_device_not_collected_cannot_tell(pod: Path, baseline_lock: Path) -> None:
    _unreachable(pod, "gpu02")
    code, out, err = run("bom", "verify", str(pod), "--lock", str(baseline_lock), "-s", "baseline")
    assert code == 3
    assert out.startswith("gpu02: cannot tell (unreachable")
    assert "cannot tell" in err
    code, _, err = run("bom", "lock", str(pod), "-s", "baseline", "--out", str(pod / "x.json"))
    assert code == 3 and "gpu02: cannot lock" in err
    assert not (pod / "x.json").exists()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"fabric": "roce-pod",\n  "snapshot": ', "bad.json:2:15: not JSON"),
        ('{"fabric": "roce-pod", "snapshot": "b"}', "bad.json: config: Field required"),
        ("[1, 2]", "not a fabriclint BOM lock"),
    ],
)
def test_a_bad_lock_file_is_a_located_usage_error(tmp_path: Path, text: str, expected: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    code, out, err = run("bom", "verify", str(POD), "--lock", str(bad), "-s", "baseline")
    assert code == 2 and out == ""
    assert expected in err


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_lock_that_is_no_regular_file_is_refused_not_read(tmp_path: Path, kind: str) -> None:
    """A FIFO blocked forever, a link to /dev/zero filled memory."""
    lock = tmp_path / "lock.json"
    if kind == "fifo":
        os.mkfifo(lock)
    else:
        lock.symlink_to("/dev/zero")
    code, _, err = run("bom", "verify", str(POD), "--lock", str(lock), "-s", "baseline")
    assert code == 2 and f"cannot read the lock file: {lock}: not a regular file" in err


def test_a_lock_of_another_fabric_is_a_usage_error(tmp_path: Path) -> None:
    """A lock taken on another fabric would list every device as changed (exit 1, as if the
    fabric had drifted); it is the wrong file, so it is refused before comparing."""
    other = tmp_path / "other.lock.json"
    mv = ROOT / "inventories" / "multivendor-pod"
    code, _, err = run("bom", "lock", str(mv), "--snapshot", "baseline", "--out", str(other))
    assert code == 0, err
    code, out, err = run("bom", "verify", str(POD), "--lock", str(other), "-s", "baseline")
    assert code == 2 and out == ""
    assert "multivendor-pod" in err and "roce-pod" in err and str(other) in err
