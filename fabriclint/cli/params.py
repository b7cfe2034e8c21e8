"""A command's parameters declared without importing typer, handed to typer when it builds the app.

`fabriclint check` runs without typer for plain arguments (cli/fast.py reads each parameter's
`default` and `param_decls` from these declarations). typer, when the application is built,
gets the same command with typer's own `Option`/`Argument` in its signature (`for_typer`), so
its help, parsing and errors are exactly what `typer.Option(...)` defaults give.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from typing import Any


class Declared:
    """One parameter: typer's `Option(default, *param_decls, **settings)` or
    `Argument(default, **settings)`, kept until typer is imported."""

    def __init__(self, kind: str, default: Any, param_decls: tuple[str, ...], settings: Any):
        self.kind = kind
        self.default = default
        self.param_decls = param_decls
        self.settings: dict[str, Any] = settings

    def to_typer(self) -> Any:
        """The typer.Option / typer.Argument this declaration stands for."""
        import typer

        if self.kind == "argument":
            return typer.Argument(self.default, *self.param_decls, **self.settings)
        return typer.Option(self.default, *self.param_decls, **self.settings)


def Option(default: Any, *param_decls: str, **settings: Any) -> Any:
    """`typer.Option`, declared now, made when typer builds the command."""
    return Declared("option", default, param_decls, settings)


def Argument(default: Any, **settings: Any) -> Any:
    """`typer.Argument`, declared now, made when typer builds the command."""
    return Declared("argument", default, (), settings)


def for_typer(func: Callable[..., Any]) -> Callable[..., Any]:
    """`func` for `app.command(...)`: the same call, with typer's parameters in its signature
    (annotations resolved in `func`'s module, as typer would resolve them)."""
    hints = typing.get_type_hints(func)
    signature = inspect.signature(func)
    params = [
        param.replace(
            annotation=hints.get(name, param.annotation),
            default=param.default.to_typer()
            if isinstance(param.default, Declared)
            else param.default,
        )
        for name, param in signature.parameters.items()
    ]

    @functools.wraps(func)
    def command(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    command.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=params, return_annotation=hints.get("return", signature.return_annotation)
    )
    return command
