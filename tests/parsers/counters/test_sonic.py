"""SONiC counter parser: pfcstat, queue counters, WRED/ECN counters, PFC watchdog stats."""

from __future__ import annotations

from fabriclint.models.counters import DeviceCounters
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.parsers.counters import parse_counters

PFCSTAT = """\
  Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7
---------  ------  ------  ------  ------  ------  ------  ------  ------
Ethernet0       0       0       0  12,345       0       0       0       0
Ethernet8     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A

  Port Tx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7
---------  ------  ------  ------  ------  ------  ------  ------  ------
Ethernet0       0       0       0     678       9       0       0       0
"""

QUEUES = """\
     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes
---------  -----  --------------  ---------------  -----------  ------------
Ethernet0    UC0            1000           150000            0             0
Ethernet0    UC3          987654       1481481000           42          6300
Ethernet0    MC8              12             1800            5           750
"""

WRED_NO_DASHES = """\
      Port    TxQ    WredDrp/pkts    WredDrp/bytes  EcnMarked/pkts EcnMarked/bytes
Ethernet0    UC3               0                0            5,120         7680000
Ethernet0    UC4             N/A              N/A              N/A             N/A
"""

PFCWD = """\
        QUEUE       STATUS    STORM DETECTED/RESTORED    TX OK/DROP    RX OK/DROP    TX LAST OK/DROP    RX LAST OK/DROP
-------------  -----------  -------------------------  ------------  ------------  -----------------  -----------------
  Ethernet0:3      stormed                        4/3     1000/2500      900/1800              0/250              0/180
Ethernet120:4  operational                        0/0           0/0           0/0                0/0                0/0
"""


def _parse(outputs: dict[str, str]) -> DeviceCounters:
    raw = RawDevice(
        name="leaf03",
        platform="sonic",
        outputs={
            k: RawOutput(text=v, file=f"s/{k.replace(' ', '_')}.txt") for k, v in outputs.items()
        },
    )
    found = parse_counters(raw)
    assert found is not None
    return found


def test_pfcstat_reads_both_directions_per_priority_with_lines() -> None:
    counters = _parse({"pfcstat": PFCSTAT})
    prio3 = counters.ports["Ethernet0"].priorities[3]
    assert prio3.rx_pause is not None and prio3.rx_pause.value == 12345  # thousands separator
    assert prio3.rx_pause.source.line == 3
    assert prio3.tx_pause is not None and prio3.tx_pause.value == 678
    assert prio3.tx_pause.source.line == 8
    assert counters.ports["Ethernet0"].priorities[4].tx_pause.value == 9  # type: ignore[union-attr]
    assert counters.problems == []


def test_na_is_absent_not_zero() -> None:
    counters = _parse({"pfcstat": PFCSTAT})
    assert "Ethernet8" not in counters.ports  # every cell N/A: nothing known about it


def test_queue_drops_skip_multicast_queues() -> None:
    counters = _parse({"show queue counters": QUEUES})
    queues = counters.ports["Ethernet0"].queues
    assert queues[3].drops["queue"].value == 42
    assert queues[3].drops["queue"].source.line == 4
    assert 8 not in queues  # MC8 carries no RoCE


def test_wred_table_without_dashes_reads_ecn_marks() -> None:
    counters = _parse({"show queue wredcounters": WRED_NO_DASHES})
    queues = counters.ports["Ethernet0"].queues
    assert queues[3].ecn_marked is not None and queues[3].ecn_marked.value == 5120
    assert queues[3].drops["wred"].value == 0
    assert 4 not in queues  # N/A on an ASIC without WRED/ECN counters


def test_pfcwd_storms_and_watchdog_drops() -> None:
    counters = _parse({"show pfcwd stats": PFCWD})
    queue = counters.ports["Ethernet0"].queues[3]
    assert queue.storm_detected is not None and queue.storm_detected.value == 4
    assert queue.storm_restored is not None and queue.storm_restored.value == 3
    assert queue.drops["watchdog-tx"].value == 2500
    assert queue.drops["watchdog-rx"].value == 1800
    assert counters.ports["Ethernet120"].queues[4].storm_detected.value == 0  # type: ignore[union-attr]


def test_a_short_row_and_a_bad_value_are_located_problems() -> None:
    broken = QUEUES.replace("Ethernet0    UC0            1000", "Ethernet0    UC0") + (
        "Ethernet4    UC3            1000           150000         lots             0\n"
    )
    counters = _parse({"show queue counters": broken})
    lines = sorted((p.source.line, p.message) for p in counters.problems if p.source)
    assert [line for line, _ in lines] == [3, 6]
    assert "'lots' is not a counter value" in lines[1][1]
    assert counters.ports["Ethernet0"].queues[3].drops["queue"].value == 42  # the rest still read


def test_output_without_any_table_is_a_problem() -> None:
    counters = _parse({"pfcstat": "pfcstat: command not found\n"})
    assert len(counters.problems) == 1
    assert counters.problems[0].kind == "unparseable"
