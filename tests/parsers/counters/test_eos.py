"""EOS counter parser: PFC frames per priority (detail), totals, ECN marks per queue (JSON)."""

from __future__ import annotations

import json

from fabriclint.models.counters import DeviceCounters
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.parsers.counters import parse_counters
from fabriclint.platforms.eos import ECN_QUEUES, PFC_DETAIL, PFC_TOTALS

DETAIL = {
    "interfaces": {
        "Ethernet1/1": {
            "priorities": {
                "0": {"rxFrames": 0, "txFrames": 0},
                "3": {"rxFrames": 4401, "txFrames": 98765},
            }
        },
        "Ethernet2/1": {"priorities": {"3": {"rxFrames": 7, "txFrames": 8}}},
    }
}


def _parse(key: str, text: str) -> DeviceCounters:
    raw = RawDevice(
        name="leaf01", platform="eos", outputs={key: RawOutput(text=text, file="l.txt")}
    )
    found = parse_counters(raw)
    assert found is not None
    return found


def test_detail_per_priority_with_the_line_of_each_value() -> None:
    text = json.dumps(DETAIL, indent=2)
    counters = _parse(PFC_DETAIL, text)
    prio3 = counters.ports["Ethernet1/1"].priorities[3]
    assert prio3.rx_pause is not None and prio3.tx_pause is not None
    assert (prio3.rx_pause.value, prio3.tx_pause.value) == (4401, 98765)
    line = prio3.tx_pause.source.line
    assert line is not None and '"txFrames": 98765' in text.splitlines()[line - 1]
    assert counters.ports["Ethernet2/1"].priorities[3].rx_pause.value == 7  # type: ignore[union-attr]


def test_totals_when_only_the_summary_was_collected() -> None:
    text = json.dumps({"interfaceCounters": {"Ethernet1/1": {"rxFrames": 10, "txFrames": 20}}})
    port = _parse(PFC_TOTALS, text).ports["Ethernet1/1"]
    assert port.rx_pause_total is not None and port.rx_pause_total.value == 10
    assert port.tx_pause_total is not None and port.tx_pause_total.value == 20
    assert port.priorities == {}


def test_ecn_queue_without_ecn_is_absent() -> None:
    data = {
        "intfQueueCounters": {"Ethernet1/1": {"queueCounters": {"0": "-", "3": 5000, "UC6": 2}}}
    }
    queues = _parse(ECN_QUEUES, json.dumps(data, indent=1)).ports["Ethernet1/1"].queues
    assert queues[3].ecn_marked is not None and queues[3].ecn_marked.value == 5000
    assert queues[6].ecn_marked is not None and queues[6].ecn_marked.value == 2
    assert 0 not in queues


def test_invalid_json_and_wrong_types_are_located_problems() -> None:
    bad = _parse(PFC_DETAIL, '{"interfaces": {\n  "Ethernet1/1": \n}')
    assert bad.problems and bad.problems[0].source is not None and bad.problems[0].source.line == 3
    wrong = {
        "interfaces": {"Ethernet1/1": {"priorities": {"3": {"rxFrames": "many", "txFrames": -1}}}}
    }
    found = _parse(PFC_DETAIL, json.dumps(wrong, indent=2))
    assert len(found.problems) == 2
    assert all("not a count" in p.message for p in found.problems)
    assert found.ports == {}
    missing = _parse(PFC_DETAIL, '{"something": 1}')
    assert "no `interfaces` object" in missing.problems[0].message
