"""Root-cause grouping: one seeded fault reads as one cause with its consequences under it."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from fabriclint.causes import link_causes
from fabriclint.engine import CheckOptions, run_check
from fabriclint.models.common import Source
from fabriclint.models.finding import Finding

ROOT = Path(__file__).resolve().parents[1]


def _groups(fabric: str) -> dict[tuple[str | None, str, str], list[tuple[str | None, str]]]:
    report = run_check(CheckOptions(fabric_dir=ROOT / "inventories" / fabric, snapshot="broken"))
    by_print = {f.fingerprint: f for f in report.report.findings}
    groups: dict[tuple[str | None, str, str], list[tuple[str | None, str]]] = defaultdict(list)
    for finding in report.report.findings:
        root = by_print[finding.cause]
        if finding is not root:
            groups[(root.device, root.rule, root.object)].append((finding.device, finding.rule))
        else:
            groups.setdefault((root.device, root.rule, root.object), [])
    return groups


def test_roce_pod_18_faults_are_18_causes() -> None:
    groups = _groups("roce-pod")
    assert len(groups) == 18
    # A NIC with PFC on the wrong priority: the NIC rule is the cause, the rest follow it.
    assert sorted(groups[("gpu01", "NIC001", "interface ens2np0")]) == [
        ("gpu01", "DRIFT001"),
        ("gpu01", "FAB002"),
        ("gpu01", "PFC002"),
        ("gpu01", "PFC007"),
    ]
    # A switch port without its MTU: the drift on the switch explains the host-side MTU002.
    assert groups[("leaf03", "DRIFT001", "interface Ethernet2/1")] == [("gpu04", "MTU002")]
    # RoCE remapped to TC 1: ECN missing on TC 1's queue follows the remapping.
    leaf01 = groups[("leaf01", "PFC002", "qos")]
    assert leaf01.count(("leaf01", "DRIFT002")) == 3 and ("leaf01", "FAB001") in leaf01
    # Independent faults stay apart.
    assert groups[("leaf04", "FAB004", "device")] == []
    assert groups[("leaf02", "QOS005", "qos-profile ROCE-LOSSLESS")] == []


def test_multivendor_cause_sits_on_the_end_that_drifted() -> None:
    groups = _groups("multivendor-pod")
    assert len(groups) <= 10  # 9 seeded faults (plus the unmodelled Junos line, PARSE001)
    leaf02 = groups[("leaf02", "PFC006", "interface Ethernet1/1")]
    assert ("gpu01", "NIC001") in leaf02 and ("gpu02", "NIC001") in leaf02  # the hosts are fine
    spine01 = groups[("spine01", "PFC002", "qos")]
    assert {("leaf01", "PFC007"), ("leaf03", "PFC007"), ("leaf04", "PFC007")} <= set(spine01)


def _finding(rule: str, device: str, path: str, line: int, **kw: str) -> Finding:
    return Finding(
        rule=rule,
        name="x",
        severity="error",
        device=device,
        object=kw.get("object", "qos"),
        path=path,
        message=kw.get("message", "m"),
        source=Source(file=f"{device}.cfg", line=line),
        suppressed=kw.get("suppressed"),
    )


@pytest.mark.parametrize(
    ("a", "b", "joined"),
    [
        (("PFC004", "l1", "qos.pfc.watchdog", 4), ("DRIFT001", "l1", "interfaces.*.pfc.watchdog", 9), True),
        (("PFC004", "l1", "qos.pfc.watchdog", 4), ("PFC004", "l2", "qos.pfc.watchdog", 4), False),
        (("ECN002", "l1", "qos.queues.3.ecn", 4), ("QOS004", "l1", "qos.queues.6.scheduler", 8), False),
        (("MTU003", "h1", "rdma.p0.active_mtu", 4), ("DRIFT001", "h1", "interfaces.p1.mtu", 2), False),
        (("QOS001", "s1", "interfaces.e1.qos.trust", 9), ("DRIFT002", "s1", "interfaces.e1.dscp.26.priority", 3), True),
    ],
)  # fmt: skip
def test_join_rules(
    a: tuple[str, str, str, int], b: tuple[str, str, str, int], joined: bool
) -> None:
    first, second = _finding(*a), _finding(*b)
    link_causes([first, second])
    assert (first.cause == second.cause) is joined
    assert first.is_cause or second.is_cause


def test_suppressed_findings_are_their_own_causes() -> None:
    cause = _finding("PFC004", "l1", "qos.pfc.watchdog", 4)
    accepted = _finding("DRIFT001", "l1", "interfaces.*.pfc.watchdog", 4, suppressed="NET-1")
    link_causes([cause, accepted])
    assert accepted.is_cause and cause.is_cause
