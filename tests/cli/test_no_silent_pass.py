"""No silent pass in any mode: every cabled port is checked against its own device, and a cabled
switch whose input defines no interface is an input problem (incomplete), never clean."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.snapshot import write_snapshot

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

EOS = """\
hostname leaf01
!
qos map dscp 26 to traffic-class 3
!
interface {port}
   mtu 9214
   no switchport
   priority-flow-control on
   priority-flow-control priority 3 no-drop
!
"""


def _check(*args: str) -> tuple[int, dict[str, object]]:
    result = runner.invoke(app, ["check", *args, "-f", "json"])
    assert "Traceback" not in result.output
    return result.exit_code, json.loads(result.output)


def _rules(report: dict[str, object]) -> list[tuple[str, str | None, str]]:
    findings = report["findings"]
    assert isinstance(findings, list)
    return [(f["rule"], f["device"], f["object"]) for f in findings]


def test_configs_mode_reports_a_cabled_port_the_switch_lacks_even_toward_a_host(
    fabric_dir: Path, tmp_path: Path
) -> None:
    configs = tmp_path / "rendered"
    configs.mkdir()
    (configs / "leaf01.cfg").write_text(EOS.format(port="Ethernet2"))  # plan says Ethernet1
    code, report = _check(str(fabric_dir), "--configs", str(configs))
    assert code == 1
    assert ("INV001", "leaf01", "interface Ethernet1") in _rules(report)
    inv001 = next(f for f in report["findings"] if f["rule"] == "INV001")  # type: ignore[attr-defined]
    assert inv001["source"]["file"].endswith("inventory.yaml")
    assert inv001["source"]["line"] == 6  # the link's line in the cabling plan


def test_configs_mode_with_the_right_port_has_no_inv001(fabric_dir: Path, tmp_path: Path) -> None:
    configs = tmp_path / "rendered"
    configs.mkdir()
    (configs / "leaf01.cfg").write_text(EOS.format(port="Ethernet1"))
    _code, report = _check(str(fabric_dir), "--configs", str(configs))
    assert not [r for r in _rules(report) if r[0] == "INV001"]


def test_a_cabled_switch_without_interfaces_is_incomplete(fabric_dir: Path, tmp_path: Path) -> None:
    configs = tmp_path / "rendered"
    configs.mkdir()
    (configs / "leaf01.cfg").write_text("hostname leaf01\n!\nqos map dscp 26 to traffic-class 3\n")
    code, report = _check(str(fabric_dir), "--configs", str(configs))
    assert code == 3
    parse = [f for f in report["findings"] if f["rule"] == "PARSE003"]  # type: ignore[attr-defined]
    assert len(parse) == 1 and "no interface is defined" in parse[0]["message"]
    assert parse[0]["source"]["file"].endswith("leaf01.cfg")
    status = {d["name"]: d["status"] for d in report["devices"]}  # type: ignore[attr-defined]
    assert status["leaf01"] == "unparseable"
    # The same in snapshot mode.
    write_snapshot(
        fabric_dir / "snapshots" / "s1",
        {
            "leaf01": ("eos", {"show running-config": "hostname leaf01\n"}),
            "gpu01": ("mlnx-host", {}),
        },
    )
    code, _report = _check(str(fabric_dir), "--snapshot", "s1")
    assert code == 3


def test_a_cabled_hca_port_without_netdev_is_a_port(tmp_path: Path) -> None:
    fabric = tmp_path / "ibc"
    shutil.copytree(ROOT / "inventories" / "ib-cluster", fabric)
    with (fabric / "inventory.yaml").open("a") as handle:
        handle.write(
            'links:\n  - {a: "gpu01:mlx5_0/1", b: "gpu02:mlx5_0/1"}\n'
            '  - {a: "gpu01:mlx5_9/1", b: "gpu02:mlx5_1/1"}\n'
        )
    code, report = _check(str(fabric), "--snapshot", "baseline")
    assert code == 1
    inv = [r for r in _rules(report) if r[0] == "INV001"]
    assert inv == [("INV001", "gpu01", "interface mlx5_9/1")]  # mlx5_0/1 exists, mlx5_9/1 not
