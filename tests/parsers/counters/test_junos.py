"""Junos counter parser: `show interfaces extensive` (PFC per priority, drops per queue) and
`show interfaces queue` (ECN-CE marks and WRED drops per queue)."""

from __future__ import annotations

import pytest

from fabriclint.models.counters import DeviceCounters
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.parsers.counters import parse_counters
from fabriclint.parsers.junos.counters import EXTENSIVE, QUEUES

# Written in the shape of a QFX `show interfaces extensive` (two physical interfaces, a
# logical unit, the MAC and PFC statistics blocks, the queue counters table).
EXTENSIVE_TEXT = """\
Physical interface: et-0/0/1, Enabled, Physical link is Up
  Interface index: 651, SNMP ifIndex: 517, Generation: 142
  Link-level type: Ethernet, MTU: 9216, LAN-PHY mode, Speed: 100Gbps
  Egress queues: 12 supported, 4 in use
  Queue counters:       Queued packets  Transmitted packets      Dropped packets
    0                           812345               812345                    0
    3                        998877665            998877600                   65
    4                             1200                 1200                    0
    7                            55021                55021                    0
  Queue number:         Mapped forwarding classes
    0                   best-effort
    3                   roce
  MAC statistics:                      Receive         Transmit
    Total octets                  901234567890    899876543210
    MAC pause frames                         0                0
  MAC Priority Flow Control Statistics:
    Priority :  0                             0                0
    Priority :  1                             0                0
    Priority :  2                             0                0
    Priority :  3                         41234             9876
    Priority :  4                             0               12
    Priority :  5                             0                0
    Priority :  6                             0                0
    Priority :  7                             0                0
  PRBS Mode : Disabled

  Logical interface et-0/0/1.0 (Index 560) (SNMP ifIndex 540)
    Input packets : 4242
    Priority :  3                             7                7

Physical interface: et-0/0/2, Enabled, Physical link is Up
  Queue counters:       Queued packets  Transmitted packets      Dropped packets
    3                               10                   10                    0
  MAC Priority Flow Control Statistics:
    Priority :  3                             5                6
"""

# The shape of QFX `show interfaces queue`: per queue, Queued/Transmitted blocks, drop and
# ECN-CE lines with a count and a rate; `Not Available` where the ASIC keeps no counter.
QUEUES_TEXT = """\
Physical interface: et-0/0/1, Enabled, Physical link is Up
  Interface index: 651, SNMP ifIndex: 517
Forwarding classes: 12 supported, 4 in use
Egress queues: 12 supported, 4 in use
Queue: 0, Forwarding classes: best-effort
  Queued:
    Packets              :                812345                     0 pps
  Transmitted:
    Packets              :                812345                     0 pps
    Tail-dropped packets :         Not Available
    RED-dropped packets  :                     0                     0 pps
    ECN-CE packets       :         Not Available
Queue: 3, Forwarding classes: roce
  Queued:
    Packets              :             998877665                  1200 pps
  Transmitted:
    Packets              :             998877600                  1200 pps
    Tail-dropped packets :                    65                     0 pps
    RED-dropped packets  :                     0                     0 pps
     Low                 :                     0                     0 pps
    ECN-CE packets       :               3141592                    10 pps
    ECN-CE bytes         :            9999999999                 80000 bps
"""


def _parse(**outputs: str) -> DeviceCounters:
    files = {
        k: RawOutput(text=v, file=f"leaf05/{i}.txt") for i, (k, v) in enumerate(outputs.items())
    }
    found = parse_counters(RawDevice(name="leaf05", platform="junos", outputs=files))
    assert found is not None
    return found


def test_pfc_frames_per_priority_with_lines() -> None:
    found = _parse(**{EXTENSIVE: EXTENSIVE_TEXT})
    assert found.problems == [] and found.inputs == [EXTENSIVE]
    port = found.ports["et-0/0/1"]
    prio3 = port.priorities[3]
    assert prio3.rx_pause is not None and prio3.rx_pause.value == 41234
    assert prio3.tx_pause is not None and prio3.tx_pause.value == 9876
    assert prio3.rx_pause.source.line == 20 and prio3.rx_pause.width == 64
    assert port.priorities[4].tx_pause.value == 12  # type: ignore[union-attr]
    assert sorted(port.priorities) == list(range(8))
    assert found.ports["et-0/0/2"].priorities[3].tx_pause.value == 6  # type: ignore[union-attr]
    assert "et-0/0/1.0" not in found.ports  # a logical unit's lines are not the port's
    assert port.priorities[3].rx_pause.value != 7  # type: ignore[union-attr]


def test_queue_drops_from_the_queue_counters_table() -> None:
    port = _parse(**{EXTENSIVE: EXTENSIVE_TEXT}).ports["et-0/0/1"]
    assert sorted(port.queues) == [0, 3, 4, 7]
    drops = port.queues[3].drops["queue"]
    assert drops.value == 65 and drops.source.line == 7
    assert port.queues[3].ecn_marked is None  # not in this output: absent


def test_ecn_marks_and_not_available_is_absent() -> None:
    found = _parse(**{QUEUES: QUEUES_TEXT})
    assert found.problems == []
    queues = found.ports["et-0/0/1"].queues
    marked = queues[3].ecn_marked
    assert marked is not None and marked.value == 3141592 and marked.source.line == 21
    assert queues[3].drops["wred"].value == 0
    assert queues[0].ecn_marked is None  # `Not Available`, never zero
    assert "tail" not in queues[3].drops  # tail drops are in the extensive total already


def test_both_outputs_merge_per_queue() -> None:
    found = _parse(**{EXTENSIVE: EXTENSIVE_TEXT, QUEUES: QUEUES_TEXT})
    queue = found.ports["et-0/0/1"].queues[3]
    assert queue.drops["queue"].value == 65 and queue.ecn_marked is not None
    assert found.inputs == [EXTENSIVE, QUEUES]


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        (
            "Priority :  3                         41234",
            "Priority :  3                         lots",
            20,
        ),
        (
            "Priority :  3                         41234             9876",
            "Priority :  3   41234",
            20,
        ),
        ("Priority :  4 ", "Priority :  9 ", 21),
        (
            "3                        998877665            998877600                   65",
            "3  1  1  x",
            7,
        ),
    ],
    ids=["word", "truncated", "priority-9", "queue-word"],
)
def test_bad_lines_are_located_problems(old: str, new: str, line: int) -> None:
    assert old in EXTENSIVE_TEXT
    found = _parse(**{EXTENSIVE: EXTENSIVE_TEXT.replace(old, new)})
    assert [(p.source.file, p.source.line) for p in found.problems if p.source] == [
        ("leaf05/0.txt", line)
    ]
    assert found.ports["et-0/0/1"].priorities[7].tx_pause is not None  # the rest is still read


def test_truncated_and_foreign_outputs() -> None:
    cut = EXTENSIVE_TEXT[: EXTENSIVE_TEXT.index("Priority :  5")]
    found = _parse(**{EXTENSIVE: cut})
    assert found.problems == [] and 5 not in found.ports["et-0/0/1"].priorities  # absent
    foreign = _parse(**{EXTENSIVE: "error: syntax error, expecting <command>: extensiv\n"})
    assert foreign.ports == {} and foreign.problems and foreign.problems[0].source.line == 1  # type: ignore[union-attr]
    bad = _parse(**{QUEUES: QUEUES_TEXT.replace("3141592", "-5")})
    assert [p.source.line for p in bad.problems if p.source] == [21]
