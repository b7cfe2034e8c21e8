"""Fix hints of QOS010 (RoCE re-marked by an egress rewrite: write its DSCP back) and QOS011
(other traffic in the RoCE class: move it to traffic class 0), one line per platform where one
line fixes it safely; on EOS the hint, typed into the configuration, clears the finding."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fabriclint.engine import CheckOptions, run_check
from fabriclint.fixes import hint
from fabriclint.models.common import Source
from fabriclint.models.finding import Finding
from fabriclint.models.intent import Intent
from fabriclint.models.state import Definition, DeviceState
from tests.rules.harness import ROCE_INTENT, run_case
from tests.rules.test_qos_class import EOS_LEAF, case, parse_eos

ROOT = Path(__file__).resolve().parents[1]
PROFILE = Intent.model_validate(ROCE_INTENT).profile_for("leaf01", "leaf")


def _finding(rule: str, path: str, expected: Any, actual: Any, obj: str = "qos") -> Finding:
    return Finding(
        rule=rule, name="x", severity="error", device="leaf01", object=obj, path=path,
        message="m", expected=expected, actual=actual,
    )  # fmt: skip


def _state(platform: str, defined: dict[str, list[str]] | None = None) -> DeviceState:
    state = DeviceState(name="leaf01", platform=platform)
    for kind, items in (defined or {}).items():
        state.definitions += [
            Definition(kind=kind, name=n, source=Source(file="f", line=1)) for n in items
        ]
    return state


FOREIGN = "only the RoCE and CNP values"


@pytest.mark.parametrize(
    ("platform", "defined", "finding", "fix"),
    [
        # QOS010: the rewrite entry of RoCE's class (or DSCP) writes RoCE's DSCP back
        ("eos", None, _finding("QOS010", "qos.rewrite.by_tc.3", 26, 24),
         "qos map traffic-class 3 to dscp 26"),
        ("eos", None, _finding("QOS010", "qos.rewrite.by_tc.6", 48, 46),
         "qos map traffic-class 6 to dscp 48"),
        ("sonic", {"TC_TO_DSCP_MAP": ["AZURE"]},
         _finding("QOS010", "interfaces.Ethernet0.qos.rewrite.by_tc.3", 26, 10,
                  "interface Ethernet0"),
         'TC_TO_DSCP_MAP|AZURE: "3": "26"'),
        ("sonic", {"DSCP_TO_DSCP_MAP": ["REMARK"]},
         _finding("QOS010", "interfaces.Ethernet0.qos.rewrite.by_dscp.26", 26, 10,
                  "interface Ethernet0"),
         'DSCP_TO_DSCP_MAP|REMARK: "26": "26"'),
        ("junos", {"dscp-rewrite-rule": ["RW"]},
         _finding("QOS010", "interfaces.et-0/0/0.qos.rewrite.by_tc.3", 26, 10,
                  "interface et-0/0/0"),
         "set class-of-service rewrite-rules dscp RW forwarding-class <the forwarding class "
         "of queue 3> loss-priority low code-point 011010"),
        # QOS011: the extra values go to traffic class 0 (best effort, lossy)
        ("eos", None, _finding("QOS011", "qos.dscp_to_tc", FOREIGN, {"18": 3, "19": 3}),
         "qos map dscp 18 19 to traffic-class 0"),
        ("eos", None, _finding("QOS011", "qos.pcp_to_tc", FOREIGN, {"4": 3}),
         "qos map cos 4 to traffic-class 0"),
        ("sonic", {"DSCP_TO_TC_MAP": ["ROCE"]},
         _finding("QOS011", "qos.dscp_to_tc", FOREIGN, {"10": 3, "12": 3}),
         'DSCP_TO_TC_MAP|ROCE: "10": "0", "12": "0"'),
        ("sonic", {"DOT1P_TO_TC_MAP": ["ROCE"]},
         _finding("QOS011", "qos.pcp_to_tc", FOREIGN, {"4": 3}),
         'DOT1P_TO_TC_MAP|ROCE: "4": "0"'),
        ("cumulus", None, _finding("QOS011", "qos.dscp_to_tc", FOREIGN, {"10": 3, "12": 3}),
         "nv set qos mapping default-global dscp 10 switch-priority 0\n"
         "nv set qos mapping default-global dscp 12 switch-priority 0"),
        ("cumulus", None, _finding("QOS011", "qos.pcp_to_tc", FOREIGN, {"4": 3}),
         "nv set qos mapping default-global pcp 4 switch-priority 0"),
    ],
)  # fmt: skip
def test_hint_per_platform(
    platform: str, defined: dict[str, list[str]] | None, finding: Finding, fix: str
) -> None:
    assert PROFILE is not None
    assert hint(finding, _state(platform, defined), PROFILE) == fix


@pytest.mark.parametrize(
    ("platform", "finding"),
    [
        # NX-OS re-marks in a policy class and classifies by class-maps: no one safe line
        ("nxos", _finding("QOS010", "interfaces.Ethernet1/1.qos.rewrite.by_dscp.26", 26, 10)),
        ("nxos", _finding("QOS011", "qos.dscp_to_tc", FOREIGN, {"10": 3})),
        # a Junos classifier would need its RoCE code point moved, not one line added
        ("junos", _finding("QOS011", "qos.dscp_to_tc", FOREIGN, {"10": 3})),
        # EOS has no DSCP -> DSCP rewrite; a per-port policy-map's class is not the global map
        ("eos", _finding("QOS010", "qos.rewrite.by_dscp.26", 26, 10)),
        ("eos", _finding("QOS011", "interfaces.Ethernet1.qos.dscp_to_tc", FOREIGN, {"10": 3},
                         "policy-map ROCE-IN")),
        # traffic class 0 is one the finding judges: moving the values there fixes nothing
        ("eos", _finding("QOS011", "qos.dscp_to_tc", FOREIGN, {"10": 0})),
    ],
)  # fmt: skip
def test_no_hint_where_one_line_cannot_fix_it(platform: str, finding: Finding) -> None:
    assert PROFILE is not None
    assert hint(finding, _state(platform), PROFILE) is None


def test_the_old_classification_hint_is_not_given_for_a_rewrite() -> None:
    """A `by_dscp` path contains "dscp": it must not get PFC002's `qos map dscp 26 ...` hint."""
    assert PROFILE is not None
    finding = _finding("QOS011", "qos.dscp_to_tc", FOREIGN, {"18": 3})
    assert hint(finding, _state("eos"), PROFILE) != "qos map dscp 26 to traffic-class 3"


def test_eos_hints_typed_into_the_config_clear_both_findings() -> None:
    assert PROFILE is not None
    state = parse_eos(EOS_LEAF)
    fixed = EOS_LEAF
    for rule in ("QOS010", "QOS011"):
        (finding,) = run_case(case("e", rule, [state], []))
        fix = hint(finding, state, PROFILE)
        assert fix is not None and "\n" not in fix, fix
        fixed = fixed.replace("!\nqos profile ROCE", f"{fix}\n!\nqos profile ROCE", 1)
    assert fixed != EOS_LEAF
    after = parse_eos(fixed)
    assert run_case(case("f", "QOS010", [after], [])) == []
    assert run_case(case("f", "QOS011", [after], [])) == []


def test_remark_faults_snapshot_findings_have_their_fix() -> None:
    fabric = ROOT / "inventories" / "multivendor-pod"
    result = run_check(CheckOptions(fabric_dir=fabric, snapshot="remark-faults"))
    fixes = {(f.device, f.rule): f.fix for f in result.report.findings}
    assert fixes == {
        ("leaf01", "QOS010"): "qos map traffic-class 3 to dscp 26",
        ("leaf03", "QOS011"): 'DSCP_TO_TC_MAP|ROCE: "10": "0"',
    }
