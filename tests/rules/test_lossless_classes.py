"""ECN001 judges every lossless class, also one reached by CoS only (NX-OS `match cos`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState
from fabriclint.parsers.nxos import parse
from tests.rules.harness import ROCE_INTENT, Case, run_case

ROCE_LEAF = Path(__file__).parents[1] / "parsers" / "golden" / "nxos" / "roce_leaf"


def nxos_leaf(name: str, storage_ecn: bool) -> DeviceState:
    """The NX-OS RoCE leaf plus a second no-drop class reached by CoS 4 (Cisco's RoCE QoS
    pattern: a qos class-map `match cos 4` setting qos-group 4, network-qos class c-8q-nq4 with
    `pause pfc-cos 4`), its egress queue 4 with or without WRED-ECN."""
    text = (ROCE_LEAF / "running-config.txt").read_text(encoding="utf-8")
    edits = {
        "class-map type qos match-any CNP\n": (
            "class-map type qos match-any STORAGE\n  match cos 4\n"
            "class-map type qos match-any CNP\n"
        ),
        "  class CNP\n    set qos-group 6\n": (
            "  class CNP\n    set qos-group 6\n  class STORAGE\n    set qos-group 4\n"
        ),
        "    pause pfc-cos 3\n": (
            "    pause pfc-cos 3\n  class type network-qos c-8q-nq4\n    mtu 9216\n"
            "    pause pfc-cos 4\n"
        ),
    }
    if storage_ecn:
        edits["  class type queuing c-out-8q-q4\n    bandwidth remaining percent 0\n"] = (
            "  class type queuing c-out-8q-q4\n    bandwidth remaining percent 0\n"
            "    random-detect minimum-threshold 150 kbytes maximum-threshold 1500 kbytes"
            " drop-probability 7 weight 0 ecn\n"
        )
    for old, new in edits.items():
        assert old in text
        text = text.replace(old, new)
    outputs = {"show running-config": RawOutput(text=text, file="running-config.txt")}
    return parse(RawDevice(name=name, platform="nxos", outputs=outputs))


@pytest.mark.parametrize("storage_ecn", [False, True])
def test_ecn001_judges_a_no_drop_class_reached_by_cos(storage_ecn: bool) -> None:
    states = [nxos_leaf("leaf1", storage_ecn), nxos_leaf("leaf2", storage_ecn)]
    links = [("leaf1:Ethernet1/1", "leaf2:Ethernet1/1")]
    findings = run_case(Case("cos", "ECN001", states, [], links=links, intent=ROCE_INTENT))
    got = sorted((f.device or "", f.path) for f in findings)
    assert got == (
        [] if storage_ecn else [("leaf1", "qos.queues.4.ecn"), ("leaf2", "qos.queues.4.ecn")]
    )
    assert all("Traffic class 4 is lossless (priority 4)" in f.message for f in findings)
