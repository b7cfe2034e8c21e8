"""`fabriclint init [DIR]`: scaffold a fabric folder (see fabriclint/scaffold.py)."""

from __future__ import annotations

from pathlib import Path

import typer

from fabriclint.cli.errors import echo, fail


def init(
    folder: Path = typer.Argument(Path("."), help="Folder to create the fabric in.", metavar="DIR"),
    name: str | None = typer.Option(
        None, "--name", help="Fabric name (default: the folder's).", metavar="TEXT"
    ),
) -> None:
    """Create inventory.yaml, intent.yaml and policy.yaml (with `$schema` lines and comments),
    schemas/ and snapshots/. Existing fabric files are never overwritten (exit 2)."""
    from fabriclint.scaffold import ScaffoldError, scaffold

    try:
        written = scaffold(folder, name)
    except ScaffoldError as exc:
        raise fail([str(exc)]) from None
    except OSError as exc:
        raise fail([f"{exc.filename or folder}: cannot write: {exc.strerror or exc}"]) from None
    for path in written:
        if path.suffix == ".yaml":
            echo(f"wrote {path}")
    inventory = folder / "inventory.yaml"
    echo(
        f"next: edit {inventory} (or write it: fabriclint inventory import --from ... "
        f"--out {inventory}) and {folder / 'intent.yaml'}, then\n"
        f"  fabriclint validate {folder}\n"
        f"  fabriclint check {folder} --configs DIR    # rendered configs, one per switch "
        "(leaf01.cfg)\n"
        f"  fabriclint collect {folder} && fabriclint check {folder}    # or the live devices"
    )
