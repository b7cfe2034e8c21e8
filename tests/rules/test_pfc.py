"""Data table for the PFC rules (PFC001-PFC008), plus the small builders the ECN/QOS tables share."""

from __future__ import annotations

from typing import Any

import pytest

from fabriclint.models.common import Source
from fabriclint.models.finding import Finding
from fabriclint.models.intent import Intent
from fabriclint.models.inventory import Device, Inventory, Link
from fabriclint.models.state import (
    Definition,
    DeviceState,
    Interface,
    PfcConfig,
    PfcWatchdog,
    QosConfig,
    RdmaPort,
    Trust,
)
from fabriclint.rules.base import Context
from fabriclint.rules.registry import BY_CODE
from tests.rules.harness import ROCE_INTENT, Case, found, roce_qos, switch

# ---- builders -----------------------------------------------------------------------------------

TWO = {"Ethernet1": 9214, "Ethernet2": 9214}
LINK = [("leaf01:Ethernet1", "gpu01:ens1np0")]
LINKS2 = [*LINK, ("leaf01:Ethernet2", "gpu02:ens1np0")]
CFG = "leaf01/show_running-config.txt"


def at(line: int) -> Source:
    """A line of leaf01's running-config."""
    return Source(file=CFG, line=line)


def host(name: str = "gpu01", netdev: str = "ens1np0", **qos: Any) -> DeviceState:
    """A ConnectX host: one RoCE netdev trusting DSCP, dscp2prio DSCP/8, PFC on 3; `qos` overrides."""
    fields: dict[str, Any] = {
        "trust": Trust.DSCP,
        "dscp_to_tc": {d: d // 8 for d in range(64)},
        "pfc": PfcConfig(enabled=True, priorities=[3]),
    }
    iface = Interface(name=netdev, mtu=9000, qos=QosConfig(**(fields | qos)))
    rdma = RdmaPort(netdev=netdev, hca="mlx5_0", link_layer="Ethernet")
    return DeviceState(
        name=name,
        platform="mlnx-host",
        role="host",
        interfaces={netdev: iface},
        rdma={netdev: rdma},
    )


def leaf(ports: dict[str, int] | None = None, **qos: Any) -> DeviceState:
    """leaf01 with Ethernet1 and Ethernet2 (routed, RoCE QoS device-wide); `qos` overrides."""
    return switch("leaf01", ports or TWO, **qos)


def port(state: DeviceState, name: str, **qos: Any) -> DeviceState:
    """`state` whose port `name` gets its own QoS override `qos` (the port is added if missing)."""
    iface = state.interfaces.setdefault(name, Interface(name=name, routed=True))
    iface.qos = QosConfig(**qos)
    return state


def profiled(state: DeviceState, profile: str = "ROCE", line: int = 10, **qos: Any) -> DeviceState:
    """`state` whose Ethernet ports all apply qos profile `profile` (defined at `line`)."""
    state.definitions.append(Definition(kind="qos-profile", name=profile, source=at(line)))
    for name in state.interfaces:
        port(state, name, profile=profile, **qos)
    return state


def pfc(*priorities: int, line: int | None = None, **fields: Any) -> PfcConfig:
    """PFC on `priorities`, written at `line`."""
    sources = {"priorities": at(line)} if line else {}
    return PfcConfig(enabled=True, priorities=list(priorities), sources=sources, **fields)


def watchdog(enabled: bool = True, detect: float = 200, restore: float = 400) -> PfcWatchdog:
    """A PFC watchdog."""
    return PfcWatchdog(enabled=enabled, detection_ms=detect, restoration_ms=restore)


def run(case: Case) -> tuple[list[Finding], Context]:
    """Run the case's rule as harness.run_case does, returning the context too."""
    inventory = Inventory(
        name="t",
        devices={
            s.name: Device.model_validate({"platform": s.platform, "role": s.role or "leaf"})
            for s in case.states
        },
        links=[Link(a=a, b=b) for a, b in case.links],
    )
    intent = Intent.model_validate(case.intent) if case.intent is not None else None
    ctx = Context(inventory=inventory, intent=intent, states={s.name: s for s in case.states})
    rule_cls = BY_CODE[case.rule]
    rule = rule_cls(rule_cls.options_model.model_validate(case.options))
    return list(rule.check(ctx)), ctx


def skips(case: Case) -> set[str]:
    """Devices the case's rule recorded as not evaluated (ctx.skip)."""
    return run(case)[1].skipped_on(case.rule)


def spine(**qos: Any) -> DeviceState:
    """spine01 with Ethernet1 (to leaf01:Ethernet2)."""
    return switch("spine01", role="spine", **qos)


# ---- the table ----------------------------------------------------------------------------------

SMALL_MAP = {0: 0, 26: 3, 48: 6}

CASES: list[Case] = [
    # PFC001 pfc-priority-unused
    Case("pfc001-clean", "PFC001", [leaf()], []),
    Case(
        "pfc001-device-unused",
        "PFC001",
        [leaf(dscp_to_tc=SMALL_MAP, pfc=pfc(3, 4))],
        [("leaf01", "qos")],
    ),
    Case(
        "pfc001-port-unused",
        "PFC001",
        [port(leaf(dscp_to_tc=SMALL_MAP), "Ethernet1", pfc=pfc(5))],
        [("leaf01", "interface Ethernet1")],
    ),
    Case(
        "pfc001-pcp-trust-uses-all",
        "PFC001",
        [leaf(trust=Trust.PCP, dscp_to_tc=SMALL_MAP, pfc=pfc(3, 4))],
        [],
    ),
    Case(
        "pfc001-pcp-map-uses-4",
        "PFC001",
        [leaf(dscp_to_tc=SMALL_MAP, pcp_to_tc={4: 4}, pfc=pfc(3, 4))],
        [],
    ),
    Case("pfc001-maps-unknown", "PFC001", [leaf(dscp_to_tc=None)], []),
    Case(
        "pfc001-host",
        "PFC001",
        [host(dscp_to_tc={26: 3}, pfc=pfc(3, 5))],
        [("gpu01", "interface ens1np0")],
    ),
    # PFC002 rdma-priority-not-lossless
    Case("pfc002-clean", "PFC002", [leaf(), host()], [], links=LINK, intent=ROCE_INTENT),
    Case(
        "pfc002-device-map-once",
        "PFC002",
        [leaf(dscp_to_tc={**SMALL_MAP, 26: 1})],
        [("leaf01", "qos")],
        links=LINKS2,
        intent=ROCE_INTENT,
    ),
    Case(
        "pfc002-unmapped",
        "PFC002",
        [leaf(dscp_to_tc={0: 0})],
        [("leaf01", "qos")],
        links=LINKS2,
        intent=ROCE_INTENT,
    ),
    Case(
        "pfc002-port-pfc",
        "PFC002",
        [port(leaf(), "Ethernet2", pfc=pfc(4))],
        [("leaf01", "interface Ethernet2")],
        links=LINKS2,
        intent=ROCE_INTENT,
    ),
    Case(
        "pfc002-profile-once",
        "PFC002",
        [profiled(leaf(), pfc=pfc(4, line=12))],
        [("leaf01", "qos-profile ROCE")],
        links=LINKS2,
        intent=ROCE_INTENT,
    ),
    Case(
        "pfc002-uncabled-port-ignored",
        "PFC002",
        [port(leaf(), "Management1", pfc=PfcConfig(enabled=False))],
        [],
        links=LINK,
        intent=ROCE_INTENT,
    ),
    Case(
        "pfc002-host",
        "PFC002",
        [host(pfc=pfc(4))],
        [("gpu01", "interface ens1np0")],
        links=LINK,
        intent=ROCE_INTENT,
    ),
    Case("pfc002-no-intent", "PFC002", [leaf(dscp_to_tc={26: 1})], [], links=LINK),
    # PFC003 too-many-lossless-priorities
    Case("pfc003-clean", "PFC003", [leaf(pfc=pfc(3, 4))], []),
    Case("pfc003-device", "PFC003", [leaf(pfc=pfc(2, 3, 4))], [("leaf01", "qos")]),
    Case("pfc003-option", "PFC003", [leaf(pfc=pfc(2, 3, 4))], [], options={"max_lossless": 3}),
    Case(
        "pfc003-host",
        "PFC003",
        [host(pfc=pfc(3, 4, 5))],
        [("gpu01", "interface ens1np0")],
    ),
    # PFC004 pfc-without-watchdog
    Case("pfc004-clean", "PFC004", [leaf()], [], links=LINKS2),
    Case(
        "pfc004-device-off-once",
        "PFC004",
        [leaf(pfc=roce_qos(watchdog=False).pfc)],
        [("leaf01", "qos")],
        links=LINKS2,
    ),
    Case(
        "pfc004-no-watchdog",
        "PFC004",
        [leaf(pfc=pfc(3))],
        [("leaf01", "qos")],
        links=LINKS2,
    ),
    Case(
        "pfc004-port-off",
        "PFC004",
        [port(leaf(), "Ethernet2", pfc=pfc(3, watchdog=watchdog(enabled=False)))],
        [("leaf01", "interface Ethernet2")],
        links=LINKS2,
    ),
    Case(
        "pfc004-port-inherits-device-watchdog",
        "PFC004",
        [port(leaf(), "Ethernet2", pfc=pfc(3))],
        [],
        links=LINKS2,
    ),
    Case(
        "pfc004-profile-without-watchdog",
        "PFC004",
        [profiled(leaf(pfc=None), pfc=pfc(3, line=12))],
        [("leaf01", "qos-profile ROCE")],
        links=LINKS2,
    ),
    Case("pfc004-host-not-checked", "PFC004", [host()], [], links=LINK),
    Case(
        "pfc004-uncabled-port-checked",
        "PFC004",
        [port(leaf(), "Ethernet2", pfc=pfc(5, watchdog=watchdog(enabled=False)))],
        [("leaf01", "interface Ethernet2")],
    ),
    # PFC005 pfc-port-unclassified
    Case("pfc005-clean", "PFC005", [leaf()], [], links=LINKS2),
    Case("pfc005-device-none", "PFC005", [leaf(trust=None)], [("leaf01", "qos")], links=LINKS2),
    Case(
        "pfc005-port-none",
        "PFC005",
        [port(leaf(), "Ethernet1", trust=Trust.NONE)],
        [("leaf01", "interface Ethernet1")],
        links=LINKS2,
    ),
    Case("pfc005-pfc-off", "PFC005", [leaf(trust=Trust.NONE, pfc=None)], [], links=LINKS2),
    Case(
        # a dangling network-qos class left PFC on with nothing lossless (PFC006 reports that)
        "pfc005-pfc-on-for-no-priority-still-reported",
        "PFC005",
        [leaf(trust=Trust.NONE, pfc=PfcConfig(enabled=True, priorities=[]))],
        [("leaf01", "qos")],
        links=LINKS2,
    ),
    Case(
        "pfc005-host",
        "PFC005",
        [host(trust=Trust.NONE)],
        [("gpu01", "interface ens1np0")],
        links=LINK,
    ),
    # PFC006 pfc-enabled-no-priority
    Case("pfc006-clean", "PFC006", [leaf()], []),
    Case("pfc006-device", "PFC006", [leaf(pfc=pfc())], [("leaf01", "qos")]),
    Case("pfc006-disabled", "PFC006", [leaf(pfc=PfcConfig(enabled=False))], []),
    Case(
        "pfc006-host",
        "PFC006",
        [host(pfc=pfc())],
        [("gpu01", "interface ens1np0")],
    ),
    # PFC007 pfc-link-asymmetric
    Case("pfc007-clean", "PFC007", [leaf(), host()], [], links=LINK),
    Case(
        "pfc007-nic",
        "PFC007",
        [leaf(), host(pfc=pfc(3, 4))],
        [("leaf01", "link leaf01:Ethernet1 - gpu01:ens1np0")],
        links=LINK,
    ),
    Case(
        "pfc007-switches",
        "PFC007",
        [leaf(), spine(pfc=pfc(3, 4))],
        [("leaf01", "link leaf01:Ethernet2 - spine01:Ethernet1")],
        links=[("leaf01:Ethernet2", "spine01:Ethernet1")],
    ),
    Case(
        "pfc007-port-override",
        "PFC007",
        [port(leaf(), "Ethernet1", pfc=PfcConfig(enabled=False)), host()],
        [("gpu01", "link gpu01:ens1np0 - leaf01:Ethernet1")],
        links=[("gpu01:ens1np0", "leaf01:Ethernet1")],
    ),
    Case(
        "pfc007-port-missing",
        "PFC007",
        [leaf(), host(pfc=pfc(4))],
        [],
        links=[("leaf01:Ethernet9", "gpu01:ens1np0")],
    ),
    # PFC008 pfc-watchdog-timers-invalid
    Case("pfc008-clean", "PFC008", [leaf()], []),
    Case(
        "pfc008-detection",
        "PFC008",
        [leaf(pfc=pfc(3, watchdog=watchdog(detect=5)))],
        [("leaf01", "qos")],
    ),
    Case(
        "pfc008-restoration-short",
        "PFC008",
        [leaf(pfc=pfc(3, watchdog=watchdog(detect=200, restore=100)))],
        [("leaf01", "qos")],
    ),
    Case(
        "pfc008-both",
        "PFC008",
        [leaf(pfc=pfc(3, watchdog=watchdog(detect=5000, restore=4000)))],
        [("leaf01", "qos"), ("leaf01", "qos")],
    ),
    Case(
        "pfc008-disabled-not-checked",
        "PFC008",
        [leaf(pfc=pfc(3, watchdog=watchdog(enabled=False, detect=5)))],
        [],
    ),
    Case(
        "pfc008-option",
        "PFC008",
        [leaf(pfc=pfc(3, watchdog=watchdog(detect=5)))],
        [],
        options={"default": {"detection_min_ms": 1}},
    ),
    Case(
        "pfc008-port",
        "PFC008",
        [port(leaf(), "Ethernet2", pfc=pfc(3, watchdog=watchdog(restore=70000)))],
        [("leaf01", "interface Ethernet2")],
    ),
]


def _sonic(detect: float) -> DeviceState:
    state = leaf(pfc=pfc(3, watchdog=watchdog(detect=detect, restore=max(detect, 400))))
    state.platform = "sonic"
    return state


CASES += [
    Case("pfc008-sonic-range", "PFC008", [_sonic(50)], [("leaf01", "qos")]),
    Case("pfc008-sonic-clean", "PFC008", [_sonic(200)], []),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_rule(case: Case) -> None:
    assert found(case) == sorted(case.expect)


# ---- coverage: missing data is a skip, never a silent pass --------------------------------------


def _no_nic_qos() -> DeviceState:
    """gpu01 whose mlnx_qos output was not collected."""
    state = host()
    state.interfaces["ens1np0"].qos = None
    return state


SKIPS: list[tuple[Case, set[str]]] = [
    (Case("pfc001-maps-unknown", "PFC001", [leaf(dscp_to_tc=None)], []), {"leaf01"}),
    (Case("pfc002-no-intent", "PFC002", [leaf()], [], links=LINK), {"leaf01"}),
    (
        Case("pfc002-map-unknown", "PFC002", [leaf(dscp_to_tc=None)], [], LINK, ROCE_INTENT),
        {"leaf01"},
    ),
    (Case("pfc002-uncabled", "PFC002", [leaf()], [], intent=ROCE_INTENT), {"leaf01"}),
    (
        Case("pfc007-port-missing", "PFC007", [leaf(), host()], [], [("leaf01:Eth9", "gpu01:x")]),
        {"leaf01", "gpu01"},
    ),
    (Case("pfc005-nic-qos-unknown", "PFC005", [_no_nic_qos()], [], LINK), {"gpu01"}),
    (Case("pfc002-clean", "PFC002", [leaf(), host()], [], LINK, ROCE_INTENT), set()),
    (Case("pfc004-host", "PFC004", [host()], [], LINK), set()),
]


@pytest.mark.parametrize("case, devices", SKIPS, ids=[c.id for c, _ in SKIPS])
def test_skips(case: Case, devices: set[str]) -> None:
    findings, ctx = run(case)
    assert findings == []
    assert ctx.skipped_on(case.rule) == devices


def test_infiniband_port_is_not_roce() -> None:
    ib = host(pfc=pfc(4))
    ib.rdma["ens1np0"].link_layer = "InfiniBand"
    case = Case("pfc002-ib", "PFC002", [ib], [], LINK, ROCE_INTENT)
    assert run(case)[0] == []
    assert skips(case) == set()


# ---- what the findings say ----------------------------------------------------------------------


def test_pfc002_map_finding_names_dscp_priority_and_ports() -> None:
    case = Case("m", "PFC002", [leaf(dscp_to_tc={**SMALL_MAP, 26: 1})], [], LINKS2, ROCE_INTENT)
    (finding,) = run(case)[0]
    assert finding.path == "qos.dscp_to_tc.26"
    assert finding.expected == 3 and finding.actual == 1
    assert "DSCP 26 maps to priority 1" in finding.message
    assert "Ethernet1, Ethernet2" in finding.message


def test_pfc002_pfc_finding_points_at_the_profile_line() -> None:
    state = profiled(leaf(), pfc=pfc(4, line=12))
    (finding,) = run(Case("m", "PFC002", [state], [], LINKS2, ROCE_INTENT))[0]
    assert finding.path == "profiles.ROCE.pfc.priorities"
    assert finding.source == at(12)
    assert finding.expected == [3, 4] and finding.actual == [4]


def test_port_line_inside_a_profile_port_is_reported_on_the_port() -> None:
    state = profiled(leaf(), pfc=pfc(3, line=12))
    state.interfaces["Ethernet2"].mark("", at(30))
    assert state.interfaces["Ethernet2"].qos is not None
    state.interfaces["Ethernet2"].qos.pfc = pfc(4, line=32)
    found_ = run(Case("m", "PFC002", [state], [], LINKS2, ROCE_INTENT))[0]
    assert [(f.object, f.path) for f in found_] == [
        ("interface Ethernet2", "interfaces.Ethernet2.qos.pfc.priorities")
    ]


def test_pfc007_finding_on_the_first_end() -> None:
    (finding,) = run(Case("m", "PFC007", [leaf(), host(pfc=pfc(3, 4))], [], LINK))[0]
    assert finding.path == "interfaces.Ethernet1.qos.pfc.priorities"
    assert finding.expected == [3, 4] and finding.actual == [3]
    assert "gpu01:ens1np0" in finding.message


def test_global_line_shared_by_ports_is_reported_once_device_wide() -> None:
    state = leaf({"Ethernet1": 9214, "Ethernet2": 9214, "Ethernet3": 9214})
    for number, iface in enumerate(state.interfaces.values()):
        iface.mark("", at(10 + 10 * number))  # Ethernet3's block is the last one before line 90
        dog = watchdog(detect=5)
        dog.mark("detection_ms", at(90))  # `... watchdog default timeout 0.005`, a global line
        port(state, iface.name, pfc=pfc(3, line=12 + 10 * number, watchdog=dog))
    findings = run(Case("g", "PFC008", [state], []))[0]
    assert [(f.object, f.path) for f in findings] == [("qos", "qos.pfc.watchdog.detection_ms")]
    assert findings[0].source == at(90)
