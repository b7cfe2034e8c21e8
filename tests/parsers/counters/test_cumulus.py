"""Cumulus counter parser: `ethtool -S swpN` in both driver spellings (mlxsw and switchd),
and the descriptor's per-port commands derived from `ip -o link show`."""

from __future__ import annotations

import pytest

from fabriclint.commands import counter_derive, is_allowed, is_counter_key
from fabriclint.models.counters import DeviceCounters
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.parsers.counters import parse_counters

# The shape of `ethtool -S swp1` on a Spectrum switch with the mlxsw driver (abridged).
MLXSW = """\
NIC statistics:
     a_frames_transmitted_ok: 81234567
     a_frames_received_ok: 79876543
     ecn_marked: 4321
     rx_octets_prio_3: 998877665544
     rx_frames_prio_3: 123456789
     rx_pause_prio_3: 5120
     rx_pause_duration_prio_3: 88000
     tx_pause_prio_3: 77
     tx_pause_duration_prio_3: 1500
     rx_pause_prio_4: 0
     tx_pause_prio_4: 31
     tc_transmit_queue_tc_3: 0
     tc_no_buffer_discard_uc_tc_3: 9
     tc_no_buffer_discard_uc_tc_11: 4
     transceiver_overheat: 0
"""

# The shape of `ethtool -S swp2` on a Cumulus switchd platform (abridged).
SWITCHD = """\
NIC statistics:
     HwIfInOctets: 1435339
     HwIfInBufferDrops: 3
     HwIfOutQDrops: 0
     HwIfInPfc3Pkt: 640
     HwIfOutPfc3Pkt: 12
     HwIfOutQ3WredDrops: 2
"""

LINKS = """\
1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT
2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP mode DEFAULT
3: swp1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9216 qdisc pfifo_fast state UP mode DEFAULT
4: swp2s0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9216 qdisc pfifo_fast state UP mode DEFAULT
5: bond0: <BROADCAST,MULTICAST,MASTER,UP,LOWER_UP> mtu 9216 qdisc noqueue state UP
6: swp1.100@swp1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9216 qdisc noqueue state UP
"""


def _parse(outputs: dict[str, str]) -> DeviceCounters:
    files = {
        k: RawOutput(text=v, file=f"leaf06/{i}.txt") for i, (k, v) in enumerate(outputs.items())
    }
    found = parse_counters(RawDevice(name="leaf06", platform="cumulus", outputs=files))
    assert found is not None
    return found


def test_mlxsw_per_priority_and_per_tc_counters() -> None:
    found = _parse({"ip -o link show": LINKS, "ethtool -S swp1": MLXSW})
    assert found.problems == [] and found.inputs == ["ethtool -S swp1"]  # the link list is a map
    port = found.ports["swp1"]
    prio3 = port.priorities[3]
    assert prio3.rx_pause is not None and prio3.rx_pause.value == 5120
    assert prio3.rx_pause.source.line == 7 and prio3.rx_pause.width == 64
    assert prio3.rx_pause_duration_us.value == 88000  # type: ignore[union-attr]
    assert prio3.tx_pause.value == 77 and prio3.tx_pause_duration_us.value == 1500  # type: ignore[union-attr]
    assert port.priorities[4].tx_pause.value == 31  # type: ignore[union-attr]
    assert sorted(port.priorities) == [3, 4]  # absent priorities stay absent
    assert port.queues[3].drops["no_buffer"].value == 9
    assert 11 not in port.queues  # a multicast traffic class


def test_switchd_names() -> None:
    port = _parse({"ethtool -S swp2": SWITCHD}).ports["swp2"]
    assert port.priorities[3].rx_pause.value == 640  # type: ignore[union-attr]
    assert port.priorities[3].tx_pause.value == 12  # type: ignore[union-attr]
    assert port.queues[3].drops["wred"].value == 2
    assert port.drops["rx_buffer"].value == 3 and port.drops["tx_queue"].value == 0


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (MLXSW.replace("rx_pause_prio_3: 5120", "rx_pause_prio_3: 5x20"), 7),
        (MLXSW.replace("tx_pause_prio_3: 77", "tx_pause_prio_3: -77"), 9),
        ("ethtool: bad command line argument(s)\n", 1),
        ("Cannot get stats strings information: Operation not supported\n", 1),
    ],
    ids=["word", "negative", "usage-error", "not-supported"],
)
def test_garbage_is_a_located_problem(text: str, line: int) -> None:
    found = _parse({"ethtool -S swp1": text})
    assert [(p.source.file, p.source.line) for p in found.problems if p.source] == [
        ("leaf06/0.txt", line)
    ]


def test_truncated_output_keeps_what_was_read() -> None:
    cut = MLXSW[: MLXSW.index("tx_pause_prio_4")]
    found = _parse({"ethtool -S swp1": cut})
    assert found.problems == []
    assert found.ports["swp1"].priorities[4].tx_pause is None  # cut off: absent, not zero


def test_per_port_commands_from_the_link_list_are_strict() -> None:
    derived = [s.command for s in counter_derive("cumulus", {"ip -o link show": LINKS})]
    assert derived == ["ethtool -S swp1", "ethtool -S swp2s0"]
    assert all(is_allowed("cumulus", c) and is_counter_key("cumulus", c) for c in derived)
    assert is_allowed("cumulus", "ip -o link show")
    assert not is_counter_key("cumulus", "ip -o link show")  # it names ports, it is no counter
    for command in (
        "ethtool -S eth0",
        "ethtool -S swp1; reboot",
        "ethtool -S swp1 --all-groups",
        "ethtool -s swp1 speed 1000",
        "ethtool -S $(reboot)",
    ):
        assert not is_allowed("cumulus", command), command
    assert is_allowed("junos", "show interfaces extensive")
    assert not is_allowed("junos", "clear interfaces statistics all")
