"""Data table for QOS010 (RoCE re-marked on egress) and QOS011 (other traffic in the RoCE class),
plus both rules on realistic EOS and Junos configurations parsed by their parsers."""

from __future__ import annotations

import copy
from textwrap import dedent
from typing import Any

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState, DscpRewrite, PfcConfig, Trust
from fabriclint.parsers import eos, junos, nxos, sonic
from tests.rules.harness import ROCE_INTENT, Case, found, run_case
from tests.rules.test_pfc import LINKS2, at, host, leaf, pfc, port, run

LOSSY_INTENT: dict[str, Any] = copy.deepcopy(ROCE_INTENT)
LOSSY_INTENT["profiles"]["roce"]["roce"]["mode"] = "lossy"
del LOSSY_INTENT["profiles"]["roce"]["pfc"]

NO_ROCE_INTENT: dict[str, Any] = copy.deepcopy(ROCE_INTENT)
del NO_ROCE_INTENT["profiles"]["roce"]["roce"]

ROCE_MAP = {d: d // 8 for d in range(64)} | {26: 3, 48: 6}


def rewrite(
    by_tc: dict[int, int] | None = None, by_dscp: dict[int, int] | None = None, line: int = 50
) -> DscpRewrite:
    """An egress rewrite bound at `line`, each entry written on the lines after it."""
    found_ = DscpRewrite(name="RW", by_tc=by_tc or {}, by_dscp=by_dscp or {})
    found_.mark("", at(line))
    for offset, key in enumerate(sorted(by_tc or {}), 1):
        found_.mark(f"by_tc.{key}", at(line + offset))
    for offset, key in enumerate(sorted(by_dscp or {}), 20):
        found_.mark(f"by_dscp.{key}", at(line + offset))
    return found_


def written(mapping: dict[int, int], line: int = 40) -> dict[str, Any]:
    """QoS fields: ROCE_MAP with `mapping` over it, those entries written at `line`."""
    sources = {f"dscp_to_tc.{d}": at(line) for d in mapping}
    return {"dscp_to_tc": ROCE_MAP | mapping, "sources": sources}


def case(cid: str, rule: str, states: list[DeviceState], expect: list[Any], **kw: Any) -> Case:
    """A row on LINKS2 (leaf01 Ethernet1/Ethernet2) with the lossless RoCE intent by default."""
    kw.setdefault("intent", ROCE_INTENT)
    return Case(cid, rule, states, expect, links=kw.pop("links", LINKS2), **kw)


QOS = [("leaf01", "qos")]

CASES: list[Case] = [
    # QOS010 roce-dscp-rewritten
    case("qos010-no-rewrite", "QOS010", [leaf()], []),
    case("qos010-roce-remarked", "QOS010", [leaf(rewrite=rewrite({3: 10}))], QOS),
    case("qos010-kept", "QOS010", [leaf(rewrite=rewrite({3: 26, 6: 48, 0: 0}))], []),
    case("qos010-other-class-only", "QOS010", [leaf(rewrite=rewrite({0: 8, 1: 0}))], []),
    case("qos010-cnp-remarked", "QOS010", [leaf(rewrite=rewrite({6: 46}))], QOS),
    case("qos010-by-dscp", "QOS010", [leaf(rewrite=rewrite(by_dscp={26: 10}))], QOS),
    case("qos010-by-dscp-first", "QOS010", [leaf(rewrite=rewrite({3: 10}, {26: 26}))], []),
    case(
        "qos010-port-rewrite",
        "QOS010",
        [port(leaf(), "Ethernet1", rewrite=rewrite({3: 18}))],
        [("leaf01", "interface Ethernet1")],
    ),
    case("qos010-no-intent", "QOS010", [leaf(rewrite=rewrite({3: 10}))], [], intent=None),
    case(
        "qos010-no-roce-class",
        "QOS010",
        [leaf(rewrite=rewrite({3: 10}))],
        [],
        intent=NO_ROCE_INTENT,
    ),
    case("qos010-uncabled", "QOS010", [leaf(rewrite=rewrite({3: 10}))], [], links=[]),
    # QOS011 foreign-traffic-in-lossless-class
    case("qos011-clean", "QOS011", [leaf()], []),
    case(
        "qos011-class-selector-reported",
        "QOS011",
        [leaf()],
        QOS,
        options={"allow_class_selector": False},
    ),
    case("qos011-written-dscp", "QOS011", [leaf(**written({10: 3}))], QOS),
    case("qos011-second-lossless", "QOS011", [leaf(pfc=pfc(3, 4))], QOS),
    case("qos011-lossy-mode-no-pfc-class", "QOS011", [leaf(pfc=pfc(4))], [], intent=LOSSY_INTENT),
    case(
        "qos011-lossy-mode-roce-queue",
        "QOS011",
        [leaf(**written({10: 3}))],
        QOS,
        intent=LOSSY_INTENT,
    ),
    case(
        "qos011-shared-queue", "QOS011", [leaf(tc_to_queue={t: t for t in range(8)} | {5: 3})], QOS
    ),
    case("qos011-cnp-allowed", "QOS011", [leaf(**written({48: 3}))], []),
    # RoCE itself in a lossy class is PFC002's finding: its (lossy) queue is not judged
    case("qos011-roce-in-lossy-class", "QOS011", [leaf(**written({26: 1}))], []),
    case(
        "qos011-trust-cos-identity",
        "QOS011",
        [leaf(trust=Trust.PCP, pcp_to_tc=None)],
        [],
    ),
    case(
        "qos011-trust-cos-extra",
        "QOS011",
        [leaf(trust=Trust.PCP, pcp_to_tc={p: p for p in range(8)} | {4: 3})],
        QOS,
    ),
    case(
        "qos011-trust-cos-ignores-dscp",
        "QOS011",
        [leaf(trust=Trust.PCP, pcp_to_tc=None, **written({10: 3}))],
        [],
    ),
    case("qos011-trust-none", "QOS011", [leaf(trust=Trust.NONE, **written({10: 3}))], []),
    case(
        "qos011-port-map",
        "QOS011",
        [port(leaf(), "Ethernet2", **written({12: 3}, line=60))],
        [("leaf01", "interface Ethernet2")],
    ),
    case(
        "qos011-host-not-judged",
        "QOS011",
        [host(dscp_to_tc=ROCE_MAP | {10: 3}, pfc=PfcConfig(enabled=True, priorities=[3]))],
        [],
        links=[("leaf01:Ethernet1", "gpu01:ens1np0")],
    ),
    case("qos011-no-intent", "QOS011", [leaf(**written({10: 3}))], [], intent=None),
]


@pytest.mark.parametrize("row", CASES, ids=[c.id for c in CASES])
def test_rule(row: Case) -> None:
    assert found(row) == sorted(row.expect)


@pytest.mark.parametrize(
    ("row", "devices"),
    [
        (
            case(
                "qos010-map-unknown",
                "QOS010",
                [leaf(rewrite=rewrite({3: 10}), dscp_to_tc=None)],
                [],
            ),
            {"leaf01"},
        ),
        (case("qos010-no-roce", "QOS010", [leaf()], [], intent=NO_ROCE_INTENT), {"leaf01"}),
        (case("qos011-map-unknown", "QOS011", [leaf(dscp_to_tc=None)], []), {"leaf01"}),
        (case("qos011-clean", "QOS011", [leaf()], []), set()),
    ],
    ids=lambda v: v.id if isinstance(v, Case) else "",
)
def test_skips(row: Case, devices: set[str]) -> None:
    assert run(row)[1].skipped_on(row.rule) == devices


def test_qos010_message_names_port_line_and_dscps() -> None:
    state = port(leaf(), "Ethernet1", rewrite=rewrite({3: 18}, line=70))
    (finding,) = run_case(case("m", "QOS010", [state], []))
    assert finding.source == at(71)  # the rewrite entry, not the binding
    assert "RoCE DSCP 26 leaves on Ethernet1 re-marked to DSCP 18" in finding.message
    assert "RW (line 71)" in finding.message
    assert (finding.expected, finding.actual) == (26, 18)


def test_qos011_message_names_each_dscp_and_its_line() -> None:
    state = leaf(**written({10: 3, 12: 3}, line=44))
    state.qos.sources["dscp_to_tc.12"] = at(45)
    (finding,) = run_case(case("m", "QOS011", [state], []))
    assert "DSCP 10 (line 44); DSCP 12 (line 45) are classified" in finding.message
    assert finding.actual == {"10": 3, "12": 3} and finding.source == at(44)


def test_qos011_platform_defaults_point_at_the_pfc_line() -> None:
    (finding,) = run_case(case("p", "QOS011", [leaf(pfc=pfc(3, 4, line=77))], []))
    assert "DSCP 32, 33, 34, 35, 36, 37, 38, 39 (platform default)" in finding.message
    assert finding.source == at(77)


# ---- realistic configurations, parsed ----------------------------------------------------------

# An EOS leaf after NVIDIA/Arista RoCE guidance, with two mistakes: `qos rewrite dscp` turned on
# for the fabric's DSCP-based telemetry (TC 3 is not in the TC -> DSCP map, so the platform
# default rewrites RoCE to DSCP 24), and storage traffic (AF21, DSCP 18) put in the RoCE class.
EOS_LEAF = """\
hostname leaf01
qos rewrite dscp
qos map dscp 26 to traffic-class 3
qos map dscp 18 to traffic-class 3
qos map dscp 48 to traffic-class 6
qos map traffic-class 6 to dscp 48
!
qos profile ROCE
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   !
   tx-queue 6
      priority strict
!
interface Ethernet1
   no switchport
   mtu 9214
   service-profile ROCE
!
interface Ethernet2
   no switchport
   mtu 9214
   service-profile ROCE
!
"""


def parse_eos(config: str) -> DeviceState:
    """leaf01 from an EOS running-config."""
    raw = RawDevice(
        name="leaf01",
        platform="eos",
        outputs={"show running-config": RawOutput(text=config, file="leaf01/rc.txt")},
    )
    return eos.parse(raw)


def test_eos_fixture_default_rewrite_and_storage_in_roce_class() -> None:
    state = parse_eos(EOS_LEAF)
    (remark,) = run_case(case("e", "QOS010", [state], []))
    assert remark.source is not None and remark.source.line == 2  # the default, at `qos rewrite`
    assert "re-marked to DSCP 24" in remark.message and remark.object == "qos"
    (foreign,) = run_case(case("e", "QOS011", [state], []))
    assert foreign.source is not None and foreign.source.line == 4
    assert foreign.actual == {"18": 3}


def test_eos_fixture_fixed() -> None:
    fixed = EOS_LEAF.replace("qos map dscp 18 to traffic-class 3\n", "").replace(
        "qos map traffic-class 6 to dscp 48\n",
        "qos map traffic-class 6 to dscp 48\nqos map traffic-class 3 to dscp 26\n",
    )
    state = parse_eos(fixed)
    assert run_case(case("f", "QOS010", [state], [])) == []
    assert run_case(case("f", "QOS011", [state], [])) == []


# A QFX leaf: RoCE (DSCP 26) in forwarding class `roce` (queue 3, no-loss), a rewrite rule bound
# to the host port that writes AF11 for it (copied from a campus template).
JUNOS_LEAF = dedent("""\
    class-of-service {
        classifiers {
            dscp ROCE-CL {
                forwarding-class roce {
                    loss-priority low code-points 011010;
                }
                forwarding-class cnp {
                    loss-priority low code-points 110000;
                }
            }
        }
        forwarding-classes {
            class roce queue-num 3 no-loss;
            class cnp queue-num 6;
        }
        interfaces {
            et-0/0/1 {
                unit 0 {
                    classifiers {
                        dscp ROCE-CL;
                    }
                    rewrite-rules {
                        dscp RW;
                    }
                }
            }
        }
        rewrite-rules {
            dscp RW {
                forwarding-class roce {
                    loss-priority low code-point af11;
                    loss-priority high code-point 011010;
                }
                forwarding-class cnp {
                    loss-priority low code-point 110000;
                }
            }
        }
    }
    interfaces {
        et-0/0/1 {
            mtu 9216;
            unit 0 {
                family inet {
                    mtu 9170;
                    address 10.0.0.0/31;
                }
            }
        }
    }
""")


def test_junos_fixture_rewrite_rule_remarks_roce() -> None:
    raw = RawDevice(
        name="leaf01",
        platform="junos",
        outputs={"show configuration": RawOutput(text=JUNOS_LEAF, file="leaf01/cfg.txt")},
    )
    state = junos.parse(raw)
    qos = state.interfaces["et-0/0/1"].qos
    assert qos is not None and qos.rewrite is not None
    assert qos.rewrite.by_tc == {3: 10, 6: 48}  # the loss-priority low entry stands for roce
    assert not state.unparsed, state.unparsed
    links = [("leaf01:et-0/0/1", "gpu01:ens1np0")]
    (finding,) = run_case(case("j", "QOS010", [state], [], links=links))
    assert finding.object == "interface et-0/0/1" and finding.actual == 10
    assert finding.source is not None and finding.source.line == 31  # `code-point af11`


# A Nexus leaf whose host ports got an egress marking policy meant for storage: its
# class-default `set dscp 0` re-marks everything else, RoCE included, to best effort.
NXOS_LEAF = """\
hostname leaf02
class-map type qos match-any ROCE
  match dscp 26
class-map type qos match-any CNP
  match dscp 48
class-map type qos match-any STORAGE
  match dscp 10
policy-map type qos ROCE-IN
  class ROCE
    set qos-group 3
  class CNP
    set qos-group 7
    set dscp 48
policy-map type qos EGRESS-MARK
  class STORAGE
    set dscp 18
  class CNP
  class class-default
    set dscp 0
system qos
  service-policy type qos input ROCE-IN
interface Ethernet1/1
  no switchport
  mtu 9216
  service-policy type qos output EGRESS-MARK
interface Ethernet1/2
  no switchport
  mtu 9216
"""


def test_nxos_fixture_egress_class_default_remarks_roce() -> None:
    raw = RawDevice(
        name="leaf02",
        platform="nxos",
        outputs={"show running-config": RawOutput(text=NXOS_LEAF, file="leaf02/rc.txt")},
    )
    state = nxos.parse(raw)
    # `set dscp` of the input policy is ingress re-marking: still reported, with its line
    assert [(u.text, u.source.line if u.source else None) for u in state.unparsed] == [
        ("set dscp 48", 13)
    ]
    links = [("leaf02:Ethernet1/1", "gpu01:ens1np0"), ("leaf02:Ethernet1/2", "gpu02:ens1np0")]
    (finding,) = run_case(case("n", "QOS010", [state], [], links=links))
    assert finding.object == "interface Ethernet1/1" and finding.actual == 0
    assert finding.source is not None and finding.source.line == 19  # class-default set dscp 0
    assert "EGRESS-MARK (line 19)" in finding.message  # CNP (class CNP, no set) keeps 48


# A SONiC leaf whose host port binds a DSCP_TO_DSCP_MAP written for a tenant's VoIP (EF kept,
# AF31 -> AF11) that also catches RoCE's DSCP 26, and a TC_TO_DSCP_MAP that keeps CNPs on 48.
SONIC_LEAF = """\
{
    "PORT": {
        "Ethernet0": {"admin_status": "up", "mtu": "9100"},
        "Ethernet8": {"admin_status": "up", "mtu": "9100"}
    },
    "INTERFACE": {"Ethernet0": {}, "Ethernet8": {}},
    "DSCP_TO_TC_MAP": {"ROCE": {"0": "0", "10": "0", "26": "3", "46": "5", "48": "6"}},
    "DSCP_TO_DSCP_MAP": {"TENANT": {"46": "46", "26": "10"}},
    "TC_TO_DSCP_MAP": {"KEEP": {"3": "26", "6": "48"}},
    "PORT_QOS_MAP": {
        "Ethernet0": {
            "dscp_to_tc_map": "ROCE",
            "dscp_to_dscp_map": "TENANT",
            "tc_to_dscp_map": "KEEP",
            "pfc_enable": "3"
        },
        "Ethernet8": {"dscp_to_tc_map": "ROCE", "tc_to_dscp_map": "KEEP", "pfc_enable": "3"}
    }
}
"""


def test_sonic_fixture_dscp_to_dscp_map_remarks_roce() -> None:
    raw = RawDevice(
        name="leaf03",
        platform="sonic",
        outputs={"config_db.json": RawOutput(text=SONIC_LEAF, file="leaf03/config_db.json")},
    )
    state = sonic.parse(raw)
    assert not [u for u in state.unparsed if "DSCP" in u.text], state.unparsed
    links = [("leaf03:Ethernet0", "gpu03:ens1np0"), ("leaf03:Ethernet8", "gpu04:ens1np0")]
    (finding,) = run_case(case("s", "QOS010", [state], [], links=links))
    assert finding.object == "interface Ethernet0" and finding.actual == 10
    assert finding.source is not None and finding.source.line == 8  # the DSCP_TO_DSCP_MAP entry
