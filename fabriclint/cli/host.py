"""`fabriclint host snapshot`: this host's read-only commands run locally (no SSH), written as
the host's folder of a snapshot (see fabriclint/hostsnap.py)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import typer

from fabriclint.cli import INTERRUPTED_EXIT
from fabriclint.cli.errors import INCOMPLETE_EXIT, echo, fail

app = typer.Typer(
    help="Take this host's outputs locally (for srun, a DaemonSet...), no SSH.",
    no_args_is_help=True,
)


def _terminated(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM (srun cancelling its step, `timeout`, a pod stopping) stops the run as Ctrl-C
    does, so the running command's process group is killed and no partial folder stays."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@app.command("snapshot")
def snapshot(
    out: Path = typer.Option(
        ...,
        "--out",
        "-o",
        help="Folder the host's folder DIR/<name>/ is written in.",
        metavar="DIR",
    ),
    name: str | None = typer.Option(
        None,
        "--name",
        help="Device name (default: $SLURMD_NODENAME, else the short host name).",
        metavar="NAME",
    ),
    platform: str = typer.Option(
        "mlnx-host", "--platform", help="The host's inventory platform.", metavar="PLATFORM"
    ),
    counters: bool = typer.Option(
        False, "--counters", help="Only the counter commands (as `collect --counters`)."
    ),
    sudo: bool = typer.Option(False, "--sudo", help="Prefix each command with `sudo -n`."),
    timeout: float = typer.Option(
        30.0, "--timeout", min=1, help="Seconds one command may run.", metavar="SECONDS"
    ),
) -> None:
    """Run the platform's read-only commands here and write DIR/<name>/ (outputs, host.json).

    Exit 0 written, 2 usage error (nothing run), 3 written but the host could not be read
    (its status and reason are in host.json), 130 interrupted (Ctrl-C or SIGTERM)."""
    from fabriclint.hostsnap import HostOptions, HostSnapshotError, take

    opts = HostOptions(
        out=out, name=name, platform=platform, counters=counters, sudo=sudo, command_timeout=timeout
    )
    try:
        with _sigterm_interrupts():
            folder, result = take(opts)
    except KeyboardInterrupt:
        echo("host snapshot: interrupted; nothing partial written", err=True)
        raise typer.Exit(INTERRUPTED_EXIT) from None
    except HostSnapshotError as exc:
        raise fail([str(exc)]) from None
    except OSError as exc:
        raise fail([f"{exc.filename or out}: cannot write: {exc.strerror or exc}"]) from None
    for line in result.skipped:
        echo(f"not available: {line}", err=True)
    if result.status != "ok":
        echo(f"{folder}: {result.status}: {result.reason}")
        raise typer.Exit(INCOMPLETE_EXIT)
    echo(f"wrote {folder}: {len(result.outputs)} outputs, {len(result.skipped)} not available")
