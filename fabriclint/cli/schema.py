"""`fabriclint schema export`: write the JSON Schemas editors and site rules use."""

from __future__ import annotations

from pathlib import Path

import typer

app = typer.Typer(
    help="JSON Schemas for inventory, intent, policy and DeviceState.", no_args_is_help=True
)


@app.command("export")
def export(
    out: Path = typer.Option(
        Path("schemas"), "--out", "-o", help="Folder to write the schemas into."
    ),
) -> None:
    """Write inventory.json, intent.json, policy.json and device-state.json."""
    from fabriclint.cli.errors import fail
    from fabriclint.schemas import export as write_all

    try:
        written = write_all(out)
    except OSError as exc:
        raise fail([f"{exc.filename or out}: cannot write: {exc.strerror or exc}"]) from None
    for path in written:
        typer.echo(f"wrote {path}")
