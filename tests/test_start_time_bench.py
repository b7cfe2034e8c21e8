"""benchmarks/start_time.py: its pydantic floor programs validate what they claim, and the ratios
it prints are the check's figures over the goal's and the floors' (min to min, median to median)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from benchmarks import start_time


@pytest.mark.parametrize("source", [start_time.ONE_MODEL, start_time.ONE_MODEL_YAML])
def test_floor_programs_validate(source: str) -> None:
    """Each floor program runs to the end (its assert holds) and exits 0."""
    done = subprocess.run(
        [sys.executable, "-c", source], check=False, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_floor_program_fails_loudly_when_its_assert_breaks() -> None:
    """A broken floor program exits non-zero, so the benchmark's cpu_seconds refuses it."""
    broken = start_time.ONE_MODEL.replace("== 1", "== 2")
    with pytest.raises(RuntimeError, match="exited 1"):
        start_time.cpu_seconds([sys.executable, "-c", broken], dict(os.environ))


@pytest.mark.parametrize(
    ("check", "floor", "goal_line", "floor_line"),
    [
        ([0.5, 0.6, 0.7], [0.2, 0.25, 0.3], "2.50x (min), 3.00x (median)", "2.50x (min), 2.40x"),
        ([0.2, 0.2, 0.2], [0.1, 0.1, 0.4], "1.00x (min), 1.00x (median)", "2.00x (min), 2.00x"),
    ],
)
def test_report_ratios(
    check: list[float], floor: list[float], goal_line: str, floor_line: str
) -> None:
    """The goal line divides by 0.2 s; each floor line by that floor's own min and median."""
    times = {"check": check, start_time.FLOORS[0]: floor}
    lines = start_time.report(times, "check")
    assert any(line.startswith("check / 0.2 s goal: ") and goal_line in line for line in lines)
    assert any(
        line.startswith(f"check / {start_time.FLOORS[0]}: ") and floor_line in line
        for line in lines
    )
    assert not any(start_time.FLOORS[1] in line for line in lines)  # a floor not timed: no line
