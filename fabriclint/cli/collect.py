"""`fabriclint collect`: read the fabric's devices over SSH into a new snapshot (read-only).

Exit codes: 0 every selected device read, 2 usage/input error (nothing contacted),
3 incomplete (some device unreachable, auth-failed, timed out or a command failed),
130 interrupted (nothing written; earlier snapshots untouched).
"""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from fabriclint.cli.errors import echo, fail

if TYPE_CHECKING:  # types only: keep `fabriclint --help` from importing the collectors
    from fabriclint.collectors.base import DeviceResult
    from fabriclint.collectors.run import CollectOptions, CollectResult

INCOMPLETE_EXIT = 3
INTERRUPTED_EXIT = 130
Listener = Callable[[str, str, "DeviceResult | None"], None]


def _line(name: str, result: DeviceResult) -> str:
    if result.status == "ok":
        return f"{name}: ok ({len(result.outputs)} outputs, {result.seconds:.1f} s)"
    return f"{name}: {result.status}: {result.reason}"


@contextmanager
def _progress(total: int) -> Iterator[Listener]:
    """A live bar on a terminal (done/failed/running, elapsed); plain log lines otherwise."""
    if not sys.stderr.isatty():
        yield (
            lambda event, name, result: (
                echo(f"collect: {_line(name, result)}", err=True) if result else None
            )
        )
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (
        BarColumn(),
        TextColumn("{task.fields[done]}/{task.total} done  {task.fields[failed]} failed  "),
        TextColumn("{task.fields[running]} running"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        yield _bar_listener(bar, bar.add_task("collect", total=total, done=0, failed=0, running=0))


def _bar_listener(bar: Any, task: Any) -> Listener:
    """Keeps the bar's counts; failed devices are also printed above it."""
    counts = {"done": 0, "failed": 0, "running": 0}

    def listener(event: str, name: str, result: DeviceResult | None) -> None:
        if event == "start":
            counts["running"] += 1
        if result is not None:
            counts["running"] = max(0, counts["running"] - 1)
            counts["done"] += 1
            counts["failed"] += result.status != "ok"
            if result.status != "ok":
                bar.console.print(f"collect: {_line(name, result)}", highlight=False)
        bar.update(task, completed=counts["done"], **counts)

    return listener


class Interrupts:
    """Ctrl-C and SIGTERM (a CI job cancelled) during collection.

    Until the finished snapshot is being renamed into place they raise KeyboardInterrupt:
    the run stops, its temp folder is removed, nothing is written. From then on (`defer`) the
    snapshot is complete and is kept; a signal is only remembered (`pending`) and the run ends
    with exit 130 once it has said where the snapshot is.
    """

    def __init__(self) -> None:
        self.deferred = False
        self.pending = False
        self._previous: dict[int, Any] = {}

    def install(self) -> Interrupts:
        """Take over SIGINT and SIGTERM (main thread only)."""
        for signum in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(signum) is not signal.SIG_IGN:  # an ignored one stays ignored
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def restore(self) -> None:
        """Give the signals back to whoever had them."""
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    def defer(self) -> None:
        """The snapshot is being published: from now on a signal is only remembered."""
        self.deferred = True

    def _handle(self, signum: int, frame: Any) -> None:
        if self.deferred:
            self.pending = True
            return
        raise KeyboardInterrupt


def run_collect(
    fabric: Path, options: CollectOptions, interrupts: Interrupts | None = None
) -> CollectResult:
    """Collect with progress display; usage errors exit 2, Ctrl-C exits 130.

    Also what `fabriclint check --live` calls before checking the snapshot it returns.
    """
    from fabriclint.collectors.credentials import default_prompt
    from fabriclint.collectors.run import CollectUsageError, ask_credentials, collect

    own = interrupts is None
    signals = interrupts or Interrupts().install()
    options.publishing = signals.defer
    if options.notice is None:
        options.notice = lambda line: echo(f"collect: {line}", err=True)
    try:
        options.prompt = options.prompt or default_prompt()
        total = ask_credentials(fabric, options)  # prompts come before the progress bar
        with _progress(total) as listener:
            options.listener = listener
            result = collect(fabric, options)
        _summary(result)
    except CollectUsageError as exc:
        raise fail(exc.problems) from None
    except KeyboardInterrupt:
        echo("collect: interrupted; nothing written, earlier snapshots untouched", err=True)
        raise typer.Exit(INTERRUPTED_EXIT) from None
    except OSError as exc:  # a full disk while the outputs are written: the half is discarded
        where = f"{exc.filename}: " if exc.filename else ""
        echo(
            f"collect: cannot write the snapshot ({where}{exc.strerror or exc}); "
            "nothing written, earlier snapshots untouched",
            err=True,
        )
        raise typer.Exit(INCOMPLETE_EXIT) from None
    finally:
        if own:
            signals.restore()
    if own:
        _exit_if_interrupted(signals, result)
    return result


def _exit_if_interrupted(signals: Interrupts, result: CollectResult) -> None:
    """Exit 130 when a signal came while the finished snapshot was being published."""
    if signals.pending:
        echo(
            f"collect: interrupted after the snapshot was written; {result.snapshot} is complete",
            err=True,
        )
        raise typer.Exit(INTERRUPTED_EXIT)


def _summary(result: CollectResult) -> None:
    ok = len(result.devices) - len(result.failed)
    echo(f"collect: wrote {result.snapshot}: {ok} ok, {len(result.failed)} failed", err=True)
    if not result.host_key_check:
        echo(
            "collect: WARNING: host keys were NOT verified (--insecure-no-host-key-check); "
            "recorded in collect.json",
            err=True,
        )


def collect(
    fabric: Path = typer.Argument(..., help="Fabric directory (inventory.yaml).", metavar="FABRIC"),
    limit: list[str] | None = typer.Option(
        None,
        "--limit",
        "-l",
        help="Devices: name glob, role:X, platform:Y, tag:Z; '!' excludes.",
        metavar="TEXT",
    ),
    out: Path | None = typer.Option(
        None,
        "--out",
        "-o",
        help="Snapshot folder to create (default FABRIC/snapshots/<UTC time>).",
        metavar="PATH",
    ),
    workers: int | None = typer.Option(
        None,
        "--workers",
        "-w",
        min=1,
        help="Devices at once (default 32 per CPU, at most 128).",
        metavar="N",
    ),
    processes: int | None = typer.Option(
        None,
        "--processes",
        min=1,
        help=(
            "Collector processes (default one per CPU, at most one per 100 devices); 1 = one"
            " (faster when the cores are busy with other work)."
        ),
        metavar="N",
    ),
    timeout: float = typer.Option(
        30.0, "--timeout", min=0.1, help="Seconds per command.", metavar="SECONDS"
    ),
    connect_timeout: float = typer.Option(
        10.0,
        "--connect-timeout",
        min=0.1,
        help="Seconds to connect and log in (per attempt).",
        metavar="SECONDS",
    ),
    device_timeout: float | None = typer.Option(
        None,
        "--device-timeout",
        min=0.1,
        help="Seconds for a whole device (default connect + 4 x timeout).",
        metavar="SECONDS",
    ),
    retries: int = typer.Option(
        2,
        "--retries",
        min=0,
        help="Retries after transient connection errors (never after auth).",
        metavar="N",
    ),
    known_hosts: Path | None = typer.Option(
        None,
        "--known-hosts",
        help="known_hosts file (default ~/.ssh/known_hosts).",
        metavar="PATH",
    ),
    insecure: bool = typer.Option(
        False,
        "--insecure-no-host-key-check",
        help="Accept any host key (recorded in the snapshot).",
    ),
    ssh_config: Path | None = typer.Option(
        None,
        "--ssh-config",
        help="OpenSSH config file (HostName, User, ProxyCommand, ProxyJump).",
        metavar="PATH",
    ),
    allow_legacy_ssh: bool = typer.Option(
        False,
        "--allow-legacy-ssh",
        help="Also offer SSH algorithms the library disables by default.",
    ),
    overlay: Path | None = typer.Option(
        None,
        "--overlay",
        help="Inventory overlay (host/port/credentials), e.g. from `lab serve`.",
        metavar="PATH",
    ),
    sudo: bool = typer.Option(False, "--sudo", help="Run Linux host commands with `sudo -n`."),
    counters: bool = typer.Option(
        False, "--counters", help="Only the counter commands (for `fabriclint counters`)."
    ),
    facts: bool = typer.Option(
        True, "--facts/--no-facts", help="Read model/serial/OS (napalm, EOS)."
    ),
    offline: bool = typer.Option(
        False,
        "--offline",
        help="A fabric with a live inventory source (inventory-source.yaml): use its cache, "
        "do not read the source.",
    ),
) -> None:
    """Collect the fabric's devices over SSH into a new snapshot (read-only commands only)."""
    from fabriclint.cli.inventory import refresh_live

    refresh_live(fabric, offline)
    signals = Interrupts().install()  # first: Ctrl-C at any moment from here on exits 130
    try:
        result = _collect_command(fabric, signals, locals())
        _exit_if_interrupted(signals, result)
    finally:
        signals.restore()  # the exit code is decided (an in-process caller gets its signals back)
    raise typer.Exit(0 if result.complete else INCOMPLETE_EXIT)


def _collect_command(fabric: Path, signals: Interrupts, args: dict[str, Any]) -> CollectResult:
    """The collect command's run, once its signals are taken over; Ctrl-C exits 130."""
    try:
        from fabriclint.collectors.base import Timeouts
        from fabriclint.collectors.run import CollectOptions

        budget = args["device_timeout"] or args["connect_timeout"] + 4 * args["timeout"]
        options = CollectOptions(
            limit=list(args["limit"] or []),
            out=args["out"],
            workers=args["workers"],
            processes=args["processes"],
            timeouts=Timeouts(
                connect=args["connect_timeout"], command=args["timeout"], device=budget
            ),
            retries=args["retries"],
            known_hosts=args["known_hosts"],
            no_host_key_check=args["insecure"],
            ssh_config=args["ssh_config"],
            allow_legacy_ssh=args["allow_legacy_ssh"],
            overlay=args["overlay"],
            sudo=args["sudo"],
            counters=args["counters"],
            facts=args["facts"],
        )
        started = time.monotonic()
        result = run_collect(fabric, options, signals)
        echo(f"collect: {time.monotonic() - started:.1f} s", err=True)
    except KeyboardInterrupt:
        echo("collect: interrupted; nothing written, earlier snapshots untouched", err=True)
        raise typer.Exit(INTERRUPTED_EXIT) from None
    return result
