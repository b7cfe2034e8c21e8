"""Start-up benchmark: the CPU time of the small example check against the 0.2 s goal.

Runs each command N times as a fresh subprocess and reads its CPU time (user + system, from
`os.wait4`'s rusage: the child's own CPU, not the wall time its neighbours stretch; a loaded
machine still inflates it, so compare versions side by side, or by instruction count as
docs/performance.md shows):

* `check`: `fabriclint check inventories/roce-pod --snapshot broken` (10 devices: imports,
  loading, parsing, rules and the text report), the issue-12 goal of at most 0.2 s;
* `help`: `fabriclint --help` (the typer application built, nothing checked);
* `python -c pass` and `import pydantic`: the floors no Python CLI built on pydantic goes below;
* `pydantic, 1 model`: a program that makes one two-field model and validates one instance, the
  least a CLI that validates anything with pydantic pays (pydantic builds a model's validator
  when the class is made, and its first build imports the rest of pydantic);
* `+ Field, validator, YAML`: the same model with a constrained `Field`, a `field_validator` and
  a `yaml.safe_load` of a small document: the floor of a pydantic tool that reads YAML input.

Bytecode is compiled first (`compileall`) and the children run without PYTHONDONTWRITEBYTECODE,
so the figures are warm ones: an environment that sets it recompiles every module on every run.
Prints the min and median of each, the check's ratio to the goal and its ratio to each pydantic
floor (min to min, median to median): the goal divided by a floor is the most of it the floors
leave for everything else.

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

ONE_MODEL = """\
from pydantic import BaseModel


class M(BaseModel):
    a: int
    b: str | None = None


assert M(a=1).a == 1
"""
"""The smallest pydantic program that validates something: one model, one instance."""

ONE_MODEL_YAML = """\
import yaml
from pydantic import BaseModel, Field, field_validator


class M(BaseModel):
    a: int = Field(ge=0)
    b: str | None = None

    @field_validator("b")
    @classmethod
    def strip(cls, value: str | None) -> str | None:
        return value.strip() if value is not None else None


assert M.model_validate(yaml.safe_load("a: 1\\nb: ' x '\\n")).b == "x"
"""
"""The same with what every fabriclint model module uses: a constraint, a validator, YAML."""

FLOORS = ("pydantic, 1 model", "+ Field, validator, YAML")
"""The rows the check is compared with besides the goal."""


@dataclass(frozen=True)
class Case:
    """One command timed: its name in the table, its argv and the exit statuses that are normal."""

    name: str
    argv: list[str]
    exits: tuple[int, ...] = (0,)


def cases(snapshot: str) -> list[Case]:
    """The commands timed, the check first (every one through this interpreter)."""
    cli = "from fabriclint.cli import main; main()"
    check = [sys.executable, "-c", cli, "check", str(EXAMPLE), "--snapshot", snapshot]
    return [
        Case(f"check --snapshot {snapshot}", check, (0, 1)),  # the example has findings: 1
        Case("--help", [sys.executable, "-c", cli, "--help"]),
        Case("python -c pass", [sys.executable, "-c", "pass"]),
        Case("import pydantic", [sys.executable, "-c", "from pydantic import BaseModel"]),
        Case(FLOORS[0], [sys.executable, "-c", ONE_MODEL]),
        Case(FLOORS[1], [sys.executable, "-c", ONE_MODEL_YAML]),
    ]


def cpu_seconds(argv: list[str], env: dict[str, str], exits: tuple[int, ...] = (0,)) -> float:
    """User + system CPU of one run of `argv` (its output discarded); raises if it cannot run
    or exits with a status not in `exits` (a floor program whose assert fails is no floor)."""
    proc = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in exits:
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}")
    return usage.ru_utime + usage.ru_stime


def measure(cases_: list[Case], runs: int, env: dict[str, str]) -> dict[str, list[float]]:
    """Each case's CPU times, the cases interleaved run by run (the machine's load shifts)."""
    times: dict[str, list[float]] = {case.name: [] for case in cases_}
    for _ in range(runs):
        for case in cases_:
            times[case.name].append(cpu_seconds(case.argv, env, case.exits))
    return times


def warm_env() -> dict[str, str]:
    """This environment without PYTHONDONTWRITEBYTECODE, after compiling fabriclint's bytecode."""
    compileall.compile_dir(ROOT / "fabriclint", quiet=1)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def ratio_line(label: str, check: list[float], base_min: float, base_median: float) -> str:
    """`check / label: Ax (min), Bx (median)`: the check's min over base_min, median over median."""
    return (
        f"check / {label}: {min(check) / base_min:.2f}x (min), "
        f"{statistics.median(check) / base_median:.2f}x (median)"
    )


def report(times: dict[str, list[float]], goal_case: str) -> list[str]:
    """The table (min and median per case), then the check's ratio to the goal and to each floor."""
    lines = [f"{'command':<28} {'min s':>7} {'median s':>9}"]
    for name, values in times.items():
        lines.append(f"{name:<28} {min(values):7.3f} {statistics.median(values):9.3f}")
    check = times[goal_case]
    lines.append(ratio_line(f"{GOAL_S} s goal", check, GOAL_S, GOAL_S))
    for floor in FLOORS:
        if floor in times:
            values = times[floor]
            lines.append(ratio_line(floor, check, min(values), statistics.median(values)))
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
    cpu_seconds(
        todo[0].argv, env, todo[0].exits
    )  # one discarded run: the page cache and bytecode in place
    times = measure(todo, args.runs, env)
    print(f"{args.runs} runs each, load average {os.getloadavg()[0]:.1f} at the end")
    print("\n".join(report(times, todo[0].name)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
