"""ConnectX host counter parser: `ethtool -S IF` (mlx5) and the RDMA sysfs counters."""

from __future__ import annotations

from fabriclint.models.counters import DeviceCounters
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.parsers.counters import parse_counters

ETHTOOL = """\
NIC statistics:
     rx_packets: 981234
     rx_prio3_bytes: 77777
     rx_prio3_pause: 1500
     rx_prio3_pause_duration: 4200
     rx_prio3_pause_transition: 1499
     tx_prio3_pause: 310
     tx_prio3_pause_duration: 900
     rx_prio3_buf_discard: 2
     rx_prio0_discards: 11
     rx_prio3_marked: 640
     tx_pause_storm_warning_events: 0
     tx_pause_storm_error_events: 1
     rx_discards_phy: 5
     rx_out_of_buffer: 0
"""

HW = """\
/sys/class/infiniband/mlx5_0/ports/1/hw_counters/lifespan:12
/sys/class/infiniband/mlx5_0/ports/1/hw_counters/local_ack_timeout_err:3
/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent:8811
/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_ecn_marked_roce_packets:9020
/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:0
/sys/class/infiniband/mlx5_0/ports/1/hw_counters/rp_cnp_ignored:0
"""

HW_KEY = "grep -rH . /sys/class/infiniband/mlx5_0/ports/1/hw_counters"


def _parse(outputs: dict[str, str]) -> DeviceCounters:
    raw = RawDevice(
        name="gpu01",
        platform="mlnx-host",
        outputs={
            k: RawOutput(text=v, file=f"g/{i}.txt") for i, (k, v) in enumerate(outputs.items())
        },
    )
    found = parse_counters(raw)
    assert found is not None
    return found


def test_ethtool_priority_and_port_counters() -> None:
    port = _parse({"ethtool -S ens1np0": ETHTOOL}).ports["ens1np0"]
    prio3 = port.priorities[3]
    assert prio3.rx_pause is not None and prio3.rx_pause.value == 1500
    assert prio3.rx_pause.source.line == 4
    assert prio3.rx_pause_duration_us is not None and prio3.rx_pause_duration_us.value == 4200
    assert prio3.rx_pause_transitions is not None and prio3.rx_pause_transitions.value == 1499
    assert prio3.tx_pause_duration_us is not None and prio3.tx_pause_duration_us.value == 900
    assert prio3.ecn_marked is not None and prio3.ecn_marked.value == 640
    assert prio3.drops["buf_discard"].value == 2
    assert port.priorities[0].drops["discards"].value == 11
    assert port.storm_error is not None and port.storm_error.value == 1
    assert port.drops["rx_discards_phy"].value == 5
    assert all(c.width == 64 for c in port.drops.values())


def test_pause_counters_of_priorities_without_pfc_are_absent() -> None:
    port = _parse({"ethtool -S ens1np0": ETHTOOL}).ports["ens1np0"]
    assert port.priorities[0].rx_pause is None  # mlx5 prints them only for PFC priorities
    assert 4 not in port.priorities


def test_hw_counters_with_widths_and_netdev() -> None:
    found = _parse({"ibdev2netdev": "mlx5_0 port 1 ==> ens1np0 (Up)\n", HW_KEY: HW})
    hca = found.rdma["mlx5_0/1"]
    assert hca.netdev == "ens1np0"
    assert hca.counters["np_cnp_sent"].value == 8811 and hca.counters["np_cnp_sent"].width == 64
    assert hca.counters["local_ack_timeout_err"].width == 32  # a Q counter
    assert hca.counters["np_ecn_marked_roce_packets"].source.line == 4
    assert "lifespan" not in hca.counters  # a setting, not a count
    assert found.problems == []


def test_garbage_lines_are_located_problems_and_the_rest_is_read() -> None:
    text = HW + "cat: /sys/class/infiniband/mlx5_0/ports/1/hw_counters: Permission denied\n"
    text += "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/packet_seq_err:n/a?\n"
    found = _parse({HW_KEY: text})
    assert [p.source.line for p in found.problems if p.source] == [7, 8]
    assert found.rdma["mlx5_0/1"].counters["np_cnp_sent"].value == 8811


def test_ethtool_output_with_no_counter_is_a_problem() -> None:
    found = _parse(
        {"ethtool -S ens1np0": "Cannot get stats strings information: Operation not supported\n"}
    )
    assert len(found.problems) == 1
