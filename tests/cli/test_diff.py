"""`fabriclint diff`: each seeded fault of the example appears as a setting change with its findings."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.diff import compare_states
from fabriclint.models.state import DeviceState, EcnConfig, Interface, QosConfig, QueueConfig

ROOT = Path(__file__).resolve().parents[2]
SNAPS = ROOT / "inventories" / "roce-pod" / "snapshots"
runner = CliRunner()


def diff(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["diff", *args])
    assert "Traceback" not in result.output
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    code, out = diff(str(SNAPS / "baseline"), str(SNAPS / "broken"), "--format", "json")
    assert code == 1  # the change introduces error findings
    data: dict[str, Any] = json.loads(out)
    return data


@pytest.mark.parametrize(
    ("device", "setting", "before", "after", "rule"),
    [
        ("leaf01", "DSCP 26 priority", 3, 1, "PFC002"),
        ("leaf02", "queue 3 WRED drop", False, True, "ECN004"),
        ("leaf02", "profile", "ROCE", "ROCE-LOSSLESS", "QOS005"),
        (
            "leaf03",
            "queue 3 ECN",
            "150000 to 1500000 at 100.0%",
            "1500000 to 150000 at 100.0%",
            "ECN002",
        ),
        ("leaf03", "MTU", 9214, 1500, "MTU002"),
        ("leaf04", "os version", "4.31.2F", "4.30.1F", "FAB004"),
        ("spine01", "MTU", 9214, 9000, "MTU001"),
        ("spine01", "queue 6 scheduler", "strict", "dwrr", "QOS004"),
        ("spine02", "trust", "dscp", "pcp", "QOS001"),
        ("leaf04", "PFC watchdog", "on 200.0/400.0 ms", "off 200.0/400.0 ms", "PFC004"),
        (
            "spine02",
            "queue 3 ECN",
            "150000 to 1500000 at 100.0%",
            "300000 to 1500000 at 100.0%",
            "DRIFT001",
        ),
        ("gpu01", "PFC priorities", [3], [4], "NIC001"),
        ("gpu02", "ecn_rp priority 3", True, False, "NIC002"),
        ("gpu02", "active_mtu", 4096, 1024, "MTU003"),
        ("gpu03", "cnp_dscp", 48, 46, "NIC003"),
        ("gpu03", "state", "PORT_ACTIVE", "PORT_DOWN", "NIC005"),
        ("gpu04", "roce_tos", 106, 0, "NIC004"),
        ("gpu04", "firmware", "28.39.1002", "28.38.1002", "NIC006"),
    ],
)
def test_seeded_fault_is_a_change_with_its_rule(
    report: dict[str, Any],
    device: str,
    setting: str,
    before: object,
    after: object,
    rule: str,
) -> None:
    matches = [
        c
        for c in report["changes"]
        if c["device"] == device
        and c["setting"] == setting
        and c["before"] == before
        and c["after"] == after
    ]
    assert matches, f"no change {device} {setting} {before} -> {after}"
    assert any(rule in c["rules"] for c in matches)


def test_introduced_and_resolved(report: dict[str, Any]) -> None:
    introduced = {(f["rule"], f["device"]) for f in report["introduced"]}
    assert ("PFC002", "leaf01") in introduced and ("NIC004", "gpu04") in introduced
    assert report["resolved"] == []
    code, out = diff(str(SNAPS / "broken"), str(SNAPS / "baseline"), "--format", "json")
    back = json.loads(out)
    assert code == 0 and back["introduced"] == []
    assert {(f["rule"], f["device"]) for f in back["resolved"]} == introduced


def test_same_snapshot_has_no_changes() -> None:
    code, out = diff(str(SNAPS / "baseline"), str(SNAPS / "baseline"))
    assert code == 0 and "no setting changes" in out and "findings introduced (0)" in out


def test_markdown_and_text_views() -> None:
    code, out = diff(str(SNAPS / "baseline"), str(SNAPS / "broken"), "-f", "markdown")
    assert code == 1 and "| leaf01 |" in out and "**Introduced findings:" in out
    code, out = diff(str(SNAPS / "baseline"), str(SNAPS / "broken"))
    assert "interface Ethernet3/1: trust: dscp -> pcp  [breaks" in out


def test_without_a_fabric_only_settings_are_compared(tmp_path: Path) -> None:
    shutil.copytree(SNAPS / "baseline", tmp_path / "a")
    shutil.copytree(SNAPS / "broken", tmp_path / "b")
    code, out = diff(str(tmp_path / "a"), str(tmp_path / "b"), "-f", "json")
    data = json.loads(out)
    assert code == 0 and data["checked"] is False and data["introduced"] == []
    assert any(c["device"] == "gpu04" and c["setting"] == "roce_tos" for c in data["changes"])


def test_input_errors(tmp_path: Path) -> None:
    code, out = diff(
        str(tmp_path / "nope"),
        str(SNAPS / "broken"),
        "--fabric",
        str(ROOT / "inventories" / "roce-pod"),
    )
    assert code == 2 and "not found" in out
    code, out = diff(str(tmp_path), str(tmp_path), "--configs")
    assert code == 2 and "--configs needs --fabric" in out


def test_same_change_on_many_ports_is_one_line() -> None:
    def state(tc: int) -> DeviceState:
        qos = QosConfig(dscp_to_tc={26: tc})
        ports = {f"Ethernet{i}": Interface(name=f"Ethernet{i}") for i in range(1, 5)}
        return DeviceState(name="leaf01", platform="eos", qos=qos, interfaces=ports)

    changes = compare_states({"leaf01": state(3)}, {"leaf01": state(1)}, [26])
    priority = [c for c in changes if c.setting == "DSCP 26 priority"]
    assert len(priority) == 1 and len(priority[0].objects) == 4


def test_ecn_without_a_probability_is_not_at_none_percent() -> None:
    """EOS `random-detect ecn` has no probability: the diff said `150000 to 1500000 at None%`."""

    def state(ecn: EcnConfig | None) -> DeviceState:
        qos = QosConfig(queues={3: QueueConfig(queue=3, ecn=ecn)})
        ports = {"Ethernet1": Interface(name="Ethernet1")}
        return DeviceState(name="leaf01", platform="eos", qos=qos, interfaces=ports)

    marked = EcnConfig(enabled=True, min_bytes=150000, max_bytes=1500000)
    changes = compare_states({"leaf01": state(None)}, {"leaf01": state(marked)}, [26])
    (ecn,) = [c for c in changes if c.setting == "queue 3 ECN"]
    assert (ecn.before, ecn.after) == ("off", "150000 to 1500000")
