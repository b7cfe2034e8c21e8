"""Fix hints of QOS010 (RoCE re-marked by an egress rewrite: write its DSCP back) and QOS011
(other traffic in the RoCE class: move it to traffic class 0), one line per platform where one
line fixes it safely, a policy block on NX-OS; on EOS and NX-OS the hint, typed into the
configuration, clears the finding."""

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
        # NX-OS names the policy class by the line that re-marks or classifies: none, no hint
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


# A Nexus 9000 leaf after Cisco's RoCE layout (classification by `service-policy type qos input`,
# PFC on qos-group 3 by the network-qos policy), then two changes: storage on DSCP 10 added to
# the RoCE class-map, and a telemetry egress policy whose classes re-mark on the way out.
NXOS_ROCE_LEAF = """\
hostname leaf02
feature lldp
class-map type qos match-any ROCE
  match dscp 26
  match dscp 10
class-map type qos match-all CNP
  match dscp 48
class-map type qos match-all VOICE
  match dscp 46
policy-map type qos ROCE-CLASSIFY
  class ROCE
    set qos-group 3
  class CNP
    set qos-group 6
  class class-default
    set qos-group 0
policy-map type qos TELEMETRY-OUT
  class VOICE
    set dscp 40
  class CNP
  class class-default
    set dscp 0
policy-map type network-qos ROCE-NQ
  class type network-qos c-8q-nq3
    mtu 9216
    pause pfc-cos 3
  class type network-qos c-8q-nq-default
    mtu 9216
system qos
  service-policy type network-qos ROCE-NQ
interface Ethernet1/1
  description gpu01 ens1np0
  no switchport
  mtu 9216
  priority-flow-control mode on
  service-policy type qos input ROCE-CLASSIFY
  service-policy type qos output TELEMETRY-OUT
interface Ethernet1/2
  description gpu02 ens1np0
  no switchport
  mtu 9216
  priority-flow-control mode on
  service-policy type qos input ROCE-CLASSIFY
"""
NX_LINKS = [("leaf02:Ethernet1/1", "gpu01:ens1np0"), ("leaf02:Ethernet1/2", "gpu02:ens1np0")]
NX_PROFILE = Intent.model_validate(ROCE_INTENT).profile_for("leaf02", "leaf")


def _nxos(text: str) -> DeviceState:
    from fabriclint.models.raw import RawDevice, RawOutput
    from fabriclint.parsers import nxos

    raw = RawDevice(
        name="leaf02",
        platform="nxos",
        outputs={"show running-config": RawOutput(text=text, file="leaf02/rc.txt")},
    )
    return nxos.parse(raw)


def _nxos_hints(text: str, rule: str) -> list[str]:
    state = _nxos(text)
    assert NX_PROFILE is not None and not state.unparsed, state.unparsed
    findings = run_case(case("n", rule, [state], [], links=NX_LINKS))
    return sorted({hint(f, state, NX_PROFILE) or "" for f in findings})


REMARK_BY_CLASS = NXOS_ROCE_LEAF.replace(
    "  class VOICE\n", "  class ROCE\n    set dscp 10\n  class VOICE\n"
)


@pytest.mark.parametrize(
    ("text", "rule", "hints"),
    [
        # class-default `set dscp 0` re-marks RoCE (qos-group 3) and CNPs (6): line 22
        (NXOS_ROCE_LEAF, "QOS010",
         ["policy-map type qos TELEMETRY-OUT\n  class <the class of line 22>\n    no set dscp"]),
        # a class matching RoCE's DSCP re-marks it (line 19); CNPs keep theirs (class CNP)
        (REMARK_BY_CLASS, "QOS010",
         ["policy-map type qos TELEMETRY-OUT\n  class <the class of line 19>\n    no set dscp"]),
        # DSCP 10 classified with RoCE by class ROCE (its `set qos-group 3`: line 12)
        (NXOS_ROCE_LEAF, "QOS011",
         ["class-map type qos <match type and name of the class at line 12>\n"
          "  no match dscp 10"]),
        # DSCP 10 and 12 in two classes that both set qos-group 3: one block per class
        (NXOS_ROCE_LEAF.replace("match-all CNP\n  match dscp 48\n",
                                "match-any CNP\n  match dscp 48\n  match dscp 12\n")
         .replace("    set qos-group 6\n", "    set qos-group 3\n"), "QOS011",
         ["class-map type qos <match type and name of the class at line 13>\n"
          "  no match dscp 10\n"
          "class-map type qos <match type and name of the class at line 15>\n"
          "  no match dscp 12"]),
    ],
    ids=["qos010-class-default", "qos010-roce-class", "qos011", "qos011-two-classes"],
)  # fmt: skip
def test_nxos_hints(text: str, rule: str, hints: list[str]) -> None:
    assert _nxos_hints(text, rule) == hints


def _typed(text: str, hint_text: str, header: int) -> str:
    """The running configuration after a hint is typed: in the block whose header is line
    `header` (1-based: the block the hint's placeholder stands for), each `no WORDS` of the
    hint removes the block's line that starts with those words."""
    lines = text.splitlines()
    start = header - 1
    end = next((i for i in range(header, len(lines)) if not lines[i].startswith("  ")), len(lines))
    for command in [c.strip() for c in hint_text.splitlines() if c.strip().startswith("no ")]:
        negated = command.removeprefix("no ")  # `no set dscp` removes `set dscp 0`
        found = next(
            i for i in range(start, end) if f"{lines[i].strip()} ".startswith(f"{negated} ")
        )
        del lines[found]
        end -= 1
    return "\n".join(lines) + "\n"


def test_nxos_hints_typed_into_the_config_clear_both_findings() -> None:
    """The class each placeholder names, found by its line, gets the hint's `no` commands: the
    re-marking and the foreign DSCP are gone, RoCE and CNP are still classified as before."""
    (unmark,) = _nxos_hints(NXOS_ROCE_LEAF, "QOS010")
    (declassify,) = _nxos_hints(NXOS_ROCE_LEAF, "QOS011")
    lines = NXOS_ROCE_LEAF.splitlines()
    # the placeholders: line 22's class is TELEMETRY-OUT's class-default (header line 21),
    # line 12's is ROCE, whose class-map (header line 3) is match-any
    assert lines[21 - 1] == "  class class-default" and lines[11 - 1] == "  class ROCE"
    assert lines[3 - 1] == "class-map type qos match-any ROCE"
    fixed = _typed(_typed(NXOS_ROCE_LEAF, unmark, 21), declassify, 3)
    assert fixed.count("\n") == NXOS_ROCE_LEAF.count("\n") - 2
    after = _nxos(fixed)
    for rule in ("QOS010", "QOS011"):
        assert run_case(case("f", rule, [after], [], links=NX_LINKS)) == [], rule
    qos = after.interfaces["Ethernet1/1"].qos
    assert qos is not None and qos.dscp_to_tc is not None
    assert (qos.dscp_to_tc[26], qos.dscp_to_tc[48], qos.dscp_to_tc[10]) == (3, 6, 0)
