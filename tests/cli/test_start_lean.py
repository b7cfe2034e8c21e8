"""What a plain `fabriclint check` of a RoCE snapshot spends nothing on: the cyclic collector
never runs from its imports to its exit (everything it makes lives until then), and the counters
and NCCL models are not imported (their rules do not run in a check). Run in a subprocess, as the
console script runs: in-process tests have typer and the models loaded already."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
POD = "inventories/roce-pod"
_PROBE = """
import gc, sys
from fabriclint.cli import main
sys.argv[0] = "fabriclint"
late = []  # collections once the check command is imported (the plain path's first import)
gc.callbacks.append(
    lambda phase, info: late.append(1)
    if phase == "start" and "fabriclint.cli.check" in sys.modules
    else None
)
try:
    main()
except SystemExit as exited:
    code = exited.code
runs = len(late)
models = [m for m in ("fabriclint.models.counters", "fabriclint.models.nccl") if m in sys.modules]
sys.stderr.write(f"PROBE {code} {runs} {gc.isenabled()} {','.join(models) or '-'}\\n")
"""


def _probe(args: list[str]) -> list[str]:
    """The exit code, the collections once `check` was imported, whether the collector is on
    after main(), the counters/NCCL model modules imported."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    line = next((x for x in done.stderr.splitlines() if x.startswith("PROBE ")), None)
    assert line is not None, done.stderr
    return line.split()[1:]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["check", POD, "--snapshot", "broken"], "1"),
        (["check", POD, "--snapshot", "baseline", "-f", "json"], "0"),
        (["check", POD, "--snapshot", "nosuch"], "2"),
    ],
)
def test_plain_check_never_collects_and_gives_the_collector_back(
    args: list[str], code: str
) -> None:
    """No collection from the check's imports (the engine, models, rules) to its exit, whatever
    the exit; the collector is on again afterwards (an embedding program keeps its own)."""
    assert _probe(args)[:3] == [code, "0", "True"]


def test_typer_path_keeps_the_collector() -> None:
    """`--help` is typer's: the collector is not turned off for it (nor left off)."""
    exit_code, _runs, enabled, _models = _probe(["check", "--help"])
    assert (exit_code, enabled) == ("0", "True")


def test_roce_check_imports_no_counters_or_nccl_models() -> None:
    """The counters and NCCL models stay unimported: only their own commands load them."""
    assert _probe(["check", POD, "--snapshot", "broken"])[3] == "-"
