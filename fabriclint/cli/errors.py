"""Turn user-input errors into located messages and exit code 2 (never a traceback)."""

from __future__ import annotations

import codecs
import errno
import io
import os
import re
import sys
import traceback
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    echo(
        f"fabriclint: internal error: {type(exc).__name__}: {message}\n"
        "the result is incomplete (exit 3); rerun with --debug for the traceback, "
        "and please report it",
        err=True,
    )
    return INCOMPLETE_EXIT


class StdoutError(OSError):
    """Writing to stdout failed (closed, a full device, an I/O error): the report was not
    delivered, which is not a bug in fabriclint."""


class _ClosedStdout(io.TextIOWrapper):
    """What stands for a stdout the shell closed (`>&-`): every write fails as one to the
    closed descriptor would (EBADF), so the report is never taken for delivered."""


class _Refuse(io.RawIOBase):
    """The raw stream under `_ClosedStdout`: writable, refusing every write."""

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))


def standard_streams() -> None:
    """Stand-ins for a stdout or stderr that was closed at start (`>&-`, `2>&-`): a closed
    stderr drops the messages (the caller chose not to read them); a closed stdout fails the
    report's write (`undelivered`). Descriptors 1 and 2 are taken by /dev/null so that no file
    opened later gets them and receives what a child process writes."""
    for fd, name in ((1, "stdout"), (2, "stderr")):
        if getattr(sys, name) is not None:
            continue
        null = os.open(os.devnull, os.O_WRONLY)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
        if name == "stderr":
            sys.stderr = open(fd, "w", encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
        else:
            sys.stdout = _ClosedStdout(io.BufferedWriter(_Refuse()), encoding="utf-8")


def undelivered(exc: BaseException) -> bool:
    """True when `exc` is stdout refusing the report (closed, a full device, an I/O error):
    not a bug in fabriclint. A broken pipe (`| head`) is handled before, quietly."""
    if not isinstance(exc, OSError) or exc.filename is not None or exc.errno == errno.EPIPE:
        return False
    return isinstance(exc, StdoutError) or isinstance(sys.stdout, _ClosedStdout)


def report_undelivered(exc: OSError) -> int:
    """One line on stderr, exit 3 (the result was not delivered); what is still buffered for
    stdout is dropped so that the interpreter's last flush does not fail again."""
    target = sys.stdout.fileno() if _has_fd() else 1
    null = os.open(os.devnull, os.O_WRONLY)
    if null != target:  # with stdout closed, the open itself took descriptor 1
        os.dup2(null, target)
        os.close(null)  # the copy on `target` is the one kept
    # on `target` itself (now /dev/null): a second /dev/null descriptor would be one more kept open
    sys.stdout = open(target, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    echo(f"fabriclint: cannot write the report to stdout: {exc.strerror or exc}", err=True)
    return INCOMPLETE_EXIT


def _has_fd() -> bool:
    """stdout has a descriptor of its own (not the closed-stdout stand-in)."""
    try:
        sys.stdout.fileno()
    except (OSError, ValueError):
        return False
    return True


def fail(problems: Iterable[Problem | str]) -> BaseException:
    """Print each problem on stderr and return the exit 2 to raise (see `exit_with`)."""
    for problem in problems:
        echo(f"error: {problem}" if isinstance(problem, str) else str(problem), err=True)
    return exit_with(USAGE_EXIT)


def exit_with(code: int) -> BaseException:
    """The exception that ends a command with exit `code`: typer's Exit under typer (every
    command it runs, and CliRunner in the tests), SystemExit in a plain `check`, which runs
    without typer (cli/fast.py) unless something imported it."""
    typer: Any = sys.modules.get("typer")
    return typer.Exit(code) if typer is not None else SystemExit(code)


_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")
"""The escape sequences click's echo removes from output that is not a terminal."""


def echo(message: str, nl: bool = True, err: bool = False) -> None:
    """`typer.echo(message, nl=nl, err=err)`: typer's own once typer is loaded; before it (a
    plain `check`) the same here, for a text stream with a real encoding off Windows: the
    newline, escape sequences dropped when the stream is not a terminal, a flush. Anything else
    (no or an ASCII encoding, a binary or missing stream, Windows, Jupyter) goes to typer."""
    try:
        _echo(message, nl, err)
    except OSError as exc:
        if err or exc.errno == errno.EPIPE:
            raise
        raise StdoutError(exc.errno, exc.strerror) from None


def _echo(message: str, nl: bool, err: bool) -> None:
    """`echo` itself."""
    stream = sys.stderr if err else sys.stdout
    if "typer" in sys.modules or not _plain_stream(stream):
        import typer

        typer.echo(message, nl=nl, err=err)
        return
    out = message + "\n" if nl else message
    if out:
        stream.write(out if _isatty(stream) else _ANSI.sub("", out))
    stream.flush()


def _plain_stream(stream: Any) -> bool:
    """A stream click's echo writes to as it is, with nothing to convert or wrap."""
    encoding = getattr(stream, "encoding", None)
    if stream is None or sys.platform.startswith("win") or not isinstance(encoding, str):
        return False
    try:
        ascii_only = codecs.lookup(encoding).name == "ascii"
    except LookupError:
        return False
    return (
        not ascii_only
        and getattr(stream, "errors", None) is not None
        and not type(stream).__module__.startswith("ipykernel.")
    )


def _isatty(stream: Any) -> bool:
    """click's isatty: False for a stream that cannot tell."""
    try:
        return bool(stream.isatty())
    except Exception:
        return False


def emit(text: str, target: Path | None, announce: str | None = "wrote") -> None:
    """Print `text` to stdout, or write it to `target` atomically (exit 2 when it cannot be
    written), saying `<announce> <target>` on stderr when `announce` is given."""
    from fabriclint.snapshot import atomic_write

    if target is None:
        echo(text, nl=False)
        return
    try:
        atomic_write(target, text)
    except OSError as exc:
        raise fail([f"{target}: cannot write: {exc.strerror or exc}"]) from None
    if announce:
        echo(f"{announce} {target}", err=True)


def split_codes(values: list[str] | None) -> list[str]:
    """Accept `--select PFC,ECN --select QOS001` alike."""
    out: list[str] = []
    for value in values or []:
        out.extend(code.strip().upper() for code in value.split(",") if code.strip())
    return out
