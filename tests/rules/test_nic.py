"""Data table for the NIC rules (NIC001-NIC006)."""

from __future__ import annotations

import pytest

from fabriclint.models.state import DeviceState, PfcConfig, QosConfig
from tests.rules.harness import ROCE_INTENT, Case, found, switch
from tests.rules.hosts import host, roce_intent, skipped, with_nic, with_port, without_nic

TO_LEAF = [("gpu01:ens1np0", "leaf01:Ethernet1")]
TWO_NICS = [*TO_LEAF, ("gpu01:ens2np0", "leaf01:Ethernet2")]
NIC1 = ("gpu01", "interface ens1np0")
NIC2 = ("gpu01", "interface ens2np0")


def leaf() -> DeviceState:
    """leaf01 with Ethernet1 and Ethernet2, PFC on 3."""
    return switch("leaf01", {"Ethernet1": 9214, "Ethernet2": 9214})


def gpus(*names: str) -> list[DeviceState]:
    """Clean hosts (cable them with gpu_links)."""
    return [host(name) for name in names]


def gpu_links(*names: str) -> list[tuple[str, str]]:
    """One cable per host, to leaf01:Ethernet<n>."""
    return [(f"{name}:ens1np0", f"leaf01:Ethernet{i}") for i, name in enumerate(names, 1)]


CASES: list[Case] = [
    # ---- NIC001 nic-pfc-mismatch
    Case("nic001-clean", "NIC001", [leaf(), host()], [], links=TO_LEAF),
    Case("nic001-nic-extra-priority", "NIC001", [leaf(), host(pfc=(3, 4))], [NIC1], links=TO_LEAF),
    Case("nic001-nic-pfc-off", "NIC001", [leaf(), host(pfc=())], [NIC1], links=TO_LEAF),
    Case(
        "nic001-switch-port-override",
        "NIC001",
        [
            with_port(
                leaf(), "Ethernet2", qos=QosConfig(pfc=PfcConfig(enabled=True, priorities=[4]))
            ),
            host(netdevs=("ens1np0", "ens2np0")),
        ],
        [NIC2],
        links=TWO_NICS,
    ),
    Case(
        "nic001-switch-without-pfc",
        "NIC001",
        [switch("leaf01", pfc=None), host()],
        [NIC1],
        links=TO_LEAF,
    ),
    Case(
        "nic001-peer-not-collected-uses-intent",
        "NIC001",
        [host(pfc=(3, 4))],
        [NIC1],
        links=TO_LEAF,
        intent=ROCE_INTENT,
    ),
    Case(
        "nic001-peer-not-collected-intent-agrees",
        "NIC001",
        [host()],
        [],
        links=TO_LEAF,
        intent=ROCE_INTENT,
    ),
    Case("nic001-no-peer-no-intent-skips", "NIC001", [host()], [], links=TO_LEAF),
    Case(
        "nic001-nic-pfc-unknown-skips",
        "NIC001",
        [leaf(), host(pfc=None)],
        [],
        links=TO_LEAF,
    ),
    Case(
        "nic001-infiniband-port-ignored",
        "NIC001",
        [leaf(), host(pfc=(3, 4), link_layer="InfiniBand")],
        [],
        links=TO_LEAF,
    ),
    Case(
        "nic001-uncabled-port-ignored",
        "NIC001",
        [leaf(), with_port(host(netdevs=("ens1np0", "eno1")), "eno1", qos=QosConfig())],
        [],
        links=TO_LEAF,
    ),
    # ---- NIC002 nic-dcqcn-disabled
    Case("nic002-clean", "NIC002", [host()], [], links=TO_LEAF, intent=ROCE_INTENT),
    Case(
        "nic002-rp-off",
        "NIC002",
        [with_nic(host(), "ens1np0", ecn_rp={3: False})],
        [NIC1],
        links=TO_LEAF,
        intent=ROCE_INTENT,
    ),
    Case(
        "nic002-both-off-one-finding",
        "NIC002",
        [with_nic(host(), "ens1np0", ecn_np={3: False}, ecn_rp={3: False})],
        [NIC1],
        links=TO_LEAF,
        intent=ROCE_INTENT,
    ),
    Case(
        "nic002-off-on-another-priority",
        "NIC002",
        [with_nic(host(), "ens1np0", ecn_np={3: True, 4: False}, ecn_rp={3: True, 4: False})],
        [],
        links=TO_LEAF,
        intent=ROCE_INTENT,
    ),
    Case(
        "nic002-np-off-rp-unknown-reports-and-skips",
        "NIC002",
        [with_nic(host(), "ens1np0", ecn_np={3: False}, ecn_rp={})],
        [NIC1],
        links=TO_LEAF,
        intent=ROCE_INTENT,
    ),
    Case(
        "nic002-ecn-not-collected-skips",
        "NIC002",
        [with_nic(host(), "ens1np0", ecn_np={}, ecn_rp={})],
        [],
        links=TO_LEAF,
        intent=ROCE_INTENT,
    ),
    Case("nic002-no-intent-skips", "NIC002", [host()], [], links=TO_LEAF),
    Case(
        "nic002-no-rdma-facts-skips",
        "NIC002",
        [without_nic(host(), "ens1np0")],
        [],
        links=TO_LEAF,
        intent=ROCE_INTENT,
    ),
    # ---- NIC003 nic-cnp-mismatch
    Case("nic003-clean", "NIC003", [host()], [], links=TO_LEAF, intent=ROCE_INTENT),
    Case(
        "nic003-dscp",
        "NIC003",
        [host(cnp_dscp=46)],
        [NIC1],
        links=TO_LEAF,
        intent=ROCE_INTENT,
    ),
    Case(
        "nic003-priority",
        "NIC003",
        [with_nic(host(netdevs=("ens1np0", "ens2np0")), "ens2np0", cnp_priority=7)],
        [NIC2],
        links=TWO_NICS,
        intent=ROCE_INTENT,
    ),
    Case(
        "nic003-priority-unknown-skips",
        "NIC003",
        [host(cnp_priority=None)],
        [],
        links=TO_LEAF,
        intent=ROCE_INTENT,
    ),
    Case(
        "nic003-dscp-wrong-priority-unknown",
        "NIC003",
        [host(cnp_dscp=46, cnp_priority=None)],
        [NIC1],
        links=TO_LEAF,
        intent=ROCE_INTENT,
    ),
    Case(
        "nic003-no-cnp-class-skips",
        "NIC003",
        [host(cnp_dscp=46)],
        [],
        links=TO_LEAF,
        intent=roce_intent(cnp=None),
    ),
    # ---- NIC004 nic-roce-tos-mismatch
    Case("nic004-clean-106", "NIC004", [host()], [], links=TO_LEAF, intent=ROCE_INTENT),
    Case(
        "nic004-tos-0",
        "NIC004",
        [host(roce_tos=0)],
        [NIC1],
        links=TO_LEAF,
        intent=ROCE_INTENT,
    ),
    Case(
        "nic004-dscp-24-ect",
        "NIC004",
        [host(roce_tos=98)],
        [NIC1],
        links=TO_LEAF,
        intent=ROCE_INTENT,
    ),
    Case(
        "nic004-not-ect-passes-by-default",
        "NIC004",
        [host(roce_tos=104)],
        [],
        links=TO_LEAF,
        intent=ROCE_INTENT,
    ),
    Case(
        "nic004-not-ect-with-require-ect",
        "NIC004",
        [host(roce_tos=104)],
        [NIC1],
        links=TO_LEAF,
        intent=ROCE_INTENT,
        options={"require_ect": True},
    ),
    Case(
        "nic004-second-roce-dscp",
        "NIC004",
        [host(roce_tos=138)],
        [],
        links=TO_LEAF,
        intent=roce_intent(roce={"dscp": [26, 34], "priority": 3}),
    ),
    Case(
        "nic004-tos-unknown-skips",
        "NIC004",
        [host(roce_tos=None)],
        [],
        links=TO_LEAF,
        intent=ROCE_INTENT,
    ),
    Case(
        "nic004-infiniband-ignored",
        "NIC004",
        [host(roce_tos=None, link_layer="InfiniBand")],
        [],
        links=TO_LEAF,
        intent=ROCE_INTENT,
    ),
    Case("nic004-no-intent-skips", "NIC004", [host(roce_tos=0)], [], links=TO_LEAF),
    # ---- NIC005 nic-port-down
    Case("nic005-clean", "NIC005", [host()], [], links=TO_LEAF),
    Case(
        "nic005-ibstat-words-clean",
        "NIC005",
        [host(state="Active", phys_state="LinkUp")],
        [],
        links=TO_LEAF,
    ),
    Case(
        "nic005-devinfo-words-clean",
        "NIC005",
        [host(state="PORT_ACTIVE (4)", phys_state="LINK_UP (5)")],
        [],
        links=TO_LEAF,
    ),
    Case(
        "nic005-port-down",
        "NIC005",
        [host(state="PORT_DOWN", phys_state="POLLING")],
        [NIC1],
        links=TO_LEAF,
    ),
    Case(
        "nic005-phys-disabled",
        "NIC005",
        [host(phys_state="Disabled")],
        [NIC1],
        links=TO_LEAF,
    ),
    Case(
        "nic005-slower-than-same-model",
        "NIC005",
        [
            with_nic(host("gpu01"), "ens1np0", rate_gbps=200.0, width="2X"),
            host("gpu02"),
        ],
        [NIC1],
        links=gpu_links("gpu01", "gpu02"),
    ),
    Case(
        "nic005-other-model-may-be-slower",
        "NIC005",
        [host("gpu01", model="MT4125", rate_gbps=100.0), host("gpu02")],
        [],
        links=gpu_links("gpu01", "gpu02"),
    ),
    Case(
        "nic005-down-port-not-also-slow",
        "NIC005",
        [host("gpu01", state="PORT_DOWN", rate_gbps=10.0), host("gpu02")],
        [NIC1],
        links=gpu_links("gpu01", "gpu02"),
    ),
    Case(
        "nic005-state-unknown-skips",
        "NIC005",
        [host(state=None)],
        [],
        links=TO_LEAF,
    ),
    Case(
        "nic005-down-though-state-unknown",
        "NIC005",
        [host(state=None, phys_state="Polling")],
        [NIC1],
        links=TO_LEAF,
    ),
    Case(
        "nic005-rate-unknown-skips",
        "NIC005",
        [host("gpu01", rate_gbps=None), host("gpu02")],
        [],
        links=gpu_links("gpu01", "gpu02"),
    ),
    Case(
        "nic005-infiniband-is-ib010s",
        "NIC005",
        [host(state="Down", link_layer="InfiniBand")],
        [],
        links=TO_LEAF,
    ),
    # ---- NIC006 nic-firmware-skew
    Case(
        "nic006-clean",
        "NIC006",
        gpus("gpu01", "gpu02", "gpu03"),
        [],
        links=gpu_links("gpu01", "gpu02", "gpu03"),
    ),
    Case(
        "nic006-one-host-behind",
        "NIC006",
        [*gpus("gpu01", "gpu02"), host("gpu03", firmware="28.38.1000")],
        [("gpu03", "interface ens1np0")],
        links=gpu_links("gpu01", "gpu02", "gpu03"),
    ),
    Case(
        "nic006-second-nic-behind-reported-once",
        "NIC006",
        [
            *gpus("gpu01", "gpu02"),
            with_nic(
                host("gpu03", netdevs=("ens1np0", "ens2np0")),
                "ens2np0",
                firmware="28.38.1000",
                driver="23.10-0.5.5",
            ),
        ],
        [("gpu03", "interface ens2np0")],
        links=[*gpu_links("gpu01", "gpu02", "gpu03"), ("gpu03:ens2np0", "leaf01:Ethernet9")],
        options={"components": ["firmware", "driver"]},
    ),
    Case(
        "nic006-driver-skew-when-selected",
        "NIC006",
        [*gpus("gpu01", "gpu02"), host("gpu03", driver="23.10-0.5.5")],
        [("gpu03", "interface ens1np0")],
        links=gpu_links("gpu01", "gpu02", "gpu03"),
        options={"components": ["firmware", "driver"]},
    ),
    Case(
        "nic006-driver-not-compared-by-default",
        "NIC006",
        [*gpus("gpu01", "gpu02"), host("gpu03", driver="23.10-0.5.5")],
        [],
        links=gpu_links("gpu01", "gpu02", "gpu03"),
    ),
    Case(
        "nic006-driver-unknown-skips-when-selected",
        "NIC006",
        [*gpus("gpu01", "gpu02"), host("gpu03", driver=None)],
        [],
        links=gpu_links("gpu01", "gpu02", "gpu03"),
        options={"components": ["firmware", "driver"]},
    ),
    Case(
        "nic006-tie-reports-both-sides",
        "NIC006",
        [host("gpu01", firmware="28.9.1000"), host("gpu02", firmware="28.39.1002")],
        [("gpu01", "interface ens1np0"), ("gpu02", "interface ens1np0")],
        links=gpu_links("gpu01", "gpu02"),
    ),
    Case(
        "nic006-models-compared-separately",
        "NIC006",
        [*gpus("gpu01", "gpu02"), host("gpu03", model="MT4125", firmware="22.39.1002")],
        [],
        links=gpu_links("gpu01", "gpu02", "gpu03"),
    ),
    Case(
        "nic006-model-unknown-skips",
        "NIC006",
        [*gpus("gpu01", "gpu02"), host("gpu03", model=None, firmware="custom-build")],
        [],
        links=gpu_links("gpu01", "gpu02", "gpu03"),
    ),
    Case(
        # no model shown: firmware 28.x places it among the ConnectX-7s (MT4129)
        "nic006-model-from-firmware-major",
        "NIC006",
        [*gpus("gpu01", "gpu02"), host("gpu03", model=None, firmware="28.38.1000")],
        [("gpu03", "interface ens1np0")],
        links=gpu_links("gpu01", "gpu02", "gpu03"),
    ),
    Case(
        "nic006-board-id-and-part-id-are-one-model",
        "NIC006",
        [
            *gpus("gpu01"),
            host("gpu02", model="MT_0000000838"),
            host("gpu03", firmware="28.38.1000"),
        ],
        [("gpu03", "interface ens1np0")],
        links=gpu_links("gpu01", "gpu02", "gpu03"),
    ),
]

SKIPPED: dict[str, set[str]] = {
    "nic001-no-peer-no-intent-skips": {"gpu01"},
    "nic001-nic-pfc-unknown-skips": {"gpu01"},
    "nic002-np-off-rp-unknown-reports-and-skips": {"gpu01"},
    "nic002-ecn-not-collected-skips": {"gpu01"},
    "nic002-no-intent-skips": {"gpu01"},
    "nic002-no-rdma-facts-skips": {"gpu01"},
    "nic003-priority-unknown-skips": {"gpu01"},
    "nic003-dscp-wrong-priority-unknown": {"gpu01"},
    "nic003-no-cnp-class-skips": {"gpu01"},
    "nic004-tos-unknown-skips": {"gpu01"},
    "nic004-no-intent-skips": {"gpu01"},
    "nic005-state-unknown-skips": {"gpu01"},
    "nic005-rate-unknown-skips": {"gpu01"},
    "nic006-model-unknown-skips": {"gpu03"},
    "nic006-driver-unknown-skips-when-selected": {"gpu03"},
}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_nic_rules(case: Case) -> None:
    assert found(case) == sorted(case.expect)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_nic_coverage(case: Case) -> None:
    assert skipped(case) == SKIPPED.get(case.id, set())
