"""`collect --counters` of a Junos and a Cumulus switch against the lab (127.0.0.1): the Junos
show commands, the Cumulus link list and one `ethtool -S` per front-panel port it names, and
nothing else; `fabriclint counters` then reads both devices (no longer `unsupported`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabriclint.commands import is_counter_key
from fabriclint.counterrun import CounterOptions, run_counters
from fabriclint.engine import UsageError
from fabriclint.snapshot import load_snapshot
from tests.collectors.labkit import collect_from, lab_for, write_fabric
from tests.parsers.counters import test_cumulus, test_junos

JUNOS_CONFIG = (
    Path(__file__).resolve().parents[1]
    / "parsers"
    / "golden"
    / "junos"
    / "roce_leaf"
    / "show_configuration.txt"
)


def test_junos_and_cumulus_counters_are_collected_and_read(tmp_path: Path) -> None:
    fabric = write_fabric(
        tmp_path / "fabric",
        {
            "leaf05": (
                "junos",
                "leaf",
                {
                    "show configuration": JUNOS_CONFIG.read_text(encoding="utf-8"),
                    "show interfaces extensive": test_junos.EXTENSIVE_TEXT,
                    "show interfaces queue": test_junos.QUEUES_TEXT,
                },
            ),
            "leaf06": (
                "cumulus",
                "leaf",
                {
                    "ip -o link show": test_cumulus.LINKS,
                    "ethtool -S swp1": test_cumulus.MLXSW,
                    "ethtool -S swp2s0": test_cumulus.SWITCHD,
                },
            ),
        },
    )
    sides = []
    for name in ("c1", "c2"):
        out = tmp_path / name / "snap"
        out.parent.mkdir()
        with lab_for(fabric / "snapshots" / "seed") as lab:
            result = collect_from(lab, fabric, out, counters=True)
        assert result.complete, [(r.name, r.status, r.reason) for r in result.failed]
        sides.append(out)
    snap = load_snapshot(sides[1])
    keys = {n: set(d.raw.outputs) for n, d in snap.devices.items() if d.raw is not None}
    assert keys["leaf05"] == {"show interfaces extensive", "show interfaces queue"}
    assert keys["leaf06"] == {"ip -o link show", "ethtool -S swp1", "ethtool -S swp2s0"}
    assert all(is_counter_key("cumulus", k) for k in keys["leaf06"] - {"ip -o link show"})
    opts = CounterOptions(fabric_dir=fabric, before=sides[0], after=sides[1], interval_s=60)
    with pytest.raises(UsageError, match=r"no device configuration.*--config"):
        run_counters(opts)  # counters only: nothing says what is lossless, never a quiet pass
    opts.config = fabric / "snapshots" / "seed"  # the last full collection: the configuration
    report = run_counters(opts).report
    statuses = {d.name: d.status for d in report.devices}
    assert statuses == {"leaf05": "ok", "leaf06": "ok"}, [(d.name, d.error) for d in report.devices]
    assert report.findings == []
