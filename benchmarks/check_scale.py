"""Scale benchmark: a full `run_check` on synthetic RoCE fabrics against the I/O + regex floor.

For each size (switches, 64 ports each, 8 dual-homed GPU hosts per leaf) the fabric is generated
into a temporary directory with benchmarks/fabricgen.py, then two fresh subprocesses measure

* check: `fabriclint.engine.run_check` on it (wall time, peak RSS), and
* floor: reading every manifest-listed file and scanning it with one regex (the least any
  checker must do),

so the peaks of one never mix with the other or with generation. Prints a table, check/floor
ratios, and the growth from the smallest size to the largest.

    python benchmarks/check_scale.py                 # sizes 100 and 1000
    python benchmarks/check_scale.py --sizes 20 100  # quicker
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

EXAMPLE = ROOT / "inventories" / "roce-pod"
SCAN = re.compile(r"^.*\b(?:mtu|MTU|priority-flow-control|random-detect|enable/\d)\b.*$", re.M)


def _rss_mb() -> float:
    """Peak resident set size of this program so far, MB.

    Linux keeps getrusage's ru_maxrss across exec, so a child would inherit its parent's peak;
    VmHWM in /proc/self/status belongs to the new address space and does not. Elsewhere fall
    back to ru_maxrss (KiB on Linux, bytes on macOS; only Linux is assumed here).
    """
    status = Path("/proc/self/status")
    if status.is_file():
        found = re.search(r"^VmHWM:\s+(\d+) kB", status.read_text(), re.M)
        if found:
            return int(found.group(1)) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def generate(size: int, hosts_per_leaf: int, root: Path) -> dict[str, int]:
    """Write a synthetic fabric of about `size` switches under `root`; return its shape."""
    from benchmarks.fabricgen import FabricSpec, build_fabric, render_inventory, snapshot_devices
    from fabriclint.snapshot import write_snapshot

    spec = FabricSpec.for_switch_count(size, hosts_per_leaf=hosts_per_leaf)
    fabric = build_fabric(spec)
    root.mkdir(parents=True, exist_ok=True)
    (root / "inventory.yaml").write_text(render_inventory(fabric), encoding="utf-8")
    for name in ("intent.yaml", "policy.yaml"):
        shutil.copyfile(EXAMPLE / name, root / name)
    devices = snapshot_devices(fabric)
    write_snapshot(root / "snapshots" / "bench", devices, source="candidate")
    files = sum(len(outputs) for _, outputs in devices.values())
    size_bytes = sum(len(t) for _, outputs in devices.values() for t in outputs.values())
    return {
        "switches": spec.spines + spec.leaves,
        "hosts": spec.hosts,
        "devices": len(devices),
        "files": files,
        "bytes": size_bytes,
    }


def measure_check(fabric_dir: Path) -> dict[str, Any]:
    """Run the engine once (in this process) and report time and memory."""
    t0 = time.perf_counter()
    from fabriclint.engine import CheckOptions, run_check

    imported = time.perf_counter()
    rss_before = _rss_mb()
    opts = CheckOptions(fabric_dir=fabric_dir, snapshot=fabric_dir / "snapshots" / "bench")
    result = run_check(opts)
    done = time.perf_counter()
    findings: dict[str, int] = {}
    for f in result.report.findings:
        findings[f.rule] = findings.get(f.rule, 0) + 1
    return {
        "wall_s": done - imported,
        "import_s": imported - t0,
        "rss_before_mb": rss_before,
        "peak_mb": _rss_mb(),
        "exit_code": int(result.exit_code),
        "complete": result.report.summary.complete,
        "findings": findings,
    }


def measure_floor(fabric_dir: Path) -> dict[str, Any]:
    """Read every manifest-listed file and scan it with one regex: the cost floor."""
    rss_before = _rss_mb()
    t0 = time.perf_counter()
    snapshot = fabric_dir / "snapshots" / "bench"
    manifest = json.loads((snapshot / "manifest.json").read_text(encoding="utf-8"))
    hits = 0
    for name, entry in manifest["devices"].items():
        for filename in entry["files"].values():
            text = (snapshot / name / filename).read_bytes().decode("utf-8")
            hits += sum(1 for _ in SCAN.finditer(text))
    return {
        "wall_s": time.perf_counter() - t0,
        "rss_before_mb": rss_before,
        "peak_mb": _rss_mb(),
        "hits": hits,
    }


Json = dict[str, Any]


def _child(*args: str) -> Json:
    """Run this script in a fresh interpreter and return the JSON it prints last."""
    cmd = [sys.executable, str(Path(__file__).resolve()), *args]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def run(sizes: list[int], hosts_per_leaf: int, keep: Path | None) -> int:
    """Generate, measure and print every size (each step in its own interpreter)."""
    rows: list[tuple[Json, Json, Json]] = []
    for size in sizes:
        work = Path(tempfile.mkdtemp(prefix=f"fabriclint-bench-{size}-", dir=keep))
        t0 = time.perf_counter()
        shape = _child("--generate", str(size), "--hosts-per-leaf", str(hosts_per_leaf), str(work))
        shape["generate_s"] = time.perf_counter() - t0
        floor = _child("--measure", "floor", str(work))
        check = _child("--measure", "check", str(work))
        rows.append((shape, floor, check))
        _print_row(shape, floor, check)
        if keep is None:
            shutil.rmtree(work)
    _print_growth(rows)
    return 0


def _print_row(shape: Json, floor: Json, check: Json) -> None:
    print(
        f"\n== {shape['switches']} switches, {shape['hosts']} hosts, {shape['devices']} devices,"
        f" {shape['files']} files, {shape['bytes'] / 1e6:.1f} MB"
        f" (generated in {shape['generate_s']:.1f} s)"
    )
    print(
        f"   floor (read + 1 regex): {floor['wall_s']:8.2f} s   peak RSS {floor['peak_mb']:.0f} MB"
        f" (at start {floor['rss_before_mb']:.0f} MB)"
    )
    print(
        f"   full run_check:         {check['wall_s']:8.2f} s   peak RSS {check['peak_mb']:.0f} MB"
        f" (after imports {check['rss_before_mb']:.0f} MB; imports {check['import_s']:.2f} s)"
    )
    per_device = 1000 * check["wall_s"] / shape["devices"]
    print(
        f"   check / floor: {check['wall_s'] / floor['wall_s']:.1f}x"
        f"   per device: {per_device:.2f} ms   exit {check['exit_code']},"
        f" complete={check['complete']}, findings {check['findings']}"
    )


def _print_growth(rows: list[tuple[Json, Json, Json]]) -> None:
    if len(rows) < 2:
        return
    (s0, f0, c0), (s1, f1, c1) = rows[0], rows[-1]
    mem0 = c0["peak_mb"] - c0["rss_before_mb"]
    mem1 = c1["peak_mb"] - c1["rss_before_mb"]
    print(
        f"\n== growth {s0['switches']} -> {s1['switches']} switches"
        f" ({s1['devices'] / s0['devices']:.1f}x devices):"
        f" run_check time {c1['wall_s'] / c0['wall_s']:.1f}x,"
        f" floor time {f1['wall_s'] / f0['wall_s']:.1f}x,"
        f" run_check memory above imports {mem0:.0f} -> {mem1:.0f} MB ({mem1 / max(mem0, 1):.1f}x)"
    )


def main(argv: list[str] | None = None) -> int:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--hosts-per-leaf", type=int, default=8)
    parser.add_argument("--keep", type=Path, help="generate under this folder and keep it")
    parser.add_argument("--measure", choices=["check", "floor"], help=argparse.SUPPRESS)
    parser.add_argument("--generate", type=int, metavar="SIZE", help=argparse.SUPPRESS)
    parser.add_argument("fabric_dir", nargs="?", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.generate:
        print(json.dumps(generate(args.generate, args.hosts_per_leaf, args.fabric_dir)))
        return 0
    if args.measure:
        measure = measure_check if args.measure == "check" else measure_floor
        print(json.dumps(measure(args.fabric_dir)))
        return 0
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    return run(args.sizes, args.hosts_per_leaf, args.keep)


if __name__ == "__main__":
    raise SystemExit(main())
