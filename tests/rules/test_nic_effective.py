"""NIC007: the priority a ConnectX's RoCE traffic and CNPs really use, defaults included.

The values in force are judged (cma_roce_tos 0 and cnp_dscp 48 when nobody set them) through
the NIC's own dscp2prio map, against the intent's RoCE priority or, without intent, the
priority the NIC protects (PFC, or DCQCN on a NIC without PFC).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fabriclint.models.state import DeviceState, Trust
from fabriclint.parsers import get_parser
from fabriclint.snapshot import load_snapshot
from tests.rules.harness import ROCE_INTENT, Case, found, run_case
from tests.rules.hosts import host, skipped

LINK = [("leaf01:Ethernet1", "gpu01:ens1np0")]
PORT = [("gpu01", "interface ens1np0")]


def remapped(state: DeviceState, **dscp_to_prio: int) -> DeviceState:
    """`state` whose NIC dscp2prio sends each `d<DSCP>=<prio>` elsewhere (mlnx_qos --dscp2prio)."""
    qos = state.interfaces["ens1np0"].qos
    assert qos is not None and qos.dscp_to_tc is not None
    qos.dscp_to_tc.update({int(k[1:]): v for k, v in dscp_to_prio.items()})
    return state


def case(name: str, state: DeviceState, expect: list[Any], intent: Any = None) -> Case:
    return Case(name, "NIC007", [state], expect, links=LINK, intent=intent)


CASES = [
    case("clean-no-intent", host(), []),
    case("clean-intent", host(), [], ROCE_INTENT),
    case("default-tos-no-intent", host(roce_tos=0), PORT),
    case("default-tos-intent-is-nic004s", host(roce_tos=0), [], ROCE_INTENT),
    case("dscp2prio-sends-26-to-0-intent", remapped(host(), d26=0), PORT, ROCE_INTENT),
    case("dscp2prio-sends-26-to-0-no-intent", remapped(host(), d26=0), PORT),
    case("lossy-nic-default-tos", host(pfc=None, roce_tos=0), PORT),
    case("lossy-nic-clean", host(pfc=None), []),
    case("cnp-on-roce-priority-no-intent", host(cnp_dscp=26), PORT),
    case("cnp-dscp-other-than-intent-is-nic003s", host(cnp_dscp=26), [], ROCE_INTENT),
    case("cnp-default-dscp-mapped-to-3", remapped(host(), d48=3), PORT, ROCE_INTENT),
]


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_rule(c: Case) -> None:
    assert found(c) == sorted(c.expect)


def test_default_tos_is_named_as_the_default() -> None:
    (finding,) = run_case(case("m", host(roce_tos=0), []))
    assert "DSCP 0 (cma_roce_tos 0, the driver default)" in finding.message
    assert "puts on priority 0, but its PFC is on priority 3" in finding.message


def test_lossy_nic_names_dcqcn() -> None:
    (finding,) = run_case(case("m", host(pfc=None, roce_tos=0), []))
    assert "its DCQCN is on priority 3" in finding.message


def test_cnp_finding_names_the_default_dscp() -> None:
    (finding,) = run_case(case("m", remapped(host(), d48=3), [], ROCE_INTENT))
    assert "CNPs with DSCP 48, the driver default" in finding.message
    assert finding.path == "rdma.ens1np0.cnp_dscp"


@pytest.mark.parametrize(
    "state",
    [host(roce_tos=None), host()],
    ids=["tos-not-collected", "pcp-trust"],
)
def test_unknown_inputs_are_a_skip(state: DeviceState) -> None:
    qos = state.interfaces["ens1np0"].qos
    if state.rdma["ens1np0"].roce_tos is not None:
        assert qos is not None
        qos.trust = Trust.PCP
    c = case("skip", state, [])
    assert found(c) == [] and skipped(c) == {"gpu01"}


# ---- a real host snapshot: mlnx_qos, the ECN sysfs tree and cma_roce_tos as collected ----------

ROCE_POD = Path(__file__).parents[2] / "inventories" / "roce-pod" / "snapshots" / "baseline"


def collected_gpu01(roce_tos: str) -> DeviceState:
    """gpu01 of the roce-pod example as collected, with `cma_roce_tos -d mlx5_0 -p 1` printing
    `roce_tos` (what a host that never ran `cma_roce_tos -t` prints is 0)."""
    raw = load_snapshot(ROCE_POD).devices["gpu01"].raw
    assert raw is not None
    tos = raw.outputs["cma_roce_tos -d mlx5_0 -p 1"]
    raw.outputs["cma_roce_tos -d mlx5_0 -p 1"] = tos.model_copy(update={"text": roce_tos + "\n"})
    parser = get_parser("mlnx-host")
    assert parser is not None
    return parser(raw)


@pytest.mark.parametrize(("tos", "expect"), [("106", []), ("0", PORT)])
def test_collected_host_without_intent(tos: str, expect: list[Any]) -> None:
    links = [("leaf01:Ethernet1/1", "gpu01:ens1np0")]
    c = Case("collected", "NIC007", [collected_gpu01(tos)], expect, links=links)
    assert found(c) == expect
