"""`fabriclint counters`: what two snapshots' counters say about the lossless configuration."""

from __future__ import annotations

from pathlib import Path

import typer

from fabriclint.cli.check import FailOn, Format, View, _check_outputs, render_all
from fabriclint.cli.errors import fail, split_codes
from fabriclint.cli.targets import FABRIC_FILES, refuse_inputs, snapshot_folder


def counters(
    fabric: Path = typer.Argument(
        ..., help="Fabric directory (inventory.yaml, intent.yaml, policy.yaml).", metavar="FABRIC"
    ),
    before: str = typer.Argument(
        ...,
        help="Snapshot before the run: a name under FABRIC/snapshots/ or a path.",
        metavar="BEFORE",
    ),
    after: str = typer.Argument(
        ..., help="Snapshot after the run (name or path).", metavar="AFTER"
    ),
    config: str | None = typer.Option(
        None,
        "--config",
        help="Snapshot whose configuration says what is lossless (default: AFTER).",
        metavar="SNAPSHOT",
    ),
    interval: float | None = typer.Option(
        None,
        "--interval",
        help="Seconds between the readings (default: between the manifests' created times).",
        metavar="SECONDS",
    ),
    fmts: list[Format] | None = typer.Option(
        None, "--format", "-f", help="Output format; repeat for several (default text)."
    ),
    outputs: list[Path] | None = typer.Option(
        None,
        "--output",
        "-o",
        help="File for the format in the same position; the rest go to stdout.",
        metavar="PATH",
    ),
    select: list[str] | None = typer.Option(
        None, "--select", help="Only these rule codes or prefixes (CTR001,CTR002).", metavar="CODES"
    ),
    ignore: list[str] | None = typer.Option(
        None, "--ignore", help="Skip these rule codes or prefixes.", metavar="CODES"
    ),
    fail_on: FailOn | None = typer.Option(
        None, "--fail-on", help="Lowest severity that fails the run (default: policy, error)."
    ),
    color: bool | None = typer.Option(None, "--color/--no-color", help="Colored text output."),
) -> None:
    """Judge the counters between two snapshots (CTR rules): exit 0 clean, 1 findings, 2 input
    error, 3 incomplete (a side's counters missing or unreadable, or a counter went backwards)."""
    from fabriclint.counterrun import CounterOptions, run_counters
    from fabriclint.engine import UsageError
    from fabriclint.loaders.fabric import FabricError, display_path
    from fabriclint.snapshot import SnapshotError

    formats = list(fmts or [Format("text")])
    _check_outputs(formats, outputs or [])
    sides = [snapshot_folder(fabric, side) for side in (before, after, config) if side is not None]
    refuse_inputs(
        [("--output", target) for target in outputs or []],
        [fabric / name for name in FABRIC_FILES],
        sides,
        "a file of the snapshots or fabric",
    )
    opts = CounterOptions(
        fabric_dir=fabric,
        before=before,
        after=after,
        config=config,
        interval_s=interval,
        select=split_codes(select) or None,
        ignore=split_codes(ignore),
        fail_on=fail_on.value if fail_on else None,
    )
    try:
        result = run_counters(opts)
    except FabricError as exc:
        raise fail(exc.problems) from None
    except (SnapshotError, UsageError) as exc:
        raise fail([str(exc)]) from None
    view = View(color, display_path(fabric / "inventory.yaml"))
    render_all(result, formats, outputs or [], view)
    raise typer.Exit(int(result.exit_code))
