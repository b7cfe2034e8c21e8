"""The lab: 127.0.0.1 only, answers from the snapshot, faults, and `lab serve`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from fabriclint.lab.device import LabDevice, eos_extras, load_snapshot_devices
from fabriclint.lab.faults import Fault, FaultError, parse_faults
from fabriclint.lab.server import Lab
from fabriclint.snapshot import write_snapshot
from tests.collectors.labkit import ROCE_POD, ROOT, cli_app

BASELINE = ROCE_POD / "snapshots" / "baseline"


def _listening_addresses() -> dict[int, str]:
    """Local port -> address of every listening TCP socket (from /proc/net/tcp and tcp6)."""
    found: dict[int, str] = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A":  # LISTEN
                address, port = fields[1].split(":")
                found[int(port, 16)] = address
    return found


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="needs Linux /proc/net/tcp")
def test_listens_on_loopback_only() -> None:
    devices = load_snapshot_devices(BASELINE)
    devices[0].fault = Fault(hang=True)
    with Lab(devices) as lab:
        listening = _listening_addresses()
        for name, port in lab.ports.items():
            assert listening.get(port) == "0100007F", (name, port, listening.get(port))


def test_answers_from_the_snapshot() -> None:
    devices = {d.name: d for d in load_snapshot_devices(BASELINE)}
    leaf, gpu = devices["leaf01"], devices["gpu01"]
    assert leaf.answer("show running-config").startswith("! Command: show running-config")
    assert leaf.answer("terminal length 0") == "Pagination disabled."
    assert leaf.answer("configure terminal") == "% Invalid input"
    assert gpu.answer("sudo -n ibdev2netdev") == gpu.answer("ibdev2netdev")
    assert gpu.answer("cat /etc/x") == "cat: /etc/x: No such file or directory"
    assert gpu.prompt("ops") == "ops@gpu01:~$ "
    junos = LabDevice("jn1", "junos", {})
    assert junos.prompt("ops").endswith("ops@jn1> ") and "unknown command" in junos.answer("x")
    assert '"modelName": "DCS-7060X5-64S"' in leaf.answer("show version | json")
    assert '"hostname": "sw9"' in eos_extras("sw9", "")["show hostname | json"]


def test_fault_specs() -> None:
    names = ["leaf01", "leaf02", "gpu01"]
    faults = parse_faults(["leaf*=latency:0.05,slow", "leaf02=hang"], names)
    assert faults["leaf01"] == Fault(latency=0.05, slow_bps=200.0)
    assert faults["leaf02"].hang and faults["leaf02"].latency == 0.05
    assert "gpu01" not in faults
    for bad, message in [
        (["leaf01=explode"], "unknown fault"),
        (["leaf01=latency"], "needs a value"),
        (["leaf01=latency:x"], "not a number"),
        (["leaf01=latency:nan"], "must be a finite number"),
        (["leaf01=latency:inf"], "must be a finite number"),
        (["leaf01=latency:-1"], "must be a finite number"),
        (["leaf01=slow:nan"], "must be a finite number"),
        (["spine*=hang"], "no device matches"),
        (["leaf01"], "DEVICE_GLOB=kind"),
    ]:
        with pytest.raises(FaultError, match=message):
            parse_faults(bad, names)


def test_overlay_points_at_the_ports() -> None:
    with Lab(load_snapshot_devices(BASELINE)[:2]) as lab:
        overlay = yaml.safe_load(lab.overlay_yaml())
        assert Path(overlay["known_hosts"]).is_file()
        for name, entry in overlay["devices"].items():
            assert entry["host"] == "127.0.0.1" and entry["port"] == lab.ports[name]
        workdir = lab.workdir
    assert not workdir.exists()


def test_lab_serve_command(tmp_path: Path) -> None:
    out = tmp_path / "overlay.yaml"
    code = "import sys; sys.path.insert(0, sys.argv.pop(1)); from tests.collectors.labkit import cli_app; cli_app()()"
    args = [sys.executable, "-c", code, str(ROOT), "lab", "serve", str(ROCE_POD), "-s", "baseline"]
    args += ["--overlay-out", str(out), "--duration", "2", "--fault", "gpu0*=refuse"]
    env = {**os.environ, "FABRICLINT_LAB_PASSWORD": "lab-pw"}
    proc = subprocess.run(args, check=False, capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    overlay = yaml.safe_load(out.read_text())
    assert len(overlay["devices"]) == 10
    assert "lab-pw" not in proc.stderr + proc.stdout
    assert "lab: stopped" in proc.stderr


def test_lab_serve_rejects_bad_input(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli_app(), ["lab", "serve", str(ROCE_POD), "-s", "nope"])
    assert result.exit_code == 2 and "not a snapshot" in result.stderr
    result = runner.invoke(
        cli_app(), ["lab", "serve", str(ROCE_POD), "-s", "baseline", "--fault", "x=hang"]
    )
    assert result.exit_code == 2 and "no device matches" in result.stderr
    result = runner.invoke(
        cli_app(), ["lab", "serve", str(ROCE_POD), "-s", "baseline", "--latency", "nan"]
    )
    assert result.exit_code == 2 and "--latency" in result.stderr  # click's range refuses nan


def test_lab_serve_names_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    snap = tmp_path / "fabric" / "snapshots" / "s1"
    write_snapshot(snap, {"leaf01": ("eos", {"show running-config": "hostname leaf01\n"})})
    (snap / "leaf01" / "show_running-config.txt").write_bytes(b"hostname leaf01\n! caf\xe9\n")
    result = CliRunner().invoke(cli_app(), ["lab", "serve", str(tmp_path / "fabric"), "-s", "s1"])
    assert result.exit_code == 2, result.stderr
    assert "show_running-config.txt:2: not UTF-8 text (byte 21" in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_many_devices_one_port_each() -> None:
    template = load_snapshot_devices(BASELINE)[0]
    devices = [LabDevice(f"d{i:03d}", template.platform, template.outputs) for i in range(200)]
    with Lab(devices) as lab:
        assert len(set(lab.ports.values())) == 200
