"""Counter outputs cut short: `ethtool -S IF` (mlx5 hosts, Cumulus switches) and the RDMA sysfs
counters (`grep -rH .` over hw_counters / counters) have no end marker, but a cut leaves shapes
no whole output has; each is an unparseable problem at the line the output stops (the device's
interval is then incomplete), never counters read as absent. The whole outputs read as before."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fabriclint.counterrun import CounterOptions, run_counters
from fabriclint.engine import ExitCode
from fabriclint.models.counters import DeviceCounters
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.parsers.counters import parse_counters
from fabriclint.snapshot_import import rehash
from tests.parsers.counters import test_cumulus, test_mlnx_host

ROOT = Path(__file__).resolve().parents[3]
FABRIC = ROOT / "inventories" / "roce-pod"
ETHTOOL_FILE = "ethtool_-S_ens1np0.txt"

HOST_KEY = "ethtool -S ens1np0"
HW_KEY = test_mlnx_host.HW_KEY
SWITCH_KEY = "ethtool -S swp1"


def _parse(platform: str, key: str, text: str) -> DeviceCounters:
    raw = RawDevice(
        name="dev", platform=platform, outputs={key: RawOutput(text=text, file="dev/out.txt")}
    )
    found = parse_counters(raw)
    assert found is not None
    return found


def _located(found: DeviceCounters) -> list[tuple[int | None, str]]:
    return [(p.source.line if p.source else None, p.message) for p in found.problems]


def _upto(text: str, marker: str, keep: int) -> str:
    """`text` up to the line holding `marker`, that line cut after `keep` characters."""
    head, _, tail = text.partition(marker)
    line = (marker + tail).split("\n", 1)[0]
    return head + line[:keep]


ETHTOOL = test_mlnx_host.ETHTOOL
MLXSW = test_cumulus.MLXSW

CUTS = [
    # (platform, key, whole text, cut text, what the message names)
    ("mlnx-host", HOST_KEY, ETHTOOL, _upto(ETHTOOL, "tx_prio3_pause:", 11), "cut off"),
    ("mlnx-host", HOST_KEY, ETHTOOL, _upto(ETHTOOL, "tx_prio3_pause:", 15), "cut off"),
    ("mlnx-host", HOST_KEY, ETHTOOL, _upto(ETHTOOL, "tx_prio3_pause:", 15) + "\n", "cut off"),
    ("mlnx-host", HOST_KEY, ETHTOOL, "NIC statistics:\n", "cut off"),
    ("mlnx-host", HOST_KEY, ETHTOOL, _upto(ETHTOOL, "rx_discards_phy", 7), "cut off"),
    ("cumulus", SWITCH_KEY, MLXSW, _upto(MLXSW, "tx_pause_prio_3:", 16), "cut off"),
    ("cumulus", SWITCH_KEY, MLXSW, _upto(MLXSW, "tx_pause_prio_3:", 9) + "\n", "cut off"),
    ("cumulus", SWITCH_KEY, MLXSW, "NIC statistics:\n", "cut off"),
    (
        "mlnx-host",
        HW_KEY,
        test_mlnx_host.HW,
        _upto(test_mlnx_host.HW, "hw_counters/np_cnp_sent:", 24),
        "cut off: this output stops at line 3, np_cnp_sent has no value",
    ),
    (
        "mlnx-host",
        HW_KEY,
        test_mlnx_host.HW,
        _upto(test_mlnx_host.HW, "hw_counters/lifespan:", 21) + "\n",
        "lifespan has no value",
    ),
    (
        "mlnx-host",
        HW_KEY,
        test_mlnx_host.HW,
        _upto(test_mlnx_host.HW, "hw_counters/np_cnp_sent:", 15),
        "not a `PATH:value`",
    ),
]


@pytest.mark.parametrize(("platform", "key", "whole", "cut", "named"), CUTS)
def test_a_cut_counter_output_is_one_problem_where_it_stops(
    platform: str, key: str, whole: str, cut: str, named: str
) -> None:
    assert _parse(platform, key, whole).problems == []
    found = _parse(platform, key, cut)
    stops = max(n for n, line in enumerate(cut.splitlines(), 1) if line.strip())
    assert [(line, m) for line, m in _located(found) if named in m] == [
        (stops, m) for _, m in _located(found)
    ], found.problems
    assert len(found.problems) == 1, found.problems
    assert all(
        p.kind == "unparseable" and p.source is not None and p.source.file == "dev/out.txt"
        for p in found.problems
    )


def test_the_cut_message_names_the_command_and_quotes_the_last_line() -> None:
    found = _parse("mlnx-host", HOST_KEY, _upto(ETHTOOL, "tx_prio3_pause:", 15))
    (problem,) = found.problems
    assert problem.message.startswith(f"'{HOST_KEY}' is cut off: every line after ")
    assert problem.message.endswith("this one stops at line 7 ('tx_prio3_pause:')")


@pytest.mark.parametrize(
    ("platform", "key", "text", "line"),
    [
        ("mlnx-host", HOST_KEY, ETHTOOL.replace("tx_prio3_pause: 310", "tx_prio3_pause:"), 7),
        ("cumulus", SWITCH_KEY, MLXSW.replace("tx_pause_prio_3: 77", "tx_pause_prio_3:"), 9),
        ("mlnx-host", HW_KEY, test_mlnx_host.HW.replace("np_cnp_sent:8811", "np_cnp_sent:"), 3),
    ],
)
def test_a_counter_without_a_value_inside_the_output_is_no_absent_counter(
    platform: str, key: str, text: str, line: int
) -> None:
    """ethtool prints a count after every name and grep only non-empty values: a counter read
    without one is a located problem, not a counter the device does not have."""
    found = _parse(platform, key, text)
    assert [n for n, m in _located(found) if "without a value" in m or "has no value" in m] == [
        line
    ], found.problems
    assert all("cut off" not in m for _, m in _located(found))


@pytest.mark.parametrize(
    ("platform", "key", "text"),
    [
        # a cut right after a whole line, or inside the last number: a whole output's shape
        ("mlnx-host", HOST_KEY, _upto(ETHTOOL, "tx_prio3_pause:", 100) + "\n"),
        ("mlnx-host", HOST_KEY, _upto(ETHTOOL, "tx_prio3_pause: 310", 17)),
        ("cumulus", SWITCH_KEY, _upto(MLXSW, "tx_pause_prio_3:", 100) + "\n"),
        ("mlnx-host", HW_KEY, _upto(test_mlnx_host.HW, "np_cnp_sent:8811", 13)),
        # no final newline (an output another collector saved, an Ansible `stdout`)
        ("mlnx-host", HOST_KEY, ETHTOOL.rstrip("\n")),
        ("cumulus", SWITCH_KEY, MLXSW.rstrip("\n")),
        ("mlnx-host", HW_KEY, test_mlnx_host.HW.rstrip("\n")),
    ],
)
def test_what_cannot_be_told_is_read_as_whole(platform: str, key: str, text: str) -> None:
    assert _parse(platform, key, text).problems == []


def test_an_output_that_is_not_ethtool_s_keeps_its_own_problem() -> None:
    """An error text (no `NIC statistics:` header) is not judged as a cut: it stays the one
    'no counter line' problem it was."""
    text = "Cannot get stats strings information: Operation not supported\n"
    (problem,) = _parse("mlnx-host", HOST_KEY, text).problems
    assert "no `name: value` counter line" in problem.message


@pytest.mark.parametrize("side", ["bench-before", "bench-after"])
def test_a_cut_ethtool_output_makes_the_counter_run_incomplete(tmp_path: Path, side: str) -> None:
    """`fabriclint counters` on the example with gpu01's `ethtool -S ens1np0` cut right after
    `rx_prio3_pause:` on one side: gpu01 is reported unparseable at that file and line (exit 3),
    not as a pause counter that disappeared (CTR009) or one never there."""
    fabric = tmp_path / "roce-pod"
    shutil.copytree(FABRIC, fabric)
    path = fabric / "snapshots" / side / "gpu01" / ETHTOOL_FILE
    text = path.read_text()
    cut = _upto(text, "rx_prio3_pause:", 15)
    path.write_text(cut)
    rehash(fabric / "snapshots" / side)
    result = run_counters(
        CounterOptions(fabric_dir=fabric, before="bench-before", after="bench-after")
    )
    assert result.exit_code == ExitCode.INCOMPLETE
    (gpu01,) = [d for d in result.report.devices if d.name == "gpu01"]
    line = len(cut.splitlines())
    assert gpu01.status == "unparseable", gpu01
    assert gpu01.error is not None and f"{ETHTOOL_FILE}:{line}: " in gpu01.error
    assert "cut off" in gpu01.error
    assert [f for f in result.report.findings if f.device == "gpu01"] == []
