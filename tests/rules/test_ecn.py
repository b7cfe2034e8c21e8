"""Data table for the ECN rules (ECN001-ECN004)."""

from __future__ import annotations

from typing import Any

import pytest

from fabriclint.models.state import (
    BufferConfig,
    DeviceState,
    EcnConfig,
    QueueConfig,
    SchedulerMode,
)
from tests.rules.harness import ROCE_INTENT, Case, found
from tests.rules.test_pfc import (
    LINK,
    LINKS2,
    SMALL_MAP,
    at,
    host,
    leaf,
    pfc,
    port,
    profiled,
    run,
)

MIB = 1024 * 1024


def ecn(low: int | None = 150_000, high: int | None = 1_500_000, **fields: Any) -> EcnConfig:
    """ECN marking between `low` and `high` bytes at 100%."""
    values: dict[str, Any] = {"min_bytes": low, "max_bytes": high, "probability_pct": 100}
    return EcnConfig(**(values | fields))


def queues(q3: EcnConfig | None = None, **fields: Any) -> dict[int, QueueConfig]:
    """RoCE queue 3 (DWRR 50) with ECN `q3`, and strict CNP queue 6."""
    three = {"queue": 3, "scheduler": SchedulerMode.DWRR, "weight": 50, "ecn": q3} | fields
    return {3: QueueConfig(**three), 6: QueueConfig(queue=6, scheduler=SchedulerMode.STRICT)}


def marked(q3: EcnConfig, **qos: Any) -> DeviceState:
    """leaf01 whose queue 3 marks with `q3`."""
    return leaf(queues=queues(q3), **qos)


CASES: list[Case] = [
    # ECN001 lossless-queue-without-ecn
    Case("ecn001-clean", "ECN001", [leaf(), host()], [], links=LINK, intent=ROCE_INTENT),
    Case(
        "ecn001-device-once",
        "ECN001",
        [leaf(queues=queues())],
        [("leaf01", "queue 3")],
        links=LINKS2,
        intent=ROCE_INTENT,
    ),
    Case(
        "ecn001-no-queues",
        "ECN001",
        [leaf(queues=None)],
        [("leaf01", "queue 3")],
        links=LINKS2,
        intent=ROCE_INTENT,
    ),
    Case(
        "ecn001-port-disabled",
        "ECN001",
        [port(leaf(), "Ethernet1", queues=queues(EcnConfig(enabled=False)))],
        [("leaf01", "interface Ethernet1")],
        links=LINKS2,
        intent=ROCE_INTENT,
    ),
    Case(
        "ecn001-profile",
        "ECN001",
        [profiled(leaf(), queues=queues(sources={"": at(14)}))],
        [("leaf01", "qos-profile ROCE")],
        links=LINKS2,
        intent=ROCE_INTENT,
    ),
    Case(
        "ecn001-every-lossless-queue-not-only-roce",
        "ECN001",
        [leaf(queues=queues(), pfc=pfc(4))],
        [("leaf01", "queue 4")],  # DSCP 32-39 reach lossless TC 4; RoCE being lossy is PFC002's
        links=LINKS2,
        intent=ROCE_INTENT,
    ),
    Case(
        "ecn001-class-reached-by-cos",
        "ECN001",
        # NX-OS `match cos 5` -> qos-group 5, network-qos `pause pfc-cos 5`: no DSCP reaches it
        [
            leaf(
                queues=queues(ecn(150_000, 1_500_000)),
                pfc=pfc(3, 5),
                dscp_to_tc=SMALL_MAP,
                pcp_to_tc={5: 5},
            )
        ],
        [("leaf01", "queue 5")],
        links=LINKS2,
        intent=ROCE_INTENT,
    ),
    Case(
        "ecn001-lossless-class-nothing-reaches-is-pfc003s",
        "ECN001",
        [leaf(queues=queues(ecn(150_000, 1_500_000)), pfc=pfc(3, 5), dscp_to_tc=SMALL_MAP)],
        [],
        links=LINKS2,
        intent=ROCE_INTENT,
    ),
    Case("ecn001-host-no-queue-ecn", "ECN001", [host()], [], links=LINK, intent=ROCE_INTENT),
    Case(
        "ecn001-host-queue-ecn-off",
        "ECN001",
        [host(queues={3: QueueConfig(queue=3, ecn=EcnConfig(enabled=False))})],
        [("gpu01", "interface ens1np0")],
        links=LINK,
        intent=ROCE_INTENT,
    ),
    Case(
        "ecn001-no-intent-still-judged",
        "ECN001",
        [leaf(queues=queues())],
        [("leaf01", "queue 3")],
        links=LINK,
    ),
    # ECN002 ecn-threshold-order
    Case("ecn002-clean", "ECN002", [leaf()], []),
    Case("ecn002-swapped", "ECN002", [marked(ecn(1_500_000, 150_000))], [("leaf01", "queue 3")]),
    Case("ecn002-equal", "ECN002", [marked(ecn(150_000, 150_000))], [("leaf01", "queue 3")]),
    Case(
        "ecn002-disabled",
        "ECN002",
        [marked(ecn(1_500_000, 150_000, enabled=False))],
        [],
    ),
    Case(
        "ecn002-same-raw-unit-compared",
        "ECN002",
        [marked(ecn(None, None, min_raw="320 segments", max_raw="100 segments"))],
        [("leaf01", "queue 3")],
    ),
    Case(
        "ecn002-mixed-units-not-compared",
        "ECN002",
        [marked(ecn(None, None, min_raw="320 segments", max_raw="1 milliseconds"))],
        [],
    ),
    Case(
        "ecn002-port",
        "ECN002",
        [port(leaf(), "Ethernet2", queues=queues(ecn(2_000_000, 1_000_000)))],
        [("leaf01", "interface Ethernet2")],
    ),
    # ECN003 ecn-threshold-implausible
    Case("ecn003-clean", "ECN003", [leaf()], []),
    Case("ecn003-below-mtu", "ECN003", [marked(ecn(4000))], [("leaf01", "queue 3")]),
    Case("ecn003-above-ceiling", "ECN003", [marked(ecn(high=100 * MIB))], [("leaf01", "queue 3")]),
    Case(
        "ecn003-above-pool",
        "ECN003",
        [marked(ecn(), buffers=BufferConfig(lossless_pool_bytes=1_000_000))],
        [("leaf01", "queue 3")],
    ),
    Case(
        "ecn003-within-pool",
        "ECN003",
        [marked(ecn(), buffers=BufferConfig(lossless_pool_bytes=2_000_000))],
        [],
    ),
    Case(
        "ecn003-probability-zero",
        "ECN003",
        [marked(ecn(probability_pct=0))],
        [("leaf01", "queue 3")],
    ),
    Case(
        "ecn003-two-problems",
        "ECN003",
        [marked(ecn(4000, probability_pct=0))],
        [("leaf01", "queue 3"), ("leaf01", "queue 3")],
    ),
    Case(
        "ecn003-floor-option",
        "ECN003",
        [marked(ecn(4000))],
        [],
        options={"min_bytes_floor": 1500},
    ),
    # ECN004 wred-drop-on-lossless
    Case("ecn004-clean", "ECN004", [leaf()], []),
    Case(
        "ecn004-lossless",
        "ECN004",
        [leaf(queues=queues(ecn(), wred_drop=True))],
        [("leaf01", "queue 3")],
    ),
    Case(
        "ecn004-lossy-queue",
        "ECN004",
        [leaf(queues={**queues(ecn()), 0: QueueConfig(queue=0, wred_drop=True)})],
        [],
    ),
    Case(
        "ecn004-profile",
        "ECN004",
        [profiled(leaf(), queues=queues(ecn(), wred_drop=True, sources={"wred_drop": at(15)}))],
        [("leaf01", "qos-profile ROCE")],
    ),
    Case(
        "ecn004-port-pfc-makes-it-lossless",
        "ECN004",
        [port(leaf(queues={0: QueueConfig(queue=0, wred_drop=True)}), "Ethernet1", pfc=pfc(0))],
        [("leaf01", "queue 0")],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_rule(case: Case) -> None:
    assert found(case) == sorted(case.expect)


def test_ecn002_severity_error_when_swapped_warning_when_equal() -> None:
    (swapped,) = run(Case("s", "ECN002", [marked(ecn(1_500_000, 150_000))], []))[0]
    (equal,) = run(Case("e", "ECN002", [marked(ecn(150_000, 150_000))], []))[0]
    assert (swapped.severity, equal.severity) == ("error", "warning")
    assert swapped.path == "qos.queues.3.ecn"
    assert "step marking" in equal.message


def test_ecn002_other_units_are_skipped() -> None:
    case = Case("u", "ECN002", [marked(ecn(None, None, min_raw="320 segments"))], [])
    ctx = run(case)[1]
    assert set(ctx.skipped) == {"ECN002"}
    assert ctx.skipped_on("ECN002") == {"leaf01"}
    assert "bytes" in next(iter(ctx.skipped["ECN002"]))  # names what it could not compare


def test_ecn001_skips() -> None:
    no_intent = Case("i", "ECN001", [leaf()], [], links=LINK)
    host_only = Case("h", "ECN001", [host()], [], links=LINK, intent=ROCE_INTENT)
    assert run(no_intent)[1].skipped == {}  # lossless classes come from the configuration
    assert run(host_only)[1].skipped == {}


def test_ecn003_fields_and_ceiling() -> None:
    state = marked(ecn(4000, 3_000_000), buffers=BufferConfig(lossless_pool_bytes=2_000_000))
    findings = run(Case("c", "ECN003", [state], []))[0]
    assert sorted(f.path for f in findings) == [
        "qos.queues.3.ecn.max_bytes",
        "qos.queues.3.ecn.min_bytes",
    ]
    assert any("lossless buffer pool (2000000 B)" in f.message for f in findings)
