"""Recording overhead of `fabriclint nightly` on a synthetic fabric: the check alone against a
full night (check + history transaction + the three reports), first night and next night.

    python benchmarks/nightly_scale.py --size 1000          # generate, then measure
    python benchmarks/nightly_scale.py --fabric DIR          # a fabric made by check_scale.py

Each measurement runs in a fresh interpreter so imports and caches do not favour the second.
"""

from __future__ import annotations

import argparse
import json
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


def _check(fabric: Path) -> dict[str, Any]:
    from fabriclint.engine import CheckOptions, run_check

    started = time.perf_counter()
    result = run_check(CheckOptions(fabric_dir=fabric, snapshot="bench"))
    return {"wall_s": time.perf_counter() - started, "findings": len(result.report.findings)}


def _night(fabric: Path) -> dict[str, Any]:
    from fabriclint.nightly.run import NightlyOptions, run_nightly

    started = time.perf_counter()
    result = run_nightly(NightlyOptions(fabric_dir=fabric, snapshot="bench"))
    wall = time.perf_counter() - started
    return {
        "wall_s": wall,
        "check_s": result.report["run"]["check_seconds"],
        "record_and_report_s": wall - result.report["run"]["check_seconds"],
        "summary": {k: result.report["summary"][k] for k in ("new", "persisting", "open")},
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


def measure(fabric: Path) -> dict[str, Any]:
    """Check alone, then two nights, each in its own interpreter."""
    shutil.rmtree(fabric / ".fabriclint", ignore_errors=True)
    shutil.rmtree(fabric / "reports", ignore_errors=True)
    out: dict[str, Any] = {"check": _child("--measure", "check", str(fabric))}
    out["night1"] = _child("--measure", "night", str(fabric))
    out["night2"] = _child("--measure", "night", str(fabric))
    out["rows"] = _rows(fabric)
    out["database_bytes"] = (fabric / ".fabriclint" / "history.sqlite").stat().st_size
    return out


def main() -> int:
    """Generate or take a fabric, measure, print JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--fabric", type=Path)
    parser.add_argument("--measure", choices=["check", "night"], help=argparse.SUPPRESS)
    parser.add_argument("target", nargs="?", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure is not None:
        run = _check if args.measure == "check" else _night
        print(json.dumps(run(args.target)))
        return 0
    fabric = args.fabric
    if fabric is None:
        from benchmarks.check_scale import generate

        fabric = Path(tempfile.mkdtemp(prefix="fabriclint-nightly-bench-"))
        generate(args.size, 8, fabric)
    print(json.dumps(measure(fabric), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
