"""`fabriclint diff`: what a change does to the fabric, setting by setting, and the findings it brings."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer

from fabriclint.cli.errors import emit, fail
from fabriclint.cli.targets import FABRIC_FILES, refuse_inputs


class DiffFormat(StrEnum):
    """Output formats of the diff."""

    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"


def _fabric_of(snapshot: Path) -> Path | None:
    """FABRIC for FABRIC/snapshots/NAME, when FABRIC holds an inventory."""
    parent = snapshot.resolve().parent.parent
    return parent if (parent / "inventory.yaml").is_file() else None


def _named(fabric: Path, side: Path) -> Path:
    """FABRIC/snapshots/NAME when `side` is a snapshot name rather than a folder."""
    named = fabric / "snapshots" / side
    return named if not side.is_dir() and named.is_dir() else side


def diff(
    before: Path = typer.Argument(
        ...,
        help="Snapshot (a folder, or a name under FABRIC/snapshots/ with --fabric; or a "
        "--configs folder) before the change.",
        metavar="BEFORE",
    ),
    after: Path = typer.Argument(
        ..., help="Snapshot (or --configs folder) after the change.", metavar="AFTER"
    ),
    fabric: Path | None = typer.Option(
        None,
        "--fabric",
        help="Fabric directory (default: the one the snapshots live in).",
        metavar="PATH",
    ),
    configs: bool = typer.Option(
        False, "--configs", help="BEFORE and AFTER are folders of rendered configs."
    ),
    fmt: DiffFormat = typer.Option(DiffFormat.TEXT, "--format", "-f", help="Output format."),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Write to this file.", metavar="PATH"
    ),
) -> None:
    """Semantic diff: exit 0 when the change introduces no failing finding, 1 when it does,
    2 on input errors, 3 when either side is incomplete."""
    from fabriclint.diffrun import DiffInputError, run_diff
    from fabriclint.engine import UsageError
    from fabriclint.loaders.fabric import FabricError
    from fabriclint.snapshot import SnapshotError

    if fabric is not None:  # snapshot names, as `check --snapshot` takes them
        before, after = (_named(fabric, side) for side in (before, after))
    root = fabric or _fabric_of(before)
    if configs and root is None:
        raise fail(["--configs needs --fabric (the inventory names each device's platform)"])
    fabric_files = [root / name for name in FABRIC_FILES] if root is not None else []
    refuse_inputs(
        [("--output", output)], fabric_files, [before, after], "a file of the snapshots or fabric"
    )
    try:
        text, code = run_diff(before, after, root, configs, fmt.value)
    except FabricError as exc:
        raise fail(exc.problems) from None
    except (SnapshotError, DiffInputError, UsageError) as exc:
        raise fail([str(exc)]) from None
    emit(text, output, announce=None)
    raise typer.Exit(code)
