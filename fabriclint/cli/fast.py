"""`fabriclint check` started without building the typer application, for plain arguments.

Building the whole application (every command group) and letting typer parse `check`'s 26
parameters (typer makes a pydantic validator for each) costs about a third of a small check.
`run_check` parses the arguments a plain run uses (FABRIC, FILES, the options of a snapshot or
configs check, `--debug` before `check`) and calls the same `check` function with the values
typer would give it. Anything else (`--help`, `--live` and its options, an unknown option, a
missing or dash-led value, a bad `--format`/`--fail-on` value, a repeated single option, `--`,
shell completion) is left to typer, so help, errors and every other command are typer's own.
"""

from __future__ import annotations

import errno
import gc
import inspect
import os
import sys
from typing import Any

ONE = "one"
"""A value: the last word is kept as given (str)."""
PATH = "path"
"""A value read as a path."""
MANY = "many"
"""Repeatable: a list of str."""
PATHS = "paths"
"""Repeatable: a list of paths."""
COUNT = "count"
"""A whole number of at least 1 (anything else is typer's to refuse)."""
FLAG = "flag"
"""A boolean flag (`--color/--no-color`: two names, True and False)."""

KINDS: dict[str, str] = {
    "snapshot": ONE,
    "configs": PATH,
    "fmts": MANY,
    "outputs": PATHS,
    "baseline": PATH,
    "changed_since": ONE,
    "write_baseline": PATH,
    "select": MANY,
    "extend_select": MANY,
    "ignore": MANY,
    "fail_on": ONE,
    "limit": MANY,
    "jobs": COUNT,
    "quiet": FLAG,
    "show_suppressed": FLAG,
    "statistics": FLAG,
    "color": FLAG,
    "offline": FLAG,
}
"""How each option of `check` this parser handles takes its value."""

TYPER_ONLY = frozenset(
    {"live", "overlay", "known_hosts", "insecure", "ssh_config", "out", "workers", "timeout"}
)
"""`check`'s options typer parses (a `--live` run collects first: its start-up cost is noise)."""

_COMPLETE = "_FABRICLINT_COMPLETE"
"""The variable typer's shell completion sets."""


def run_check(args: list[str]) -> bool:
    """Run `fabriclint ARGS` here when they are a plain `check` (exits); False: typer must."""
    if _COMPLETE in os.environ or "check" not in args[:4]:
        return False
    # The cyclic collector is off from here: importing the engine makes ~110 model classes and
    # as many dataclasses, objects that live until exit, and the collector's passes over them
    # find nothing to free; the check keeps it off from parsing through its reports anyway
    # (engine.gc_paused). Typer's path gets it back. The check ends the process (SystemExit):
    # everything it made is frozen first, or turning the collector back on would pass over all
    # of it once more on its way out (main freezes the heap at exit as well).
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _run_plain(args)
    except SystemExit:
        gc.freeze()
        raise
    finally:
        if enabled:
            gc.enable()


def _run_plain(args: list[str]) -> bool:
    """`run_check` once the collector is off: parse ARGS, then run `check` (exits), or False."""
    from fabriclint.cli import check as command  # typer itself is cheap; its parsing is not

    parsed = parse(args, command.check)
    if parsed is None:
        return False
    debug, values = parsed
    if not _convert(values, command):
        return False
    _invoke(command.check, debug, values)
    return True  # not reached: `check` always exits


def parse(args: list[str], check: Any) -> tuple[bool, dict[str, Any]] | None:
    """(--debug, every parameter of `check` with typer's value) or None when typer must parse."""
    names = _option_names(check)
    start = args.index("check")
    if names is None or any(arg != "--debug" for arg in args[:start]):
        return None
    values = _defaults(check)
    positional: list[str] = []
    words = args[start + 1 :]
    index = 0
    while index < len(words):
        word = words[index]
        if not word or word in {"-", "--"}:
            return None
        if not word.startswith("-"):
            positional.append(word)
            index += 1
            continue
        used = _option(word, words[index + 1 :], names, values)
        if used is None:
            return None
        index += used
    if not positional:
        return None
    values["fabric"] = positional[0]
    values["files"] = positional[1:] or None
    return "--debug" in args[:start], values


def _option(
    word: str, rest: list[str], names: dict[str, tuple[str, Any]], values: dict[str, Any]
) -> int | None:
    """Store one option's value; the number of words it used, None when typer must parse."""
    name, _, inline = word.partition("=")
    if name not in names or (inline and not name.startswith("--")):
        return None
    param, flag_value = names[name]
    kind = KINDS[param]
    if kind == FLAG:
        if "=" in word:
            return None
        values[param] = flag_value
        return 1
    value = inline if "=" in word else (rest[0] if rest else "")
    if not value or value.startswith("-"):
        return None  # missing, or typer's rules for a dash-led value: its business
    if kind in (MANY, PATHS):
        values[param] = [*(values[param] or []), value]
    elif values[param] is not None:
        return None  # given twice: typer says what happens
    else:
        values[param] = value
    return 1 if "=" in word else 2


def _option_names(check: Any) -> dict[str, tuple[str, Any]] | None:
    """Option word -> (parameter, the value a flag sets), from `check`'s own declarations; None
    when `check` has a parameter this parser does not know (typer parses it, nothing breaks)."""
    names: dict[str, tuple[str, Any]] = {}
    for param, spec in inspect.signature(check).parameters.items():
        if param in ("fabric", "files") or param in TYPER_ONLY:
            continue
        if param not in KINDS:
            return None
        for decl in getattr(spec.default, "param_decls", ()):
            on, _, off = decl.partition("/")
            names[on] = (param, True)
            if off:
                names[off] = (param, False)
    return names


def _defaults(check: Any) -> dict[str, Any]:
    """Each parameter's default as typer gives it (the default of its Option/Argument)."""
    return {
        param: getattr(spec.default, "default", spec.default)
        for param, spec in inspect.signature(check).parameters.items()
    }


def _convert(values: dict[str, Any], command: Any) -> bool:
    """Paths and choices as typer converts them; False for a choice typer would refuse."""
    from pathlib import Path

    values["fabric"] = Path(values["fabric"])
    for param, kind in (("files", PATHS), *KINDS.items()):
        if values[param] is not None and kind == PATH:
            values[param] = Path(values[param])
        elif values[param] is not None and kind == PATHS:
            values[param] = [Path(value) for value in values[param]]
        elif values[param] is not None and kind == COUNT:
            values[param] = _count(values[param])
            if values[param] is None:
                return False
    try:
        if values["fmts"] is not None:
            values["fmts"] = [command.Format(value) for value in values["fmts"]]
        if values["fail_on"] is not None:
            values["fail_on"] = command.FailOn(values["fail_on"])
    except ValueError:
        return False
    return True


def _count(value: str) -> int | None:
    """A whole number of at least 1 written in ASCII digits, else None (typer says why)."""
    if not (value.isascii() and value.isdigit()) or int(value) < 1:
        return None
    return int(value)


def _invoke(check: Any, debug: bool, values: dict[str, Any]) -> None:
    """Call `check` as typer's standalone mode would, with the root options' work first. typer
    is not imported for it: `check` ends with SystemExit (cli/errors.exit_with), or typer's
    Exit when something it used imported typer."""
    from fabriclint.cli import interrupted
    from fabriclint.cli.errors import begin, internal_error, report_undelivered, undelivered

    try:
        try:
            begin(debug)
            check(**values)
        except KeyboardInterrupt:
            interrupted()
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise
            # a closed pipe (| head): typer exits 1 and says nothing; the flush at exit must not
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
    except Exception as exc:
        typer: Any = sys.modules.get("typer")
        if typer is not None and isinstance(exc, typer.Exit):
            sys.exit(exc.exit_code)
        if isinstance(exc, OSError) and undelivered(exc):
            sys.exit(report_undelivered(exc))
        sys.exit(internal_error(exc))  # a bug, not bad input: as cli/app.main
    sys.exit(0)
