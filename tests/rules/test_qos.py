"""Data table for the QOS rules (QOS001-QOS009)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fabriclint.models.state import (
    BufferConfig,
    Definition,
    DeviceState,
    MapConflict,
    PgBuffer,
    QueueConfig,
    Reference,
    SchedulerMode,
    Trust,
)
from tests.rules.harness import ROCE_INTENT, Case, found
from tests.rules.test_pfc import LINK, LINKS2, SMALL_MAP, at, host, leaf, pfc, port, profiled, run

DWRR, STRICT = SchedulerMode.DWRR, SchedulerMode.STRICT
FULL_MAP = {d: d // 8 for d in range(64)}


def sched(**weights: float | None) -> dict[int, QueueConfig]:
    """Queues q<N>=weight (DWRR), q<N>=None (strict)."""
    out = {}
    for key, weight in weights.items():
        number = int(key[1:])
        mode = STRICT if weight is None else DWRR
        out[number] = QueueConfig(queue=number, scheduler=mode, weight=weight)
    return out


def routed_off(state: DeviceState) -> DeviceState:
    """`state` with its ports switched (not routed)."""
    for iface in state.interfaces.values():
        iface.routed = False
    return state


def platform(state: DeviceState, key: str) -> DeviceState:
    """`state` on another platform."""
    state.platform = key
    return state


def objects(*defs: tuple[str, str], refs: tuple[tuple[str, str, str], ...] = ()) -> DeviceState:
    """leaf01 defining (kind, name) objects and referencing (kind, name, by) objects."""
    state = leaf()
    state.definitions = [Definition(kind=k, name=n, source=at(i)) for i, (k, n) in enumerate(defs)]
    state.references = [
        Reference(kind=k, name=n, by=by, source=at(100 + i)) for i, (k, n, by) in enumerate(refs)
    ]
    return state


def cnp_intent(**cnp: Any) -> dict[str, Any]:
    """ROCE_INTENT with CNP class fields replaced (None removes the CNP class)."""
    intent = copy.deepcopy(ROCE_INTENT)
    if cnp.get("remove"):
        del intent["profiles"]["roce"]["cnp"]
    else:
        intent["profiles"]["roce"]["cnp"].update(cnp)
    return intent


def conflict(key: int, *values: int, name: str = "dscp_to_tc") -> MapConflict:
    """`key` assigned `values` in map `name`."""
    return MapConflict(map=name, key=key, values=list(values), sources=[at(5), at(6)])


def buffers(pool: int | None = 1_000_000, **pgs: PgBuffer) -> BufferConfig:
    """A lossless pool and PGs pg<N>."""
    groups = {int(k[2:]): v for k, v in pgs.items()}
    return BufferConfig(lossless_pool_bytes=pool, priority_groups=groups)


PROFILE = ("qos-profile", "ROCE")

CASES: list[Case] = [
    # QOS001 trust-not-dscp
    Case("qos001-clean", "QOS001", [leaf(), host()], [], links=LINK),
    Case("qos001-device-pcp", "QOS001", [leaf(trust=Trust.PCP)], [("leaf01", "qos")], LINKS2),
    Case("qos001-both-ok", "QOS001", [leaf(trust=Trust.BOTH)], [], links=LINKS2),
    Case("qos001-switched-port", "QOS001", [routed_off(leaf(trust=Trust.PCP))], [], LINKS2),
    Case("qos001-unknown", "QOS001", [leaf(trust=None)], [], links=LINKS2),
    Case(
        "qos001-host",
        "QOS001",
        [host(trust=Trust.PCP)],
        [("gpu01", "interface ens1np0")],
        links=LINK,
    ),
    Case(
        "qos001-profile",
        "QOS001",
        [profiled(leaf(), trust=Trust.PCP, sources={"trust": at(11)})],
        [("leaf01", "qos-profile ROCE")],
        links=LINKS2,
    ),
    # QOS002 dscp-multiply-mapped
    Case("qos002-clean", "QOS002", [leaf()], []),
    Case("qos002-device", "QOS002", [leaf(conflicts=[conflict(26, 3, 1)])], [("leaf01", "qos")]),
    Case("qos002-same-value", "QOS002", [leaf(conflicts=[conflict(26, 3, 3)])], []),
    Case(
        "qos002-port",
        "QOS002",
        [port(leaf(), "Ethernet1", conflicts=[conflict(3, 3, 4, name="tc_to_queue")])],
        [("leaf01", "interface Ethernet1")],
    ),
    # QOS003 map-value-out-of-range
    Case("qos003-clean", "QOS003", [leaf()], []),
    Case(
        "qos003-dscp-map-once",
        "QOS003",
        [leaf(dscp_to_tc={**SMALL_MAP, 26: 9, 70: 1})],
        [("leaf01", "qos")],
    ),
    Case(
        "qos003-pfc-priority",
        "QOS003",
        [leaf(pfc=pfc(3, 8))],
        [("leaf01", "qos")],
    ),
    Case("qos003-queue-eos", "QOS003", [leaf(tc_to_queue={3: 10})], [("leaf01", "qos")]),
    Case("qos003-queue-junos", "QOS003", [platform(leaf(tc_to_queue={3: 10}), "junos")], []),
    Case(
        "qos003-host",
        "QOS003",
        [host(dscp_to_tc={26: 3, 48: 8})],
        [("gpu01", "interface ens1np0")],
    ),
    # QOS004 cnp-not-prioritized
    Case("qos004-clean", "QOS004", [leaf()], [], links=LINKS2, intent=ROCE_INTENT),
    Case(
        "qos004-in-roce-queue",
        "QOS004",
        [leaf(dscp_to_tc={**FULL_MAP, 26: 3, 48: 3})],
        [("leaf01", "qos")],
        links=LINKS2,
        intent=ROCE_INTENT,
    ),
    Case(
        "qos004-unmapped",
        "QOS004",
        [leaf(dscp_to_tc={0: 0, 26: 3})],
        [("leaf01", "qos")],
        links=LINKS2,
        intent=ROCE_INTENT,
    ),
    Case(
        "qos004-low-weight",
        "QOS004",
        [leaf(dscp_to_tc={**FULL_MAP, 26: 3, 48: 5}, queues=sched(q3=50, q5=10))],
        [("leaf01", "queue 5")],
        links=LINKS2,
        intent=ROCE_INTENT,
    ),
    Case(
        "qos004-highest-weight",
        "QOS004",
        [leaf(dscp_to_tc={**FULL_MAP, 26: 3, 48: 5}, queues=sched(q3=40, q5=60))],
        [],
        links=LINKS2,
        intent=ROCE_INTENT,
    ),
    Case(
        "qos004-highest-weight-not-allowed",
        "QOS004",
        [leaf(dscp_to_tc={**FULL_MAP, 26: 3, 48: 5}, queues=sched(q3=40, q5=60))],
        [("leaf01", "queue 5")],
        links=LINKS2,
        intent=ROCE_INTENT,
        options={"allow_highest_weight": False},
    ),
    Case(
        "qos004-strict-not-required",
        "QOS004",
        [leaf(dscp_to_tc={**FULL_MAP, 26: 3, 48: 5}, queues=sched(q3=50, q5=10))],
        [],
        links=LINKS2,
        intent=cnp_intent(strict=False),
    ),
    Case(
        "qos004-port-queues",
        "QOS004",
        [port(leaf(), "Ethernet2", queues=sched(q3=50, q6=10))],
        [("leaf01", "interface Ethernet2")],
        links=LINKS2,
        intent=ROCE_INTENT,
    ),
    Case("qos004-host-unknown-scheduler", "QOS004", [host()], [], LINK, ROCE_INTENT),
    Case("qos004-no-cnp", "QOS004", [leaf()], [], LINKS2, cnp_intent(remove=True)),
    # QOS005 dangling-reference
    Case(
        "qos005-clean",
        "QOS005",
        [objects(PROFILE, refs=(("qos-profile", "ROCE", "interface Ethernet1"),))],
        [],
    ),
    Case(
        "qos005-dangling-once",
        "QOS005",
        [
            objects(
                PROFILE,
                refs=(
                    ("qos-profile", "ROCE_TYPO", "interface Ethernet1"),
                    ("qos-profile", "ROCE_TYPO", "interface Ethernet2"),
                    ("qos-profile", "ROCE", "interface Ethernet3"),
                ),
            )
        ],
        [("leaf01", "qos-profile ROCE_TYPO")],
    ),
    Case(
        "qos005-builtin",
        "QOS005",
        [objects(refs=(("class-map", "class-default", "policy-map P"),))],
        [],
    ),
    Case(
        "qos005-builtin-option",
        "QOS005",
        [objects(refs=(("class-map", "class-default", "policy-map P"),))],
        [("leaf01", "class-map class-default")],
        options={"predefined": []},
    ),
    # QOS006 unused-definition
    Case(
        "qos006-clean",
        "QOS006",
        [objects(PROFILE, refs=(("qos-profile", "ROCE", "interface Ethernet1"),))],
        [],
    ),
    Case(
        "qos006-unused-once",
        "QOS006",
        [objects(PROFILE, PROFILE, ("policy-map", "OLD"))],
        [("leaf01", "policy-map OLD"), ("leaf01", "qos-profile ROCE")],
    ),
    Case("qos006-class-map", "QOS006", [objects(("class-map", "RDMA"))], []),
    Case("qos006-scheduler", "QOS006", [objects(("scheduler", "S1"))], []),
    # QOS007 scheduler-weights-invalid
    Case("qos007-clean", "QOS007", [leaf(queues=sched(q0=50, q3=50, q6=None))], []),
    Case("qos007-over-100", "QOS007", [leaf(queues=sched(q0=60, q3=50))], [("leaf01", "qos")]),
    Case(
        "qos007-sonic-relative",
        "QOS007",
        [platform(leaf(queues=sched(q0=60, q3=50)), "sonic")],
        [],
    ),
    Case(
        "qos007-lossless-zero",
        "QOS007",
        [leaf(queues=sched(q0=50, q3=0))],
        [("leaf01", "queue 3")],
    ),
    Case("qos007-lossy-zero", "QOS007", [leaf(queues=sched(q0=0, q3=50))], []),
    Case(
        "qos007-port",
        "QOS007",
        [port(leaf(), "Ethernet1", queues=sched(q0=60, q3=60))],
        [("leaf01", "interface Ethernet1")],
    ),
    # QOS008 lossless-buffer-missing
    Case("qos008-eos-unknown", "QOS008", [leaf()], []),
    Case(
        "qos008-sonic-absent",
        "QOS008",
        [platform(leaf(), "sonic")],
        [("leaf01", "qos")],
    ),
    Case(
        "qos008-clean", "QOS008", [leaf(buffers=buffers(pg3=PgBuffer(headroom_bytes=50_000)))], []
    ),
    Case("qos008-dynamic-headroom", "QOS008", [leaf(buffers=buffers(pg3=PgBuffer()))], []),
    Case("qos008-pool-zero", "QOS008", [leaf(buffers=buffers(0))], [("leaf01", "qos")]),
    Case(
        "qos008-headroom-zero",
        "QOS008",
        [leaf(buffers=buffers(pg3=PgBuffer(headroom_bytes=0)))],
        [("leaf01", "qos")],
    ),
    Case("qos008-nothing-lossless", "QOS008", [leaf(pfc=None, buffers=buffers(0))], []),
    Case("qos008-empty-buffers", "QOS008", [leaf(buffers=buffers(None))], [("leaf01", "qos")]),
    Case(
        "qos008-pg-map",
        "QOS008",
        [
            leaf(
                tc_to_pg={3: 4},
                buffers=buffers(pg3=PgBuffer(headroom_bytes=0), pg4=PgBuffer(xoff_bytes=0)),
            )
        ],
        [("leaf01", "qos")],
    ),
    Case(
        "qos008-port-buffers",
        "QOS008",
        [port(leaf(buffers=buffers()), "Ethernet1", buffers=buffers(0))],
        [("leaf01", "interface Ethernet1")],
    ),
    # QOS009 tc-unmapped
    Case("qos009-clean", "QOS009", [leaf()], []),
    Case("qos009-queue", "QOS009", [leaf(tc_to_queue={3: 3, 6: 6})], [("leaf01", "qos")]),
    Case(
        "qos009-queue-complete",
        "QOS009",
        [leaf(dscp_to_tc=SMALL_MAP, tc_to_queue={0: 0, 3: 3, 6: 6})],
        [],
    ),
    Case("qos009-pg", "QOS009", [leaf(dscp_to_tc=SMALL_MAP, tc_to_pg={3: 3})], [("leaf01", "qos")]),
    Case(
        "qos009-port-map",
        "QOS009",
        [port(leaf(dscp_to_tc=SMALL_MAP), "Ethernet2", tc_to_queue={3: 3})],
        [("leaf01", "interface Ethernet2")],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_rule(case: Case) -> None:
    assert found(case) == sorted(case.expect)


SKIPS: list[tuple[Case, set[str]]] = [
    (Case("qos001-unknown", "QOS001", [leaf(trust=None)], [], LINKS2), {"leaf01"}),
    (Case("qos004-host", "QOS004", [host()], [], LINK, ROCE_INTENT), {"gpu01"}),
    (Case("qos004-no-cnp", "QOS004", [leaf()], [], LINKS2, cnp_intent(remove=True)), {"leaf01"}),
    (Case("qos008-eos", "QOS008", [leaf()], []), {"leaf01"}),
    (Case("qos008-nothing-lossless", "QOS008", [leaf(pfc=None)], []), set()),
    (Case("qos008-sonic", "QOS008", [platform(leaf(), "sonic")], []), set()),
]


@pytest.mark.parametrize("case, devices", SKIPS, ids=[c.id for c, _ in SKIPS])
def test_skips(case: Case, devices: set[str]) -> None:
    assert run(case)[1].skipped_on(case.rule) == devices


def test_qos001_port_line_in_profiled_port() -> None:
    state = profiled(leaf(), trust=Trust.DSCP, sources={"trust": at(11)})
    ether2 = state.interfaces["Ethernet2"]
    ether2.mark("", at(30))
    assert ether2.qos is not None
    ether2.qos.trust = Trust.PCP
    ether2.qos.mark("trust", at(33))
    (finding,) = run(Case("p", "QOS001", [state], [], LINKS2))[0]
    assert (finding.object, finding.path) == (
        "interface Ethernet2",
        "interfaces.Ethernet2.qos.trust",
    )
    assert finding.source == at(33)


def test_qos005_points_at_first_reference() -> None:
    refs = (
        ("qos-profile", "X", "interface Ethernet1"),
        ("qos-profile", "X", "interface Ethernet2"),
    )
    (finding,) = run(Case("r", "QOS005", [objects(refs=refs)], []))[0]
    assert finding.source == at(100)
    assert "interface Ethernet1, interface Ethernet2" in finding.message


def test_qos007_messages() -> None:
    findings = run(Case("w", "QOS007", [leaf(queues=sched(q0=60, q3=0, q5=50))], []))[0]
    assert sorted(f.path for f in findings) == ["qos.queues", "qos.queues.3.weight"]
    assert any("110%" in f.message for f in findings)


def test_qos008_pg_paths() -> None:
    state = leaf(tc_to_pg={3: 4}, buffers=buffers(pg4=PgBuffer(headroom_bytes=0)))
    (finding,) = run(Case("b", "QOS008", [state], []))[0]
    assert finding.path == "qos.buffers.priority_groups.4"
