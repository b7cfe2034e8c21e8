"""Data table for the MTU rules (MTU001-MTU004)."""

from __future__ import annotations

import pytest

from fabriclint.models.state import DeviceState
from tests.rules.harness import ROCE_INTENT, Case, found, switch
from tests.rules.hosts import host, roce_intent, skipped, with_nic, with_port, without_nic

LEAF_SPINE = [("leaf01:Ethernet49", "spine01:Ethernet1")]
LEAF_HOST = [("leaf01:Ethernet1", "gpu01:ens1np0")]
HOST_LEAF = [("gpu01:ens1np0", "leaf01:Ethernet1")]
LS_LINK = "link leaf01:Ethernet49 - spine01:Ethernet1"


def leaf(mtu: int | None = 9214) -> DeviceState:
    """leaf01 with Ethernet1 (to a host) at 9214 and Ethernet49 (to a spine) at `mtu`."""
    return with_port(
        switch("leaf01", {"Ethernet1": 9214, "Ethernet49": 9214}), "Ethernet49", mtu=mtu
    )


def nxos_leaf() -> DeviceState:
    """leaf01 as an NX-OS switch, whose lossless classes could carry an MTU (none is set)."""
    return leaf().model_copy(update={"platform": "nxos"})


def class_mtu_leaf(class_mtu: int) -> DeviceState:
    """leaf01 whose lossless queue 3 carries a per-class MTU (as NX-OS network-qos has)."""
    state = leaf()
    assert state.qos.queues is not None
    state.qos.queues[3].mtu = class_mtu
    return state


CASES: list[Case] = [
    # ---- MTU001 link-mtu-mismatch
    Case(
        "mtu001-clean",
        "MTU001",
        [leaf(), switch("spine01", role="spine")],
        [],
        links=LEAF_SPINE,
    ),
    Case(
        "mtu001-mismatch",
        "MTU001",
        [leaf(), switch("spine01", {"Ethernet1": 1500}, role="spine")],
        [("leaf01", LS_LINK)],
        links=LEAF_SPINE,
    ),
    Case(
        "mtu001-mismatch-reported-on-first-end",
        "MTU001",
        [leaf(1500), switch("spine01", role="spine")],
        [("spine01", "link spine01:Ethernet1 - leaf01:Ethernet49")],
        links=[("spine01:Ethernet1", "leaf01:Ethernet49")],
    ),
    Case(
        "mtu001-host-end-is-mtu002s",
        "MTU001",
        [leaf(), host()],
        [],
        links=LEAF_HOST,
    ),
    Case(
        "mtu001-unknown-mtu-skips",
        "MTU001",
        [leaf(None), switch("spine01", {"Ethernet1": 1500}, role="spine")],
        [],
        links=LEAF_SPINE,
    ),
    Case(
        "mtu001-port-missing-from-state-skips",
        "MTU001",
        [leaf(), switch("spine01", {"Ethernet2": 1500}, role="spine")],
        [],
        links=LEAF_SPINE,
    ),
    Case(
        "mtu001-peer-not-collected",
        "MTU001",
        [leaf(1500)],
        [],
        links=LEAF_SPINE,
    ),
    # ---- MTU002 host-mtu-exceeds-switch
    Case("mtu002-clean", "MTU002", [leaf(), host()], [], links=LEAF_HOST),
    Case(
        "mtu002-host-first-in-plan",
        "MTU002",
        [switch("leaf01", {"Ethernet1": 1500}), host()],
        [("gpu01", "link gpu01:ens1np0 - leaf01:Ethernet1")],
        links=HOST_LEAF,
    ),
    Case(
        "mtu002-switch-first-in-plan",
        "MTU002",
        [switch("leaf01", {"Ethernet1": 1500}), host()],
        [("leaf01", "link leaf01:Ethernet1 - gpu01:ens1np0")],
        links=LEAF_HOST,
    ),
    Case(
        "mtu002-equal-ip-mtus-pass",
        "MTU002",
        [switch("leaf01", {"Ethernet1": 9000}), host()],
        [],
        links=LEAF_HOST,
    ),
    Case(
        "mtu002-overhead-option",
        "MTU002",
        [switch("leaf01", {"Ethernet1": 9000}), host()],
        [("leaf01", "link leaf01:Ethernet1 - gpu01:ens1np0")],
        links=LEAF_HOST,
        options={"l2_overhead": 4},
    ),
    Case(
        "mtu002-smaller-host-mtu-passes",
        "MTU002",
        [leaf(), host(mtu=1500)],
        [],
        links=LEAF_HOST,
    ),
    Case(
        "mtu002-switch-switch-is-mtu001s",
        "MTU002",
        [leaf(), switch("spine01", {"Ethernet1": 1500}, role="spine")],
        [],
        links=LEAF_SPINE,
    ),
    Case(
        "mtu002-unknown-host-mtu-skips",
        "MTU002",
        [switch("leaf01", {"Ethernet1": 1500}), host(mtu=None)],
        [],
        links=LEAF_HOST,
    ),
    # ---- MTU003 roce-mtu-too-small
    Case(
        "mtu003-clean",
        "MTU003",
        [host()],
        [],
        links=[("gpu01:ens1np0", "leaf01:Ethernet1")],
        intent=ROCE_INTENT,
    ),
    Case(
        "mtu003-1024",
        "MTU003",
        [host(active_mtu=1024)],
        [("gpu01", "interface ens1np0")],
        links=HOST_LEAF,
        intent=ROCE_INTENT,
    ),
    Case(
        "mtu003-intent-declares-smaller",
        "MTU003",
        [host(active_mtu=2048)],
        [],
        links=HOST_LEAF,
        intent=roce_intent(mtu={"roce": 2048}),
    ),
    Case(
        "mtu003-default-without-intent",
        "MTU003",
        [host(active_mtu=2048)],
        [("gpu01", "interface ens1np0")],
        links=HOST_LEAF,
    ),
    Case(
        "mtu003-option-without-intent",
        "MTU003",
        [host(active_mtu=2048)],
        [],
        links=HOST_LEAF,
        options={"min_mtu": 2048},
    ),
    Case(
        "mtu003-infiniband-port",
        "MTU003",
        [host(active_mtu=2048, link_layer="InfiniBand")],
        [("gpu01", "interface ens1np0")],
        links=HOST_LEAF,
    ),
    Case(
        "mtu003-uncabled-port-ignored",
        "MTU003",
        [with_nic(host(netdevs=("ens1np0", "eno1")), "eno1", active_mtu=1024)],
        [],
        links=HOST_LEAF,
    ),
    Case(
        "mtu003-unknown-active-mtu-skips",
        "MTU003",
        [host(active_mtu=None)],
        [],
        links=HOST_LEAF,
    ),
    Case(
        "mtu003-no-rdma-facts-skips",
        "MTU003",
        [without_nic(host(netdevs=("ens1np0", "ens2np0")), "ens2np0")],
        [],
        links=[*HOST_LEAF, ("gpu01:ens2np0", "leaf01:Ethernet2")],
    ),
    # ---- MTU004 lossless-class-mtu-smaller (per-class MTU: QueueConfig.mtu)
    Case(
        "mtu004-class-mtu-smaller",
        "MTU004",
        [class_mtu_leaf(1500)],
        [("leaf01", "queue 3")],
        links=LEAF_HOST,
    ),
    Case("mtu004-class-mtu-equal", "MTU004", [class_mtu_leaf(9214)], [], links=LEAF_HOST),
    Case(
        "mtu004-skipped-everywhere",
        "MTU004",
        [nxos_leaf(), with_port(host(), "ens1np0", mtu=1500)],
        [],
        links=LEAF_HOST,
    ),
    # EOS has no per-class MTU: nothing to evaluate, and no coverage gap either
    Case(
        "mtu004-eos-has-no-class-mtu",
        "MTU004",
        [leaf(), with_port(host(), "ens1np0", mtu=1500)],
        [],
        links=LEAF_HOST,
    ),
]

SKIPPED: dict[str, set[str]] = {
    "mtu001-unknown-mtu-skips": {"leaf01"},
    "mtu001-port-missing-from-state-skips": {"spine01"},
    "mtu002-unknown-host-mtu-skips": {"gpu01"},
    "mtu003-unknown-active-mtu-skips": {"gpu01"},
    "mtu003-no-rdma-facts-skips": {"gpu01"},
    "mtu004-skipped-everywhere": {"leaf01"},
}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_mtu_rules(case: Case) -> None:
    assert found(case) == sorted(case.expect)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_mtu_coverage(case: Case) -> None:
    assert skipped(case) == SKIPPED.get(case.id, set())
