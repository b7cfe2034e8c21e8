"""`fabriclint bom lock` / `bom verify`: the bill of materials a benchmark result depends on."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from fabriclint.cli.errors import echo, emit, fail

if TYPE_CHECKING:
    from fabriclint.bom import Taken

app = typer.Typer(
    help="Lock the bill of materials (NICs, firmware, switch OS, MTU/QoS) and verify it.",
    no_args_is_help=True,
)

_FABRIC = typer.Argument(
    ..., help="Fabric directory (inventory.yaml, intent.yaml).", metavar="FABRIC"
)
_SNAPSHOT = typer.Option(
    None,
    "--snapshot",
    "-s",
    help="Snapshot name under FABRIC/snapshots/ or a path (default: the newest).",
    metavar="S",
)


def _take(fabric: Path, snapshot: str | None) -> Taken:
    """The lock of a snapshot; bad input is exit 2 with its message."""
    from fabriclint.bom import take
    from fabriclint.engine import UsageError
    from fabriclint.loaders.fabric import FabricError
    from fabriclint.snapshot import SnapshotError

    try:
        return take(fabric, snapshot)
    except FabricError as exc:
        raise fail(exc.problems) from None
    except (SnapshotError, UsageError) as exc:
        raise fail([str(exc)]) from None


def _refuse_fabric_inputs(fabric: Path, out: Path | None) -> None:
    """The lock must not replace what fabriclint reads: `--out FABRIC/intent.yaml` wrote the
    lock over the intent (exit 0), one under FABRIC/snapshots/ over a collected output."""
    if out is None or str(out) == "-":
        return
    path, root = out.resolve(), fabric.resolve()
    names = ("inventory.yaml", "intent.yaml", "policy.yaml", "inventory-source.yaml")
    if path in {root / n for n in names} or (root / "snapshots") in path.parents:
        raise fail(
            [f"{out}: a file of the fabric (its YAML or a snapshot): write the lock elsewhere"]
        )


@app.command("lock")
def lock(
    fabric: Path = _FABRIC,
    snapshot: str | None = _SNAPSHOT,
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Lock file to write (JSON; stdout without it).", metavar="FILE"
    ),
    results: list[Path] | None = typer.Option(
        None,
        "--results",
        help="nccl-tests output of a reference run: lock its NCCL version (repeatable).",
        metavar="FILE",
    ),
) -> None:
    """Write the lock: per host NIC model/PSID/firmware/driver/link rate, per switch model/OS
    version/port speeds, per device a hash of its MTU/QoS settings. Exit 3 (nothing written)
    when a device could not be read: a lock must cover the whole fabric."""
    from fabriclint.bom import dumps

    _refuse_fabric_inputs(fabric, out)
    taken = _take(fabric, snapshot)
    if taken.unreadable:
        for name, why in sorted(taken.unreadable.items()):
            echo(f"{name}: cannot lock ({why})", err=True)
        raise typer.Exit(3)
    for note in taken.notes:
        echo(f"note: {note}", err=True)
    if results:
        from fabriclint.bom import locked_nccl_version
        from fabriclint.engine import UsageError

        try:
            taken.lock.nccl_version = locked_nccl_version(list(results))
        except UsageError as exc:
            raise fail([str(exc)]) from None
    emit(dumps(taken.lock), out)


@app.command("verify")
def verify(
    fabric: Path = _FABRIC,
    lock_file: Path = typer.Option(
        ..., "--lock", help="Lock file to verify against.", metavar="FILE"
    ),
    snapshot: str | None = _SNAPSHOT,
) -> None:
    """Compare the fabric with a lock: exit 0 the same, 1 with each changed item, 3 when a
    locked device could not be read (cannot tell)."""
    from fabriclint.bom import read_lock
    from fabriclint.bom import verify as compare
    from fabriclint.engine import UsageError

    now = _take(fabric, snapshot)
    try:
        locked = read_lock(lock_file, now.lock.fabric)
    except UsageError as exc:
        raise fail([str(exc)]) from None
    verdict = compare(locked, now)
    for line in [*verdict.changes, *verdict.unknown]:
        echo(line)
    summary = {0: "matches the lock", 1: f"{len(verdict.changes)} change(s)", 3: "cannot tell"}
    echo(f"{locked.fabric}: {summary[verdict.exit_code]} ({lock_file})", err=True)
    raise typer.Exit(verdict.exit_code)
