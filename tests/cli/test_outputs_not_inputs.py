"""A report must never replace what the command reads or keeps: `diff -o` over a config of
the snapshot it compares, `counters -o` over a snapshot's manifest, `nightly --metrics` over
intent.yaml or the history database each destroyed it (exit 0/1). Each is exit 2 now, the
file untouched; a file beside them is still written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


@pytest.fixture
def pod(tmp_path: Path) -> Path:
    fabric = tmp_path / "pod"
    shutil.copytree(ROOT / "inventories" / "roce-pod", fabric)
    return fabric


def _run(args: list[str]) -> tuple[int, str]:
    result = runner.invoke(app, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def _refused(args: list[str], victim: Path) -> None:
    before = victim.read_bytes()
    code, out = _run(args)
    assert code == 2, out
    assert "write it somewhere else" in out
    assert victim.read_bytes() == before


def _snap(pod: Path, name: str) -> str:
    return str(pod / "snapshots" / name)


@pytest.mark.parametrize(
    "victim",
    [
        "snapshots/broken/leaf01/show_running-config.txt",
        "snapshots/baseline/manifest.json",
        "intent.yaml",
    ],
)
def test_diff_output_over_an_input_is_refused(pod: Path, victim: str) -> None:
    args = ["diff", _snap(pod, "baseline"), _snap(pod, "broken"), "-o", str(pod / victim)]
    _refused(args, pod / victim)


def test_diff_output_through_a_link_to_an_input_is_refused(pod: Path, tmp_path: Path) -> None:
    link = tmp_path / "diff.txt"
    link.symlink_to(pod / "snapshots" / "broken" / "manifest.json")
    args = ["diff", "baseline", "broken", "--fabric", str(pod), "-o", str(link)]
    _refused(args, pod / "snapshots" / "broken" / "manifest.json")


def test_diff_output_beside_the_inputs_is_written(pod: Path) -> None:
    code, out = _run(
        ["diff", _snap(pod, "baseline"), _snap(pod, "broken"), "-o", str(pod / "d.txt")]
    )
    assert code == 1 and "leaf01" in (pod / "d.txt").read_text(), out


@pytest.mark.parametrize(
    "victim",
    ["snapshots/bench-after/manifest.json", "snapshots/bench-before/manifest.json", "policy.yaml"],
)
def test_counters_output_over_an_input_is_refused(pod: Path, victim: str) -> None:
    args = ["counters", str(pod), "bench-before", "bench-after", "-f", "text", "-f", "json"]
    _refused([*args, "-o", "-", "-o", str(pod / victim)], pod / victim)


def test_counters_output_over_the_config_snapshot_is_refused(pod: Path) -> None:
    victim = pod / "snapshots" / "baseline" / "manifest.json"
    args = ["counters", str(pod), "bench-before", "bench-after", "--config", _snap(pod, "baseline")]
    _refused([*args, "-f", "json", "-o", str(victim)], victim)


def test_counters_output_beside_the_inputs_is_written(pod: Path) -> None:
    out_file = pod / "c.json"
    code, out = _run(
        ["counters", str(pod), "bench-before", "bench-after", "-f", "json", "-o", str(out_file)]
    )
    assert code in (0, 1) and out_file.read_text().startswith("{"), out


@pytest.mark.parametrize(
    "victim", ["intent.yaml", "inventory.yaml", "snapshots/baseline/manifest.json"]
)
def test_nightly_metrics_over_an_input_is_refused(pod: Path, victim: str) -> None:
    args = ["nightly", str(pod), "--snapshot", "broken", "--metrics", str(pod / victim)]
    _refused(args, pod / victim)
    assert not (pod / ".fabriclint").exists()  # nothing recorded either


def test_nightly_metrics_over_the_history_is_refused(pod: Path) -> None:
    code, out = _run(["nightly", str(pod), "--snapshot", "baseline"])
    assert code == 0, out
    history = pod / ".fabriclint" / "history.sqlite"
    _refused(["nightly", str(pod), "--snapshot", "broken", "--metrics", str(history)], history)
    other = pod.parent / "h.sqlite"
    _run(["nightly", str(pod), "--snapshot", "baseline", "--history", str(other)])
    args = ["nightly", str(pod), "-s", "broken", "--history", f"sqlite:///{other}"]
    _refused([*args, "--metrics", str(other)], other)


def test_nightly_report_dir_in_a_snapshot_is_refused(pod: Path) -> None:
    folder = pod / "snapshots" / "broken"
    listed = sorted(p.name for p in folder.iterdir())
    code, out = _run(["nightly", str(pod), "--snapshot", "broken", "--report-dir", str(folder)])
    assert code == 2 and "write it somewhere else" in out, out
    assert sorted(p.name for p in folder.iterdir()) == listed


def test_nightly_metrics_and_reports_beside_the_inputs_are_written(pod: Path) -> None:
    metrics, reports = pod / "m.prom", pod / "r"
    args = [
        "nightly",
        str(pod),
        "-s",
        "broken",
        "--metrics",
        str(metrics),
        "--report-dir",
        str(reports),
    ]
    code, out = _run(args)
    assert code == 1, out
    assert "fabriclint_nightly" in metrics.read_text() and (reports / "report.json").is_file()
