"""The `fabriclint` command: wires the command groups together. Heavy imports stay inside commands."""

from __future__ import annotations

import typer

from fabriclint import __version__
from fabriclint.cli import check, collect, default_interrupts, diff, lab, rules, schema, validate

app = typer.Typer(
    name="fabriclint",
    help="Prove a RoCE / InfiniBand GPU fabric is configured as intended.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("check")(check.check)
app.command("validate")(validate.validate)
app.command("diff")(diff.diff)
app.command("collect")(collect.collect)
app.add_typer(lab.app, name="lab")
app.add_typer(rules.app, name="rules")
app.add_typer(schema.app, name="schema")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"fabriclint {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """Prove a RoCE / InfiniBand GPU fabric is configured as intended.

    Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage or input error,
    3 incomplete (a device could not be collected or parsed).
    """
    default_interrupts()  # each command handles Ctrl-C from here on


def main() -> None:
    """Console-script entry point (kept for `fabriclint.cli.app:main`; see fabriclint.cli)."""
    from fabriclint.cli import main as run

    run()
