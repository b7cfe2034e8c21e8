"""NIC008: the RoCE ToS and CNP DSCP a ConnectX really sends with (defaults included), as the
switch port it is cabled to classifies them; judged where the intent declares no RoCE (or CNP)
class, since NIC003/NIC004 compare the NIC with a declared class."""

from __future__ import annotations

from typing import Any

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState, PfcConfig, Trust
from fabriclint.parsers import get_parser
from tests.rules.harness import ROCE_INTENT, Case, found, run_case, switch
from tests.rules.hosts import host, skipped
from tests.rules.test_nic_effective import collected_gpu01

LINK = [("leaf01:Ethernet1", "gpu01:ens1np0")]
PORT = [("gpu01", "interface ens1np0")]


def leaf(**dscp_to_tc: int) -> DeviceState:
    """leaf01 (RoCE DSCP 26 -> PFC priority 3 with ECN, 48 -> strict queue 6), `d<DSCP>=<tc>`
    remapped."""
    state = switch("leaf01")
    assert state.qos.dscp_to_tc is not None
    state.qos.dscp_to_tc.update({int(k[1:]): v for k, v in dscp_to_tc.items()})
    return state


def lossy_leaf() -> DeviceState:
    """leaf01 run lossy: no PFC, ECN on queue 3."""
    return switch("leaf01", pfc=PfcConfig(enabled=False))


def case(name: str, states: list[DeviceState], expect: list[Any], intent: Any = None) -> Case:
    return Case(name, "NIC008", states, expect, links=LINK, intent=intent)


CASES = [
    case("clean", [host(), leaf()], []),
    case("default-tos", [host(roce_tos=0), leaf()], PORT),
    case("default-tos-intent-is-nic004s", [host(roce_tos=0), leaf()], [], ROCE_INTENT),
    case("tos-106-but-switch-maps-26-to-0", [host(), leaf(d26=0)], PORT),
    case("lossy-switch-ecn-protects", [host(), lossy_leaf()], []),
    case("lossy-switch-default-tos", [host(roce_tos=0), lossy_leaf()], PORT),
    case("cnp-default-to-best-effort", [host(), leaf(d48=0)], PORT),
    case("cnp-on-lossless-priority", [host(), leaf(d48=3)], []),
    case("cnp-intent-is-nic003s", [host(), leaf(d48=0)], [], ROCE_INTENT),
]


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_rule(c: Case) -> None:
    assert found(c) == sorted(c.expect)


def test_default_tos_message_names_the_default_and_the_switch_port() -> None:
    (finding,) = run_case(case("m", [host(roce_tos=0), leaf()], []))
    assert "cma_roce_tos 0 (the driver default), DSCP 0" in finding.message
    assert "leaf01:Ethernet1 puts on priority 0" in finding.message
    assert finding.path == "rdma.ens1np0.roce_tos"


def test_cnp_message_names_the_default_dscp() -> None:
    (finding,) = run_case(case("m", [host(), leaf(d48=0)], []))
    assert "CNPs with DSCP 48 (the driver default)" in finding.message
    assert finding.actual == {"cnp_dscp": 48, "priority": 0, "queue": 0}


@pytest.mark.parametrize(
    ("states", "who"),
    [
        ([host(roce_tos=None), leaf()], {"gpu01"}),
        ([host(cnp_dscp=None), leaf()], {"gpu01"}),
        ([host(), switch("leaf01", trust=Trust.PCP)], {"gpu01"}),
        ([host(), switch("leaf01", {"Ethernet2": 9214})], {"gpu01"}),
    ],
    ids=["tos-not-collected", "cnp-not-collected", "switch-trusts-pcp", "switch-port-missing"],
)
def test_unknown_inputs_are_a_skip(states: list[DeviceState], who: set[str]) -> None:
    c = case("skip", states, [])
    assert found(c) == [] and skipped(c) == who


# ---- a real host (roce-pod's gpu01 as collected) behind an EOS leaf configured for RoCE only:
# DSCP 26 lossless with ECN, but no class for CNPs (48 falls into EOS's default map, TC 6) and
# tx-queue 6 left weighted -------------------------------------------------------------------------

EOS_LEAF = """\
hostname leaf01
qos map dscp 26 to traffic-class 3
!
qos profile ROCE
   qos trust dscp
   !
   tx-queue 3
      bandwidth percent 50
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 20
   !
   tx-queue 6
      no priority
      bandwidth percent 5
   !
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   priority-flow-control pause watchdog
!
interface Ethernet1/1
   description gpu01_ens1np0
   mtu 9214
   no switchport
   ip address 10.1.1.0/31
   service-profile ROCE
!
"""


def _eos(text: str) -> DeviceState:
    parser = get_parser("eos")
    assert parser is not None
    outputs = {"show running-config": RawOutput(text=text, file="leaf01/show_running-config.txt")}
    state = parser(RawDevice(name="leaf01", platform="eos", outputs=outputs))
    state.role = "leaf"
    return state


@pytest.mark.parametrize(
    ("tos", "edit", "expect"),
    [
        ("106", ("      no priority\n", "      priority strict\n"), []),
        ("0", ("      no priority\n", "      priority strict\n"), ["roce_tos"]),
        ("106", None, ["cnp_dscp"]),
    ],
    ids=["clean", "default-tos", "cnp-in-weighted-queue"],
)
def test_collected_host_behind_eos_leaf(
    tos: str, edit: tuple[str, str] | None, expect: list[str]
) -> None:
    text = EOS_LEAF if edit is None else EOS_LEAF.replace(*edit)
    assert edit is None or text != EOS_LEAF
    gpu = collected_gpu01(tos)
    gpu.role = "host"
    links = [("leaf01:Ethernet1/1", "gpu01:ens1np0")]
    findings = run_case(Case("eos", "NIC008", [gpu, _eos(text)], [], links=links))
    assert sorted(f.path.rsplit(".", 1)[1] for f in findings) == expect
    assert all(f.object == "interface ens1np0" for f in findings)
