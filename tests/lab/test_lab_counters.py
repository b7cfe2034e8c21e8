"""The lab moves counters (`lab serve --counters SCENARIO`): two `collect --counters` runs
against it on 127.0.0.1, then `fabriclint counters`, find exactly what each scenario seeded."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabriclint.collectors.run import load_inventory
from fabriclint.counterrun import CounterOptions, run_counters
from fabriclint.lab.counters import SCENARIOS, ScenarioError, attach, plan
from fabriclint.lab.device import load_snapshot_devices
from fabriclint.lab.server import Lab
from tests.collectors.labkit import LAB_PASSWORD, ROCE_POD, collect_from

BASE = ROCE_POD / "snapshots" / "bench-before"
EXPECTED = {
    "healthy": set(),
    "pause-storm": {("CTR002", "gpu01")},
    "ecn-off": {("CTR004", "leaf01")},
    "cnp-ignored": {("CTR006", "gpu01")},
    "lossy-drops": {("CTR003", "gpu01")},
}


def _cables() -> list[tuple[tuple[str, str], tuple[str, str]]]:
    return [link.ends() for link in load_inventory(ROCE_POD).links]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_scenario_found_end_to_end(tmp_path: Path, scenario: str) -> None:
    devices = load_snapshot_devices(BASE)
    assert attach(devices, _cables(), scenario) == 10
    snaps = []
    with Lab(devices, password=LAB_PASSWORD) as lab:
        for run in ("first", "second"):
            out = tmp_path / run / "snap"
            out.parent.mkdir()
            result = collect_from(lab, ROCE_POD, out, counters=True)
            assert result.complete, [(r.name, r.status, r.reason) for r in result.failed]
            snaps.append(out)
    opts = CounterOptions(
        fabric_dir=ROCE_POD, before=snaps[0], after=snaps[1], config="bench-before", interval_s=60
    )
    report = run_counters(opts).report
    assert report.summary.complete, [(d.name, d.status, d.error) for d in report.devices]
    assert {(f.rule, f.device) for f in report.findings} == EXPECTED[scenario]


def test_unknown_scenario_and_a_fabric_without_hosts() -> None:
    with pytest.raises(ScenarioError, match="unknown counter scenario"):
        plan("meltdown", _cables(), {}, {})
    switches_only = [(("leaf01", "Ethernet49/1"), ("spine01", "Ethernet1/1"))]
    with pytest.raises(ScenarioError, match="no cabled host"):
        plan("cnp-ignored", switches_only, {"leaf01": "eos", "spine01": "eos"}, {})
