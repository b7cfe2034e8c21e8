"""`--changed-since REF`: check the devices whose files changed, plus their link neighbours."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(ROOT / "inventories" / "roce-pod", tmp_path / "pod")
    git(tmp_path, "init", "-q")
    git(tmp_path, "-c", "user.email=t@example.com", "-c", "user.name=t", "add", "-A")
    git(tmp_path, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "x")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def checked(*args: str) -> tuple[int, dict[str, str]]:
    result = runner.invoke(app, ["check", "pod", "-s", "broken", "-f", "json", *args])
    report = json.loads(result.output)
    return result.exit_code, {d["name"]: d["status"] for d in report["devices"]}


def test_only_changed_devices_and_neighbours(repo: Path) -> None:
    config = repo / "pod" / "snapshots" / "broken" / "leaf03" / "show_running-config.txt"
    config.write_text(config.read_text() + "!\n")
    manifest = repo / "pod" / "snapshots" / "broken" / "manifest.json"
    data = json.loads(manifest.read_text())
    data["devices"]["leaf03"]["sha256"] = {}
    manifest.write_text(json.dumps(data))
    _, statuses = checked("--changed-since", "HEAD")  # the manifest changed too: everything
    assert set(statuses.values()) == {"ok"}
    git(repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qam", "y")
    config.write_text(config.read_text() + "!\n!\n")
    _, statuses = checked("--changed-since", "HEAD")
    ok = {name for name, status in statuses.items() if status == "ok"}
    assert "leaf03" in ok and {"spine01", "spine02"} <= ok
    assert statuses["leaf01"] == "not-checked"
    assert any(h.startswith("gpu") for h in ok)


def test_nothing_changed_checks_nothing_and_is_complete(repo: Path) -> None:
    code, statuses = checked("--changed-since", "HEAD")
    assert set(statuses.values()) == {"not-checked"} and code == 0


def test_bad_ref_is_a_usage_error(repo: Path) -> None:
    result = runner.invoke(app, ["check", "pod", "-s", "broken", "--changed-since", "no-such-ref"])
    assert result.exit_code == 2
    assert "--changed-since: 'no-such-ref': unknown revision" in result.output


@pytest.mark.parametrize(
    "ref", ["--output=stolen.txt", "-o stolen.txt", "--output=stolen.txt HEAD", "HEAD\n--output=x"]
)
def test_ref_is_never_an_option_to_git(repo: Path, ref: str) -> None:
    result = runner.invoke(app, ["check", "pod", "-s", "broken", f"--changed-since={ref}"])
    assert result.exit_code == 2, result.output
    assert "--changed-since" in result.output and "Traceback" not in result.output
    assert not list(repo.rglob("stolen.txt")) and not (repo / "x").exists()


def test_usual_ref_spellings_still_work(repo: Path) -> None:
    git(
        repo,
        "-c",
        "user.email=t@example.com",
        "-c",
        "user.name=t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "y",
    )
    for ref in ("HEAD~1", "HEAD^", "HEAD@{0}"):
        result = runner.invoke(app, ["check", "pod", "-s", "broken", "--changed-since", ref])
        assert result.exit_code in (0, 1), (ref, result.output)
