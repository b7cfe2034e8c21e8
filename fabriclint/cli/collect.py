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

from fabriclint.cli.errors import fail

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
                typer.echo(f"collect: {_line(name, result)}", err=True) if result else None
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


def _interrupt_on_sigterm() -> None:
    """SIGTERM (a CI job cancelled) ends the run like Ctrl-C: nothing half-written is kept."""

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def run_collect(fabric: Path, options: CollectOptions) -> CollectResult:
    """Collect with progress display; usage errors exit 2, Ctrl-C exits 130.

    Also what `fabriclint check --live` calls before checking the snapshot it returns.
    """
    from fabriclint.collectors.credentials import default_prompt
    from fabriclint.collectors.run import CollectUsageError, ask_credentials, collect

    try:
        options.prompt = options.prompt or default_prompt()
        total = ask_credentials(fabric, options)  # prompts come before the progress bar
        with _progress(total) as listener:
            options.listener = listener
            result = collect(fabric, options)
    except CollectUsageError as exc:
        raise fail(exc.problems) from None
    except KeyboardInterrupt:
        typer.echo("collect: interrupted; nothing written, earlier snapshots untouched", err=True)
        raise typer.Exit(INTERRUPTED_EXIT) from None
    _summary(result)
    return result


def _summary(result: CollectResult) -> None:
    ok = len(result.devices) - len(result.failed)
    typer.echo(f"collect: wrote {result.snapshot}: {ok} ok, {len(result.failed)} failed", err=True)
    if not result.host_key_check:
        typer.echo(
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
        help="Devices at once (default 16 per CPU, at most 128).",
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
    facts: bool = typer.Option(
        True, "--facts/--no-facts", help="Read model/serial/OS (napalm, EOS)."
    ),
) -> None:
    """Collect the fabric's devices over SSH into a new snapshot (read-only commands only)."""
    from fabriclint.collectors.base import Timeouts
    from fabriclint.collectors.run import CollectOptions

    budget = device_timeout or connect_timeout + 4 * timeout
    options = CollectOptions(
        limit=list(limit or []),
        out=out,
        workers=workers,
        timeouts=Timeouts(connect=connect_timeout, command=timeout, device=budget),
        retries=retries,
        known_hosts=known_hosts,
        no_host_key_check=insecure,
        ssh_config=ssh_config,
        allow_legacy_ssh=allow_legacy_ssh,
        overlay=overlay,
        sudo=sudo,
        facts=facts,
    )
    _interrupt_on_sigterm()
    started = time.monotonic()
    result = run_collect(fabric, options)
    typer.echo(f"collect: {time.monotonic() - started:.1f} s", err=True)
    raise typer.Exit(0 if result.complete else INCOMPLETE_EXIT)
