"""`fabriclint diff` across a partial fix: a finding that only changed scope is moved, not new.

spine02 in `broken` programs the ECN minimum threshold 300 kB in profile ROCE, applied to its 4
uplinks: one DRIFT001 on `interfaces.*.roce_queue.ecn.min_bytes`. Moving 3 of the 4 ports to a
fixed profile leaves the fault on Ethernet4/1 alone, reported on
`interfaces.Ethernet4/1.roce_queue.ecn.min_bytes`: another fingerprint, the same problem.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.diff import finding_delta
from fabriclint.models.finding import Finding

ROOT = Path(__file__).resolve().parents[2]
POD = ROOT / "inventories" / "roce-pod"
RUNNING = "show_running-config.txt"
runner = CliRunner()


def _rehash(snapshot: Path, device: str) -> None:
    manifest = json.loads((snapshot / "manifest.json").read_text())
    data = (snapshot / device / RUNNING).read_bytes()
    manifest["devices"][device]["sha256"][RUNNING] = hashlib.sha256(data).hexdigest()
    (snapshot / "manifest.json").write_text(json.dumps(manifest, indent=2))


def partial_fix(fabric: Path, extra_trust: bool) -> Path:
    """`broken` with 3 of spine02's 4 uplinks on a fixed copy of profile ROCE (and, when asked,
    a genuinely new fault next to it: `qos trust cos` on the port left on the old profile)."""
    after = fabric / "snapshots" / "partial"
    shutil.copytree(fabric / "snapshots" / "broken", after)
    path = after / "spine02" / RUNNING
    text = path.read_text()
    profile = text[text.index("qos profile ROCE\n") : text.index("interface Ethernet1/1\n")]
    fixed = profile.replace("qos profile ROCE\n", "qos profile ROCE-FIXED\n").replace(
        "minimum-threshold 300 kbytes", "minimum-threshold 150 kbytes"
    )
    assert fixed != profile
    text = text.replace("interface Ethernet1/1\n", fixed + "interface Ethernet1/1\n", 1)
    for port in ("Ethernet1/1", "Ethernet2/1", "Ethernet3/1"):
        start = text.index(f"interface {port}\n")
        at = text.index("   service-profile ROCE\n", start)
        text = text[:at] + "   service-profile ROCE-FIXED\n" + text[at + 24 :]
    if extra_trust:
        start = text.index("interface Ethernet4/1\n")
        at = text.index("   service-profile ROCE\n", start) + 24
        text = text[:at] + "   qos trust cos\n" + text[at:]
    path.write_text(text)
    _rehash(after, "spine02")
    return after


@pytest.fixture
def fabric(tmp_path: Path) -> Path:
    out = tmp_path / "roce-pod"
    out.mkdir()
    for name in ("inventory.yaml", "intent.yaml", "policy.yaml"):
        shutil.copy(POD / name, out / name)
    shutil.copytree(POD / "snapshots" / "broken", out / "snapshots" / "broken")
    return out


def _diff(fabric: Path, after: Path) -> tuple[int, dict[str, Any]]:
    before = fabric / "snapshots" / "broken"
    result = runner.invoke(app, ["diff", str(before), str(after), "--format", "json"])
    assert "Traceback" not in result.output
    data: dict[str, Any] = json.loads(result.output)
    return result.exit_code, data


def _keys(findings: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return sorted((f["rule"], f["device"], f["path"]) for f in findings)


def test_fault_left_on_one_port_is_moved_not_introduced(fabric: Path) -> None:
    code, report = _diff(fabric, partial_fix(fabric, extra_trust=False))
    assert report["introduced"] == []
    assert report["resolved"] == []
    [moved] = report["moved"]
    assert (moved["rule"], moved["device"], moved["setting"]) == (
        "DRIFT001",
        "spine02",
        "roce_queue.ecn.min_bytes",
    )
    assert _keys(moved["before"]) == [
        ("DRIFT001", "spine02", "interfaces.*.roce_queue.ecn.min_bytes")
    ]
    assert _keys(moved["after"]) == [
        ("DRIFT001", "spine02", "interfaces.Ethernet4/1.roce_queue.ecn.min_bytes")
    ]
    assert code == 0  # nothing new: the change only fixed three ports


def test_new_fault_next_to_a_moved_one_is_still_introduced(fabric: Path) -> None:
    code, report = _diff(fabric, partial_fix(fabric, extra_trust=True))
    introduced = _keys(report["introduced"])
    assert ("DRIFT001", "spine02", "interfaces.Ethernet4/1.qos.trust") in introduced
    assert ("QOS001", "spine02", "interfaces.Ethernet4/1.qos.trust") in introduced
    assert all(path != "interfaces.Ethernet4/1.roce_queue.ecn.min_bytes" for *_, path in introduced)
    assert [m["setting"] for m in report["moved"]] == ["roce_queue.ecn.min_bytes"]
    assert code == 1


def test_text_view_lists_moved_findings(fabric: Path) -> None:
    after = partial_fix(fabric, extra_trust=False)
    result = runner.invoke(app, ["diff", str(fabric / "snapshots" / "broken"), str(after)])
    assert "findings introduced (0):" in result.output
    assert "findings moved (still there, in another scope) (1):" in result.output
    assert "~ error DRIFT001 spine02 interface Ethernet4/1" in result.output


def _f(rule: str, device: str, path: str, setting: str, ports: list[str]) -> Finding:
    found = Finding(
        rule=rule, name="x", severity="error", device=device, object="o", path=path, message="m"
    )
    return found.scoped(setting, ports)


SHARED = _f("PFC004", "leaf01", "qos.pfc.watchdog", "pfc.watchdog", ["Ethernet1", "Ethernet2"])


def test_device_wide_fault_split_per_port_is_moved() -> None:
    after = [
        _f("PFC004", "leaf01", f"interfaces.{p}.qos.pfc.watchdog", "pfc.watchdog", [p])
        for p in ("Ethernet1", "Ethernet2")
    ]
    delta = finding_delta([SHARED], after)
    assert (delta.introduced, delta.resolved) == ([], [])
    [moved] = delta.moved
    assert (moved.before, moved.after) == ([SHARED], after)
    back = finding_delta(after, [SHARED])  # and the reverse: per-port faults merged into one
    assert (back.introduced, back.resolved, len(back.moved)) == ([], [], 1)


@pytest.mark.parametrize(
    "other",
    [
        _f(
            "PFC004",
            "leaf01",
            "interfaces.Ethernet3.qos.pfc.watchdog",
            "pfc.watchdog",
            ["Ethernet3"],
        ),
        _f(
            "PFC004", "leaf01", "interfaces.Ethernet1.qos.pfc.enabled", "pfc.enabled", ["Ethernet1"]
        ),
        _f(
            "PFC004",
            "leaf02",
            "interfaces.Ethernet1.qos.pfc.watchdog",
            "pfc.watchdog",
            ["Ethernet1"],
        ),
        _f(
            "PFC005",
            "leaf01",
            "interfaces.Ethernet1.qos.pfc.watchdog",
            "pfc.watchdog",
            ["Ethernet1"],
        ),
        _f("PFC004", "leaf01", "qos.pfc.watchdog.x", "", ["Ethernet1"]),
        _f(
            "PFC004",
            "leaf01",
            "profiles.P.pfc.watchdog",
            "pfc.watchdog",
            ["Ethernet1", "Ethernet3"],
        ),
    ],
    ids=["other-port", "other-setting", "other-device", "other-rule", "no-setting", "more-ports"],
)
def test_a_genuinely_new_finding_is_introduced(other: Finding) -> None:
    delta = finding_delta([SHARED], [other])
    assert (delta.introduced, delta.resolved, delta.moved) == ([other], [SHARED], [])
