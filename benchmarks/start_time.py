"""Start-up benchmark: the CPU time of the small example check against the 0.2 s goal.

Runs each command N times as a fresh subprocess and reads its CPU time (user + system, from
`os.wait4`'s rusage: the child's own CPU, not the wall time its neighbours stretch; a loaded
machine still inflates it, so compare versions side by side, or by instruction count as
docs/performance.md shows):

* `check`: `fabriclint check inventories/roce-pod --snapshot broken` (10 devices: imports,
  loading, parsing, rules and the text report), the issue-12 goal of at most 0.2 s;
* `help`: `fabriclint --help` (the typer application built, nothing checked);
* `python -c pass` and `import pydantic`: the floors no Python CLI built on pydantic goes below.

Bytecode is compiled first (`compileall`) and the children run without PYTHONDONTWRITEBYTECODE,
so the figures are warm ones: an environment that sets it recompiles every module on every run.
Prints the min and median of each and the check's ratio to the goal (min and median).

    python benchmarks/start_time.py              # 9 runs each
    python benchmarks/start_time.py --runs 21 --snapshot baseline
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "inventories" / "roce-pod"
GOAL_S = 0.2
"""The issue-12 goal for the small check, CPU seconds."""


@dataclass(frozen=True)
class Case:
    """One command timed: its name in the table and its argv."""

    name: str
    argv: list[str]


def cases(snapshot: str) -> list[Case]:
    """The commands timed, the check first (every one through this interpreter)."""
    cli = "from fabriclint.cli import main; main()"
    check = [sys.executable, "-c", cli, "check", str(EXAMPLE), "--snapshot", snapshot]
    return [
        Case(f"check --snapshot {snapshot}", check),
        Case("--help", [sys.executable, "-c", cli, "--help"]),
        Case("python -c pass", [sys.executable, "-c", "pass"]),
        Case("import pydantic", [sys.executable, "-c", "from pydantic import BaseModel"]),
    ]


def cpu_seconds(argv: list[str], env: dict[str, str]) -> float:
    """User + system CPU of one run of `argv` (its output discarded); raises if it cannot run."""
    proc = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):  # the example has findings: 1 is its normal exit
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}")
    return usage.ru_utime + usage.ru_stime


def measure(cases_: list[Case], runs: int, env: dict[str, str]) -> dict[str, list[float]]:
    """Each case's CPU times, the cases interleaved run by run (the machine's load shifts)."""
    times: dict[str, list[float]] = {case.name: [] for case in cases_}
    for _ in range(runs):
        for case in cases_:
            times[case.name].append(cpu_seconds(case.argv, env))
    return times


def warm_env() -> dict[str, str]:
    """This environment without PYTHONDONTWRITEBYTECODE, after compiling fabriclint's bytecode."""
    compileall.compile_dir(ROOT / "fabriclint", quiet=1)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def report(times: dict[str, list[float]], goal_case: str) -> list[str]:
    """The table: min and median per case, then the check's ratio to the goal."""
    lines = [f"{'command':<28} {'min s':>7} {'median s':>9}"]
    for name, values in times.items():
        lines.append(f"{name:<28} {min(values):7.3f} {statistics.median(values):9.3f}")
    check = times[goal_case]
    lines.append(
        f"check / {GOAL_S} s goal: {min(check) / GOAL_S:.2f}x (min), "
        f"{statistics.median(check) / GOAL_S:.2f}x (median)"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="runs of each command (default 9)")
    parser.add_argument("--snapshot", default="broken", help="roce-pod snapshot to check")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    env = warm_env()
    todo = cases(args.snapshot)
    cpu_seconds(todo[0].argv, env)  # one discarded run: the page cache and bytecode in place
    times = measure(todo, args.runs, env)
    print(f"{args.runs} runs each, load average {os.getloadavg()[0]:.1f} at the end")
    print("\n".join(report(times, todo[0].name)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
