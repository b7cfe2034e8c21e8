"""Command-line conventions: one stream per stdout, --limit, pre-commit file lists, --quiet and
--statistics, rules as JSON, diff by snapshot name, did-you-mean for platforms, readable help."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from typer.testing import CliRunner

from fabriclint.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
POD = ROOT / "inventories" / "roce-pod"
runner = CliRunner()


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), terminal_width=80)
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def test_two_formats_to_stdout_is_refused() -> None:
    code, out = run("check", str(POD), "-s", "baseline", "-f", "json", "-f", "sarif")
    assert code == 2 and "json and sarif would both go to stdout" in out


def test_limit_checks_only_the_selected_devices_and_stays_complete() -> None:
    code, out = run("check", str(POD), "-s", "broken", "--limit", "leaf*", "-f", "json")
    assert code == 1
    report = json.loads(out)
    statuses = {d["name"]: (d["status"], d["error"]) for d in report["devices"]}
    assert statuses["spine01"] == ("not-checked", "not selected by --limit")
    assert statuses["leaf01"][0] == "ok" and report["summary"]["complete"] is True
    assert {f["device"] for f in report["findings"]} <= {"leaf01", "leaf02", "leaf03", "leaf04"}
    code, out = run("check", str(POD), "-s", "broken", "--limit", "rack:1")
    assert code == 2 and "unknown field 'rack'" in out
    code, out = run("check", str(POD), "-s", "broken", "--limit", "nothing*")
    assert code == 2 and "selects no device" in out


def test_files_named_by_pre_commit_check_only_their_devices(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not the fabric's\n")
    code, out = run("check", str(POD), "-s", "broken", str(notes))
    assert code == 0 and "nothing of" in out  # a file outside the fabric: nothing to do
    code, out = run("check", str(POD), "-s", "broken", str(tmp_path / "typo.cfg"))
    assert code == 2 and "no such file" in out
    other = POD / "snapshots" / "baseline" / "leaf03" / "show_running-config.txt"
    code, out = run("check", str(POD), "-s", "broken", str(other))
    assert code == 0 and "nothing of" in out  # another snapshot's file changes nothing here
    leaf = POD / "snapshots" / "broken" / "leaf03" / "show_running-config.txt"
    code, out = run("check", str(POD), "-s", "broken", str(leaf), "-f", "json")
    report = json.loads(out)
    checked = {d["name"] for d in report["devices"] if d["status"] == "ok"}
    # leaf03 and the devices cabled to it (cross-device rules need both ends)
    assert "leaf03" in checked and "gpu04" in checked and "leaf01" not in checked
    code, out = run("check", str(POD), "-s", "broken", str(POD / "intent.yaml"), "-f", "json")
    assert all(d["status"] == "ok" for d in json.loads(out)["devices"])  # intent: everything
    folder = POD / "snapshots" / "broken" / "leaf04"
    code, out = run("check", str(POD), "-s", "broken", str(folder), "-f", "json")
    checked = {d["name"] for d in json.loads(out)["devices"] if d["status"] == "ok"}
    assert checked == {
        "leaf04",
        "spine01",
        "spine02",
        "gpu03",
        "gpu04",
    }  # no neighbours' neighbours


def test_outputs_pair_safely_and_contradictions_are_refused(tmp_path: Path) -> None:
    sarif = tmp_path / "r.sarif"
    code, out = run(
        "check", str(POD), "-s", "broken", "-f", "text", "-f", "sarif", "-o", str(sarif)
    )
    assert code == 2 and "is paired with --format text" in out and not sarif.exists()
    code, out = run(
        "check", str(POD), "-s", "broken", "-f", "json", "-o", "-", "-f", "sarif", "-o", "-"
    )
    assert code == 2 and "both go to stdout" in out
    code, out = run("check", str(POD), "-s", "baseline", "-f", "json", "-o", "-")
    assert code == 0 and json.loads(out)["summary"]["complete"] is True
    same = str(tmp_path / "x.json")
    code, out = run(
        "check", str(POD), "-s", "broken", "-f", "json", "-o", same, "-f", "gitlab", "-o", same
    )
    assert code == 2 and "same file" in out
    code, out = run("check", str(POD), "-s", "broken", "--quiet", "--show-suppressed")
    assert code == 2 and "contradict" in out
    code, out = run("check", str(POD), "-s", "broken", "--workers", "8")
    assert code == 2 and "add --live" in out


def test_a_partial_run_says_what_it_could_not_compare() -> None:
    code, out = run("check", str(POD), "-s", "broken", "--limit", "leaf03", "-f", "json")
    assert code == 1
    report = json.loads(out)
    gaps = {g["rule"]: g["missing"] for g in report["coverage"]}
    assert "far end of its cables" in gaps["MTU002"]  # the seeded MTU002 needs gpu04
    assert "majority over the whole fabric" in gaps["FAB004"]
    assert not [f for f in report["findings"] if f["rule"].startswith("FAB")]


def test_quiet_and_statistics() -> None:
    code, out = run("check", str(POD), "-s", "broken", "--quiet", "--statistics")
    assert code == 1
    assert "coverage:" not in out or "rule gap(s)" in out
    assert re.search(r"^\d+ finding\(s\) from 18 cause\(s\):$", out, re.M)
    assert "+4 consequence(s)" in out


def test_rules_as_json_and_docs_to_stdout() -> None:
    code, out = run("rules", "--format", "json")
    assert code == 0
    catalog = json.loads(out)
    assert {r["code"] for r in catalog} >= {"PFC002", "INTERNAL001"}
    assert all({"code", "name", "severity", "summary", "doc", "options"} <= set(r) for r in catalog)
    code, out = run("rules", "docs")
    assert code == 0 and out.startswith("# ")


def test_diff_takes_snapshot_names_with_fabric() -> None:
    code, out = run("diff", "baseline", "broken", "--fabric", str(POD), "--format", "json")
    assert code == 1
    assert json.loads(out)["introduced"]


def test_platform_typo_gets_a_did_you_mean(tmp_path: Path) -> None:
    fabric = tmp_path / "f"
    shutil.copytree(POD, fabric, ignore=shutil.ignore_patterns("snapshots"))
    inv = fabric / "inventory.yaml"
    inv.write_text(inv.read_text().replace("platform: eos", "platform: arista_eos", 1))
    code, out = run("validate", str(fabric))
    # any platform name is accepted (a platform without a parser is a warning, `check` exit 3)
    assert code == 0 and "no parser for platform 'arista_eos'; did you mean 'eos'?" in out


def test_help_is_readable_at_80_columns() -> None:
    code, out = run("check", "--help")
    assert code == 0
    for flag in ("--insecure-no-host-key-check", "--changed-since", "--show-suppressed"):
        assert flag in out  # never cut
    assert "<bool>" not in out and "<str>" not in out
    code, out = run("--help")
    assert "--install-completion" in out
