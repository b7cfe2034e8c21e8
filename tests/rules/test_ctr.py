"""CTR rules on small hand-made intervals: each fires on its evidence, honours its options, and
stays quiet on the healthy counterpart."""

from __future__ import annotations

from typing import Any

import pytest

from fabriclint.models.counters import DeviceCounters
from fabriclint.models.finding import Finding
from fabriclint.models.inventory import Inventory
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState, Interface, PfcConfig, QosConfig
from fabriclint.parsers.counters import parse_counters
from fabriclint.rules import ctr
from fabriclint.rules.base import Context, Rule
from fabriclint.rules.ctr_data import COUNTERS, CounterRun
from tests.rules.harness import Case, found

INVENTORY = Inventory.model_validate(
    {
        "name": "t",
        "devices": {
            "leaf1": {"platform": "sonic", "role": "leaf", "host": "192.0.2.1"},
            "gpu1": {"platform": "mlnx-host", "role": "gpu", "host": "192.0.2.2"},
        },
        "links": [{"a": "leaf1:Ethernet0", "b": "gpu1:ens1np0"}],
    }
)
HW = "grep -rH . /sys/class/infiniband/mlx5_0/ports/1/hw_counters"


def _sonic(
    pfc_rx: int = 0, pfc_tx: int = 0, drops: int = 0, storms: int = 0, prio: int = 3
) -> DeviceCounters:
    cells = ["0"] * 8
    rx, tx = list(cells), list(cells)
    rx[prio], tx[prio] = str(pfc_rx), str(pfc_tx)
    dashes = "---------  " + "  ".join(["------"] * 8)
    head = "    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7"
    pfcstat = (
        f"  Port Rx{head}\n{dashes}\nEthernet0  {'  '.join(rx)}\n\n"
        f"  Port Tx{head}\n{dashes}\nEthernet0  {'  '.join(tx)}\n"
    )
    queues = (
        "     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes\n"
        "---------  -----  --------------  ---------------  -----------  ------------\n"
        f"Ethernet0    UC3             100             1000  {drops}   0\n"
    )
    wd = (
        "      QUEUE    STATUS    STORM DETECTED/RESTORED    TX OK/DROP    RX OK/DROP\n"
        "-----------  --------  -------------------------  ------------  ------------\n"
        f"Ethernet0:3  stormed  {storms}/0  0/0  0/0\n"
    )
    return _parse(
        "leaf1",
        "sonic",
        {"pfcstat": pfcstat, "show queue counters": queues, "show pfcwd stats": wd},
    )


def _host(rdma: dict[str, int] | None = None, **ethtool: int) -> DeviceCounters:
    text = "NIC statistics:\n     rx_packets: 1\n" + "".join(
        f"     {k}: {v}\n" for k, v in ethtool.items()
    )
    hw = "".join(
        f"/sys/class/infiniband/mlx5_0/ports/1/hw_counters/{k}:{v}\n"
        for k, v in (rdma or {}).items()
    )
    outputs = {
        "ethtool -S ens1np0": text,
        HW: hw,
        "ibdev2netdev": "mlx5_0 port 1 ==> ens1np0 (Up)\n",
    }
    return _parse("gpu1", "mlnx-host", outputs)


def _parse(name: str, platform: str, outputs: dict[str, str]) -> DeviceCounters:
    raw = RawDevice(
        name=name,
        platform=platform,
        outputs={
            k: RawOutput(text=v, file=f"{name}/{i}.txt") for i, (k, v) in enumerate(outputs.items())
        },
    )
    found = parse_counters(raw)
    assert found is not None and found.problems == [], found and found.problems
    return found


def _state(name: str, port: str, platform: str, lossless: list[int]) -> DeviceState:
    qos = QosConfig(pfc=PfcConfig(enabled=True, priorities=lossless))
    return DeviceState(
        name=name, platform=platform, interfaces={port: Interface(name=port, qos=qos)}
    )


STATES = {
    "leaf1": _state("leaf1", "Ethernet0", "sonic", [3]),
    "gpu1": _state("gpu1", "ens1np0", "mlnx-host", [3]),
}


def run(
    rule: type[Rule[Any]],
    before: list[DeviceCounters],
    after: list[DeviceCounters],
    options: dict[str, Any] | None = None,
    states: dict[str, DeviceState] | None = None,
    interval: float = 100.0,
) -> tuple[list[Finding], Context]:
    ctx = Context(inventory=INVENTORY, intent=None, states=STATES if states is None else states)
    ctx.memo[COUNTERS] = CounterRun(
        before={d.name: d for d in before}, after={d.name: d for d in after}, interval_s=interval
    )
    instance = rule(rule.options_model.model_validate(options or {}))
    return list(instance.check(ctx)), ctx


def test_rules_yield_nothing_without_an_interval() -> None:
    ctx = Context(inventory=INVENTORY, intent=None, states=STATES)
    for rule in ctr.RULES:
        assert list(rule(rule.options_model.model_validate({})).check(ctx)) == []


def test_ctr001_pauses_on_a_lossy_priority_and_max_frames() -> None:
    before, after = _sonic(prio=4), _sonic(pfc_tx=40, prio=4)
    found, _ = run(ctr.PauseOnLossyPriority, [before], [after])
    assert [(f.device, f.object) for f in found] == [("leaf1", "interface Ethernet0 priority 4")]
    assert found[0].actual[0]["delta"] == 40 and found[0].actual[0]["per_second"] == 0.4
    assert run(ctr.PauseOnLossyPriority, [before], [after], {"max_frames": 40})[0] == []
    assert run(ctr.PauseOnLossyPriority, [_sonic()], [_sonic(pfc_tx=40)])[0] == []  # priority 3


def test_ctr001_without_configuration_is_a_coverage_gap() -> None:
    found, ctx = run(
        ctr.PauseOnLossyPriority, [_sonic(prio=4)], [_sonic(pfc_tx=40, prio=4)], states={}
    )
    assert found == []
    assert ctx.skipped_on("CTR001") == {"leaf1"}


def test_ctr002_watchdog_storm_names_the_far_end_as_source() -> None:
    found, _ = run(ctr.PfcStorm, [_sonic()], [_sonic(storms=2)])
    assert len(found) == 1
    assert "source: gpu1:ens1np0 (it sent the pauses leaf1:Ethernet0 received)" in found[0].message


def test_ctr002_pause_share_option() -> None:
    before = _host(rx_prio3_pause_duration=0)
    after = _host(rx_prio3_pause_duration=30_000_000)  # 30 s of a 100 s interval
    found, _ = run(ctr.PfcStorm, [before], [after])
    assert len(found) == 1 and "30 % of the interval" in found[0].message
    assert "source: leaf1:Ethernet0" in found[0].message
    assert run(ctr.PfcStorm, [before], [after], {"max_pause_share_pct": 40})[0] == []


def test_ctr003_drops_on_a_lossless_queue_and_priority_only() -> None:
    found, _ = run(ctr.LosslessDrops, [_sonic(drops=5)], [_sonic(drops=17)])
    assert [f.object for f in found] == ["interface Ethernet0 queue 3"]
    lossy = {"leaf1": _state("leaf1", "Ethernet0", "sonic", [4])}
    assert run(ctr.LosslessDrops, [_sonic(drops=5)], [_sonic(drops=17)], states=lossy)[0] == []
    nic, _ = run(ctr.LosslessDrops, [_host(rx_prio3_discards=1)], [_host(rx_prio3_discards=9)])
    assert nic[0].actual[0]["delta"] == 8
    assert run(ctr.LosslessDrops, [_sonic(drops=5)], [_sonic(drops=17)], {"max_drops": 12})[0] == []


def test_ctr005_and_ctr006_dcqcn() -> None:
    marks = {"np_ecn_marked_roce_packets": 10, "np_cnp_sent": 10, "rp_cnp_ignored": 0}
    silent = {"np_ecn_marked_roce_packets": 510, "np_cnp_sent": 10, "rp_cnp_ignored": 3}
    found, _ = run(ctr.EcnWithoutCnp, [_host(marks)], [_host(silent)])
    assert len(found) == 1 and "received 500 ECN-marked" in found[0].message
    answered = dict(silent, np_cnp_sent=400)
    assert run(ctr.EcnWithoutCnp, [_host(marks)], [_host(answered)])[0] == []
    assert run(ctr.EcnWithoutCnp, [_host(marks)], [_host(silent)], {"min_marks": 501})[0] == []
    ignored, _ = run(ctr.CnpIgnored, [_host(marks)], [_host(silent)])
    assert len(ignored) == 1 and "ignored 3 CNP" in ignored[0].message
    assert run(ctr.CnpIgnored, [_host(marks)], [_host(silent)], {"max_ignored": 3})[0] == []


def test_ctr005_needs_both_counters() -> None:
    only_marks = {"np_ecn_marked_roce_packets": 10}
    found, _ = run(
        ctr.EcnWithoutCnp, [_host(only_marks)], [_host({"np_ecn_marked_roce_packets": 900})]
    )
    assert found == []  # np_cnp_sent absent: absent is not zero


def test_ctr007_transport_counters_option() -> None:
    before = {"out_of_sequence": 1, "roce_adp_retrans": 0}
    after = {"out_of_sequence": 1, "roce_adp_retrans": 7}
    assert run(ctr.TransportLoss, [_host(before)], [_host(after)])[0] == []
    found, _ = run(
        ctr.TransportLoss, [_host(before)], [_host(after)], {"counters": ["roce_adp_retrans"]}
    )
    assert len(found) == 1 and "roce_adp_retrans +7" in found[0].message


def test_ctr008_tolerance_across_the_cable() -> None:
    before = [_sonic(pfc_tx=0), _host(rx_prio3_pause=0)]
    after = [_sonic(pfc_tx=1000), _host(rx_prio3_pause=950)]
    assert run(ctr.LinkPauseMismatch, before, after)[0] == []  # 5 % < 10 %
    found, _ = run(ctr.LinkPauseMismatch, before, after, {"tolerance_pct": 2})
    assert len(found) == 1
    assert found[0].object == "link leaf1:Ethernet0 -> gpu1:ens1np0 priority 3"
    assert (
        run(ctr.LinkPauseMismatch, before, after, {"tolerance_pct": 2, "min_frames": 2000})[0] == []
    )


def test_ctr009_wrapped_32_bit_counter() -> None:
    before = _host({"out_of_sequence": 2**32 - 10})
    after = _host({"out_of_sequence": 5})
    run_ = CounterRun(before={"gpu1": before}, after={"gpu1": after}, interval_s=10)
    assert [r.kind for r in run_.regressions] == ["wrapped"]
    assert list(run_.pairs()) == []  # no other rule judges an untrusted interval
    found, _ = run(ctr.CounterRegression, [before], [after])
    assert "wrapped" in found[0].message and found[0].device == "gpu1"


# ---- data table: a firing and a clean case per rule (tests/rules/test_registry.py) -----------

LINK = [("leaf1:Ethernet0", "gpu1:ens1np0")]


def _case(
    id: str,
    rule: str,
    before: list[DeviceCounters],
    after: list[DeviceCounters],
    expect: list[tuple[str | None, str]],
    **options: Any,
) -> Case:
    memo = {
        COUNTERS: CounterRun(
            before={d.name: d for d in before}, after={d.name: d for d in after}, interval_s=100.0
        )
    }
    return Case(id, rule, list(STATES.values()), expect, links=LINK, options=options, memo=memo)


_MARKS = {
    "np_ecn_marked_roce_packets": 0,
    "np_cnp_sent": 0,
    "rp_cnp_ignored": 0,
    "out_of_sequence": 0,
}
_PORT = "interface Ethernet0"
_HCA = "HCA port mlx5_0/1"

CASES = [
    _case(
        "lossy-pauses",
        "CTR001",
        [_sonic(prio=4)],
        [_sonic(pfc_rx=9, prio=4)],
        [("leaf1", f"{_PORT} priority 4")],
    ),
    _case("lossless-pauses", "CTR001", [_sonic()], [_sonic(pfc_rx=9)], []),
    _case("watchdog-storm", "CTR002", [_sonic()], [_sonic(storms=1)], [("leaf1", _PORT)]),
    _case("no-storm", "CTR002", [_sonic()], [_sonic(pfc_rx=900)], []),
    _case("queue-drops", "CTR003", [_sonic()], [_sonic(drops=3)], [("leaf1", f"{_PORT} queue 3")]),
    _case("no-drops", "CTR003", [_sonic(drops=3)], [_sonic(drops=3)], []),
    _case(
        "ctr005-fires",
        "CTR005",
        [_host(_MARKS)],
        [_host(dict(_MARKS, np_ecn_marked_roce_packets=50))],
        [("gpu1", _HCA)],
    ),
    _case(
        "ctr005-answered",
        "CTR005",
        [_host(_MARKS)],
        [_host(dict(_MARKS, np_ecn_marked_roce_packets=50, np_cnp_sent=40))],
        [],
    ),
    _case(
        "ctr006-fires",
        "CTR006",
        [_host(_MARKS)],
        [_host(dict(_MARKS, rp_cnp_ignored=1))],
        [("gpu1", _HCA)],
    ),
    _case("ctr006-clean", "CTR006", [_host(_MARKS)], [_host(_MARKS)], []),
    _case(
        "ctr007-fires",
        "CTR007",
        [_host(_MARKS)],
        [_host(dict(_MARKS, out_of_sequence=2))],
        [("gpu1", _HCA)],
    ),
    _case("ctr007-clean", "CTR007", [_host(_MARKS)], [_host(_MARKS)], []),
    _case(
        "ctr008-fires",
        "CTR008",
        [_sonic(), _host(rx_prio3_pause=0)],
        [_sonic(pfc_tx=1000), _host(rx_prio3_pause=10)],
        [("leaf1", "link leaf1:Ethernet0 -> gpu1:ens1np0 priority 3")],
    ),
    _case(
        "ctr008-clean",
        "CTR008",
        [_sonic(), _host(rx_prio3_pause=0)],
        [_sonic(pfc_tx=1000), _host(rx_prio3_pause=990)],
        [],
    ),
    _case(
        "ctr009-fires",
        "CTR009",
        [_host(dict(_MARKS, out_of_sequence=9))],
        [_host(_MARKS)],
        [("gpu1", "mlx5_0/1 out_of_sequence")],
    ),
    _case("ctr009-clean", "CTR009", [_host(_MARKS)], [_host(_MARKS)], []),
]


def _switch_pauses(pauses: int, marks: int) -> DeviceCounters:
    base = _sonic(pfc_tx=pauses)
    wred = (
        "     Port    TxQ    WredDrp/pkts    WredDrp/bytes    EcnMarked/pkts    EcnMarked/bytes\n"
        "---------  -----  --------------  ---------------  ----------------  -----------------\n"
        f"Ethernet0    UC3               0                0  {marks}  0\n"
    )
    marked = _parse("leaf1", "sonic", {"show queue wredcounters": wred})
    ports = {
        n: p.model_copy(update={"queues": marked.ports[n].queues}) for n, p in base.ports.items()
    }
    return base.model_copy(update={"ports": ports})


_ECN_INTENT = {
    "profiles": {"roce": {"roce": {"dscp": [26], "priority": 3}}},
    "roles": {"leaf": {"profile": "roce"}},
}
CASES += [
    Case(
        "pauses-no-marks",
        "CTR004",
        list(STATES.values()),
        [("leaf1", "priority 3")],
        links=LINK,
        intent=_ECN_INTENT,
        memo={
            COUNTERS: CounterRun(
                {"leaf1": _switch_pauses(0, 7)}, {"leaf1": _switch_pauses(5000, 7)}, 100
            )
        },
    ),
    Case(
        "pauses-with-marks",
        "CTR004",
        list(STATES.values()),
        [],
        links=LINK,
        intent=_ECN_INTENT,
        memo={
            COUNTERS: CounterRun(
                {"leaf1": _switch_pauses(0, 7)}, {"leaf1": _switch_pauses(5000, 900)}, 100
            )
        },
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.rule}-{c.id}")
def test_case(case: Case) -> None:
    assert found(case) == sorted(case.expect)
