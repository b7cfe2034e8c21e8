"""A stand-in for nccl-tests' `all_reduce_perf`, to try `fabriclint bench run` without GPUs.

It moves no data. It prints the text table nccl-tests prints and, with `-J FILE`, writes the
`-J` JSON (format version 3: args, env, nccl_version, config with devices, results per size,
out_of_bounds, average_bus_bandwidth, errors), with the bus bandwidth, wrong elements and hosts
asked for. Like nccl-tests it records its whole environment in the JSON; `bench run` keeps only
the NCCL_*/UCX_* variables of it in the bundle.

    python scripts/nccl_standin.py -J out.json --hosts gpu01,gpu02 --busbw 92 [--wrong 12]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

SIZES = [1 << n for n in range(26, 33)]  # 64 MiB .. 4 GiB, factor 2
GPUS_PER_HOST = 1


def _args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-J", dest="json_out", type=Path, help="write the -J JSON here")
    parser.add_argument("--hosts", default="gpu01,gpu02", help="comma-separated host names")
    parser.add_argument("--busbw", type=float, default=92.0, help="bus bandwidth, GB/s")
    parser.add_argument("--wrong", type=int, default=0, help="wrong elements at the largest size")
    parser.add_argument("--exit", dest="exit_code", type=int, default=0, help="exit status")
    return parser.parse_args(argv)


def _rows(busbw: float, wrong: int) -> list[dict[str, Any]]:
    """One result per size; small sizes reach a share of the bandwidth, as real runs do."""
    rows = []
    for size in SIZES:
        bus = round(busbw * min(1.0, 0.55 + 0.15 * (size.bit_length() - 27)), 2)
        bus = max(bus, round(busbw * 0.4, 2))
        alg = round(bus / 1.0, 2)  # 2 ranks: busbw = algbw x 2(n-1)/n = algbw
        time_us = round(size / (alg * 1e3), 1)
        bad = wrong if size == SIZES[-1] else 0
        side = {"time": time_us, "alg_bw": alg, "bus_bw": bus, "nwrong": float(bad)}
        rows.append(
            {
                "size": size,
                "count": size // 4,
                "type": "float",
                "redop": "sum",
                "root": "    -1",
                "out_of_place": side,
                "in_place": dict(side, nwrong=0.0),
                "actual_iterations": 20,
                "experiment_name": "",
            }
        )
    return rows


def document(argv: list[str], hosts: list[str], busbw: float, wrong: int) -> dict[str, Any]:
    """The -J document of one run."""
    rows = _rows(busbw, wrong)
    devices = [
        {
            "rank": rank,
            "group": 0,
            "pid": 1000 + rank,
            "hostname": host,
            "device": 0,
            "device_hex": "0000:19:00",
            "device_info": "Stand-in GPU (no data moved)",
        }
        for rank, host in enumerate(hosts)
    ]
    big = [r["out_of_place"]["bus_bw"] for r in rows]
    return {
        "version": 3,
        "start_time": "2026-12-01 00:00:00",
        "args": ["all_reduce_perf", *argv],
        "env": [f"{k}={v}" for k, v in sorted(os.environ.items())],
        "nccl_version": 22703,
        "config": {"nthreads": 1, "ngpus": GPUS_PER_HOST, "devices": devices},
        "results": rows,
        "out_of_bounds": {"count": 0, "okay": "true"},
        "average_bus_bandwidth": {"bandwidth": round(sum(big) / len(big), 3), "okay": "unchecked"},
        "errors": [],
        "end_time": "2026-12-01 00:00:01",
    }


def text(doc: dict[str, Any]) -> str:
    """The table nccl-tests prints for the same run."""
    lines = ["# nccl-tests version 2.17.0 nccl-headers=22703 nccl-library=22703"]
    lines.append("# Collective test starting: all_reduce_perf")
    for d in doc["config"]["devices"]:
        lines.append(
            f"#  Rank {d['rank']:2d} Group  0 Pid {d['pid']:6d} on {d['hostname']:>10s} "
            f"device  0 [{d['device_hex']}] {d['device_info']}"
        )
    lines.append(
        "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong"
    )
    for r in doc["results"]:
        o, i = r["out_of_place"], r["in_place"]
        lines.append(
            f"{r['size']:12d}  {r['count']:12d}  {r['type']:>8s}  {r['redop']:>6s}  {-1:6d}"
            f"  {o['time']:7.1f}  {o['alg_bw']:6.2f}  {o['bus_bw']:6.2f}  {o['nwrong']:6g}"
            f"  {i['time']:7.1f}  {i['alg_bw']:6.2f}  {i['bus_bw']:6.2f}  {i['nwrong']:6g}"
        )
    lines.append(f"# Out of bounds values : {doc['out_of_bounds']['count']} OK")
    lines.append(f"# Avg bus bandwidth    : {doc['average_bus_bandwidth']['bandwidth']:g}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    """Print the table, write the JSON when asked; exit with the status asked for."""
    args = _args(argv)
    hosts = [h for h in args.hosts.split(",") if h]
    doc = document(argv, hosts, args.busbw, args.wrong)
    if args.json_out is not None:
        args.json_out.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    sys.stdout.write(text(doc))
    return int(args.exit_code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
