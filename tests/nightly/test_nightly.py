"""`fabriclint nightly --snapshot` on roce-pod: baseline, broken, broken, baseline; every
format; exit codes judged on what is new; carried findings of devices not checked."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.engine import CheckOptions, run_check
from fabriclint.nightly.causes import FIRST_NIGHT, NO_CHANGE
from tests.nightly.conftest import POD, nightly


def _failing_broken() -> list[str]:
    """Fingerprints of the findings a plain check of roce-pod/broken reports (not suppressed)."""
    report = run_check(CheckOptions(fabric_dir=POD, snapshot="broken")).report
    return sorted(f.fingerprint for f in report.findings if f.suppressed is None)


def test_baseline_then_broken_then_baseline(fabric: Path) -> None:
    expected = _failing_broken()
    code, first, _ = nightly(fabric, "--snapshot", "baseline")
    assert code == 0
    assert {k: first["summary"][k] for k in ("new", "persisting", "resolved", "open")} == {
        "new": 0,
        "persisting": 0,
        "resolved": 0,
        "open": 0,
    }
    code, second, _ = nightly(fabric, "--snapshot", "broken")
    assert code == 1
    new = [i for i in second["findings"] if i["status"] == "new"]
    assert sorted(i["fingerprint"] for i in new) == expected
    assert second["summary"]["new"] == second["summary"]["open"] == len(expected)
    assert all(i["cause"] and i["cause"] not in (FIRST_NIGHT,) for i in new)
    # FAULTS.md: leaf01 maps DSCP 26 to priority 1; the diff says so, not "no config change"
    fab001 = next(i for i in new if i["rule"] == "FAB001" and i["device"] == "leaf01")
    assert "DSCP 26" in fab001["cause"] and "3 -> 1" in fab001["cause"]
    explained = [i for i in new if i["cause"] != NO_CHANGE]
    assert len(explained) == len(new)
    code, third, _ = nightly(fabric, "--snapshot", "baseline")
    assert code == 0
    assert third["summary"]["resolved"] == len(expected)
    assert third["summary"]["open"] == third["summary"]["new"] == 0
    assert sorted(i["fingerprint"] for i in third["resolved"]) == expected
    assert [t["error"] + t["warning"] + t["info"] for t in third["trend"]] == [0, len(expected), 0]


def test_every_format_says_the_same(fabric: Path) -> None:
    nightly(fabric, "--snapshot", "baseline")
    code, doc, _ = nightly(fabric, "--snapshot", "broken")
    assert code == 1
    latest = fabric / "reports" / "latest"
    assert (
        latest.resolve().name
        == f"{doc['run']['started_at'].replace('-', '').replace(':', '')}-run2"
    )
    on_disk = json.loads((latest / "report.json").read_text())
    assert on_disk["summary"] == doc["summary"]
    markdown = (latest / "report.md").read_text()
    assert f"**{doc['summary']['new']} new**" in markdown
    assert f"### New tonight ({doc['summary']['new']})" in markdown
    page = (latest / "index.html").read_text()
    assert "http://" not in page and "https://" not in page and "<link" not in page
    heat = doc["heatmap"]
    devices = sum(len(g["devices"]) for g in heat["roles"])
    assert page.count('<td class="cell') == devices * len(heat["families"])
    worst = [d["worst"] for g in heat["roles"] for d in g["devices"]]
    assert page.count('data-worst="error"') == worst.count("error") > 0
    text = CliRunner().invoke(app, ["nightly", str(fabric), "--snapshot", "baseline"])
    assert text.exit_code == 0
    assert re.search(
        rf"run 3: 0 new, 0 persisting, {doc['summary']['new']} resolved, 0 open", text.stdout
    )
    md = CliRunner().invoke(app, ["nightly", str(fabric), "--snapshot", "broken", "-f", "markdown"])
    assert md.exit_code == 1 and f"**{doc['summary']['new']} new**" in md.stdout


def test_persisting_is_not_new_unless_fail_on_open(fabric: Path) -> None:
    nightly(fabric, "--snapshot", "broken")
    code, doc, _ = nightly(fabric, "--snapshot", "broken")
    assert code == 0  # nothing new tonight
    assert doc["summary"]["new"] == 0 and doc["summary"]["persisting"] == doc["summary"]["open"] > 0
    assert {i["nights_open"] for i in doc["findings"]} == {2}
    code, doc, _ = nightly(fabric, "--snapshot", "broken", "--fail-on-open")
    assert code == 1 and {i["nights_open"] for i in doc["findings"]} == {3}


def test_reopened_finding_counts_as_new(fabric: Path) -> None:
    for snap in ("broken", "baseline"):
        nightly(fabric, "--snapshot", snap)
    code, doc, _ = nightly(fabric, "--snapshot", "broken")
    assert code == 1
    assert {i["status"] for i in doc["findings"]} == {"reopened"}
    assert {i["reopened"] for i in doc["findings"]} == {1}
    assert doc["summary"]["new"] == len(doc["findings"])


def _unreachable(fabric: Path, device: str) -> None:
    """A copy of broken where one device timed out on collection."""
    snap = fabric / "snapshots" / "broken-partial"
    import shutil

    shutil.copytree(fabric / "snapshots" / "broken", snap)
    manifest = json.loads((snap / "manifest.json").read_text())
    manifest["devices"][device].update(
        status="timeout", error="timed out after 30 s", files={}, sha256={}
    )
    (snap / "manifest.json").write_text(json.dumps(manifest))
    shutil.rmtree(snap / device)


def test_device_not_checked_keeps_its_findings_open(fabric: Path) -> None:
    nightly(fabric, "--snapshot", "broken")
    _unreachable(fabric, "leaf01")
    code, doc, _ = nightly(fabric, "--snapshot", "broken-partial")
    assert code == 3
    carried = {i["fingerprint"] for i in doc["findings"] if i["status"] == "carried"}
    leaf01 = {i["fingerprint"] for i in doc["findings"] if i["device"] == "leaf01"}
    assert carried and carried <= leaf01 | {
        i["fingerprint"] for i in doc["findings"] if i["device"] is None
    }
    assert all(i["device"] != "leaf01" for i in doc["resolved"])
    assert not doc["summary"]["complete"]
    page = (fabric / "reports" / "latest" / "index.html").read_text()
    assert 'data-incomplete="leaf01"' in page and "INCOMPLETE" in page


def test_metrics_textfile(fabric: Path, tmp_path: Path) -> None:
    prom = tmp_path / "textfile" / "fabriclint.prom"
    nightly(fabric, "--snapshot", "baseline", "--metrics", str(prom))
    code, doc, _ = nightly(fabric, "--snapshot", "broken", "--metrics", str(prom))
    assert code == 1
    text = prom.read_text()
    values = dict(re.findall(r"^(fabriclint_nightly_\S+) (\S+)$", text, re.M))
    for severity, count in doc["summary"]["open_by_severity"].items():
        assert values[
            f'fabriclint_nightly_open_findings_by_severity{{severity="{severity}"}}'
        ] == str(count)
    assert values['fabriclint_nightly_new_findings{severity="error"}'] == str(
        doc["summary"]["new_by_severity"]["error"]
    )
    total = sum(
        int(v) for k, v in values.items() if k.startswith("fabriclint_nightly_open_findings{")
    )
    assert total == doc["summary"]["open"]
    assert "device=" not in text  # bounded labels unless asked
    nightly(fabric, "--snapshot", "broken", "--metrics", str(prom), "--metrics-per-device")
    assert 'fabriclint_nightly_device_open_findings{device="leaf01"}' in prom.read_text()
    assert [p.name for p in prom.parent.iterdir()] == ["fabriclint.prom"]  # no temp file left


def test_history_command(fabric: Path) -> None:
    for snap in ("baseline", "broken", "broken", "baseline"):
        nightly(fabric, "--snapshot", snap)
    runner = CliRunner()
    runs = json.loads(runner.invoke(app, ["history", str(fabric), "-f", "json"]).stdout)
    n = len(_failing_broken())
    assert [(r["snapshot"], r["new"], r["persisting"], r["resolved"]) for r in runs] == [
        ("baseline", 0, 0, 0),
        ("broken", n, 0, 0),
        ("broken", 0, n, 0),
        ("baseline", 0, 0, n),
    ]
    fingerprint = _failing_broken()[0]
    life = json.loads(
        runner.invoke(
            app, ["history", str(fabric), "--finding", fingerprint[:12], "-f", "json"]
        ).stdout
    )
    assert [n["status"] for n in life["nights"]] == ["new", "persisting", "resolved"]
    assert life["state"] == "resolved" and life["nights_open"] == 2
    md = runner.invoke(app, ["history", str(fabric), "--finding", fingerprint[:12]]).stdout
    assert "| 4 |" in md and "resolved" in md
    bad = runner.invoke(app, ["history", str(fabric), "--finding", "ffffffffff"])
    assert bad.exit_code == 2 and "0 findings match" in bad.stderr


@pytest.mark.parametrize("given", [None, "typo/histroy.sqlite", "sqlite:///typo/histroy.sqlite"])
def test_history_never_creates_the_database_it_reads(
    fabric: Path, tmp_path: Path, given: str | None
) -> None:
    """A mistyped --history listed "Runs (0)" (exit 0) and left an empty database behind."""
    args = [] if given is None else ["--history", given.replace("typo", str(tmp_path / "typo"))]
    result = CliRunner().invoke(app, ["history", str(fabric), *args])
    assert result.exit_code == 2 and "no history there" in result.stderr
    assert not (fabric / ".fabriclint").exists() and not (tmp_path / "typo").exists()
    nightly(fabric, "--snapshot", "baseline", *args)
    result = CliRunner().invoke(app, ["history", str(fabric), *args])
    assert result.exit_code == 0 and "### Runs (1)" in result.stdout


def test_open_longer_than(fabric: Path) -> None:
    for snap in ("broken", "broken", "broken"):
        nightly(fabric, "--snapshot", snap)
    runner = CliRunner()
    old = json.loads(
        runner.invoke(app, ["history", str(fabric), "--open-longer-than", "2", "-f", "json"]).stdout
    )
    assert len(old) == len(_failing_broken()) and {o["nights_open"] for o in old} == {3}
    none = json.loads(
        runner.invoke(app, ["history", str(fabric), "--open-longer-than", "3", "-f", "json"]).stdout
    )
    assert none == []


def test_bad_history_url_is_a_usage_error(fabric: Path) -> None:
    code, _, err = nightly(fabric, "--snapshot", "baseline", "--history", "mysql://u:secret@h/db")
    assert code == 2 and "only sqlite and postgresql" in err and "secret" not in err
    code, _, err = nightly(fabric, "--snapshot", "nope")
    assert code == 2 and "nope" in err
    assert not (fabric / "reports").exists()


def test_a_damaged_history_file_is_an_input_error_and_kept(fabric: Path) -> None:
    """Not an internal error: the file named is not a history; it is left as it was."""
    history = fabric / ".fabriclint" / "history.sqlite"
    history.parent.mkdir()
    history.write_bytes(b"not sqlite at all\n" * 100)
    code, _, err = nightly(fabric, "--snapshot", "baseline")
    assert code == 2 and "not a history database (file is not a database)" in err
    assert "internal error" not in err
    assert history.read_bytes() == b"not sqlite at all\n" * 100
    assert not (fabric / "reports").exists()


@pytest.mark.parametrize("where", ["folder", "under-a-file"])
def test_a_metrics_path_that_cannot_be_written_records_nothing(
    fabric: Path, tmp_path: Path, where: str
) -> None:
    """Checked before the night is recorded: exit 2 must mean nothing was recorded."""
    (tmp_path / "plain").write_text("x\n")
    target = tmp_path if where == "folder" else tmp_path / "plain" / "fabriclint.prom"
    code, _, err = nightly(fabric, "--snapshot", "baseline", "--metrics", str(target))
    assert code == 2 and f"--metrics {target}: cannot write" in err
    assert not (fabric / "reports").exists() and not (fabric / ".fabriclint").exists()


def test_previous_snapshot_gone_says_cause_unknown(fabric: Path) -> None:
    import shutil

    shutil.copytree(fabric / "snapshots" / "baseline", fabric / "snapshots" / "night1")
    nightly(fabric, "--snapshot", "night1")
    shutil.rmtree(fabric / "snapshots" / "night1")  # an ephemeral runner, a retention job
    code, doc, _ = nightly(fabric, "--snapshot", "broken")
    assert code == 1 and doc["summary"]["new"] > 0
    assert {i["cause"] for i in doc["findings"]} == {
        "cause unknown: previous snapshot snapshots/night1 could not be read (SnapshotError)"
    }


def test_two_fabrics_share_one_history(fabric: Path, tmp_path: Path) -> None:
    import shutil

    other = tmp_path / "multivendor-pod"
    shutil.copytree(POD.parent / "multivendor-pod", other)
    shared = str(tmp_path / "shared.sqlite")
    _, pod, _ = nightly(fabric, "--snapshot", "broken", "--history", shared)
    _, mv, _ = nightly(other, "--snapshot", "baseline", "--history", shared)
    assert mv["summary"]["resolved"] == 0 and mv["run"]["previous_run"] is None
    _, again, _ = nightly(fabric, "--snapshot", "broken", "--history", shared)
    assert again["summary"]["persisting"] == pod["summary"]["new"] > 0
    assert again["run"]["previous_run"] == pod["run"]["id"]
    runs = CliRunner().invoke(app, ["history", str(other), "--history", shared, "-f", "json"])
    assert [r["fabric"] for r in json.loads(runs.stdout)] == [mv["fabric"]]


def test_keep_nights_compresses_old_snapshots_and_keeps_the_history(fabric: Path) -> None:
    import shutil
    import sqlite3
    import tarfile

    plan = ("baseline", "broken", "broken", "baseline")
    for night, source in enumerate(plan, 1):
        shutil.copytree(fabric / "snapshots" / source, fabric / "snapshots" / f"night{night}")
    docs = [
        nightly(fabric, "--snapshot", f"night{n}", "--keep-nights", "2")[1] for n in (1, 2, 3, 4)
    ]
    n = docs[1]["summary"]["new"]
    assert [d["summary"]["resolved"] for d in docs] == [0, 0, 0, n]  # causes and counts intact
    snapshots = fabric / "snapshots"
    assert not (snapshots / "night1").exists() and not (snapshots / "night2").exists()
    assert (snapshots / "night3").is_dir() and (snapshots / "night4").is_dir()
    with tarfile.open(snapshots / "night1.tar.gz") as tar:
        assert "night1/manifest.json" in tar.getnames()
    assert (snapshots / "baseline").is_dir()  # never recorded: never touched
    with sqlite3.connect(fabric / ".fabriclint" / "history.sqlite") as conn:
        assert conn.execute("SELECT count(*) FROM runs").fetchone() == (4,)
        detail = conn.execute("SELECT DISTINCT run_id FROM run_findings ORDER BY 1").fetchall()
        assert detail == [(3,), (4,)]
        assert conn.execute("SELECT DISTINCT run_id FROM run_devices ORDER BY 1").fetchall() == [
            (3,),
            (4,),
        ]
        life = conn.execute(
            "SELECT first_seen_run, resolved_run, nights_open FROM findings"
        ).fetchall()
    assert set(life) == {(2, 4, 2)}
    code, _, err = nightly(fabric, "--snapshot", "night4", "--keep-nights", "1")
    assert code == 2 and "--keep-nights" in err


def test_markdown_stays_within_a_comment(fabric: Path) -> None:
    from fabriclint.nightly.report import SHOWN_NEW, markdown

    _, doc, _ = nightly(fabric, "--snapshot", "broken")
    many = [
        dict(item, fingerprint=f"{k}{item['fingerprint']}")
        for k in range(7)
        for item in doc["findings"]
    ]
    text = markdown({**doc, "findings": many})
    new_section = text.split("### New tonight")[1]
    assert new_section.count("\n| error") + new_section.count("\n| warning") == SHOWN_NEW
    assert f"… and {len(many) - SHOWN_NEW} more" in text


def test_a_night_reads_the_fabric_yaml_once(fabric: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The causes of tonight's new findings use the fabric the check loaded (CheckResult.fabric)."""
    from fabriclint.loaders import fabric as loaders

    nightly(fabric, "--snapshot", "baseline")
    real, calls = loaders.load_fabric, []

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[0])
        return real(*args, **kwargs)

    def refused(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("the fabric YAML was read a second time")

    monkeypatch.setattr("fabriclint.engine.load_fabric", counted)
    monkeypatch.setattr(loaders, "load_fabric", refused)
    code, doc, _ = nightly(fabric, "--snapshot", "broken")
    assert code == 1 and len(calls) == 1
    fab001 = next(i for i in doc["findings"] if i["rule"] == "FAB001" and i["device"] == "leaf01")
    assert "DSCP 26" in fab001["cause"]  # explained against last night, with the loaded fabric
