"""Suppressions (policy, inline, expiry) and baselines, end to end on the example fabric."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.engine import CheckOptions, run_check
from fabriclint.models.finding import Finding
from fabriclint.suppress import BaselineError, read_baseline

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


@pytest.fixture
def pod(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the example fabric; the working directory is its parent (sources are relative)."""
    target = tmp_path / "pod"
    shutil.copytree(ROOT / "inventories" / "roce-pod", target)
    monkeypatch.chdir(tmp_path)
    return Path("pod")


def run(*args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    result = runner.invoke(app, ["check", *args, "--format", "json"])
    assert "Traceback" not in result.output
    return result.exit_code, json.loads(result.output)


def edit(path: Path, old: str, new: str) -> None:
    """Change a snapshot file and drop its checksum (a candidate edited by hand)."""
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))
    manifest = path.parents[1] / "manifest.json"
    data = json.loads(manifest.read_text())
    data["devices"][path.parent.name]["sha256"] = {}
    manifest.write_text(json.dumps(data))


def test_baseline_accepts_known_findings_and_fails_only_new_ones(pod: Path) -> None:
    result = runner.invoke(
        app, ["check", str(pod), "-s", "broken", "--write-baseline", "base.json"]
    )
    assert result.exit_code == 1
    code, report = run(str(pod), "-s", "broken", "--baseline", "base.json")
    assert code == 0
    assert report["summary"]["findings"]["error"] == 0 and report["summary"]["suppressed"] > 30
    assert all(f["suppressed"].startswith("baseline") for f in report["findings"])
    config = pod / "snapshots" / "broken" / "leaf01" / "show_running-config.txt"
    edit(config, "hostname leaf01\n", "!\n!\nhostname leaf01\n")  # every line moves down by two
    code, report = run(str(pod), "-s", "broken", "--baseline", "base.json")
    assert code == 0
    edit(config, "qos map dscp 48 to traffic-class 6", "qos map dscp 48 to traffic-class 2")
    code, report = run(str(pod), "-s", "broken", "--baseline", "base.json")
    assert code == 1
    new = [(f["rule"], f["device"]) for f in report["findings"] if f["suppressed"] is None]
    assert new and all(device == "leaf01" for _, device in new)
    assert "DRIFT001" in {rule for rule, _ in new}  # CNP DSCP 48 now rides priority 2


def test_bad_baseline_file_exits_2(pod: Path) -> None:
    Path("base.json").write_text("{}")
    result = runner.invoke(app, ["check", str(pod), "-s", "broken", "--baseline", "base.json"])
    assert result.exit_code == 2 and "not a fabriclint baseline" in result.output


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[" * 100_000 + "]" * 100_000, "base.json: not a fabriclint baseline: nested more than"),
        ('{"x": ' + "1" * 5000 + "}", "an integer with 5000 digits"),
        ('{\n"fingerprints": {', "base.json:2:18: not a fabriclint baseline: Expecting"),
        ("[]", "base.json: not a fabriclint baseline: (top level): Input should be a valid"),
        ('{"fabriclint": "0.1.0"}', "not a fabriclint baseline: fingerprints: Field required"),
    ],
)
def test_a_hostile_baseline_is_one_located_line(tmp_path: Path, text: str, expected: str) -> None:
    """A PR's baseline is read bounded (it was a RecursionError or int() ValueError: exit 3)."""
    path = tmp_path / "base.json"
    path.write_text(text)
    with pytest.raises(BaselineError) as caught:
        read_baseline(path)
    message = str(caught.value).replace(str(tmp_path) + "/", "")
    assert expected in message and "\n" not in message and "pydantic" not in message


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_baseline_that_is_no_regular_file_is_refused(tmp_path: Path, kind: str) -> None:
    """A PR's baseline linked to /dev/zero filled memory; a FIFO blocked forever."""
    path = tmp_path / "base.json"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    with pytest.raises(BaselineError, match=r"base\.json: not a regular file; refused"):
        read_baseline(path)


def test_policy_suppression_expiry_and_unused(pod: Path) -> None:
    (pod / "policy.yaml").write_text(
        "extends: [default]\n"
        "suppressions:\n"
        "  - {rule: FAB004, device: leaf04, reason: upgrade scheduled for the next window}\n"
        "  - {rule: NIC006, device: gpu04, reason: firmware rollout, expires: 2026-01-31}\n"
        "  - {rule: PFC002, device: spine09, reason: stale entry}\n"
    )
    code, report = run(str(pod), "-s", "broken", "--select", "FAB004,NIC006,PFC002,SUP")
    by_rule = {(f["rule"], f["device"]): f for f in report["findings"]}
    assert by_rule[("FAB004", "leaf04")]["suppressed"] == "upgrade scheduled for the next window"
    assert by_rule[("NIC006", "gpu04")]["suppressed"] is None  # expired: counts again
    sup = sorted(
        (f["rule"], f["message"]) for f in report["findings"] if f["rule"].startswith("SUP")
    )
    assert [rule for rule, _ in sup] == ["SUP001", "SUP002"]
    assert "spine09" in sup[0][1] and "expired on 2026-01-31" in sup[1][1]
    assert code == 1
    lines = {
        f["rule"]: f["source"]["line"] for f in report["findings"] if f["rule"].startswith("SUP")
    }
    assert lines == {"SUP001": 5, "SUP002": 4}  # each at its suppression in policy.yaml


def test_a_baseline_never_accepts_findings_about_the_run(pod: Path) -> None:
    from fabriclint.models.finding import Finding
    from fabriclint.suppress import baseline_text

    made = [
        Finding(rule=r, name="x", severity="error", device="d", object="o", path=r, message="m")
        for r in ("INTERNAL001", "DRIFT003", "PFC002")
    ]
    written = json.loads(baseline_text(made))["fingerprints"]
    assert [v.split()[0] for v in written.values()] == ["PFC002"]


def test_policy_suppression_needs_a_reason(pod: Path) -> None:
    (pod / "policy.yaml").write_text("suppressions:\n  - {rule: FAB004, device: leaf04}\n")
    result = runner.invoke(app, ["validate", str(pod)])
    assert (
        result.exit_code == 2 and "suppressions.0.reason: required key is missing" in result.output
    )


def test_inline_suppression_in_a_candidate_config(pod: Path) -> None:
    config = pod / "snapshots" / "broken" / "leaf03" / "show_running-config.txt"
    _, before = run(str(pod), "-s", "broken", "--select", "ECN002")
    (ecn,) = [f for f in before["findings"] if f["device"] == "leaf03"]
    lines = config.read_text().splitlines(keepends=True)
    line = ecn["source"]["line"]
    lines.insert(
        line - 1, "      ! fabriclint: ignore[ECN002] swapped on purpose for the lab test\n"
    )
    lines.insert(0, "! fabriclint: ignore[PFC004]\n")
    config.write_text("".join(lines))
    edit(config, "x", "x")
    _, after = run(str(pod), "-s", "broken", "--select", "ECN002,PFC004,SUP")
    (ecn,) = [f for f in after["findings"] if f["rule"] == "ECN002" and f["device"] == "leaf03"]
    assert ecn["suppressed"] == "swapped on purpose for the lab test"
    sup = [
        (f["rule"], f["source"]["line"]) for f in after["findings"] if f["rule"].startswith("SUP")
    ]
    assert ("SUP003", 1) in sup  # no reason: not applied, reported


REASON = "swapped on purpose for the lab test"


def _ignore_leaf03_ecn002(pod: Path) -> Path:
    """Put an inline ignore[ECN002] above leaf03's ECN002 line; return the config's path."""
    config = pod / "snapshots" / "broken" / "leaf03" / "show_running-config.txt"
    _, before = run(str(pod), "-s", "broken", "--select", "ECN002")
    (ecn,) = [f for f in before["findings"] if f["device"] == "leaf03"]
    lines = config.read_text().splitlines(keepends=True)
    lines.insert(ecn["source"]["line"] - 1, f"      ! fabriclint: ignore[ECN002] {REASON}\n")
    config.write_text("".join(lines))
    edit(config, "x", "x")
    return config


def _leaf03_ecn002(progress: Callable[[str], None], pod: Path) -> list[Finding]:
    opts = CheckOptions(
        fabric_dir=pod, snapshot="broken", select=["ECN002", "SUP"], progress=progress
    )
    return run_check(opts).report.findings


def test_inline_suppressions_do_not_depend_on_the_working_directory(
    pod: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _ignore_leaf03_ecn002(pod)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # The progress callback runs while devices are parsed, after every input was read: the
    # sources name files relative to the old directory, which no longer resolve from here.
    findings = _leaf03_ecn002(lambda _device: monkeypatch.chdir(elsewhere), pod.absolute())
    (ecn,) = [f for f in findings if f.rule == "ECN002" and f.device == "leaf03"]
    assert ecn.suppressed == REASON
    assert not [f for f in findings if f.rule.startswith("SUP")]


def test_a_file_changed_after_it_was_read_does_not_change_the_suppressions(pod: Path) -> None:
    config = _ignore_leaf03_ecn002(pod).absolute()
    text = config.read_text()

    parsed: list[str] = []

    def meanwhile(device: str) -> None:  # the comment removed, another added, once read
        parsed.append(device)  # a device's files are read as it is parsed: edit after leaf03's
        if "leaf03" in parsed[:-1]:
            config.write_text(
                text.replace(f"ignore[ECN002] {REASON}", "x").replace(
                    "\n", "\n! fabriclint: ignore[ECN002]\n", 1
                )
            )

    findings = _leaf03_ecn002(meanwhile, pod)
    (ecn,) = [f for f in findings if f.rule == "ECN002" and f.device == "leaf03"]
    assert ecn.suppressed == REASON
    assert not [f for f in findings if f.rule.startswith("SUP")]
    assert "ignore[ECN002] " + REASON not in config.read_text()  # the edit did happen
