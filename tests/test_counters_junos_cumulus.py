"""`fabriclint counters` end to end on a Junos and a Cumulus switch (a small fabric written in
tmp_path): their counters are read (no longer `unsupported`), a CTR rule fires on each, a clean
interval exits 0, and a Junos counter that went backwards makes the run incomplete (exit 3)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.snapshot import write_snapshot
from tests.parsers.counters import test_cumulus, test_junos

ROOT = Path(__file__).resolve().parent.parent
JUNOS_CONFIG = (
    ROOT / "tests" / "parsers" / "golden" / "junos" / "roce_leaf" / "show_configuration.txt"
)
runner = CliRunner()

PRIO4 = "Priority :  4                             0               12"
DURATION = "tx_pause_duration_prio_3: 1500"


def _fabric(tmp_path: Path, junos_after: str, cumulus_after: str) -> Path:
    root = tmp_path / "fabric"
    root.mkdir()
    (root / "inventory.yaml").write_text(
        "name: t\ndevices:\n  leaf05: {platform: junos, role: leaf}\n"
        "  leaf06: {platform: cumulus, role: leaf}\n"
    )
    config = JUNOS_CONFIG.read_text(encoding="utf-8")
    for name, junos, cumulus in (
        ("before", test_junos.EXTENSIVE_TEXT, test_cumulus.MLXSW),
        ("after", junos_after, cumulus_after),
    ):
        write_snapshot(
            root / "snapshots" / name,
            {
                "leaf05": (
                    "junos",
                    {"show configuration": config, "show interfaces extensive": junos},
                ),
                "leaf06": (
                    "cumulus",
                    {"ip -o link show": test_cumulus.LINKS, "ethtool -S swp1": cumulus},
                ),
            },
            source="live",
        )
    return root


def _counters(root: Path) -> tuple[int, dict[str, object]]:
    result = runner.invoke(
        app, ["counters", str(root), "before", "after", "--interval", "600", "-f", "json"]
    )
    assert "Traceback" not in result.output
    return result.exit_code, json.loads(result.stdout)


def test_a_ctr_rule_fires_on_each_platform(tmp_path: Path) -> None:
    junos = test_junos.EXTENSIVE_TEXT.replace(PRIO4, PRIO4.replace("  12", "5012"))
    storm_us = 1500 + 200 * 1_000_000  # priority 3 paused for 200 s of a 600 s run
    cumulus = test_cumulus.MLXSW.replace(DURATION, f"tx_pause_duration_prio_3: {storm_us}")
    code, report = _counters(_fabric(tmp_path, junos, cumulus))
    statuses = {d["name"]: d["status"] for d in report["devices"]}  # type: ignore[attr-defined]
    assert statuses == {"leaf05": "ok", "leaf06": "ok"}
    found = {(f["rule"], f["device"], f["object"]) for f in report["findings"]}  # type: ignore[attr-defined]
    assert ("CTR001", "leaf05", "interface et-0/0/1 priority 4") in found, found
    assert ("CTR002", "leaf06", "interface swp1") in found, found
    assert code == 1
    ctr001 = next(f for f in report["findings"] if f["rule"] == "CTR001")  # type: ignore[attr-defined]
    assert "5,000" in ctr001["message"] and "before/" in ctr001["message"]
    assert ctr001["source"]["file"].endswith("show_interfaces_extensive.txt")
    assert ctr001["source"]["line"] == 21


def test_an_unchanged_interval_is_clean(tmp_path: Path) -> None:
    code, report = _counters(_fabric(tmp_path, test_junos.EXTENSIVE_TEXT, test_cumulus.MLXSW))
    assert report["findings"] == [] and code == 0


def test_a_junos_counter_that_went_backwards_is_incomplete(tmp_path: Path) -> None:
    junos = test_junos.EXTENSIVE_TEXT.replace("41234", "11")
    code, report = _counters(_fabric(tmp_path, junos, test_cumulus.MLXSW))
    statuses = {d["name"]: d["status"] for d in report["devices"]}  # type: ignore[attr-defined]
    assert statuses["leaf05"] == "untrusted-interval" and code == 3
