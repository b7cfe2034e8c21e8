"""Turn user-input errors into located messages and exit code 2 (never a traceback)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:  # only a type: keep `fabriclint --help` from importing ruamel and pydantic
    from fabriclint.loaders.yaml import Problem

USAGE_EXIT = 2


def fail(problems: Iterable[Problem | str]) -> typer.Exit:
    """Print each problem on stderr and return the Exit(2) to raise."""
    for problem in problems:
        typer.echo(f"error: {problem}" if isinstance(problem, str) else str(problem), err=True)
    return typer.Exit(USAGE_EXIT)


def split_codes(values: list[str] | None) -> list[str]:
    """Accept `--select PFC,ECN --select QOS001` alike."""
    out: list[str] = []
    for value in values or []:
        out.extend(code.strip().upper() for code in value.split(",") if code.strip())
    return out
