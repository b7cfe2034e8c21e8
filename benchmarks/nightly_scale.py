"""Recording overhead of `fabriclint nightly` on a synthetic fabric: the check alone against
full nights (check + history transaction + causes + the three reports): a clean night, a night
where `--faults N` leaves lose PFC on priority 3 (every finding new, with causes from the
previous snapshot), and the same faults again (persisting).

    python benchmarks/nightly_scale.py --size 1000 --faults 50   # generate, then measure
    python benchmarks/nightly_scale.py --fabric DIR               # a fabric made by check_scale.py

Each measurement runs in a fresh interpreter so imports and caches do not favour the second.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def faulted(fabric: Path, count: int) -> str:
    """snapshots/bench-faults: bench with PFC moved from priority 3 to 4 on `count` leaves
    (unchanged files hard-linked, the manifest's checksums updated)."""
    source, target = fabric / "snapshots" / "bench", fabric / "snapshots" / "bench-faults"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target, copy_function=os.link)
    manifest = json.loads((source / "manifest.json").read_text())
    leaves = sorted(name for name in manifest["devices"] if name.startswith("leaf"))[:count]
    for name in leaves:
        path = target / name / "show_running-config.txt"
        text = path.read_text().replace(
            "flow-control priority 3 no-drop", "flow-control priority 4 no-drop"
        )
        path.unlink()  # a hard link: never write through it into bench
        path.write_text(text)
        manifest["devices"][name]["sha256"][path.name] = hashlib.sha256(text.encode()).hexdigest()
    (target / "manifest.json").unlink()
    (target / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return target.name


def _check(fabric: Path, snapshot: str = "bench") -> dict[str, Any]:
    from fabriclint.engine import CheckOptions, run_check

    started = time.perf_counter()
    result = run_check(CheckOptions(fabric_dir=fabric, snapshot=snapshot))
    return {"wall_s": time.perf_counter() - started, "findings": len(result.report.findings)}


def _night(fabric: Path, snapshot: str = "bench") -> dict[str, Any]:
    from fabriclint.nightly.run import NightlyOptions, run_nightly

    started = time.perf_counter()
    result = run_nightly(NightlyOptions(fabric_dir=fabric, snapshot=snapshot))
    wall = time.perf_counter() - started
    return {
        "wall_s": wall,
        "check_s": result.report["run"]["check_seconds"],
        "record_and_report_s": wall - result.report["run"]["check_seconds"],
        "summary": {k: result.report["summary"][k] for k in ("new", "persisting", "open")},
        "explained": sum(1 for i in result.report["findings"] if i["cause"] and "->" in i["cause"]),
    }


def _child(*args: str) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), *args]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _rows(fabric: Path) -> dict[str, int]:
    with sqlite3.connect(fabric / ".fabriclint" / "history.sqlite") as conn:
        return {
            t: int(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0])
            for t in ("runs", "run_devices", "findings", "run_findings")
        }


def measure(fabric: Path, faults: int) -> dict[str, Any]:
    """The checks alone, then three nights, each in its own interpreter."""
    shutil.rmtree(fabric / ".fabriclint", ignore_errors=True)
    shutil.rmtree(fabric / "reports", ignore_errors=True)
    broken = faulted(fabric, faults)
    out: dict[str, Any] = {"check_clean": _child("--measure", "check", str(fabric), "bench")}
    out["check_faults"] = _child("--measure", "check", str(fabric), broken)
    out["night_clean"] = _child("--measure", "night", str(fabric), "bench")
    out["night_faults_new"] = _child("--measure", "night", str(fabric), broken)
    out["night_faults_persisting"] = _child("--measure", "night", str(fabric), broken)
    out["rows"] = _rows(fabric)
    out["database_bytes"] = (fabric / ".fabriclint" / "history.sqlite").stat().st_size
    return out


def main() -> int:
    """Generate or take a fabric, measure, print JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--fabric", type=Path)
    parser.add_argument("--faults", type=int, default=50, help="leaves given a PFC fault")
    parser.add_argument("--measure", choices=["check", "night"], help=argparse.SUPPRESS)
    parser.add_argument("target", nargs="?", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("snapshot", nargs="?", default="bench", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure is not None:
        run = _check if args.measure == "check" else _night
        print(json.dumps(run(args.target, args.snapshot)))
        return 0
    fabric = args.fabric
    if fabric is None:
        from benchmarks.check_scale import generate

        fabric = Path(tempfile.mkdtemp(prefix="fabriclint-nightly-bench-"))
        generate(args.size, 8, fabric)
    print(json.dumps(measure(fabric, args.faults), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
