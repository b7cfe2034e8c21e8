"""The `fabriclint` command: wires the command groups together. Heavy imports stay inside commands."""

from __future__ import annotations

import sys

import typer

from fabriclint import __version__
from fabriclint.cli import (
    bench,
    bom,
    check,
    collect,
    counters,
    diff,
    history,
    host,
    init,
    interrupted,
    inventory,
    lab,
    nightly,
    rules,
    schema,
    snapshot,
    validate,
)
from fabriclint.cli.errors import begin, echo, internal_error, report_undelivered, undelivered
from fabriclint.cli.params import for_typer

app = typer.Typer(
    name="fabriclint",
    help="Prove a RoCE / InfiniBand GPU fabric is configured as intended.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion for bash, zsh, fish
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain click help: full option names and wrapped text at 80 columns
)
app.command("check")(for_typer(check.check))  # declared without typer: cli/params.py
app.command("validate")(validate.validate)
app.command("diff")(diff.diff)
app.command("collect")(collect.collect)
app.command("counters")(counters.counters)
app.command("nightly")(nightly.nightly)
app.command("history")(history.history)
app.command("init")(init.init)
app.add_typer(bench.app, name="bench")
app.add_typer(bom.app, name="bom")
app.add_typer(host.app, name="host")
app.add_typer(inventory.app, name="inventory")
app.add_typer(lab.app, name="lab")
app.add_typer(rules.app, name="rules")
app.add_typer(schema.app, name="schema")
app.add_typer(snapshot.app, name="snapshot")


def _version(value: bool) -> None:
    if value:
        echo(f"fabriclint {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
    debug: bool = typer.Option(
        False, "--debug", help="Print tracebacks of internal errors (also FABRICLINT_DEBUG=1)."
    ),
) -> None:
    """Prove a RoCE / InfiniBand GPU fabric is configured as intended.

    Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage or input error,
    3 incomplete (a device could not be collected or parsed, or fabriclint failed internally).
    """
    begin(debug)


def main() -> None:
    """Console-script entry point: no exception reaches the user as a traceback (the Ctrl-C
    handling while starting lives in fabriclint.cli.main, which calls this)."""
    try:
        app()
    except KeyboardInterrupt:
        interrupted()
    except Exception as exc:  # a bug, not bad input (that is exit 2 with a located message)
        if isinstance(exc, OSError) and undelivered(exc):  # stdout closed or full: not a bug
            sys.exit(report_undelivered(exc))
        sys.exit(internal_error(exc))
