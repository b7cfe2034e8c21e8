"""Command audit: against the lab, every line a device received is allowlisted or netmiko's own
terminal setup; a plan with anything else is refused before a connection opens.

The lab records every line typed into each session. A line is accepted when it is (a) in the
device's platform allowlist (`commands.is_allowed`: the commands fabriclint asks for), or (b) in
`commands.SESSION_COMMANDS` for its netmiko device type: the empty line netmiko sends to find
the prompt, paging/width setup and the final `exit`. Nothing else may ever arrive.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from fabriclint.collectors.base import Target
from fabriclint.collectors.device import Settings, preflight
from fabriclint.commands import PLATFORMS, SESSION_COMMANDS, CommandSpec, is_allowed
from tests.collectors.labkit import collect_from, lab_for, write_fabric
from tests.collectors.secrets_fabric import secrets_fabric

CONFIG_WORDS = ("conf", "enable", "write", "copy", "reload", "set ", "delete", "commit", "edit")


def test_every_received_line_is_allowlisted_or_session_setup(tmp_path: Path) -> None:
    fabric = secrets_fabric(tmp_path / "fabric")
    with lab_for(fabric / "snapshots" / "seed") as lab:
        result = collect_from(lab, fabric, tmp_path / "live")
        received = {name: list(stats.received) for name, stats in lab.stats.items()}
        platforms = {name: device.platform for name, device in lab.devices.items()}
    assert result.complete
    assert set(platforms.values()) == set(PLATFORMS)  # every platform was exercised
    for name, lines in received.items():
        platform = platforms[name]
        session = SESSION_COMMANDS[PLATFORMS[platform].device_type]
        asked = [line for line in lines if line not in session]
        refused = [line for line in asked if not is_allowed(platform, line)]
        assert refused == [], f"{name} ({platform}) received {refused}"
        assert asked, f"{name} received no command at all"
        for line in asked:
            assert not line.startswith(CONFIG_WORDS), (name, line)


def test_session_commands_change_no_configuration() -> None:
    for device_type, lines in SESSION_COMMANDS.items():
        for line in lines:
            assert line in {"exit", ""} or "terminal" in line or "set cli" in line
            assert "conf" not in line and "enable" not in line, device_type


def test_plan_outside_allowlist_is_refused_before_connecting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    eos = PLATFORMS["eos"]
    bad = (*eos.commands, CommandSpec(key="configure terminal"))
    monkeypatch.setitem(PLATFORMS, "eos", dataclasses.replace(eos, commands=bad))
    fabric = secrets_fabric(tmp_path / "fabric")
    with lab_for(fabric / "snapshots" / "seed") as lab:
        result = collect_from(lab, fabric, tmp_path / "live", limit=["leaf01", "nx1"])
        assert lab.stats["leaf01"].connections == 0
        assert lab.stats["nx1"].connections == 1
    leaf = result.devices["leaf01"]
    assert leaf.status == "command-failed"
    assert "configure terminal" in (leaf.reason or "") and "no connection" in (leaf.reason or "")
    assert result.devices["nx1"].status == "ok"


def test_preflight_checks_sudo_and_unknown_platforms() -> None:
    host = Target("gpu01", "mlnx-host", "192.0.2.1", 22, "u", sudo=True)
    assert preflight(host, Settings()) is None
    odd = dataclasses.replace(host, platform="ios")
    refused = preflight(odd, Settings())
    assert refused is not None and refused.status == "command-failed"


def test_hostile_netdev_names_never_reach_the_device(tmp_path: Path) -> None:
    ibdev = "mlx5_0 port 1 ==> ens1np0 (Up)\nmlx5_1 port 1 ==> $(reboot) (Up)\nmlx5_2 port 1 ==> a;b (Up)\n"
    outputs = {"ibdev2netdev": ibdev, "ibv_devinfo -v": "hca_id: mlx5_0\n", "ip -d link show": ""}
    fabric = write_fabric(tmp_path / "fabric", {"gpu09": ("mlnx-host", "gpu", outputs)})
    with lab_for(fabric / "snapshots" / "seed") as lab:
        collect_from(lab, fabric, tmp_path / "live")
        received = lab.stats["gpu09"].received
    assert all("reboot" not in line and ";" not in line for line in received)
    assert "mlnx_qos -i ens1np0" in received
    assert "mlnx_qos -i a" not in received
