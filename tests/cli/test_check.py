"""`fabriclint check` exit codes and outputs on small fabrics written by the tests."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.snapshot import write_snapshot

runner = CliRunner()


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def test_unreachable_device_makes_the_run_incomplete(fabric_dir: Path) -> None:
    write_snapshot(
        fabric_dir / "snapshots" / "s1",
        {"leaf01": ("eos", {}), "gpu01": ("mlnx-host", {})},
        statuses={
            "leaf01": ("unreachable", "connect timeout after 10 s"),
            "gpu01": ("auth-failed", "bad password"),
        },
    )
    code, out = invoke("check", str(fabric_dir), "--no-color")
    assert code == 3
    assert "not checked: leaf01: unreachable: connect timeout after 10 s" in out
    assert "DRIFT003" in out and "INCOMPLETE" in out


def test_missing_file_makes_the_run_incomplete_in_json(fabric_dir: Path) -> None:
    snap = fabric_dir / "snapshots" / "s1"
    write_snapshot(snap, {"leaf01": ("eos", {"show running-config": "hostname leaf01\n"})})
    (snap / "leaf01" / "show_running-config.txt").unlink()
    code, out = invoke("check", str(fabric_dir), "--snapshot", "s1", "--format", "json")
    assert code == 3
    report = json.loads(out)
    assert report["summary"]["complete"] is False
    statuses = {d["name"]: (d["status"], d["error"]) for d in report["devices"]}
    assert statuses["leaf01"][0] == "missing-file"
    assert "show_running-config.txt" in statuses["leaf01"][1]
    assert statuses["gpu01"] == ("missing", "no data in the snapshot")
    assert {f["rule"] for f in report["findings"]} >= {"DRIFT003"}


def test_device_without_parser_is_incomplete(
    fabric_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("fabriclint.engine.get_parser", lambda platform: None)
    inv = fabric_dir / "inventory.yaml"
    inv.write_text(inv.read_text().replace("platform: eos", "platform: nxos"))
    write_snapshot(
        fabric_dir / "snapshots" / "s1", {"leaf01": ("nxos", {"show running-config": "x\n"})}
    )
    code, out = invoke("check", str(fabric_dir), "--no-color")
    assert code == 3
    assert "unsupported" in out


def test_a_new_fabric_without_snapshots_is_told_how_to_get_one(fabric_dir: Path) -> None:
    """Right after `fabriclint init`: the message names the command that makes a snapshot and
    the flag for rendered configs, not only '--snapshot or --configs'."""
    code, out = invoke("check", str(fabric_dir))
    assert code == 2 and f"fabriclint collect {fabric_dir}" in out and "--configs DIR" in out


def test_input_errors_exit_2(fabric_dir: Path, tmp_path: Path) -> None:
    code, out = invoke("check", str(fabric_dir))
    assert code == 2 and "no snapshot found" in out
    code, out = invoke("check", str(fabric_dir), "--snapshot", "nope")
    assert code == 2 and "snapshot folder not found" in out
    code, out = invoke("check", str(fabric_dir), "--snapshot", "x", "--configs", str(tmp_path))
    assert code == 2 and "exclusive" in out
    bad = fabric_dir / "snapshots" / "bad"
    bad.mkdir(parents=True)
    (bad / "manifest.json").write_text("{")
    code, out = invoke("check", str(fabric_dir), "--snapshot", "bad")
    assert code == 2 and "manifest.json:1:2: invalid JSON" in out
    code, out = invoke("check", str(fabric_dir), "--format", "xml")
    assert code == 2


def test_invalid_fabric_exits_2_with_location(fabric_dir: Path) -> None:
    (fabric_dir / "intent.yaml").write_text("profiles:\n  roce:\n    trust: dcsp\n")
    code, out = invoke("check", str(fabric_dir), "--snapshot", "whatever")
    assert code == 2
    assert "intent.yaml:3:12: profiles.roce.trust:" in out


def test_unexpected_device_is_reported(fabric_dir: Path) -> None:
    write_snapshot(
        fabric_dir / "snapshots" / "s1",
        {
            "leaf01": ("eos", {}),
            "gpu01": ("mlnx-host", {}),
            "leaf09": ("eos", {"show running-config": "x"}),
        },
        statuses={"leaf01": ("timeout", "timed out"), "gpu01": ("timeout", "timed out")},
    )
    code, out = invoke("check", str(fabric_dir), "--format", "json")
    report = json.loads(out)
    assert code == 3
    unexpected = [f for f in report["findings"] if f["rule"] == "DRIFT004"]
    assert [f["device"] for f in unexpected] == ["leaf09"]


def test_output_file_written_atomically(fabric_dir: Path, tmp_path: Path) -> None:
    write_snapshot(
        fabric_dir / "snapshots" / "s1",
        {"leaf01": ("eos", {}), "gpu01": ("mlnx-host", {})},
        statuses={"leaf01": ("timeout", "t"), "gpu01": ("timeout", "t")},
    )
    target = tmp_path / "out" / "report.json"
    code, _ = invoke("check", str(fabric_dir), "-f", "json", "-o", str(target))
    assert code == 3
    assert json.loads(target.read_text())["fabric"] == "tiny"
    assert [p.name for p in target.parent.iterdir()] == ["report.json"]


def test_rules_explain(fabric_dir: Path) -> None:
    code, out = invoke("rules", "explain", "drift001")
    assert code == 0 and "setting-drift" in out and "tolerance" in out
    code, out = invoke("rules", "explain", "DRIFT01")
    assert code == 2 and "did you mean" in out
    code, out = invoke("rules")
    assert code == 0 and "PARSE003" in out


def test_unknown_cli_code_is_a_usage_error(fabric_dir: Path) -> None:
    code, out = invoke("check", str(fabric_dir), "--select", "PFX002")
    assert code == 2 and "--select: unknown rule code 'PFX002'; did you mean 'PFC002'?" in out
    code, out = invoke("check", str(fabric_dir), "--ignore", "nope")
    assert code == 2 and "--ignore: unknown rule code 'NOPE'" in out


def test_unwritable_output_is_a_usage_error(fabric_dir: Path, tmp_path: Path) -> None:
    write_snapshot(
        fabric_dir / "snapshots" / "s1",
        {"leaf01": ("eos", {}), "gpu01": ("mlnx-host", {})},
        statuses={"leaf01": ("timeout", "t"), "gpu01": ("timeout", "t")},
    )
    code, out = invoke("check", str(fabric_dir), "-o", str(tmp_path))  # a directory
    assert code == 2 and "cannot write" in out


def test_report_file_mode_follows_umask(fabric_dir: Path, tmp_path: Path) -> None:
    write_snapshot(
        fabric_dir / "snapshots" / "s1",
        {"leaf01": ("eos", {}), "gpu01": ("mlnx-host", {})},
        statuses={"leaf01": ("timeout", "t"), "gpu01": ("timeout", "t")},
    )
    target = tmp_path / "r.json"
    invoke("check", str(fabric_dir), "-f", "json", "-o", str(target))
    assert target.stat().st_mode & 0o777 == 0o666 & ~_current_umask()


def _current_umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_platform_mismatch_is_incomplete(fabric_dir: Path) -> None:
    write_snapshot(
        fabric_dir / "snapshots" / "s1",
        {
            "leaf01": ("nxos", {"show running-config": "hostname leaf01\n"}),
            "gpu01": ("mlnx-host", {}),
        },
        statuses={"gpu01": ("timeout", "t")},
    )
    code, out = invoke("check", str(fabric_dir), "--format", "json")
    report = json.loads(out)
    assert code == 3
    leaf = next(d for d in report["devices"] if d["name"] == "leaf01")
    assert leaf["status"] == "platform-mismatch"
    assert leaf["error"] == "the snapshot says platform 'nxos', the inventory 'eos'"


def test_two_rendered_configs_of_one_device_exit_2(fabric_dir: Path, tmp_path: Path) -> None:
    """Which of leaf01.cfg and leaf01.old was checked depended on their names: refused."""
    rendered = tmp_path / "rendered"
    rendered.mkdir()
    (rendered / "leaf01.cfg").write_text("hostname leaf01\n")
    (rendered / "leaf01.old").write_text("hostname leaf01\n")
    code, out = invoke("check", str(fabric_dir), "--configs", str(rendered))
    assert code == 2 and "leaf01.cfg and leaf01.old are both configs of device 'leaf01'" in out


ROCE_POD = Path(__file__).resolve().parents[2] / "inventories" / "roce-pod"


@pytest.mark.parametrize(
    ("flag", "target", "refused"),
    [
        ("--output", "inventory.yaml", True),  # the report replaced the inventory
        ("--output", "snapshots/broken/manifest.json", True),  # ... or the snapshot's manifest
        ("--output", "snapshots/broken/report.json", True),  # a stray file in the snapshot
        ("--write-baseline", "policy.yaml", True),
        ("--output", "link-to-intent.json", True),  # through a link, the same file
        ("--output", "report.json", False),  # next to them is fine
        ("--output", "snapshots/baseline/report.json", False),  # a snapshot not read
    ],
)
def test_a_report_never_replaces_an_input_of_the_check(
    tmp_path: Path, flag: str, target: str, refused: bool
) -> None:
    fabric = tmp_path / "pod"
    shutil.copytree(ROCE_POD, fabric)
    (fabric / "link-to-intent.json").symlink_to(fabric / "intent.yaml")
    before = {p: p.read_bytes() for p in fabric.rglob("*") if p.is_file()}
    extra = ["--format", "json"] if flag == "--output" else []
    code, out = invoke("check", str(fabric), "-s", "broken", *extra, flag, str(fabric / target))
    if not refused:
        assert code == 1 and (fabric / target).is_file()
        return
    assert code == 2 and f"{fabric / target}: one of the inputs this check reads" in out
    assert {p: p.read_bytes() for p in fabric.rglob("*") if p.is_file()} == before


def test_a_report_is_never_written_into_the_configs_folder(tmp_path: Path) -> None:
    """It would be read as device 'report' by the next run."""
    rendered = tmp_path / "rendered"
    rendered.mkdir()
    (rendered / "leaf01.cfg").write_text("hostname leaf01\n")
    out = rendered / "report.json"
    code, text = invoke(
        "check", str(ROCE_POD), "--configs", str(rendered), "-f", "json", "-o", str(out)
    )
    assert code == 2 and "one of the inputs this check reads" in text and not out.exists()
