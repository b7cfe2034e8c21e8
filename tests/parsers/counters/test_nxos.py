"""NX-OS counter parser: `show interface priority-flow-control` (RxPPP / TxPPP per port)."""

from __future__ import annotations

from fabriclint.models.counters import DeviceCounters
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.parsers.counters import parse_counters
from fabriclint.platforms.nxos import PFC_COUNTERS as PFC

TEXT = """\

slot  1
=======


============================================================
Port               Mode Oper(VL bmap)  RxPPP      TxPPP
============================================================

Ethernet1/1        Auto On  (8)        120456     9981
Ethernet1/2        Auto Off            0          0
Ethernet1/49       On   On  (8)        77         31337
"""


def _parse(text: str) -> DeviceCounters:
    raw = RawDevice(
        name="leaf02", platform="nxos", outputs={PFC: RawOutput(text=text, file="n.txt")}
    )
    found = parse_counters(raw)
    assert found is not None
    return found


def test_totals_per_port_with_lines() -> None:
    found = _parse(TEXT)
    port = found.ports["Ethernet1/1"]
    assert port.rx_pause_total is not None and port.rx_pause_total.value == 120456
    assert port.tx_pause_total is not None and port.tx_pause_total.value == 9981
    assert port.rx_pause_total.source.line == 10
    assert found.ports["Ethernet1/49"].tx_pause_total.value == 31337  # type: ignore[union-attr]
    assert found.problems == []


def test_bad_counts_and_a_foreign_output_are_problems() -> None:
    found = _parse(TEXT.replace("9981", "lots"))
    assert [p.source.line for p in found.problems if p.source] == [10]
    assert "Ethernet1/1" not in found.ports
    other = _parse("% Invalid command at '^' marker.\n")
    assert other.problems and other.ports == {}
