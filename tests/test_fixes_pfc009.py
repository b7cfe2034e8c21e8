"""PFC009's switch-side fix hint: PFC off for the RoCE priority where intent runs RoCE lossy, in
each platform's syntax; on EOS the hint, typed into the configuration, clears the finding."""

from __future__ import annotations

import pytest

from fabriclint.fixes import hint
from fabriclint.models.finding import Finding
from fabriclint.models.intent import Intent
from fabriclint.models.state import DeviceState
from tests.rules.harness import Case, run_case
from tests.rules.test_lossy import _PFC_ON, _WITH_PFC, EOS_LOSSY, LOSSY, _eos
from tests.test_fixes import _fixes

PROFILE = Intent.model_validate(LOSSY).profile_for("leaf01", "leaf")
LINKS = [("leaf01:Ethernet1/1", "gpu01:ens1np0"), ("leaf01:Ethernet2/1", "gpu02:ens1np0")]


def _finding(obj: str, path: str, actual: list[int], expected: list[int]) -> Finding:
    return Finding(
        rule="PFC009", name="pfc-on-lossy-roce", severity="error", device="leaf01", object=obj,
        path=path, message="m", expected=expected, actual=actual,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("platform", "obj", "path", "actual", "expected", "fix"),
    [
        ("eos", "qos-profile ROCE", "profiles.ROCE.pfc.priorities", [3], [],
         "qos profile ROCE\n   no priority-flow-control priority 3\n   no priority-flow-control"),
        ("eos", "interface Ethernet1/1", "interfaces.Ethernet1/1.qos.pfc.priorities", [3, 4], [4],
         "interface Ethernet1/1\n   no priority-flow-control priority 3"),
        ("nxos", "qos", "qos.pfc.priorities", [3], [],
         "policy-map type network-qos <the system network-qos policy>\n"
         "  class type network-qos c-8q-nq3\n    no pause pfc-cos 3"),
        ("sonic", "interface Ethernet0", "interfaces.Ethernet0.qos.pfc.priorities", [3, 4], [4],
         'PORT_QOS_MAP|Ethernet0: "pfc_enable": "4"'),
        ("cumulus", "qos", "qos.pfc.priorities", [3], [], "nv unset qos pfc default-global"),
        ("junos", "qos", "qos.pfc.priorities", [3], [],
         "delete class-of-service congestion-notification-profile <profile> input dscp "
         "code-point 011010 pfc"),
    ],
)  # fmt: skip
def test_pfc009_hint_per_platform(
    platform: str, obj: str, path: str, actual: list[int], expected: list[int], fix: str
) -> None:
    assert PROFILE is not None
    state = DeviceState(name="leaf01", platform=platform)
    assert hint(_finding(obj, path, actual, expected), state, PROFILE) == fix


def test_nothing_to_turn_off_gives_no_hint() -> None:
    assert PROFILE is not None
    finding = _finding("qos", "qos.pfc.priorities", [4], [4])
    assert hint(finding, DeviceState(name="leaf01", platform="eos"), PROFILE) is None


def test_eos_hint_typed_into_the_config_clears_the_finding() -> None:
    assert PROFILE is not None
    text = EOS_LOSSY.replace(_PFC_ON, _WITH_PFC)
    (finding,) = run_case(Case("pfc", "PFC009", [_eos(text)], [], LINKS, LOSSY))
    fix = hint(finding, _eos(text), PROFILE)
    assert fix is not None and fix.startswith("qos profile ROCE-ECN\n")
    fixed = text.replace(_WITH_PFC, _WITH_PFC + "\n".join(fix.splitlines()[1:]) + "\n")
    assert run_case(Case("pfc", "PFC009", [_eos(fixed)], [], LINKS, LOSSY)) == []


def test_lossy_pod_switch_fault_has_a_fix() -> None:
    fix = _fixes("lossy-pod")[("leaf01", "PFC009", "qos-profile ROCE")]
    assert (
        fix
        == "qos profile ROCE\n   no priority-flow-control priority 3\n   no priority-flow-control"
    )
