"""`fabriclint counters` when one side's counter output cannot be parsed: the device is reported
not checked once, never as each of its counters having disappeared (CTR009)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fabriclint.counterrun import CounterOptions, run_counters
from fabriclint.engine import ExitCode
from fabriclint.snapshot_import import rehash

ROOT = Path(__file__).resolve().parent.parent
FABRIC = ROOT / "inventories" / "roce-pod"
PFC = "show_priority-flow-control_counters_detail_|_json.txt"


@pytest.mark.parametrize("side", ["bench-before", "bench-after"])
def test_a_cut_off_counter_output_is_one_unchecked_device(tmp_path: Path, side: str) -> None:
    fabric = tmp_path / "roce-pod"
    shutil.copytree(FABRIC, fabric)
    path = fabric / "snapshots" / side / "leaf04" / PFC
    path.write_text(path.read_text()[:500])  # a JSON document cut off mid-way
    rehash(fabric / "snapshots" / side)
    result = run_counters(
        CounterOptions(fabric_dir=fabric, before="bench-before", after="bench-after")
    )
    assert result.exit_code == ExitCode.INCOMPLETE
    (leaf04,) = [d for d in result.report.devices if d.name == "leaf04"]
    assert leaf04.status == "unparseable" and leaf04.error is not None and PFC in leaf04.error
    assert [f for f in result.report.findings if f.device == "leaf04"] == []
    assert all(d.status == "ok" for d in result.report.devices if d.name != "leaf04")
