"""The typer CLI: one module per command group, thin over the engine.

`main` is the console-script entry point. It is kept here, away from the heavy imports of
cli/app.py, so that Ctrl-C while fabriclint is still starting (importing typer, pydantic...)
exits 130 with one line instead of a traceback; each command then handles Ctrl-C itself.
"""

from __future__ import annotations

import gc
import signal
import sys
from types import FrameType
from typing import NoReturn

INTERRUPTED_EXIT = 130


def interrupted() -> NoReturn:
    """Exit 130 after one line on stderr: what Ctrl-C ends with where no command says more."""
    sys.stderr.write("fabriclint: interrupted\n")
    raise SystemExit(INTERRUPTED_EXIT)


def _interrupted(signum: int, frame: FrameType | None) -> None:
    interrupted()


def main() -> None:
    """Run the `fabriclint` command."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when ignored (nohup)
        signal.signal(signal.SIGINT, _interrupted)
    try:
        from fabriclint.cli.errors import standard_streams

        standard_streams()  # `>&-`, `2>&-`: stand-ins before anything writes
        from fabriclint.cli.fast import run_check

        if not run_check(sys.argv[1:]):  # a plain `check` runs without building the typer app
            from fabriclint.cli.app import main as run

            run()
    finally:
        # The process ends here: the interpreter's shutdown collection would walk every object a
        # large check left (seconds at 1,000 switches) to find nothing; frozen objects are skipped.
        gc.freeze()


def default_interrupts() -> None:
    """Ctrl-C becomes KeyboardInterrupt again (once a command is about to run)."""
    if signal.getsignal(signal.SIGINT) is _interrupted:
        signal.signal(signal.SIGINT, signal.default_int_handler)
