"""`fabriclint counters` on the example fabric's bench snapshots, end to end.

`bench-before -> bench-after` must exit 1 and report every fault of bench-after/FAULTS.md with
its rule, device, object and both source lines; `bench-before -> bench-after-healthy` must exit
0 with no finding; a counter that went backwards, a side without counters, or a manifest time
that runs backwards must give exit 3 (or 2), never a clean result.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.counterrun import CounterOptions, run_counters
from fabriclint.engine import CheckResult
from fabriclint.snapshot import MANIFEST, read_manifest, sha256_of
from tests.examples import SeededFault, describe, load_inventory, matches, read_faults

ROOT = Path(__file__).resolve().parent.parent
FABRIC = ROOT / "inventories" / "roce-pod"
FAULTS = read_faults(FABRIC / "snapshots" / "bench-after" / "FAULTS.md")
runner = CliRunner()


def counters(after: str, fabric: Path = FABRIC, before: str = "bench-before") -> CheckResult:
    return run_counters(CounterOptions(fabric_dir=fabric, before=before, after=after))


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def faulty() -> CheckResult:
    return counters("bench-after")


def test_each_fault_has_its_own_ctr_rule() -> None:
    rules = [f.rule for f in FAULTS]
    assert len(rules) == 8 and len(set(rules)) == len(rules)
    assert all(r.startswith("CTR") for r in rules)


def test_bench_after_fails_complete(faulty: CheckResult) -> None:
    assert faulty.report.summary.complete
    assert int(faulty.exit_code) == 1


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f"{f.rule}-{f.device}")
def test_seeded_counter_fault_is_found_with_both_lines(
    faulty: CheckResult, fault: SeededFault
) -> None:
    inventory = load_inventory(FABRIC)
    found = [f for f in faulty.report.findings if matches(fault, f, inventory)]
    assert found, f"{fault} not reported; got:\n" + "\n".join(map(describe, faulty.report.findings))
    finding = found[0]
    before = re.search(r"bench-before/[^ ;)]+:\d+", finding.message)
    after = re.search(r"bench-after/[^ ;)]+:\d+", finding.message)
    assert before and after, finding.message
    assert (
        finding.source is not None and "bench-after/" in finding.source.file and finding.source.line
    )
    evidence = finding.actual[0]
    assert evidence["delta"] > 0 and evidence["per_second"] == round(evidence["delta"] / 600, 3)


def test_no_finding_beyond_the_seeded_faults(faulty: CheckResult) -> None:
    inventory = load_inventory(FABRIC)
    extra = [f for f in faulty.report.findings if not any(matches(s, f, inventory) for s in FAULTS)]
    assert extra == [], "\n".join(map(describe, extra))


def test_healthy_run_is_clean() -> None:
    result = counters("bench-after-healthy")
    assert result.report.findings == [], "\n".join(map(describe, result.report.findings))
    assert result.report.summary.complete and int(result.exit_code) == 0


def test_cli_exit_codes_and_every_format(tmp_path: Path) -> None:
    code, out = invoke("counters", str(FABRIC), "bench-before", "bench-after", "--no-color")
    assert code == 1 and "CTR004" in out and "leaf04" in out
    code, _ = invoke("counters", str(FABRIC), "bench-before", "bench-after-healthy")
    assert code == 0
    formats = ("json", "jsonl", "sarif", "junit", "markdown", "github", "gitlab")
    targets = {fmt: tmp_path / f"r.{fmt}.out" for fmt in formats}
    args = [a for fmt in formats for a in ("-f", fmt)] + [
        a for t in targets.values() for a in ("-o", str(t))
    ]
    code, _ = invoke("counters", str(FABRIC), "bench-before", "bench-after", *args)
    assert code == 1
    for fmt, target in targets.items():
        assert "CTR007" in target.read_text(), fmt


def test_json_report_validates_against_the_schema(tmp_path: Path) -> None:
    import jsonschema

    target = tmp_path / "r.json"
    invoke("counters", str(FABRIC), "bench-before", "bench-after", "-f", "json", "-o", str(target))
    schema = json.loads((ROOT / "schemas" / "report.json").read_text())
    report = json.loads(target.read_text())
    jsonschema.Draft202012Validator(schema).validate(report)
    assert {f["rule"] for f in report["findings"]} == {f.rule for f in FAULTS}


def test_select_and_ignore(tmp_path: Path) -> None:
    code, out = invoke("counters", str(FABRIC), "bench-before", "bench-after", "--select", "CTR006")
    assert code == 1 and "CTR006" in out and "CTR007" not in out
    code, _ = invoke("counters", str(FABRIC), "bench-before", "bench-after", "--select", "CTR009")
    assert code == 0  # CTR009 alone is selected, and nothing went backwards
    code, out = invoke("counters", str(FABRIC), "bench-before", "bench-after", "--ignore", "CTR")
    assert code == 2 and "no CTR rule is selected" in out  # never a silent pass


def _copy_fabric(tmp_path: Path) -> Path:
    fabric = tmp_path / "roce-pod"
    shutil.copytree(FABRIC, fabric, ignore=shutil.ignore_patterns("baseline", "broken"))
    return fabric


def _rewrite(snapshot: Path, device: str, filename: str, old: str, new: str) -> None:
    """Edit one file of a snapshot and fix its checksum (a genuine reading, not tampering)."""
    path = snapshot / device / filename
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    manifest_path = snapshot / MANIFEST
    manifest = read_manifest(snapshot)
    manifest.devices[device].sha256[filename] = sha256_of(path.read_bytes())
    manifest_path.write_text(manifest.model_dump_json(indent=2))


def test_a_counter_that_went_backwards_makes_the_run_incomplete(tmp_path: Path) -> None:
    fabric = _copy_fabric(tmp_path)
    after = fabric / "snapshots" / "bench-after-healthy"
    text = (after / "gpu03" / "ethtool_-S_ens1np0.txt").read_text()
    value = re.search(r"rx_prio3_pause: (\d+)", text)
    assert value
    _rewrite(after, "gpu03", "ethtool_-S_ens1np0.txt", value.group(0), "rx_prio3_pause: 12")
    result = counters("bench-after-healthy", fabric)
    assert int(result.exit_code) == 3 and not result.report.summary.complete
    found = [f for f in result.report.findings if f.rule == "CTR009"]
    assert len(found) == 1 and found[0].device == "gpu03"
    assert "went backwards" in found[0].message and "bench-before/gpu03/" in found[0].message
    status = {d.name: d.status for d in result.report.devices}
    assert status["gpu03"] == "untrusted-interval"
    assert {s for n, s in status.items() if n != "gpu03"} == {"ok"}


def test_a_counter_that_disappeared_makes_the_run_incomplete(tmp_path: Path) -> None:
    fabric = _copy_fabric(tmp_path)
    after = fabric / "snapshots" / "bench-after-healthy"
    text = (after / "gpu02" / "ethtool_-S_ens2np0.txt").read_text()
    line = re.search(r"\n\s*tx_prio3_pause: \d+", text)
    assert line
    _rewrite(after, "gpu02", "ethtool_-S_ens2np0.txt", line.group(0), "")
    result = counters("bench-after-healthy", fabric)
    assert int(result.exit_code) == 3
    assert any(f.rule == "CTR009" and "disappeared" in f.message for f in result.report.findings)


def test_a_side_without_counters_is_incomplete(tmp_path: Path) -> None:
    code, out = invoke(
        "counters",
        str(FABRIC),
        str(FABRIC / "snapshots" / "baseline"),
        "bench-after",
        "--interval",
        "600",
    )
    assert code == 3
    assert "missing-counters" in out


def test_after_older_than_before_is_a_usage_error() -> None:
    code, out = invoke("counters", str(FABRIC), "bench-after", "bench-before")
    assert code == 2 and "not newer than" in out
    code, out = invoke("counters", str(FABRIC), "bench-before", "nope")
    assert code == 2 and "nope" in out


@pytest.mark.parametrize("seconds", ["0", "-5", "inf", "nan", "1e999"])
def test_an_interval_that_is_no_duration_is_a_usage_error(seconds: str) -> None:
    """Rates over `inf s` or `nan s` are no judgement: the interval must be finite and positive."""
    code, out = invoke(
        "counters", str(FABRIC), "bench-before", "bench-after", "--interval", seconds
    )
    assert code == 2 and "--interval must be a positive number of seconds" in out


def test_policy_options_and_suppressions_apply(tmp_path: Path) -> None:
    fabric = _copy_fabric(tmp_path)
    policy = (fabric / "policy.yaml").read_text()
    policy += (
        "  CTR008: {tolerance_pct: 70}\n"
        "suppressions:\n"
        "  - {rule: CTR006, device: gpu03, object: '*', reason: 'known firmware issue, ticket 42'}\n"
    )
    (fabric / "policy.yaml").write_text(policy)
    result = counters("bench-after", fabric)
    rules = {f.rule for f in result.report.findings if f.suppressed is None}
    assert "CTR008" not in rules  # 50,000 vs 20,000 is within 70 %
    suppressed = [f for f in result.report.findings if f.suppressed]
    assert [(f.rule, f.suppressed) for f in suppressed] == [
        ("CTR006", "known firmware issue, ticket 42")
    ]
    assert result.report.summary.suppressed == 1 and int(result.exit_code) == 1
