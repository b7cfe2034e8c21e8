"""Regenerate only the roce-pod counter snapshots (bench-before, bench-after,
bench-after-healthy); scripts/gen_roce_pod.py writes them too. See benchmarks/roce_pod_bench.py.

Run from the repository root:  python scripts/gen_roce_pod_bench.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make `benchmarks` and `fabriclint` importable
    sys.path.insert(0, str(ROOT))

from benchmarks import roce_pod_bench  # noqa: E402

FABRIC_DIR = ROOT / "inventories" / "roce-pod"


def main() -> int:
    """Entry point."""
    roce_pod_bench.write(FABRIC_DIR / "snapshots")
    faults = len(roce_pod_bench.FAULTS)
    print(
        f"wrote {FABRIC_DIR / 'snapshots'}/bench-before, bench-after ({faults} faults), bench-after-healthy"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
