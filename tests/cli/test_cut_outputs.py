"""End to end: an example snapshot with one device output cut short (and rehashed, so that only
the cut counts) checks as incomplete, exit 3, with a PARSE003 at the cut file's last line, never
as clean or with findings only; the same snapshot uncut stays clean (exit 0)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fabriclint.engine import CheckOptions, run_check
from fabriclint.snapshot_import import rehash

ROOT = Path(__file__).resolve().parents[2]

CUTS = [
    # (fabric, device, file, keep this many lines, then this many characters of the next)
    ("multivendor-pod", "leaf02", "show_running-config.txt", 150, 0),
    ("multivendor-pod", "leaf02", "show_interface.txt", 36, 0),
    ("multivendor-pod", "leaf04", "nv_config_show_-o_yaml.txt", 38, 0),
    ("multivendor-pod", "leaf01", "show_interfaces.txt", 0, 20),
    ("roce-pod", "gpu01", "mlnx_qos_-i_ens2np0.txt", 22, 0),
    ("roce-pod", "gpu02", "ip_-d_link_show.txt", 8, 40),
    ("roce-pod", "gpu03", "grep_-rH_._%2Fsys%2Fclass%2Fnet%2Fens1np0%2Fecn.txt", 14, 0),
    ("roce-pod", "gpu04", "ibdev2netdev.txt", 1, 0),
    ("ib-rail-pod", "sm01", "ibnetdiscover.txt", 100, 12),
    ("ib-rail-pod", "sm02", "partitions.conf.txt", 5, 0),
    ("ib-cluster", "gpu05", "ibstat.txt", 16, 0),
]


def _copy(tmp_path: Path, fabric: str) -> tuple[Path, Path]:
    target = tmp_path / fabric
    shutil.copytree(
        ROOT / "inventories" / fabric, target, ignore=shutil.ignore_patterns("snapshots")
    )
    snap = target / "snapshots" / "baseline"
    shutil.copytree(ROOT / "inventories" / fabric / "snapshots" / "baseline", snap)
    return target, snap


@pytest.mark.parametrize(("fabric", "device", "name", "lines", "chars"), CUTS)
def test_a_cut_output_makes_the_check_incomplete_at_its_last_line(
    tmp_path: Path, fabric: str, device: str, name: str, lines: int, chars: int
) -> None:
    target, snap = _copy(tmp_path, fabric)
    before = run_check(CheckOptions(fabric_dir=target, snapshot=snap))
    assert before.exit_code == 0, "the example baseline is clean"
    path = snap / device / name
    kept = path.read_text().splitlines(keepends=True)
    cut = "".join(kept[:lines]) + kept[lines][:chars]
    path.write_text(cut)
    rehash(snap)
    result = run_check(CheckOptions(fabric_dir=target, snapshot=snap))
    assert result.exit_code == 3
    [state] = [d for d in result.report.devices if d.name == device]
    assert state.status == "unparseable"
    stops = max(n for n, line in enumerate(cut.splitlines(), 1) if line.strip())
    found = [
        (f.source.file.rsplit("/", 1)[-1], f.source.line)
        for f in result.report.findings
        if f.rule == "PARSE003" and f.device == device and f.source is not None
    ]
    assert (name, stops) in found, found
