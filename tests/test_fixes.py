"""Fix-it hints: each seeded fault of the example fabrics says what to configure, in the
platform's syntax, with the intended values."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabriclint.engine import CheckOptions, run_check
from fabriclint.fixes import hint
from fabriclint.models.finding import Finding
from fabriclint.models.intent import Profile
from fabriclint.models.state import DeviceState

ROOT = Path(__file__).resolve().parents[1]


def _fixes(fabric: str) -> dict[tuple[str | None, str, str], str | None]:
    result = run_check(CheckOptions(fabric_dir=ROOT / "inventories" / fabric, snapshot="broken"))
    return {(f.device, f.rule, f.object): f.fix for f in result.report.findings}


ROCE_POD = [
    ("leaf01", "PFC002", "qos", "qos map dscp 26 to traffic-class 3"),
    ("leaf04", "PFC004", "qos-profile ROCE", "qos profile ROCE\n   priority-flow-control pause watchdog"),
    ("spine01", "QOS004", "qos-profile ROCE", "tx-queue 6\n      priority strict"),
    ("spine02", "QOS001", "interface Ethernet3/1", "interface Ethernet3/1\n   qos trust dscp"),
    ("leaf03", "ECN002", "qos-profile ROCE", "random-detect ecn minimum-threshold 150000 bytes maximum-threshold 1500000 bytes"),
    ("spine01", "DRIFT001", "interface Ethernet2/1", "interface Ethernet2/1\n   mtu 9214"),
    ("gpu01", "NIC001", "interface ens2np0", "mlnx_qos -i ens2np0 --pfc 0,0,0,1,0,0,0,0"),
    ("gpu02", "NIC002", "interface ens1np0", "echo 1 > /sys/class/net/ens1np0/ecn/roce_rp/enable/3"),
    ("gpu02", "MTU003", "interface ens2np0", "ip link set dev ens2np0 mtu 9000"),
    ("gpu03", "NIC003", "interface ens1np0", "echo 48 > /sys/class/net/ens1np0/ecn/roce_np/cnp_dscp"),
    ("gpu04", "NIC004", "interface ens1np0", "cma_roce_tos -d mlx5_0 -t 106"),
]  # fmt: skip

MULTIVENDOR = [
    ("leaf02", "PFC006", "interface Ethernet1/1", "pause pfc-cos 3"),
    ("spine01", "PFC002", "qos", "input dscp code-point 011010 pfc"),
    ("leaf03", "PFC001", "interface Ethernet248", 'PORT_QOS_MAP|Ethernet248: "pfc_enable": "3"'),
    ("leaf04", "DRIFT001", "interface swp31", "nv set interface swp31 link mtu 9170"),
    ("gpu03", "QOS001", "interface ens1np0", "mlnx_qos -i ens1np0 --trust dscp"),
    ("spine02", "ECN001", "queue 3", "explicit-congestion-notification"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("fabric", "rows"), [("roce-pod", ROCE_POD), ("multivendor-pod", MULTIVENDOR)]
)
def test_seeded_faults_say_what_to_configure(
    fabric: str, rows: list[tuple[str, str, str, str]]
) -> None:
    fixes = _fixes(fabric)
    for device, rule, obj, text in rows:
        fix = fixes[(device, rule, obj)]
        assert fix is not None and text in fix, (device, rule, obj, fix)


def test_no_hint_without_intent_platform_syntax_or_for_other_families() -> None:
    finding = Finding(
        rule="PFC004", name="x", severity="error", device="l1", object="qos-profile R",
        path="profiles.R.pfc.watchdog", message="m",
    )  # fmt: skip
    eos = DeviceState(name="l1", platform="eos")
    assert hint(finding, eos, None) is None  # nothing intended, nothing to say
    profile = Profile()
    assert hint(finding, DeviceState(name="s", platform="opensm"), profile) is None
    fab = finding.model_copy(update={"rule": "FAB004", "path": "os_version"})
    assert hint(fab, eos, profile) is None
    assert hint(finding, eos, profile) == "qos profile R\n   priority-flow-control pause watchdog"
