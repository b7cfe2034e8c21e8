"""`fabriclint bench run` end to end against the lab on 127.0.0.1 with the stand-in benchmark
(scripts/nccl_standin.py), `bench judge` on the bundles it writes, and the HTML page in a real
headless Chromium."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fabriclint import bom
from fabriclint.benchrun import SLURM_RECORD, RunOptions, Verdict, run
from fabriclint.cli.app import app
from fabriclint.collectors.run import CollectOptions, load_inventory
from fabriclint.lab.counters import attach
from fabriclint.lab.device import load_snapshot_devices
from fabriclint.lab.server import Lab
from tests.collectors.labkit import FAST, LAB_PASSWORD, ROCE_POD, write_overlay

ROOT = Path(__file__).resolve().parents[1]
STANDIN = ROOT / "scripts" / "nccl_standin.py"
BASE = ROCE_POD / "snapshots" / "bench-before"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SECRET = "s3cret-token-in-env"
runner = CliRunner()


@pytest.fixture(scope="module")
def lock(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The BOM lock of what the lab serves."""
    path = tmp_path_factory.mktemp("lock") / "bom.lock.json"
    path.write_text(bom.dumps(bom.take(ROCE_POD, BASE).lock))
    return path


def _lab(scenario: str) -> Lab:
    devices = load_snapshot_devices(BASE)
    attach(devices, [link.ends() for link in load_inventory(ROCE_POD).links], scenario)
    return Lab(devices, password=LAB_PASSWORD)


def gate(
    tmp: Path, lock: Path, scenario: str = "healthy", tc: str = "104", *args: str
) -> tuple[Path, Verdict]:
    """One `bench run` against the lab: the stand-in writes -J into tmp; the bundle goes there."""
    results = tmp / "results.json"
    env = {"NCCL_IB_TC": tc, "PATH": "/usr/bin:/bin", "API_TOKEN": SECRET}
    with _lab(scenario) as lab:
        opts = RunOptions(
            fabric_dir=ROCE_POD,
            lock=lock,
            command=[sys.executable, str(STANDIN), "-J", str(results), *args],
            collect=CollectOptions(
                overlay=write_overlay(lab, tmp), env=lab.env(), timeouts=FAST, workers=16
            ),
            out_root=tmp / "bench",
            env=env,
        )
        return run(opts)


def judged(bundle: Path) -> tuple[int, str]:
    result = runner.invoke(app, ["bench", "judge", str(bundle), "--fabric", str(ROCE_POD)])
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory, lock: Path) -> tuple[Path, Verdict]:
    return gate(tmp_path_factory.mktemp("healthy"), lock)


def test_healthy_run_is_trusted_and_the_bundle_is_complete(
    healthy: tuple[Path, Verdict],
) -> None:
    bundle, verdict = healthy
    assert (verdict.word, verdict.reasons, verdict.incomplete) == ("trusted", [], [])
    assert bundle.parent.name == "bench" and not list(bundle.parent.glob(".*"))  # renamed in place
    for name in ("lock.json", "command.json", "verdict.json", "verdict.md", "index.html"):
        assert (bundle / name).is_file(), name
    for snap in ("config", "before", "after"):
        assert (bundle / "snapshots" / snap / "manifest.json").is_file()
    command = json.loads((bundle / "command.json").read_text())
    assert command["exit_status"] == 0 and command["env"] == {"NCCL_IB_TC": "104"}
    doc = json.loads((bundle / "verdict.json").read_text())
    assert doc["verdict"] == "trusted" and doc["exit_code"] == 0
    big = [r for r in doc["bandwidth"] if r["size"] == 1 << 32]
    assert big and big[0]["out_of_place"] == 92.0
    assert any(p["device"] == "leaf01" and p["priority"] == 3 for p in doc["pauses"])


def test_secrets_in_the_environment_never_reach_the_bundle(
    healthy: tuple[Path, Verdict],
) -> None:
    bundle, _ = healthy
    for path in bundle.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            assert SECRET not in text and LAB_PASSWORD not in text, path
    kept = json.loads(next((bundle / "results").glob("*.json")).read_text())
    assert kept["env"] == ["NCCL_IB_TC=104"]  # the stand-in wrote its whole environment


def test_judge_gives_the_same_verdict(healthy: tuple[Path, Verdict]) -> None:
    bundle, _ = healthy
    assert judged(bundle) == (0, f"{bundle}: trusted\n")


def test_storm_is_not_trusted_and_judge_agrees(tmp_path: Path, lock: Path) -> None:
    bundle, verdict = gate(tmp_path, lock, "pause-storm")
    assert verdict.word == "not trusted" and not verdict.incomplete
    assert [r.split()[:3] for r in verdict.reasons] == [["counters:", "gpu01", "CTR002"]]
    code, out = judged(bundle)
    assert code == 1
    assert out.splitlines()[:-1] == [f"not trusted: {r}" for r in verdict.reasons]


def test_bom_change_is_not_trusted(tmp_path: Path, lock: Path) -> None:
    data: dict[str, Any] = json.loads(lock.read_text())
    data["hosts"]["gpu04"]["nics"]["mlx5_1"]["firmware"] = "28.38.1002"
    changed = tmp_path / "old.lock.json"
    changed.write_text(json.dumps(data))
    _, verdict = gate(tmp_path, changed)
    assert verdict.reasons == [
        "BOM: gpu04 mlx5_1 firmware 28.38.1002 -> 28.39.1002: rerun the benchmark"
    ]
    assert verdict.exit_code == 1


def test_wrong_results_are_not_trusted(tmp_path: Path, lock: Path) -> None:
    _, verdict = gate(tmp_path, lock, "healthy", "104", "--wrong", "12")
    assert verdict.reasons == [
        "results: BENCH001 results/00-results.json: 12 wrong element(s) at 4 GiB"
    ]


def test_nccl_ib_tc_against_intent_through_the_cli(tmp_path: Path, lock: Path) -> None:
    with _lab("healthy") as lab:
        args = ["bench", "run", str(ROCE_POD), "--lock", str(lock), "--bundles", str(tmp_path)]
        args += ["--overlay", str(write_overlay(lab, tmp_path)), "--"]
        args += [sys.executable, str(STANDIN), "-J", str(tmp_path / "r.json")]
        result = runner.invoke(app, args, env={**lab.env(), "NCCL_IB_TC": "96"})
    assert "Traceback" not in result.output
    assert result.exit_code == 1, result.output
    *reasons, last = result.stdout.splitlines()
    assert last.endswith(": not trusted")
    (reason,) = reasons
    assert reason.startswith("not trusted: results: BENCH004 results/00-r.json: ")
    assert "NCCL_IB_TC=96 is DSCP 24, not the intent's RoCE DSCP 26 (NCCL_IB_TC=104)" in reason
    (bundle,) = [p for p in tmp_path.iterdir() if p.is_dir() and p.name.startswith("20")]
    assert judged(bundle) == (1, result.stdout)


def test_low_bandwidth_and_a_failed_command(tmp_path: Path, lock: Path) -> None:
    _, verdict = gate(tmp_path, lock, "healthy", "104", "--busbw", "40", "--exit", "2")
    assert "command: exited with status 2" in verdict.reasons[0]
    floor = [r for r in verdict.reasons if "BENCH002" in r]
    assert len(floor) == 3  # 1, 2 and 4 GiB under 400 Gb/s x 2 rails / 8 x 80% = 80 GB/s
    assert "below the floor 80 GB/s" in floor[0]


def test_no_results_is_incomplete(tmp_path: Path, lock: Path) -> None:
    with _lab("healthy") as lab:
        opts = RunOptions(
            fabric_dir=ROCE_POD,
            lock=lock,
            command=["/bin/true"],
            collect=CollectOptions(
                overlay=write_overlay(lab, tmp_path), env=lab.env(), timeouts=FAST, workers=16
            ),
            out_root=tmp_path / "bench",
        )
        bundle, verdict = run(opts)
    assert verdict.exit_code == 3
    assert verdict.incomplete == [
        "results: results/00-stdout.txt: no nccl-tests results table (a `size count type ...` row)"
    ]
    assert judged(bundle)[0] == 3


def test_bad_input_is_a_usage_error_and_contacts_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "lock.json"
    bad.write_text("[]")
    result = runner.invoke(
        app, ["bench", "run", str(ROCE_POD), "--lock", str(bad), "--", "/bin/true"]
    )
    assert result.exit_code == 2 and "not a fabriclint BOM lock" in result.stderr
    assert not (ROCE_POD / "bench").exists()
    stale = tmp_path / "old.json"
    stale.write_text("{}")
    args = ["bench", "run", str(ROCE_POD), "--lock", str(ROCE_POD / "inventory.yaml"), "--"]
    result = runner.invoke(app, [*args, "/bin/true", "-J", str(stale)])
    assert result.exit_code == 2 and "not JSON" in result.stderr
    good = tmp_path / "good.json"
    good.write_text(bom.dumps(bom.take(ROCE_POD, BASE).lock))
    args[4] = str(good)
    result = runner.invoke(app, [*args, "/bin/true", "-J", str(stale)])
    assert result.exit_code == 2 and "old.json: exists; the results must be new" in result.stderr
    assert not (ROCE_POD / "bench").exists()
    result = runner.invoke(app, ["bench", "judge", str(tmp_path)])
    assert result.exit_code == 2 and "not a bench bundle" in result.stderr


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        ({"seconds": "abc"}, "`seconds` is not a number of seconds"),
        ({"seconds": [1]}, "`seconds` is not a number of seconds"),
        ({"seconds": -1}, "`seconds` is not a number of seconds"),
        ({"exit_status": "0"}, "`exit_status` is not an integer"),
        (None, "not a JSON object"),
    ],
)
def test_a_damaged_command_json_is_a_located_usage_error(
    healthy: tuple[Path, Verdict], tmp_path: Path, edit: dict[str, Any] | None, expected: str
) -> None:
    """A hand-edited bundle is bad input (exit 2 naming command.json), not an internal error."""
    bundle = tmp_path / "bundle"
    shutil.copytree(healthy[0], bundle)
    command = bundle / "command.json"
    data = json.loads(command.read_text())
    command.write_text(json.dumps([data] if edit is None else {**data, **edit}))
    result = runner.invoke(app, ["bench", "judge", str(bundle), "--fabric", str(ROCE_POD)])
    assert "Traceback" not in result.output
    assert result.exit_code == 2 and f"{command}: not a bench bundle: {expected}" in result.stderr


@pytest.mark.parametrize("name", ["command.json", SLURM_RECORD])
@pytest.mark.parametrize(
    ("text", "expected"),
    [("[" * 100_000 + "]" * 100_000, "nested more than"), ("1" * 5000, "5000 digits")],
)
def test_a_hostile_bundle_file_is_read_bounded(
    healthy: tuple[Path, Verdict], tmp_path: Path, name: str, text: str, expected: str
) -> None:
    """Deep nesting or a huge number was a RecursionError/ValueError: an internal error."""
    bundle = tmp_path / "bundle"
    shutil.copytree(healthy[0], bundle)
    (bundle / name).write_text(text)
    result = runner.invoke(app, ["bench", "judge", str(bundle), "--fabric", str(ROCE_POD)])
    assert "Traceback" not in result.output and "internal error" not in result.stderr
    assert result.exit_code == 2 and f"{bundle / name}: not a bench bundle: " in result.stderr
    assert expected in result.stderr


def _bus_bw(rows: list[dict[str, Any]], value: Any) -> None:
    for row in rows:
        for side in ("out_of_place", "in_place"):
            row[side]["bus_bw"] = value


def _text_cut_before(data: dict[str, Any], size: int) -> str:
    """The run as nccl-tests' text output, cut short before the row of `size` (no summary)."""
    head = "#       size         count      type   redop    root     time   algbw   busbw  #wrong"
    lines = [
        f"#  Rank {d['rank']} Group 0 Pid 1 on {d['hostname']} device 0 [0000:19:00] GPU"
        for d in data["config"]["devices"]
    ]
    lines.append(f"{head}     time   algbw   busbw  #wrong")
    for r in data["results"]:
        if r["size"] >= size:
            break
        o, i = r["out_of_place"], r["in_place"]
        lines.append(
            f"{r['size']} {r['count']} float sum -1 {o['time']} {o['alg_bw']} {o['bus_bw']} 0 "
            f"{i['time']} {i['alg_bw']} {i['bus_bw']} 0"
        )
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("hostile", "expected"),
    [
        (
            "inf",
            "BENCH002 not judged on gpu01, gpu02: missing a bus bandwidth at a size from 1 GiB",
        ),
        (
            "nan",
            "BENCH002 not judged on gpu01, gpu02: missing a bus bandwidth at a size from 1 GiB",
        ),
        (
            "empty",
            "BENCH002 not judged on gpu01, gpu02: missing a bus bandwidth at a size from 1 GiB",
        ),
        (
            "cut",
            "BENCH002 not judged on gpu01, gpu02: missing a bus bandwidth at a size from 1 GiB",
        ),
        ("text-no-env", "BENCH004 not judged on gpu01, gpu02: missing the run's environment"),
    ],
)
def test_results_that_judge_nothing_are_incomplete_not_trusted(
    healthy: tuple[Path, Verdict], tmp_path: Path, hostile: str, expected: str
) -> None:
    """Each of these was `trusted` (exit 0): an infinite bus bandwidth cleared the floor, and
    a run cut short, measuring `nan` or nothing, or without its environment judged nothing."""
    bundle = tmp_path / "bundle"
    shutil.copytree(healthy[0], bundle)
    (results,) = (bundle / "results").glob("*.json")
    data = json.loads(results.read_text())
    if hostile in ("inf", "nan"):
        _bus_bw(data["results"], float(hostile) if hostile == "inf" else "nan")
    elif hostile == "empty":
        data["results"] = []
    results.write_text(json.dumps(data))
    if hostile in ("cut", "text-no-env"):
        results.unlink()
        cut = 1 << 30 if hostile == "cut" else 1 << 40
        (bundle / "results" / "00-stdout.txt").write_text(_text_cut_before(data, cut))
    if hostile == "text-no-env":
        command = json.loads((bundle / "command.json").read_text())
        del command["env"]
        (bundle / "command.json").write_text(json.dumps(command))
    code, out = judged(bundle)
    assert code == 3 and out.endswith(f"{bundle}: incomplete\n")
    assert f"cannot tell: results: {expected}" in out


def test_a_lock_of_another_fabric_is_refused_before_anything_runs(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    mv = ROOT / "inventories" / "multivendor-pod"
    other.write_text(bom.dumps(bom.take(mv, mv / "snapshots" / "baseline").lock))
    marker = tmp_path / "ran"
    args = ["bench", "run", str(ROCE_POD), "--lock", str(other), "--insecure-no-host-key-check"]
    result = runner.invoke(app, [*args, "--", "/usr/bin/touch", str(marker)])
    assert result.exit_code == 2
    assert "a lock of fabric 'multivendor-pod', not 'roce-pod'" in result.stderr
    assert not marker.exists() and not (ROCE_POD / "bench").exists()


class _Dom(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.body: dict[str, str] = {}
        self.points: list[dict[str, str]] = []
        self.verdict: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if tag == "body":
            self.body = found
        elif tag == "circle" and "point" in found.get("class", ""):
            self.points.append(found)
        elif found.get("id") == "verdict":
            self.verdict = found


def _rendered(page: Path, tmp_path: Path) -> Iterator[_Dom]:
    assert CHROMIUM is not None
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
    done = subprocess.run(
        [CHROMIUM, *flags, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    dom = _Dom()
    dom.feed(done.stdout)
    yield dom


@pytest.mark.skipif(CHROMIUM is None, reason="chromium absent (apt-get install chromium)")
def test_html_page_renders_in_chromium(healthy: tuple[Path, Verdict], tmp_path: Path) -> None:
    bundle, _ = healthy
    doc = json.loads((bundle / "verdict.json").read_text())
    (dom,) = list(_rendered(bundle / "index.html", tmp_path))
    assert dom.verdict.get("data-verdict") == "trusted"
    assert dom.body.get("data-js-verdict") == "trusted"  # the inline script read the data
    assert dom.body.get("data-js-points") == str(len(doc["bandwidth"]))
    assert int(dom.body.get("data-js-chart-width", "0")) > 400  # the SVG was laid out
    shown = {int(p["data-size"]): float(p["data-busbw"]) for p in dom.points}
    assert shown == {r["size"]: max(r["out_of_place"], r["in_place"]) for r in doc["bandwidth"]}
