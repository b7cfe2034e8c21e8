"""An exception inside fabriclint (a rule, site rule, suppression, reporter, device annotation or
anywhere under a command) is contained: INTERNAL001, the rest of the report, exit 3."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.engine import CheckOptions, ExitCode, UsageError, run_check
from fabriclint.models.finding import Finding
from fabriclint.rules.base import Context, NoOptions, Rule
from fabriclint.rules.registry import ALL_RULES

ROOT = Path(__file__).resolve().parents[1]
POD = ROOT / "inventories" / "roce-pod"
runner = CliRunner()


class Exploding(Rule[NoOptions]):
    """A rule that reports one finding, then fails the way a real bug does (`0 <= None`)."""

    code = "PFC002"  # a real code, so selection and the catalog accept it
    name = "rdma-priority-not-lossless"
    severity = "error"
    summary = "test double"

    def check(self, ctx: Context) -> Iterator[Finding]:
        yield self.finding("leaf01", "qos", "qos.test", "found before failing")
        limit: Any = None
        if limit >= 0:  # TypeError, as QOS003 raised on a Junos map holding None
            yield self.finding("leaf01", "qos", "qos.never", "unreachable")


def _rules_with_exploding() -> list[type[Rule[Any]]]:
    return [Exploding if r.code == "PFC002" else r for r in ALL_RULES]


def test_a_failing_rule_is_internal001_and_the_other_rules_still_report() -> None:
    clean = run_check(CheckOptions(fabric_dir=POD, snapshot="broken"))
    result = run_check(
        CheckOptions(fabric_dir=POD, snapshot="broken", rules=_rules_with_exploding())
    )
    assert result.exit_code == ExitCode.INCOMPLETE
    assert result.report.summary.complete is False
    internal = [f for f in result.report.findings if f.rule == "INTERNAL001"]
    assert len(internal) == 1
    assert internal[0].object == "rule PFC002"
    assert "TypeError" in internal[0].message and "not supported" in internal[0].message
    assert result.report.internal_errors == [f"rule PFC002: {internal[0].actual}"]
    # What the failing rule yielded before failing is kept; every other rule still ran.
    assert any(f.message == "found before failing" for f in result.report.findings)
    others = {f.fingerprint for f in clean.report.findings if f.rule != "PFC002"}
    assert others <= {f.fingerprint for f in result.report.findings}


def test_internal001_cannot_be_ignored_away() -> None:
    # PFC002 is ignored, so no rule would run at all: refused (exit 2), never a clean pass.
    with pytest.raises(UsageError, match="leaves no rule to run"):
        run_check(
            CheckOptions(
                fabric_dir=POD,
                snapshot="baseline",
                ignore=["INTERNAL001", "PFC002"],
                rules=[Exploding],
                select=["PFC002"],
            )
        )
    result = run_check(
        CheckOptions(fabric_dir=POD, snapshot="baseline", ignore=["INTERNAL001"], rules=[Exploding])
    )
    assert result.exit_code == ExitCode.INCOMPLETE
    assert [f.rule for f in result.report.findings].count("INTERNAL001") == 1


def test_failing_rule_through_the_cli_writes_every_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("fabriclint.engine.ALL_RULES", _rules_with_exploding())
    out = {fmt: tmp_path / f"report.{fmt}" for fmt in ("json", "sarif", "junit", "markdown")}
    args = ["check", str(POD), "--snapshot", "baseline", "--no-color"]
    for fmt, path in out.items():
        args += ["-f", fmt, "-o", str(path)]
    result = runner.invoke(app, args)
    assert result.exit_code == 3, result.output
    assert "Traceback" not in result.output
    assert "internal error: rule PFC002: TypeError" in result.output
    report = json.loads(out["json"].read_text())
    assert report["summary"]["complete"] is False
    assert [f["rule"] for f in report["findings"]].count("INTERNAL001") == 1
    sarif = json.loads(out["sarif"].read_text())
    invocation = sarif["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    notes = [n["message"]["text"] for n in invocation["toolExecutionNotifications"]]
    assert any(n.startswith("internal error: rule PFC002") for n in notes)
    assert "INTERNAL001" in out["junit"].read_text()
    assert "Internal error" in out["markdown"].read_text()


def test_a_failing_reporter_leaves_the_others_written_and_exits_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: Any, **_kw: Any) -> str:
        raise KeyError("ruleIndex")

    monkeypatch.setattr("fabriclint.reporters.sarif.render", broken)
    good, bad = tmp_path / "r.json", tmp_path / "r.sarif"
    bad.write_text("last night's SARIF\n")
    result = runner.invoke(
        app,
        [
            "check",
            str(POD),
            "-s",
            "baseline",
            "-f",
            "json",
            "-o",
            str(good),
            "-f",
            "sarif",
            "-o",
            str(bad),
        ],
    )
    assert result.exit_code == 3, result.output
    assert "internal error: reporter sarif: KeyError" in result.output
    report = json.loads(good.read_text())
    internal = [f for f in report["findings"] if f["rule"] == "INTERNAL001"]
    assert [f["object"] for f in internal] == ["reporter sarif"]
    assert report["summary"]["complete"] is False
    assert bad.read_text() == "last night's SARIF\n"  # not replaced by a half-made file


def test_a_failing_suppression_step_reports_findings_unsuppressed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*_args: Any, **_kw: Any) -> Any:
        raise ValueError("bad glob")

    monkeypatch.setattr("fabriclint.engine.apply", broken)
    result = run_check(CheckOptions(fabric_dir=POD, snapshot="broken"))
    assert result.exit_code == ExitCode.INCOMPLETE
    internal = [f for f in result.report.findings if f.rule == "INTERNAL001"]
    assert [f.object for f in internal] == ["suppression"]
    assert all(f.suppressed is None for f in result.report.findings)


def test_a_failing_annotation_leaves_that_device_unchecked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from fabriclint import engine

    real = engine._annotate

    def flaky(state: Any, fabric: Any, cables: Any) -> None:
        if state.name == "leaf02":
            raise RuntimeError("boom")
        real(state, fabric, cables)

    monkeypatch.setattr("fabriclint.engine._annotate", flaky)
    result = run_check(CheckOptions(fabric_dir=POD, snapshot="baseline"))
    assert result.exit_code == ExitCode.INCOMPLETE
    status = {d.name: d.status for d in result.report.devices}
    assert status["leaf02"] == "internal-error"
    assert status["leaf01"] == "ok"
    internal = [f for f in result.report.findings if f.rule == "INTERNAL001"]
    assert [(f.device, f.object) for f in internal] == [("leaf02", "annotating from the inventory")]


def _run_main(code: str, env_debug: bool) -> subprocess.CompletedProcess[str]:
    prelude = (
        "import sys\n"
        "import fabriclint.engine as e\n"
        "def boom(*a, **k):\n"
        "    raise RuntimeError('unexpected state')\n"
        f"{code}\n"
        "from fabriclint.cli.app import main\n"
        f"sys.argv = ['fabriclint', 'check', {str(POD)!r}, '-s', 'baseline']\n"
        "main()\n"
    )
    env = {"FABRICLINT_DEBUG": "1"} if env_debug else {"FABRICLINT_DEBUG": ""}
    import os

    return subprocess.run(
        [sys.executable, "-c", prelude],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=False,
    )


def test_an_exception_anywhere_under_a_command_is_exit_3_without_traceback() -> None:
    done = _run_main("e.run_check = boom", env_debug=False)
    assert done.returncode == 3, done.stderr
    assert "internal error: RuntimeError: unexpected state" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    debug = _run_main("e.run_check = boom", env_debug=True)
    assert debug.returncode == 3
    assert "Traceback" in debug.stderr


def test_ctrl_c_under_a_command_is_exit_130() -> None:
    done = _run_main(
        "def stop(*a, **k):\n    raise KeyboardInterrupt\ne.run_check = stop", env_debug=False
    )
    assert done.returncode == 130
    assert "Traceback" not in done.stderr


def test_a_failing_report_builder_still_reports_every_finding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*_args: Any, **_kw: Any) -> Any:
        raise ZeroDivisionError("division by zero")

    clean = run_check(CheckOptions(fabric_dir=POD, snapshot="broken"))
    monkeypatch.setattr("fabriclint.engine.build_report", broken)
    result = run_check(CheckOptions(fabric_dir=POD, snapshot="broken"))
    assert result.exit_code == ExitCode.INCOMPLETE
    assert {f.fingerprint for f in clean.report.findings} <= {
        f.fingerprint for f in result.report.findings
    }
    assert (
        "building the report: ZeroDivisionError: division by zero" in result.report.internal_errors
    )


def test_a_failing_fix_hint_is_reported_once_and_the_other_hints_stay(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from fabriclint import fixes

    real = fixes.hint

    def flaky(finding: Finding, *args: Any) -> str | None:
        if finding.rule == "NIC003":
            raise KeyError("cnp")
        return real(finding, *args)

    monkeypatch.setattr(fixes, "hint", flaky)
    result = run_check(CheckOptions(fabric_dir=POD, snapshot="broken"))
    assert result.exit_code == ExitCode.INCOMPLETE
    internal = [f.object for f in result.report.findings if f.rule == "INTERNAL001"]
    assert internal == ["fix hint for NIC003"]
    assert any(f.fix for f in result.report.findings if f.rule == "NIC004")


def test_drift_compares_each_device_once_and_contains_a_failing_comparison(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from fabriclint.drift.compare import compare as real

    clean = run_check(CheckOptions(fabric_dir=POD, snapshot="broken"))
    compared: list[str] = []

    def flaky(state: Any, *args: Any) -> Any:
        compared.append(state.name)
        if state.name == "leaf03":
            raise KeyError("queues")
        return real(state, *args)

    monkeypatch.setattr("fabriclint.engine.compare", flaky)
    result = run_check(CheckOptions(fabric_dir=POD, snapshot="broken"))
    # One comparison per device serves DRIFT001 and DRIFT002 (the drift stage, not two rules).
    assert sorted(compared) == sorted(clean.states)
    assert result.exit_code == ExitCode.INCOMPLETE
    internal = [f for f in result.report.findings if f.rule == "INTERNAL001"]
    assert [(f.device, f.object) for f in internal] == [("leaf03", "drift comparison")]

    def drift(report: Any, exclude: str | None = None) -> set[str]:
        return {
            f.fingerprint
            for f in report.findings
            if f.rule in ("DRIFT001", "DRIFT002") and f.device != exclude
        }

    assert drift(result.report) == drift(clean.report, exclude="leaf03")
    assert drift(clean.report) != drift(clean.report, exclude="leaf03")  # leaf03 has drift
