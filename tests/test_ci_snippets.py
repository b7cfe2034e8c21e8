"""The CI examples of docs/ci.md work as pasted: valid YAML with the triggers and permissions the
services need, and every fabriclint command in them runs, in a repository laid out as they
expect (fabric/ with its YAML, rendered/ with one config per switch), writing the files the
upload steps read."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML
from typer.testing import CliRunner

from fabriclint.cli.app import app

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "ci.md").read_text()
POD = ROOT / "inventories" / "roce-pod"


def _snippet(title: str) -> Any:
    section = DOC.split(f"### {title}\n", 1)[1]
    block = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert block, title
    return YAML(typ="safe").load(block.group(1))


def _commands(lines: list[str]) -> list[list[str]]:
    """The fabriclint command lines of a job, folded YAML already joined into one line each."""
    return [shlex.split(line) for line in lines if line.strip().startswith("fabriclint ")]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config-as-code repository: fabric/ (inventory, intent, policy) and rendered/ (the
    switches' configs as a generator writes them), with today's findings accepted in a baseline."""
    fabric = tmp_path / "fabric"
    shutil.copytree(POD, fabric, ignore=shutil.ignore_patterns("snapshots"))
    rendered = tmp_path / "rendered"
    rendered.mkdir()
    for device in (POD / "snapshots" / "broken").iterdir():
        config = device / "show_running-config.txt"
        if config.is_file():
            shutil.copy(config, rendered / f"{device.name}.cfg")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        app,
        ["check", "fabric/", "--configs", "rendered/", "--write-baseline", ".fabriclint-baseline.json"],
    )  # fmt: skip
    assert result.exit_code == 1 and Path(".fabriclint-baseline.json").is_file(), result.output
    return tmp_path


def _run(args: list[str]) -> int:
    assert args[0] == "fabriclint"
    result = CliRunner().invoke(app, args[1:])
    assert "Traceback" not in result.output
    return result.exit_code


def test_github_workflow_triggers_and_permissions() -> None:
    flow = _snippet("GitHub Actions")
    assert {"pull_request", "push"} <= set(flow["on"])  # code scanning needs the base analysis
    assert flow["permissions"] == {
        "contents": "read", "security-events": "write", "actions": "read",
    }  # fmt: skip
    steps = flow["jobs"]["fabric"]["steps"]
    upload = next(s for s in steps if str(s.get("uses", "")).startswith("github/codeql-action"))
    assert upload["if"] == "always()"
    runs = " ".join(str(s.get("run", "")) for s in steps)
    assert "--changed-since" not in runs  # never in the job that uploads SARIF
    assert 'pip install "$FABRICLINT_SRC"' in runs and "pip install fabriclint" not in runs


def test_github_workflow_commands_run_as_pasted(repo: Path) -> None:
    flow = _snippet("GitHub Actions")
    steps = flow["jobs"]["fabric"]["steps"]
    lines = [" ".join(str(s["run"]).split()) for s in steps if "run" in s]
    commands = _commands(lines)
    assert [c[1] for c in commands] == ["validate", "check"]
    assert [_run(c) for c in commands] == [0, 0]  # the accepted baseline: nothing new fails
    upload = next(s for s in steps if "with" in s and "sarif_file" in s["with"])
    sarif = json.loads((repo / upload["with"]["sarif_file"]).read_text())
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["results"]
    assert (repo / "fabriclint.md").read_text().startswith("## fabriclint")
    artifact = next(
        s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact")
    )
    assert artifact["if"] == "always()"
    page = (repo / artifact["with"]["path"]).read_text()
    assert page.startswith("<!DOCTYPE html>") and '<svg id="map"' in page


def test_github_workflow_says_how_to_write_the_baseline_it_reads(repo: Path) -> None:
    """A new repository has no baseline yet: the doc gives the command that writes it, and the
    check without it stops with exit 2 naming that flag, not only 'No such file'."""
    section = DOC.split("### GitHub Actions\n", 1)[1].split("\n### ", 1)[0]
    write = re.search(r"`(fabriclint check [^`]*--write-baseline [^`]*)`", section)
    assert write, "the GitHub Actions section says how to write the baseline"
    (repo / ".fabriclint-baseline.json").unlink()
    flow = _snippet("GitHub Actions")
    lines = [" ".join(str(s["run"]).split()) for s in flow["jobs"]["fabric"]["steps"] if "run" in s]
    check = next(c for c in _commands(lines) if c[1] == "check")
    result = CliRunner().invoke(app, check[1:])
    assert result.exit_code == 2 and "--write-baseline .fabriclint-baseline.json" in result.output
    assert _run(shlex.split(write.group(1))) == 1  # the pod's findings accepted
    assert _run(check) == 0


def test_gitlab_job_runs_as_pasted_and_writes_its_reports(repo: Path) -> None:
    job = _snippet("GitLab CI")["fabriclint"]
    lines = [" ".join(line.split()) for line in job["script"]]
    assert any('pip install "$FABRICLINT_SRC"' in line for line in lines)
    codes = [_run(c) for c in _commands(lines)]
    assert codes == [0, 1]  # no baseline in this job: the broken configs' findings fail it
    reports = job["artifacts"]["reports"]
    issues = json.loads((repo / reports["codequality"]).read_text())
    assert issues and all({"check_name", "fingerprint", "location"} <= set(i) for i in issues)
    assert ET.parse(repo / reports["junit"]).getroot().tag == "testsuites"
    assert job["artifacts"]["when"] == "always"
    (page,) = job["artifacts"]["paths"]
    assert '<svg id="map"' in (repo / page).read_text()


def test_pre_commit_config_uses_the_shipped_hooks_and_checks_only_what_changed(
    repo: Path,
) -> None:
    config = _snippet("pre-commit")
    hooks = {h["id"]: h for h in config["repos"][0]["hooks"]}
    shipped = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert set(hooks) == {h["id"] for h in shipped}
    check = next(h for h in shipped if h["id"] == "fabriclint-check")
    assert check["pass_filenames"] is True
    base = [*check["entry"].split(), *hooks["fabriclint-check"]["args"]]
    (repo / "notes.txt").write_text("not part of the fabric\n")
    assert not re.search(hooks["fabriclint-check"]["files"], "notes.txt")
    assert _run([*base, "notes.txt"]) == 0  # nothing of the fabric: nothing checked
    assert _run([*base, "rendered/leaf03.cfg"]) == 1  # leaf03 and its neighbours
    assert re.search(check["files"], "rendered/leaf03.cfg")
    assert os.environ.get("PRE_COMMIT") is None  # the hook needs no pre-commit-only setup
