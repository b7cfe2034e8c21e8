"""`fabriclint bench run` / `bench judge`: one trusted / not-trusted verdict on a benchmark."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import typer

from fabriclint.cli.errors import echo, fail

if TYPE_CHECKING:
    from fabriclint.benchrun import Verdict

T = TypeVar("T")

app = typer.Typer(
    help="Run a benchmark inside the trust gate (BOM, config, counters, results) and judge it.",
    no_args_is_help=True,
)


def _show(verdict: Verdict, where: Path) -> None:
    """Every reason on stdout, the verdict line last."""
    for line in verdict.reasons:
        echo(f"not trusted: {line}")
    for line in verdict.incomplete:
        echo(f"cannot tell: {line}")
    echo(f"{where}: {verdict.word}")


def _guarded(call: Callable[[], T]) -> T:
    """Run `call`; bad input is exit 2 with its message, never a traceback."""
    from fabriclint.collectors.run import CollectUsageError
    from fabriclint.engine import UsageError
    from fabriclint.loaders.fabric import FabricError
    from fabriclint.snapshot import SnapshotError

    try:
        return call()
    except FabricError as exc:
        raise fail(exc.problems) from None
    except (SnapshotError, UsageError, CollectUsageError) as exc:
        raise fail([str(exc)]) from None
    except OSError as exc:
        raise fail([f"{exc.filename or 'bench'}: {exc.strerror or exc}"]) from None


@app.command("run")
def run(
    fabric: Path = typer.Argument(..., help="Fabric directory.", metavar="FABRIC"),
    command: list[str] = typer.Argument(
        ..., help="The benchmark command, after `--`.", metavar="-- COMMAND..."
    ),
    lock: Path = typer.Option(..., "--lock", help="BOM lock file (`bom lock`).", metavar="FILE"),
    results: list[Path] | None = typer.Option(
        None,
        "--results",
        help="Results file the command writes (default: its `-J FILE`, else its stdout).",
        metavar="FILE",
    ),
    bundles: Path | None = typer.Option(
        None, "--bundles", help="Folder for the bundle (default FABRIC/bench).", metavar="DIR"
    ),
    timeout: float | None = typer.Option(
        None, "--timeout", min=1, help="Seconds the command may run.", metavar="SECONDS"
    ),
    overlay: Path | None = typer.Option(
        None, "--overlay", help="Inventory overlay (e.g. from `lab serve`).", metavar="PATH"
    ),
    known_hosts: Path | None = typer.Option(
        None, "--known-hosts", help="known_hosts file.", metavar="PATH"
    ),
    insecure: bool = typer.Option(
        False, "--insecure-no-host-key-check", help="Accept any host key (recorded)."
    ),
    ssh_config: Path | None = typer.Option(
        None, "--ssh-config", help="OpenSSH config file.", metavar="PATH"
    ),
    workers: int | None = typer.Option(
        None, "--workers", "-w", min=1, help="Devices collected at once.", metavar="N"
    ),
    hosts_via: str = typer.Option(
        "ssh",
        "--hosts-via",
        help="ssh, or slurm: `host snapshot` through srun on every host node (switches over SSH).",
        metavar="ssh|slurm",
    ),
    srun_args: list[str] | None = typer.Option(
        None, "--srun-arg", help="Extra srun option (repeatable): --partition=gpu.", metavar="ARG"
    ),
) -> None:
    """Verify the BOM, collect config and counters, run COMMAND, collect counters again, judge,
    and write FABRIC/bench/<UTC time>/: exit 0 trusted, 1 not trusted, 3 incomplete."""
    from fabriclint.benchrun import RunOptions
    from fabriclint.benchrun import run as run_bench
    from fabriclint.collectors.run import CollectOptions

    if hosts_via not in ("ssh", "slurm"):
        raise fail([f"--hosts-via {hosts_via!r}: ssh or slurm"])
    collect = CollectOptions(
        overlay=overlay,
        known_hosts=known_hosts,
        no_host_key_check=insecure,
        ssh_config=ssh_config,
        workers=workers,
    )
    opts = RunOptions(
        fabric_dir=fabric,
        lock=lock,
        command=list(command),
        collect=collect,
        results=list(results or []),
        out_root=bundles,
        timeout_s=timeout,
        hosts_via=hosts_via,
        srun_args=list(srun_args or []),
    )
    bundle, verdict = _guarded(lambda: run_bench(opts))
    _show(verdict, bundle)
    raise typer.Exit(verdict.exit_code)


@app.command("judge")
def judge(
    bundle: Path = typer.Argument(..., help="A bundle `bench run` wrote.", metavar="BUNDLE"),
    fabric: Path | None = typer.Option(
        None, "--fabric", help="Fabric directory (default: the bundle's FABRIC).", metavar="DIR"
    ),
) -> None:
    """Re-judge a bundle offline (same verdict as the run): exit 0 trusted, 1 not, 3 incomplete."""
    from fabriclint.benchrun import judge as judge_bundle

    if not (bundle / "command.json").is_file():
        raise fail([f"{bundle}: not a bench bundle (no command.json)"])
    root = fabric or bundle.resolve().parent.parent
    verdict = _guarded(lambda: judge_bundle(root, bundle))
    _show(verdict, bundle)
    raise typer.Exit(verdict.exit_code)
