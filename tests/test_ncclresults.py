"""Reading nccl-tests results: the -J JSON (as nccl-tests' util.cu writes it) and the text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fabriclint.ncclresults import ResultsError, parse_json, parse_text, read_results, scrubbed

ROW = {
    "size": 1073741824,
    "count": 268435456,
    "type": "float",
    "redop": "sum",
    "root": "    -1",
    "out_of_place": {"time": 11671.1, "alg_bw": 92.0, "bus_bw": 92.0, "nwrong": 0},
    "in_place": {"time": 11700.0, "alg_bw": 91.77, "bus_bw": 91.77, "nwrong": 3},
    "actual_iterations": 20,
    "experiment_name": "",
}
DOC = {
    "version": 3,
    "args": ["/opt/nccl-tests/build/all_reduce_perf", "-b", "8", "-e", "8G"],
    "env": ["NCCL_IB_TC=104", "NCCL_IB_HCA==mlx5_0,mlx5_1", "AWS_SECRET_ACCESS_KEY=xyz"],
    "nccl_version": 22703,
    "config": {
        "nthreads": 1,
        "devices": [
            {"rank": 0, "group": 0, "pid": 9, "hostname": "gpu01", "device": 0,
             "device_hex": "0000:19:00", "device_info": "NVIDIA H100 80GB HBM3"},
        ],
    },
    "results": [ROW, {**ROW, "size": 8, "out_of_place": None, "in_place": {"time": "nan", "alg_bw": "nan", "bus_bw": 0.0, "nwrong": None}}],
    "out_of_bounds": {"count": 2, "okay": "false"},
    "average_bus_bandwidth": {"bandwidth": 45.9, "okay": "unchecked"},
    "errors": [],
}  # fmt: skip

TEXT = """\
# nccl-tests version 2.17.6 nccl-headers=22703 nccl-library=22703
# Collective test starting: all_reduce_perf
#  Rank  0 Group  0 Pid   6899 on ztan-mig-235z device  0 [0000:04:00] NVIDIA H100 80GB HBM3
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)
           8             2     float     sum      -1    38.41    0.00    0.00       0    37.90    0.00    0.00       0
  1073741824     268435456     float     sum      -1    11671   92.00   92.00     N/A    11700   91.77   91.77     N/A
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 45.9
"""


def test_json_fields_as_util_cu_writes_them() -> None:
    run = parse_json(json.dumps(DOC), "r.json")
    assert (run.version, run.test, run.nccl_version) == (3, "all_reduce_perf", 22703)
    assert run.env == {"NCCL_IB_TC": "104", "NCCL_IB_HCA": "=mlx5_0,mlx5_1"}  # no secrets
    assert [(r.rank, r.hostname, r.device_info) for r in run.ranks] == [
        (0, "gpu01", "NVIDIA H100 80GB HBM3")
    ]
    big, small = run.results
    assert (big.size, big.best_bus_bw(), big.wrong()) == (1 << 30, 92.0, 3)
    assert small.out_of_place is None and small.in_place is not None
    assert (small.in_place.time_us, small.in_place.nwrong) == (None, None)  # "nan", unchecked
    assert (run.out_of_bounds, run.avg_bus_bw) == (2, 45.9)


def test_text_table() -> None:
    run = parse_text(TEXT, "out.txt")
    assert (run.test, run.nccl_version, run.env) == ("all_reduce_perf", 22703, None)
    assert [r.hostname for r in run.ranks] == ["ztan-mig-235z"]
    small, big = run.results
    assert (small.size, small.source and small.source.line) == (8, 8)
    assert big.out_of_place is not None and big.out_of_place.nwrong is None  # N/A
    assert (big.best_bus_bw(), big.wrong()) == (92.0, 0)
    assert (run.out_of_bounds, run.avg_bus_bw) == (0, 45.9)


def test_old_text_without_redop_and_root_and_with_timestamps() -> None:
    old = "  1048576  262144  float  512.0  2.05  3.07  0  510.0  2.06  3.08  0\n"
    (row,) = parse_text(old, "old.txt").results
    assert (row.size, row.type, row.redop, row.best_bus_bw()) == (1048576, "float", None, 3.08)
    stamped = TEXT.splitlines()[8] + "  2026-12-01 10:00:00\n"
    (row,) = parse_text(stamped, "ts.txt").results
    assert row.size == 1 << 30


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"results": [1,', "bad.json:1:"),
        ('{"version": 3}', "not a nccl-tests -J results file"),
        ("# nothing but comments\n", "no nccl-tests results table"),
        ("[" * 5000 + "]" * 5000, "no nccl-tests results table"),
    ],
)
def test_unreadable_results_are_named(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ResultsError, match=message):
        read_results(path, "bad.json")


def test_deep_json_is_refused_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"results": [], "x": ' + "[" * 5000 + "]" * 5000 + "}")
    with pytest.raises(ResultsError, match=r"deep\.json"):
        read_results(path)


def test_scrubbed_keeps_only_nccl_and_ucx_variables() -> None:
    kept = json.loads(scrubbed(json.dumps(DOC)))
    assert kept["env"] == ["NCCL_IB_TC=104", "NCCL_IB_HCA==mlx5_0,mlx5_1"]
    assert kept["results"] == DOC["results"]
    assert scrubbed(TEXT) == TEXT
    assert "xyz" not in scrubbed('{"env": ["AWS_SECRET_ACCESS_KEY=xyz"], "results": [')


@pytest.mark.parametrize("value", ["inf", "-inf", "Infinity", "nan"])
def test_a_number_that_is_not_finite_is_not_a_measurement(value: str) -> None:
    """An infinite bus bandwidth would clear any floor (BENCH002) and break verdict.json."""
    text = TEXT.replace("   92.00   92.00     N/A", f"   92.00   {value}     N/A")
    row = parse_text(text, "r.txt").results[1]
    assert row.out_of_place is not None and row.out_of_place.bus_bw is None
    doc = json.dumps(DOC).replace('"bus_bw": 92.0', '"bus_bw": Infinity')
    assert (side := parse_json(doc, "r.json").results[0].out_of_place) is not None
    assert side.bus_bw is None


def test_a_results_path_that_is_no_regular_file_is_refused_not_read(tmp_path: Path) -> None:
    """/dev/zero (its size reads as 0) was read until memory ran out; a FIFO blocked forever."""
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (Path("/dev/zero"), fifo):
        with pytest.raises(ResultsError, match="not a regular file; refused"):
            read_results(path)


def test_a_bundle_results_link_outside_the_bundle_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.txt"
    outside.write_text(TEXT)
    bundle = tmp_path / "bundle"
    (bundle / "results").mkdir(parents=True)
    (bundle / "results" / "00-r.txt").symlink_to(outside)
    with pytest.raises(ResultsError, match=r"outside .*links must stay inside it"):
        read_results(bundle / "results" / "00-r.txt", root=bundle)
    assert read_results(outside).results  # the same file named directly is read
