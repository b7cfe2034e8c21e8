"""Data table for the fabric-wide consistency rules (FAB001-FAB004)."""

from __future__ import annotations

from typing import Any

import pytest

from fabriclint.models.state import (
    DeviceState,
    EcnConfig,
    PfcConfig,
    PfcWatchdog,
    QosConfig,
    QueueConfig,
    SchedulerMode,
)
from tests.rules.harness import ROCE_INTENT, Case, found, run_case, switch
from tests.rules.hosts import host, nic_qos, roce_intent, skipped, with_port, with_state

# A small pod: two leaves under one spine, one GPU host under each leaf.
POD_LINKS = [
    ("leaf01:Ethernet49", "spine01:Ethernet1"),
    ("leaf02:Ethernet49", "spine01:Ethernet2"),
    ("gpu01:ens1np0", "leaf01:Ethernet1"),
    ("gpu02:ens1np0", "leaf02:Ethernet1"),
]
LEAF_PORTS = {"Ethernet1": 9214, "Ethernet49": 9214}
SPINE_PORTS = {"Ethernet1": 9214, "Ethernet2": 9214, "Ethernet3": 9214}


def leaf(name: str, **qos: Any) -> DeviceState:
    """A clean leaf with a host port and an uplink; `qos` overrides device-wide QoS fields."""
    return switch(name, dict(LEAF_PORTS), **qos)


def pod(leaf02: DeviceState | None = None, gpu02: DeviceState | None = None) -> list[DeviceState]:
    """The clean pod, with leaf02 and/or gpu02 replaced."""
    return [
        leaf("leaf01"),
        leaf02 or leaf("leaf02"),
        switch("spine01", {"Ethernet1": 9214, "Ethernet2": 9214}, role="spine"),
        host("gpu01"),
        gpu02 or host("gpu02"),
    ]


def dscp_map(**changes: int) -> dict[int, int]:
    """The clean DSCP -> TC map with some entries changed (d26=4 maps DSCP 26 to TC 4)."""
    base = {d: d // 8 for d in range(64)} | {26: 3, 48: 6}
    return base | {int(key[1:]): value for key, value in changes.items()}


def host_map(**changes: int) -> DeviceState:
    """gpu02 whose NIC's dscp2prio has some entries changed."""
    qos = nic_qos()
    qos.dscp_to_tc = dscp_map(**changes)
    return with_port(host("gpu02"), "ens1np0", qos=qos)


def queues(ecn_min: int = 150000, weight: float = 50) -> dict[int, QueueConfig]:
    """The clean RoCE/CNP queues with the RoCE queue's ECN minimum or weight changed."""
    return {
        3: QueueConfig(
            queue=3,
            scheduler=SchedulerMode.DWRR,
            weight=weight,
            ecn=EcnConfig(min_bytes=ecn_min, max_bytes=1500000, probability_pct=100),
        ),
        6: QueueConfig(queue=6, scheduler=SchedulerMode.STRICT),
    }


def pfc(*priorities: int, watchdog: bool = True, detection: float = 200) -> PfcConfig:
    """PFC on `priorities` with a watchdog (on/off, detection time)."""
    dog = PfcWatchdog(enabled=watchdog, detection_ms=detection, restoration_ms=400)
    return PfcConfig(enabled=True, priorities=list(priorities), watchdog=dog)


def leaves(leaf03: DeviceState | None = None) -> list[DeviceState]:
    """Three leaves of one role, the third replaceable, plus a spine and a host."""
    return [
        leaf("leaf01"),
        leaf("leaf02"),
        leaf03 or leaf("leaf03"),
        switch("spine01", SPINE_PORTS, role="spine", pfc=pfc(3, watchdog=False)),
        with_port(host("gpu01"), "ens1np0", qos=QosConfig(pfc=pfc(3, watchdog=False))),
    ]


LEAF_LINKS = [(f"leaf0{i}:Ethernet49", f"spine01:Ethernet{i}") for i in (1, 2, 3)]


def versions(
    leaf03: str | None, spine: str = "4.31.2F", host_os: str = "5.15"
) -> list[DeviceState]:
    """leaf01/leaf02 on 4.31.2F, leaf03 on `leaf03`, a spine and a host."""
    return [
        with_state(leaf("leaf01"), os_version="4.31.2F"),
        with_state(leaf("leaf02"), os_version="4.31.2F"),
        with_state(leaf("leaf03"), os_version=leaf03),
        with_state(switch("spine01", role="spine"), os_version=spine),
        with_state(host("gpu01"), os_version=host_os),
    ]


PORT_OVERRIDE = QosConfig(dscp_to_tc=dscp_map(d26=4))

CASES: list[Case] = [
    # ---- FAB001 dscp-map-inconsistent
    Case("fab001-clean", "FAB001", pod(), [], links=POD_LINKS, intent=ROCE_INTENT),
    Case(
        "fab001-tie-broken-by-intent",
        "FAB001",
        [leaf("leaf01"), leaf("leaf02", dscp_to_tc={26: 4, 48: 6})],
        [("leaf02", "qos")],
        links=[("leaf01:Ethernet49", "leaf02:Ethernet49")],
        intent=ROCE_INTENT,
    ),
    Case(
        "fab001-leaf-maps-roce-elsewhere",
        "FAB001",
        pod(leaf02=leaf("leaf02", dscp_to_tc=dscp_map(d26=4))),
        [("leaf02", "qos")],
        links=POD_LINKS,
        intent=ROCE_INTENT,
    ),
    Case(
        "fab001-host-maps-cnp-elsewhere",
        "FAB001",
        pod(gpu02=host_map(d48=5)),
        [("gpu02", "qos")],
        links=POD_LINKS,
        intent=ROCE_INTENT,
    ),
    Case(
        "fab001-per-port-override",
        "FAB001",
        pod(leaf02=with_port(leaf("leaf02"), "Ethernet49", qos=PORT_OVERRIDE)),
        [("leaf02", "qos")],
        links=POD_LINKS,
        intent=ROCE_INTENT,
    ),
    Case(
        "fab001-roce-and-cnp-one-finding",
        "FAB001",
        pod(leaf02=leaf("leaf02", dscp_to_tc=dscp_map(d26=4, d48=5))),
        [("leaf02", "qos")],
        links=POD_LINKS,
        intent=ROCE_INTENT,
    ),
    Case(
        "fab001-tc-to-priority-remap",
        "FAB001",
        pod(leaf02=leaf("leaf02", tc_to_priority={3: 4})),
        [("leaf02", "qos")],
        links=POD_LINKS,
        intent=ROCE_INTENT,
    ),
    Case(
        "fab001-uncabled-device-skipped",
        "FAB001",
        [*pod(), leaf("leaf03", dscp_to_tc=dscp_map(d26=4))],
        [],
        links=POD_LINKS,
        intent=ROCE_INTENT,
    ),
    Case(
        "fab001-no-intent-skips",
        "FAB001",
        pod(leaf02=leaf("leaf02", dscp_to_tc=dscp_map(d26=4))),
        [],
        links=POD_LINKS,
    ),
    Case(
        "fab001-no-cnp-class-checks-roce-and-skips",
        "FAB001",
        pod(leaf02=leaf("leaf02", dscp_to_tc=dscp_map(d26=4))),
        [("leaf02", "qos")],
        links=POD_LINKS,
        intent=roce_intent(cnp=None),
    ),
    Case(
        "fab001-host-map-unknown-skips",
        "FAB001",
        pod(gpu02=with_port(host("gpu02"), "ens1np0", qos=QosConfig())),
        [],
        links=POD_LINKS,
        intent=ROCE_INTENT,
    ),
    # ---- FAB002 lossless-set-inconsistent
    Case("fab002-clean", "FAB002", pod(), [], links=POD_LINKS),
    Case(
        "fab002-host-extra-priority",
        "FAB002",
        pod(gpu02=host("gpu02", pfc=(3, 4))),
        [("gpu02", "qos")],
        links=POD_LINKS,
    ),
    Case(
        "fab002-switch-without-pfc",
        "FAB002",
        pod(leaf02=leaf("leaf02", pfc=None)),
        [("leaf02", "qos")],
        links=POD_LINKS,
    ),
    Case(
        "fab002-port-override",
        "FAB002",
        pod(leaf02=with_port(leaf("leaf02"), "Ethernet1", qos=QosConfig(pfc=pfc(3, 4)))),
        [("leaf02", "qos")],
        links=POD_LINKS,
    ),
    Case(
        "fab002-host-pfc-unknown-skips",
        "FAB002",
        pod(gpu02=host("gpu02", pfc=None)),
        [],
        links=POD_LINKS,
    ),
    Case(
        "fab002-infiniband-host-not-on-roce-path",
        "FAB002",
        pod(gpu02=host("gpu02", pfc=(3, 4), link_layer="InfiniBand")),
        [],
        links=POD_LINKS,
    ),
    Case(
        "fab002-one-against-one-is-no-majority",
        "FAB002",
        [leaf("leaf01"), leaf("leaf02", pfc=pfc(3, 4))],
        [],
        links=[("leaf01:Ethernet49", "leaf02:Ethernet49")],
    ),
    Case(
        "fab002-even-split-is-no-majority",
        "FAB002",
        [
            leaf("leaf01"),
            leaf("leaf02", pfc=pfc(3, 4)),
            leaf("leaf03", pfc=pfc(3, 4)),
            leaf("leaf04"),
        ],
        [],
        links=[(f"leaf0{i}:Ethernet49", f"leaf0{i + 1}:Ethernet1") for i in (1, 3)],
    ),
    # ---- FAB003 role-config-divergent
    Case("fab003-clean", "FAB003", leaves(), [], links=LEAF_LINKS, intent=ROCE_INTENT),
    Case(
        "fab003-watchdog-off",
        "FAB003",
        leaves(leaf("leaf03", pfc=pfc(3, watchdog=False))),
        [("leaf03", "qos")],
        links=LEAF_LINKS,
        intent=ROCE_INTENT,
    ),
    Case(
        "fab003-watchdog-timer",
        "FAB003",
        leaves(leaf("leaf03", pfc=pfc(3, detection=100))),
        [("leaf03", "qos")],
        links=LEAF_LINKS,
        intent=ROCE_INTENT,
    ),
    Case(
        "fab003-ecn-threshold",
        "FAB003",
        leaves(leaf("leaf03", queues=queues(ecn_min=100000))),
        [("leaf03", "qos")],
        links=LEAF_LINKS,
        intent=ROCE_INTENT,
    ),
    Case(
        "fab003-ecn-not-compared-when-deselected",
        "FAB003",
        leaves(leaf("leaf03", queues=queues(ecn_min=100000))),
        [],
        links=LEAF_LINKS,
        intent=ROCE_INTENT,
        options={"aspects": ["scheduler", "watchdog"]},
    ),
    Case(
        "fab003-scheduler-weight",
        "FAB003",
        leaves(leaf("leaf03", queues=queues(weight=30))),
        [("leaf03", "qos")],
        links=LEAF_LINKS,
        intent=ROCE_INTENT,
    ),
    Case(
        "fab003-two-aspects-one-finding",
        "FAB003",
        leaves(leaf("leaf03", queues=queues(weight=30), pfc=pfc(3, watchdog=False))),
        [("leaf03", "qos")],
        links=LEAF_LINKS,
        intent=ROCE_INTENT,
    ),
    Case(
        "fab003-per-port-override",
        "FAB003",
        leaves(with_port(leaf("leaf03"), "Ethernet49", qos=QosConfig(pfc=pfc(3, watchdog=False)))),
        [("leaf03", "qos")],
        links=LEAF_LINKS,
        intent=ROCE_INTENT,
    ),
    Case(
        "fab003-no-intent-compares-watchdog-only",
        "FAB003",
        leaves(leaf("leaf03", queues=queues(weight=30), pfc=pfc(3, watchdog=False))),
        [("leaf03", "qos")],
        links=LEAF_LINKS,
    ),
    Case(
        "fab003-role-of-two-is-no-majority",
        "FAB003",
        leaves(leaf("leaf03", pfc=pfc(3, watchdog=False)))[1:],
        [],
        links=LEAF_LINKS[1:],
        intent=ROCE_INTENT,
    ),
    Case(
        "fab003-no-intent-skips-ecn",
        "FAB003",
        leaves(leaf("leaf03", queues=queues(ecn_min=100000))),
        [],
        links=LEAF_LINKS,
    ),
    # ---- FAB004 os-version-skew
    Case("fab004-clean", "FAB004", versions("4.31.2F"), []),
    Case("fab004-one-leaf-behind", "FAB004", versions("4.30.1F"), [("leaf03", "device")]),
    Case(
        "fab004-majority-beats-newest",
        "FAB004",
        versions("4.32.0F"),
        [("leaf03", "device")],
    ),
    Case("fab004-roles-compared-separately", "FAB004", versions("4.31.2F", spine="4.29.0F"), []),
    Case("fab004-hosts-not-compared", "FAB004", versions("4.31.2F", host_os="6.8"), []),
    Case("fab004-version-unknown-skips", "FAB004", versions(None), []),
    Case(
        "fab004-tie-reports-both-sides",
        "FAB004",
        [
            with_state(leaf("leaf01"), os_version="4.9.0F"),
            with_state(leaf("leaf02"), os_version="4.31.2F"),
        ],
        [("leaf01", "device"), ("leaf02", "device")],
    ),
]


def messages(case: Case) -> list[str]:
    """The messages of the case's findings."""
    return [f.message for f in run_case(case)]


def test_fab003_port_difference_inside_one_switch_is_not_counted_as_the_majority() -> None:
    leaf03 = with_port(leaf("leaf03"), "Ethernet49", qos=QosConfig(pfc=pfc(3, watchdog=False)))
    links = [*LEAF_LINKS, ("gpu01:ens1np0", "leaf03:Ethernet1")]
    [text] = messages(Case("x", "FAB003", leaves(leaf03), [], links=links, intent=ROCE_INTENT))
    assert "watchdog off on Ethernet49" in text
    assert "2 of 3 leaf switches have watchdog on" in text and "on every port" in text
    assert "3 of 3" not in text


def test_fab003_unclassified_roce_never_prints_none() -> None:
    unmapped = {d: 0 for d in range(64) if d != 26} | {48: 6}
    case = Case("x", "FAB003", leaves(leaf("leaf03", dscp_to_tc=unmapped)), [], links=LEAF_LINKS)
    case.intent = ROCE_INTENT
    [text] = messages(case)
    assert "RoCE unclassified" in text and "None" not in text


ALL_POD = {"leaf01", "leaf02", "spine01", "gpu01", "gpu02"}
ALL_LEAVES = {"leaf01", "leaf02", "leaf03"}

SKIPPED: dict[str, set[str]] = {
    "fab001-no-intent-skips": ALL_POD,
    "fab001-no-cnp-class-checks-roce-and-skips": ALL_POD,
    "fab001-host-map-unknown-skips": {"gpu02"},
    "fab001-uncabled-device-skipped": {"leaf03"},
    "fab002-host-pfc-unknown-skips": {"gpu02"},
    "fab003-no-intent-compares-watchdog-only": ALL_LEAVES | {"spine01"},
    "fab003-no-intent-skips-ecn": ALL_LEAVES | {"spine01"},
    "fab004-version-unknown-skips": {"leaf03"},
}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_fab_rules(case: Case) -> None:
    assert found(case) == sorted(case.expect)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_fab_coverage(case: Case) -> None:
    assert skipped(case) == SKIPPED.get(case.id, set())
