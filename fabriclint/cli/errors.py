"""Turn user-input errors into located messages and exit code 2 (never a traceback)."""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:  # only a type: keep `fabriclint --help` from importing ruamel and pydantic
    from fabriclint.loaders.yaml import Problem

USAGE_EXIT = 2
INCOMPLETE_EXIT = 3

_DEBUG = {"on": False}


def set_debug(on: bool) -> None:
    """`fabriclint --debug`: print tracebacks of internal errors."""
    _DEBUG["on"] = on


def begin(debug: bool) -> None:
    """What the root options do before any command runs (`fabriclint [--debug] COMMAND`)."""
    from fabriclint.bounded import LimitsConfigError, limits
    from fabriclint.cli import default_interrupts

    set_debug(debug)
    default_interrupts()  # each command handles Ctrl-C from here on
    try:
        limits()  # a bad FABRICLINT_MAX_* setting is a usage error before anything is read
    except LimitsConfigError as exc:
        raise fail([str(exc)]) from None


def debugging() -> bool:
    """True with `--debug` or FABRICLINT_DEBUG=1."""
    return _DEBUG["on"] or os.environ.get("FABRICLINT_DEBUG", "") not in ("", "0")


def internal_error(exc: BaseException) -> int:
    """A bug in fabriclint reached the top: one line (the traceback with --debug), exit 3.

    Never exit 1: CI reads 1 as "findings" and would trust a result nobody produced.
    """
    if debugging():
        traceback.print_exception(exc, file=sys.stderr)
    message = " ".join(str(exc).split())[:300]
    typer.echo(
        f"fabriclint: internal error: {type(exc).__name__}: {message}\n"
        "the result is incomplete (exit 3); rerun with --debug for the traceback, "
        "and please report it",
        err=True,
    )
    return INCOMPLETE_EXIT


def fail(problems: Iterable[Problem | str]) -> typer.Exit:
    """Print each problem on stderr and return the Exit(2) to raise."""
    for problem in problems:
        typer.echo(f"error: {problem}" if isinstance(problem, str) else str(problem), err=True)
    return typer.Exit(USAGE_EXIT)


def emit(text: str, target: Path | None, announce: str | None = "wrote") -> None:
    """Print `text` to stdout, or write it to `target` atomically (exit 2 when it cannot be
    written), saying `<announce> <target>` on stderr when `announce` is given."""
    from fabriclint.snapshot import atomic_write

    if target is None:
        typer.echo(text, nl=False)
        return
    try:
        atomic_write(target, text)
    except OSError as exc:
        raise fail([f"{target}: cannot write: {exc.strerror or exc}"]) from None
    if announce:
        typer.echo(f"{announce} {target}", err=True)


def split_codes(values: list[str] | None) -> list[str]:
    """Accept `--select PFC,ECN --select QOS001` alike."""
    out: list[str] = []
    for value in values or []:
        out.extend(code.strip().upper() for code in value.split(",") if code.strip())
    return out
