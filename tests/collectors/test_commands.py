"""commands.py: what is sent per platform, the read-only allowlist, derived host commands."""

from __future__ import annotations

import json

import pytest

from fabriclint.commands import (
    PLATFORMS,
    CommandRefused,
    check_allowed,
    derive,
    hca_ports,
    is_allowed,
    key_to_command,
)
from fabriclint.parsers import MODULES
from tests.collectors.labkit import ROCE_POD

REFUSED = [
    ("eos", "configure terminal"),
    ("eos", "configure session x"),
    ("eos", "enable"),
    ("eos", "write memory"),
    ("eos", "copy running-config startup-config"),
    ("eos", "reload now"),
    ("eos", "show running-config | redirect flash:x"),
    ("eos", "show running-config ; configure"),
    ("eos", "bash sudo reboot"),
    ("nxos", "conf t"),
    ("nxos", "show running-config > bootflash:x"),
    ("junos", "configure"),
    ("junos", "show configuration | save /var/tmp/x"),
    ("junos", "request system reboot"),
    ("sonic", "sudo config reload -y"),
    ("sonic", "config save -y"),
    ("cumulus", "nv set qos roce mode lossless"),
    ("cumulus", "nv config apply"),
    ("mlnx-host", "mlnx_qos -i ens1np0 --pfc 0,0,0,1,0,0,0,0"),
    ("mlnx-host", "mlnx_qos -i ens1np0 --trust dscp"),
    ("mlnx-host", "cma_roce_tos -d mlx5_0 -p 1 -t 106"),
    ("mlnx-host", "ethtool -s ens1np0 speed 100000"),
    ("mlnx-host", "ip link set ens1np0 mtu 9000"),
    ("mlnx-host", "mlnx_qos -i ens1np0;reboot"),
    ("mlnx-host", "mlnx_qos -i $(reboot)"),
    ("mlnx-host", "grep -rH . /sys/class/net/../../etc/ecn"),
    ("mlnx-host", "sudo reboot"),
    ("mlnx-host", "sudo -n reboot"),
    ("opensm", "cat /etc/shadow"),
    ("opensm", "opensm -B"),
    ("unknown", "show version"),
]


@pytest.mark.parametrize(("platform", "command"), REFUSED)
def test_writes_and_shell_tricks_are_refused(platform: str, command: str) -> None:
    assert not is_allowed(platform, command)
    with pytest.raises(CommandRefused, match="read-only allowlist"):
        check_allowed(platform, [command])


def test_every_platform_with_a_parser_has_a_command_set() -> None:
    assert set(PLATFORMS) == set(MODULES)
    for platform, spec in PLATFORMS.items():
        for command in spec.commands:
            assert is_allowed(platform, command.command), (platform, command)
            assert is_allowed(platform, "sudo -n " + command.command) == spec.shell


def test_derived_host_commands_are_the_example_snapshot_keys() -> None:
    manifest = json.loads((ROCE_POD / "snapshots" / "baseline" / "manifest.json").read_text())
    files = manifest["devices"]["gpu01"]["files"]
    folder = ROCE_POD / "snapshots" / "baseline" / "gpu01"
    collected = {key: (folder / name).read_text() for key, name in files.items()}
    derived = derive("mlnx-host", collected)
    static = [c.key for c in PLATFORMS["mlnx-host"].commands]
    assert set(files) <= {c.key for c in derived} | set(static)
    assert all(is_allowed("mlnx-host", c.command) for c in derived)
    assert {c.key for c in derived if c.optional} == {
        "ethtool -i ens1np0",
        "ethtool -i ens2np0",
        "cma_roce_tos -d mlx5_0 -p 1",
        "cma_roce_tos -d mlx5_1 -p 1",
        "mlxlink -d mlx5_0 -m --json",  # optics for the BOM lock, per HCA
        "mlxlink -d mlx5_1 -m --json",
    }


def test_ipoib_and_rdma_link_fallback() -> None:
    ports = hca_ports(
        {"ibdev2netdev": "mlx5_0 port 1 ==> ib0 (Up)\nmlx5_1 port 1 ==> ens2np0 (Down)\n"}
    )
    assert [p.netdev for p in ports] == ["ib0", "ens2np0"]
    derived = [c.key for c in derive("mlnx-host", {"ibdev2netdev": "mlx5_0 port 1 ==> ib0 (Up)\n"})]
    assert derived == []  # IPoIB: no RoCE QoS to read
    rdma = "link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens1np0\n"
    assert [c.key for c in derive("mlnx-host", {"rdma link show": rdma})][:2] == [
        "mlnx_qos -i ens1np0",
        "grep -rH . /sys/class/net/ens1np0/ecn",
    ]


@pytest.mark.parametrize(
    ("platform", "key", "command"),
    [
        ("sonic", "config_db.json", "show runningconfiguration all"),
        ("opensm", "opensm.conf", "cat /etc/opensm/opensm.conf"),
        ("cumulus", "/etc/cumulus/datapath/traffic.conf", "cat /etc/cumulus/datapath/traffic.conf"),
        ("eos", "show running-config", "show running-config"),
        ("mlnx-host", "mlnx_qos -i eth3", "mlnx_qos -i eth3"),
        ("eos", "configure terminal", None),
    ],
)
def test_key_to_command(platform: str, key: str, command: str | None) -> None:
    assert key_to_command(platform, key) == command
