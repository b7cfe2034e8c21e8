"""--ssh-config: HostName/Port aliases and a ProxyCommand hop (as to an out-of-band network)."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from fabriclint.lab.server import Lab
from tests.collectors.labkit import ROCE_POD, collect_from, lab_for, write_overlay

RELAY = """\
import pathlib, socket, sys, threading
pathlib.Path(sys.argv[3]).write_text(f"{sys.argv[1]}:{sys.argv[2]}")
conn = socket.create_connection((sys.argv[1], int(sys.argv[2])))
def down():
    for data in iter(lambda: conn.recv(65536), b""):
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    sys.stdout.close()
threading.Thread(target=down, daemon=True).start()
for data in iter(lambda: sys.stdin.buffer.read1(65536), b""):
    conn.sendall(data)
"""


def _alias_overlay(lab: Lab, folder: Path, names: list[str]) -> Path:
    """The lab's overlay, with the devices reached by alias on port 22 (ssh_config resolves)."""
    folder.mkdir(exist_ok=True)
    path = write_overlay(lab, folder)
    data = yaml.safe_load(path.read_text())
    for name in names:
        data["devices"][name].update(host=f"oob-{name}", port=22)
    path.write_text(yaml.safe_dump(data))
    return path


def test_hostname_and_port_from_ssh_config(tmp_path: Path) -> None:
    with lab_for(ROCE_POD / "snapshots" / "baseline") as lab:
        config = tmp_path / "ssh_config"
        config.write_text(
            f"Host oob-leaf01\n    HostName 127.0.0.1\n    Port {lab.ports['leaf01']}\n"
        )
        overlay = _alias_overlay(lab, tmp_path / "alias", ["leaf01"])
        result = collect_from(
            lab, ROCE_POD, tmp_path / "live", overlay=overlay, ssh_config=config, limit=["leaf01"]
        )
    assert result.complete, [(r.name, r.reason) for r in result.failed]


def test_proxy_command_hop(tmp_path: Path) -> None:
    relay = tmp_path / "relay.py"
    relay.write_text(RELAY)
    with lab_for(ROCE_POD / "snapshots" / "baseline") as lab:
        config = tmp_path / "ssh_config"
        config.write_text(
            "Host oob-gpu01\n"
            "    HostName 127.0.0.1\n"
            f"    Port {lab.ports['gpu01']}\n"
            f"    ProxyCommand {sys.executable} {relay} %h %p {tmp_path / 'hop'}\n"
        )
        overlay = _alias_overlay(lab, tmp_path / "alias", ["gpu01"])
        result = collect_from(
            lab, ROCE_POD, tmp_path / "live", overlay=overlay, ssh_config=config, limit=["gpu01"]
        )
        assert lab.stats["gpu01"].connections == 1
        port = lab.ports["gpu01"]
    assert result.complete, [(r.name, r.reason) for r in result.failed]
    assert (tmp_path / "hop").read_text() == f"127.0.0.1:{port}"  # it went through the hop
