"""`fabriclint check`: run every selected rule over a snapshot or a folder of rendered configs."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from fabriclint.cli.errors import fail, split_codes

if TYPE_CHECKING:
    from fabriclint.engine import CheckResult
    from fabriclint.rules.internal import Failure


class Format(StrEnum):
    """Output formats (see docs/ci.md)."""

    TEXT = "text"
    JSON = "json"
    JSONL = "jsonl"
    SARIF = "sarif"
    JUNIT = "junit"
    MARKDOWN = "markdown"
    GITHUB = "github"


class FailOn(StrEnum):
    """Lowest severity that fails the run."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@contextmanager
def _progress() -> Iterator[Callable[[str], None] | None]:
    """A transient progress line on an interactive stderr (parsing 1,000 devices takes seconds)."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (SpinnerColumn(), TextColumn("parsing {task.fields[device]}"), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("parse", device="")
        yield lambda name: bar.update(task, device=name)


def check(
    fabric: Path = typer.Argument(
        ..., help="Fabric directory (inventory.yaml, intent.yaml, policy.yaml)."
    ),
    snapshot: str | None = typer.Option(
        None,
        "--snapshot",
        "-s",
        help="Snapshot name under FABRIC/snapshots/ or a path (default: newest).",
    ),
    configs: Path | None = typer.Option(
        None, "--configs", help="Flat folder of rendered configs named after devices (leaf01.cfg)."
    ),
    fmts: list[Format] | None = typer.Option(
        None, "--format", "-f", help="Output format; repeat for several (default text)."
    ),
    outputs: list[Path] | None = typer.Option(
        None,
        "--output",
        "-o",
        help="File for the format in the same position; the rest go to stdout.",
    ),
    baseline: Path | None = typer.Option(
        None, "--baseline", help="Suppress findings recorded in this baseline: only new ones fail."
    ),
    live: bool = typer.Option(
        False,
        "--live",
        help="Collect a new snapshot over SSH first (see `fabriclint collect`), then check it.",
    ),
    overlay: Path | None = typer.Option(
        None, "--overlay", help="With --live: inventory overlay (e.g. from `fabriclint lab serve`)."
    ),
    known_hosts: Path | None = typer.Option(
        None, "--known-hosts", help="With --live: known_hosts file."
    ),
    insecure: bool = typer.Option(
        False,
        "--insecure-no-host-key-check",
        help="With --live: do not verify host keys (recorded).",
    ),
    ssh_config: Path | None = typer.Option(
        None, "--ssh-config", help="With --live: OpenSSH config file."
    ),
    changed_since: str | None = typer.Option(
        None,
        "--changed-since",
        help="Only devices whose files changed in git since REF, plus their link neighbours.",
    ),
    write_baseline: Path | None = typer.Option(
        None, "--write-baseline", help="Record the current findings as accepted, in this file."
    ),
    select: list[str] | None = typer.Option(
        None, "--select", help="Only these rule codes/prefixes."
    ),
    extend_select: list[str] | None = typer.Option(None, "--extend-select", help="Add rule codes."),
    ignore: list[str] | None = typer.Option(None, "--ignore", help="Skip rule codes/prefixes."),
    fail_on: FailOn | None = typer.Option(
        None, "--fail-on", help="Lowest severity that fails (default error)."
    ),
    color: bool | None = typer.Option(None, "--color/--no-color", help="Force color on or off."),
) -> None:
    """Check a fabric: exit 0 clean, 1 findings, 2 input error, 3 incomplete."""
    from fabriclint.engine import CheckOptions, UsageError, run_check
    from fabriclint.loaders.fabric import FabricError, display_path
    from fabriclint.snapshot import SnapshotError
    from fabriclint.suppress import BaselineError

    if snapshot is not None and configs is not None:
        raise fail(["--snapshot and --configs are exclusive: pass one of them"])
    if live:
        if snapshot is not None or configs is not None:
            raise fail(["--live collects its own snapshot: drop --snapshot/--configs"])
        snapshot = _collect_first(fabric, overlay, known_hosts, insecure, ssh_config)
    formats = list(fmts or [Format.TEXT])
    if len(outputs or []) > len(formats):
        raise fail(["more --output files than --format values: give each output its format"])
    opts = CheckOptions(
        fabric_dir=fabric,
        snapshot=snapshot,
        configs=configs,
        select=split_codes(select) or None,
        extend_select=split_codes(extend_select),
        ignore=split_codes(ignore),
        fail_on=fail_on.value if fail_on else None,
        baseline=baseline,
        changed_since=changed_since,
    )
    try:
        with _progress() as step:
            opts.progress = step
            result = run_check(opts)
    except FabricError as exc:
        raise fail(exc.problems) from None
    except (SnapshotError, UsageError, BaselineError) as exc:
        raise fail([str(exc)]) from None
    anchor = display_path(fabric / "inventory.yaml")
    render_all(result, formats, outputs or [], color, anchor)
    if write_baseline is not None:
        from fabriclint.suppress import baseline_text

        _emit(baseline_text(result.report.findings), write_baseline)
    raise typer.Exit(int(result.exit_code))


def render_all(
    result: CheckResult,
    formats: list[Format],
    outputs: list[Path],
    color: bool | None,
    anchor: str,
) -> None:
    """Render every requested format. A reporter that raises is contained: INTERNAL001 in the
    other formats, exit 3; its own output is not written (nothing half-made replaces a file)."""
    wanted = list(range(len(formats)))
    texts = _render(result, formats, outputs, wanted, (color, anchor))
    if len(texts) < len(formats):  # again, so the formats that worked show the failure
        texts = _render(result, formats, outputs, sorted(texts), (color, anchor))
    for index, text in sorted(texts.items()):
        _emit(text, outputs[index] if index < len(outputs) else None)
    show_failures(result.failures)


def _render(
    result: CheckResult,
    formats: list[Format],
    outputs: list[Path],
    indexes: list[int],
    look: tuple[bool | None, str],
) -> dict[int, str]:
    from fabriclint.reporters import get_reporter
    from fabriclint.rules.internal import Failure

    color, anchor = look
    texts: dict[int, str] = {}
    for index in indexes:
        fmt = formats[index]
        target = outputs[index] if index < len(outputs) else None
        use_color = color if color is not None else (target is None and sys.stdout.isatty())
        render = get_reporter(fmt.value, color=use_color, fail_on=result.fail_on, anchor=anchor)
        try:
            texts[index] = render(result.report)
        except Exception as exc:
            result.contain(Failure.of(f"reporter {fmt.value}", exc))
    return texts


def show_failures(failures: list[Failure]) -> None:
    """One stderr line per contained failure; the traceback too with --debug."""
    from fabriclint.cli.errors import debugging

    for failure in failures:
        typer.echo(f"internal error: {failure.where}: {failure.error}", err=True)
        if debugging():
            typer.echo(failure.trace, err=True)


def _collect_first(
    fabric: Path,
    overlay: Path | None,
    known_hosts: Path | None,
    insecure: bool,
    ssh_config: Path | None,
) -> str:
    """`check --live`: collect into a new snapshot (exits 2/130 itself on bad input or Ctrl-C)."""
    from fabriclint.cli.collect import run_collect
    from fabriclint.collectors.run import CollectOptions

    options = CollectOptions(
        overlay=overlay, known_hosts=known_hosts, no_host_key_check=insecure, ssh_config=ssh_config
    )
    return str(run_collect(fabric, options).snapshot)


def _emit(text: str, target: Path | None) -> None:
    """Print to stdout, or write a file atomically (exit 2 when it cannot be written)."""
    from fabriclint.snapshot import atomic_write

    if target is None:
        typer.echo(text, nl=False)
        return
    try:
        atomic_write(target, text)
    except OSError as exc:
        raise fail([f"{target}: cannot write: {exc.strerror or exc}"]) from None
    typer.echo(f"wrote {target}", err=True)
