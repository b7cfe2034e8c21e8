"""`fabriclint schema export`: write the JSON Schemas editors and site rules use."""

from __future__ import annotations

from pathlib import Path

import typer

from fabriclint.cli.errors import echo

app = typer.Typer(
    help="JSON Schemas for inventory, intent, policy and DeviceState.", no_args_is_help=True
)


@app.command("export")
def export(
    out: Path = typer.Option(
        Path("schemas"), "--out", "-o", help="Folder to write the schemas into.", metavar="PATH"
    ),
) -> None:
    """Write inventory.json, intent.json, policy.json and device-state.json."""
    from fabriclint.cli.errors import fail
    from fabriclint.schemas import export as write_all

    try:
        written = write_all(out)
    except OSError as exc:  # a file where the folder should be, no permission, a full disk
        where = exc.filename or out
        raise fail([f"{where}: cannot write the schemas: {exc.strerror or exc}"]) from None
    for path in written:
        echo(f"wrote {path}")
