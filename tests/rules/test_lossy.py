"""Lossy (ECN-only) RoCE: `roce.mode: lossy` in intent, and the rules that judge by it.

PFC009 (PFC on the RoCE priority) and ECN005 (no ECN on the RoCE queue) are lossy-only; PFC002
stays silent there; CNP handling (QOS004) is judged in either mode; a lossy profile's
`pfc: {priorities: []}` is met by a switch with no PFC configuration (no spurious DRIFT002).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fabriclint.models.intent import Intent
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState, EcnConfig, QueueConfig, SchedulerMode
from fabriclint.parsers.eos import parse
from tests.rules.harness import ROCE_INTENT, Case, found, run_case
from tests.rules.test_pfc import LINK, LINKS2, host, leaf, pfc, port, skips


def lossy_intent(**changes: Any) -> dict[str, Any]:
    """ROCE_INTENT with RoCE in lossy mode and no lossless priority; `changes` replace sections."""
    intent = copy.deepcopy(ROCE_INTENT)
    profile = intent["profiles"]["roce"]
    profile["roce"]["mode"] = "lossy"
    profile["pfc"] = {"priorities": []}
    profile.update(changes)
    return intent


LOSSY = lossy_intent()


def lossy_leaf(**qos: Any) -> DeviceState:
    """leaf01 as an ECN-only RoCE switch: the RoCE queue marks ECN, no PFC anywhere."""
    return leaf(**({"pfc": None} | qos))


def lossy_host(**qos: Any) -> DeviceState:
    """gpu01 with PFC off on every priority (mlnx_qos --pfc 0,0,0,0,0,0,0,0)."""
    return host(**({"pfc": pfc()} | qos))


def _no_ecn_queues() -> dict[int, QueueConfig]:
    return {
        3: QueueConfig(queue=3, scheduler=SchedulerMode.DWRR, weight=50),
        6: QueueConfig(queue=6, scheduler=SchedulerMode.STRICT),
    }


def _ecn_off_queues() -> dict[int, QueueConfig]:
    queues = _no_ecn_queues()
    queues[3].ecn = EcnConfig(enabled=False)
    return queues


CASES: list[Case] = [
    # PFC009 pfc-on-lossy-roce
    Case("pfc009-clean", "PFC009", [lossy_leaf(), lossy_host()], [], LINK, LOSSY),
    Case("pfc009-switch", "PFC009", [leaf()], [("leaf01", "qos")], LINKS2, LOSSY),
    Case(
        "pfc009-port-override",
        "PFC009",
        [port(lossy_leaf(), "Ethernet2", pfc=pfc(3))],
        [("leaf01", "interface Ethernet2")],
        LINKS2,
        LOSSY,
    ),
    Case("pfc009-nic", "PFC009", [host()], [("gpu01", "interface ens1np0")], LINK, LOSSY),
    Case(
        "pfc009-other-priority-ok",
        "PFC009",
        [lossy_leaf(pfc=pfc(4))],
        [],
        LINKS2,
        lossy_intent(pfc={"priorities": [4]}),
    ),
    Case("pfc009-lossless-intent", "PFC009", [leaf(), host()], [], LINK, ROCE_INTENT),
    Case("pfc009-no-intent", "PFC009", [leaf()], [], LINK),
    # PFC002 is not judged for lossy RoCE (and still is for lossless)
    Case("pfc002-lossy-silent", "PFC002", [lossy_leaf(), lossy_host()], [], LINK, LOSSY),
    Case(
        "pfc002-lossless-fires",
        "PFC002",
        [lossy_leaf(), lossy_host()],
        [("gpu01", "interface ens1np0"), ("leaf01", "qos")],
        LINK,
        ROCE_INTENT,
    ),
    # ECN005 lossy-roce-queue-without-ecn
    Case("ecn005-clean", "ECN005", [lossy_leaf()], [], LINKS2, LOSSY),
    Case(
        "ecn005-not-configured",
        "ECN005",
        [lossy_leaf(queues=_no_ecn_queues())],
        [("leaf01", "queue 3")],
        LINKS2,
        LOSSY,
    ),
    Case(
        "ecn005-disabled",
        "ECN005",
        [lossy_leaf(queues=_ecn_off_queues())],
        [("leaf01", "queue 3")],
        LINKS2,
        LOSSY,
    ),
    Case(
        "ecn005-lossless-queue-is-ecn001s",
        "ECN005",
        [leaf(queues=_no_ecn_queues())],
        [],
        LINKS2,
        LOSSY,
    ),
    Case(
        "ecn005-lossless-intent",
        "ECN005",
        [lossy_leaf(queues=_no_ecn_queues())],
        [],
        LINKS2,
        ROCE_INTENT,
    ),
    Case("ecn005-host-is-nic002s", "ECN005", [lossy_host()], [], LINK, LOSSY),
    # ECN001 has no lossless queue to judge on an ECN-only switch
    Case("ecn001-lossy", "ECN001", [lossy_leaf(queues=_no_ecn_queues())], [], LINKS2, LOSSY),
    # CNP handling still matters: QOS004 on a lossy fabric
    Case(
        "qos004-lossy-cnp-not-strict",
        "QOS004",
        [
            lossy_leaf(
                queues={
                    **_no_ecn_queues(),
                    6: QueueConfig(queue=6, scheduler=SchedulerMode.DWRR, weight=10),
                }
            )
        ],
        [("leaf01", "queue 6")],
        LINKS2,
        LOSSY,
    ),
    # DRIFT: `pfc: {priorities: []}` is met by a switch without PFC
    Case("drift002-lossy-no-pfc", "DRIFT002", [lossy_leaf()], [], LINKS2, LOSSY),
    Case("drift001-lossy-no-pfc", "DRIFT001", [lossy_leaf()], [], LINKS2, LOSSY),
    Case(
        "drift001-lossy-pfc-on",
        "DRIFT001",
        [leaf()],
        [("leaf01", "qos")],
        LINKS2,
        LOSSY,
    ),
    Case(
        "drift002-lossless-no-pfc-still-missing",
        "DRIFT002",
        [lossy_leaf()],
        [("leaf01", "qos"), ("leaf01", "qos")],  # PFC priorities and watchdog not configured
        LINKS2,
        ROCE_INTENT,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_rule(case: Case) -> None:
    assert found(case) == sorted(case.expect)


@pytest.mark.parametrize("code", ["PFC009", "ECN005"])
def test_unknown_dscp_map_is_a_skip(code: str) -> None:
    case = Case("map-unknown", code, [lossy_leaf(dscp_to_tc=None)], [], LINK, LOSSY)
    assert skips(case) == {"leaf01"}


def test_pfc009_message_names_the_priority_and_the_mode() -> None:
    (finding,) = run_case(Case("m", "PFC009", [leaf()], [], LINKS2, LOSSY))
    assert "RoCE DSCP 26 maps to priority 3" in finding.message
    assert "lossy" in finding.message
    assert finding.expected == [] and finding.actual == [3]


def test_ecn005_message_names_the_queue() -> None:
    case = Case("m", "ECN005", [lossy_leaf(queues=_no_ecn_queues())], [], LINKS2, LOSSY)
    (finding,) = run_case(case)
    assert "queue 3" in finding.message and "not configured" in finding.message
    assert finding.path == "qos.queues.3.ecn"


# ---- the intent model ---------------------------------------------------------------------------


def test_mode_defaults_to_lossless() -> None:
    profile = Intent.model_validate(ROCE_INTENT).profiles["roce"]
    assert profile.roce is not None and profile.roce.mode == "lossless"
    assert not profile.lossy


def test_mixed_fabric_each_role_its_mode() -> None:
    intent = lossy_intent()
    intent["profiles"]["lossless"] = ROCE_INTENT["profiles"]["roce"]
    intent["roles"]["spine"] = {"profile": "lossless"}
    model = Intent.model_validate(intent)
    spine, leaf_profile = model.profile_for("s", "spine"), model.profile_for("l", "leaf")
    assert spine is not None and not spine.lossy
    assert leaf_profile is not None and leaf_profile.lossy


# ---- a realistic EOS configuration (Arista ECN-only RoCE: WRED-ECN on tx-queue 3, no PFC) -------

EOS_LOSSY = """\
hostname leaf01
qos map dscp 26 to traffic-class 3
qos map dscp 48 to traffic-class 6
!
qos profile ROCE-ECN
   qos trust dscp
   !
   tx-queue 3
      bandwidth percent 50
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 100
   !
   tx-queue 6
      priority strict
!
interface Ethernet1/1
   mtu 9214
   no switchport
   ip address 10.0.0.0/31
   service-profile ROCE-ECN
!
interface Ethernet2/1
   mtu 9214
   no switchport
   ip address 10.0.0.2/31
   service-profile ROCE-ECN
!
"""


def _eos(text: str) -> DeviceState:
    outputs = {"show running-config": RawOutput(text=text, file="leaf01/running-config.txt")}
    return parse(RawDevice(name="leaf01", platform="eos", outputs=outputs))


_PFC_ON = "   tx-queue 6\n      priority strict\n"
_WITH_PFC = (
    _PFC_ON + "   !\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n"
)
_ECN_LINE = (
    "      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes"
    " max-mark-probability 100\n"
)


@pytest.mark.parametrize(
    ("edit", "rule", "expect"),
    [
        (None, "PFC009", []),
        (None, "ECN005", []),
        (None, "PFC002", []),
        (None, "DRIFT002", []),
        ((_PFC_ON, _WITH_PFC), "PFC009", [("leaf01", "qos-profile ROCE-ECN")]),
        ((_ECN_LINE, ""), "ECN005", [("leaf01", "qos-profile ROCE-ECN")]),
    ],
)
def test_eos_ecn_only_leaf(edit: tuple[str, str] | None, rule: str, expect: list[Any]) -> None:
    text = EOS_LOSSY if edit is None else EOS_LOSSY.replace(*edit)
    assert edit is None or text != EOS_LOSSY
    links = [("leaf01:Ethernet1/1", "gpu01:ens1np0"), ("leaf01:Ethernet2/1", "gpu02:ens1np0")]
    assert found(Case("eos", rule, [_eos(text)], [], links, LOSSY)) == expect


@pytest.mark.parametrize(
    ("state", "intent", "skipped"),
    [
        (lossy_leaf().model_copy(update={"platform": "nxos"}), LOSSY, set()),
        (leaf().model_copy(update={"platform": "nxos"}), ROCE_INTENT, {"leaf01"}),
    ],
    ids=["lossy-nothing-to-size", "lossless-class-mtu-unknown"],
)
def test_mtu004_skips_only_where_something_is_lossless(
    state: DeviceState, intent: dict[str, Any], skipped: set[str]
) -> None:
    assert skips(Case("mtu004", "MTU004", [state], [], LINKS2, intent)) == skipped
