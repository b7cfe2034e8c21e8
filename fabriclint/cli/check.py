"""`fabriclint check`: run every selected rule over a snapshot or a folder of rendered configs."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from fabriclint.cli.errors import echo, emit, exit_with, fail, split_codes
from fabriclint.cli.params import Argument, Option
from fabriclint.formats import FORMATS

if TYPE_CHECKING:
    from fabriclint.engine import CheckResult
    from fabriclint.reporters import Cable
    from fabriclint.rules.internal import Failure


# Output formats (see docs/ci.md), built from the one list in formats.py; mypy cannot follow
# an enum made from a computed list, and nothing here names a member.
Format = StrEnum("Format", [(name.upper(), name) for name in FORMATS])  # type: ignore[misc]


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
    fabric: Path = Argument(
        ...,
        help="Fabric directory (inventory.yaml, intent.yaml, policy.yaml).",
        metavar="FABRIC",
    ),
    files: list[Path] | None = Argument(
        None,
        help="Only the devices these files belong to, plus their cable neighbours (pre-commit "
        "passes the staged files); nothing to do when none belongs to the fabric.",
        show_default=False,
        metavar="FILES",
    ),
    snapshot: str | None = Option(
        None,
        "--snapshot",
        "-s",
        help="Snapshot name under FABRIC/snapshots/ or a path (default: newest).",
        metavar="TEXT",
    ),
    configs: Path | None = Option(
        None,
        "--configs",
        help="Flat folder of rendered configs named after devices (leaf01.cfg).",
        metavar="PATH",
    ),
    fmts: list[Format] | None = Option(
        None,
        "--format",
        "-f",
        help="Output format; repeat for several (default text).",
    ),
    outputs: list[Path] | None = Option(
        None,
        "--output",
        "-o",
        help="File for the format in the same position; the rest go to stdout.",
        metavar="PATH",
    ),
    baseline: Path | None = Option(
        None,
        "--baseline",
        help="Suppress findings recorded in this baseline: only new ones fail.",
        metavar="PATH",
    ),
    live: bool = Option(
        False,
        "--live",
        help="Collect a new snapshot over SSH first (see `fabriclint collect`), then check it.",
    ),
    offline: bool = Option(
        False,
        "--offline",
        help="A fabric with a live inventory source (inventory-source.yaml): use its cache, "
        "do not read the source.",
    ),
    overlay: Path | None = Option(
        None,
        "--overlay",
        help="With --live: inventory overlay (e.g. from `fabriclint lab serve`).",
        metavar="PATH",
    ),
    known_hosts: Path | None = Option(
        None,
        "--known-hosts",
        help="With --live: known_hosts file.",
        metavar="PATH",
    ),
    insecure: bool = Option(
        False,
        "--insecure-no-host-key-check",
        help="With --live: do not verify host keys (recorded).",
    ),
    ssh_config: Path | None = Option(
        None,
        "--ssh-config",
        help="With --live: OpenSSH config file.",
        metavar="PATH",
    ),
    changed_since: str | None = Option(
        None,
        "--changed-since",
        help="Only devices whose files changed in git since REF, plus their link neighbours.",
        metavar="TEXT",
    ),
    write_baseline: Path | None = Option(
        None,
        "--write-baseline",
        help="Record the current findings as accepted, in this file.",
        metavar="PATH",
    ),
    select: list[str] | None = Option(
        None,
        "--select",
        help="Only these rule codes/prefixes.",
        metavar="TEXT",
    ),
    extend_select: list[str] | None = Option(
        None, "--extend-select", help="Add rule codes.", metavar="TEXT"
    ),
    ignore: list[str] | None = Option(
        None, "--ignore", help="Skip rule codes/prefixes.", metavar="TEXT"
    ),
    fail_on: FailOn | None = Option(
        None, "--fail-on", help="Lowest severity that fails (default error)."
    ),
    color: bool | None = Option(None, "--color/--no-color", help="Force color on or off."),
    limit: list[str] | None = Option(
        None,
        "--limit",
        help="Only these devices (name glob, role:X, platform:Y, tag:Z; !term excludes); "
        "the rest are reported as not checked. With --live, also what is collected.",
        metavar="TEXT",
    ),
    jobs: int | None = Option(
        None,
        "--jobs",
        "-j",
        min=1,
        help="Processes that parse the devices (default: 1 on 2 cores, else one per 400 "
        "devices, at most one per core).",
        metavar="N",
    ),
    quiet: bool = Option(
        False, "--quiet", "-q", help="Text: only failing causes, unchecked devices, the summary."
    ),
    show_suppressed: bool = Option(
        False, "--show-suppressed", help="Text: list suppressed findings (default: a count)."
    ),
    statistics: bool = Option(
        False, "--statistics", help="Print counts by rule and by root cause."
    ),
    out: Path | None = Option(
        None,
        "--out",
        help="With --live: the snapshot folder to create.",
        metavar="PATH",
    ),
    workers: int | None = Option(
        None,
        "--workers",
        "-w",
        min=1,
        help="With --live: devices collected at once.",
        metavar="N",
    ),
    timeout: float | None = Option(
        None,
        "--timeout",
        min=0.1,
        help="With --live: seconds per command (default 30).",
        metavar="SECONDS",
    ),
) -> None:
    """Check a fabric: exit 0 clean, 1 findings, 2 input error, 3 incomplete."""
    from fabriclint.engine import CheckOptions, UsageError, gc_paused, run_check
    from fabriclint.loaders.fabric import FabricError, display_path, has_source, inventory_path
    from fabriclint.snapshot import SnapshotError
    from fabriclint.suppress import BaselineError

    if snapshot is not None and configs is not None:
        raise fail(["--snapshot and --configs are exclusive: pass one of them"])
    formats = list(fmts or [Format("text")])
    _check_outputs(formats, outputs or [])
    _check_flags(live, quiet, show_suppressed, (out, workers, timeout))
    if has_source(fabric):  # a live inventory source (cli/inventory.py, a typer command group)
        from fabriclint.cli.inventory import refresh_live

        refresh_live(fabric, offline)
    if live:
        if snapshot is not None or configs is not None:
            raise fail(["--live collects its own snapshot: drop --snapshot/--configs"])
        live_opts = LiveOptions(
            overlay, known_hosts, insecure, ssh_config, out, workers, timeout or 30.0
        )
        snapshot = _collect_first(fabric, live_opts, limit or [])
    _refuse_inputs_as_outputs(fabric, configs, snapshot, [*(outputs or []), write_baseline])
    files = _named_files(files or [])
    if files and not _touches(fabric, configs, snapshot, files):
        echo(
            f"nothing of {fabric}'s checked inputs among the {len(files)} file(s) named: "
            "not checked",
            err=True,
        )
        raise exit_with(0)
    opts = CheckOptions(
        files=files or None,
        fabric_dir=fabric,
        snapshot=snapshot,
        configs=configs,
        select=split_codes(select) or None,
        extend_select=split_codes(extend_select),
        ignore=split_codes(ignore),
        fail_on=fail_on.value if fail_on else None,
        baseline=baseline,
        changed_since=changed_since,
        limit=limit or None,
        jobs=jobs,
    )
    with gc_paused():  # from parsing through the rendered reports (engine.gc_paused)
        try:
            with _progress() as step:
                opts.progress = step
                result = run_check(opts)
        except FabricError as exc:
            raise fail(exc.problems) from None
        except (SnapshotError, UsageError, BaselineError) as exc:
            raise fail([str(exc)]) from None
        view = View(color, display_path(inventory_path(fabric)), quiet, show_suppressed)
        render_all(result, formats, outputs or [], view)
    if statistics:
        _statistics(result, formats, outputs or [])
    if write_baseline is not None:
        from fabriclint.suppress import baseline_text

        _emit(baseline_text(result.report.findings), write_baseline)
    raise exit_with(int(result.exit_code))


@dataclass(frozen=True)
class View:
    """How reports are rendered: color, the SARIF anchor file, text verbosity."""

    color: bool | None
    anchor: str
    quiet: bool = False
    show_suppressed: bool = False


@dataclass(frozen=True)
class LiveOptions:
    """`check --live`: what `fabriclint collect` would be given."""

    overlay: Path | None
    known_hosts: Path | None
    insecure: bool
    ssh_config: Path | None
    out: Path | None
    workers: int | None
    timeout: float


# What an output file's extension says it holds: an --output paired (by position) with another
# format is the classic `-f text -f sarif -o r.sarif` slip, which would write text into r.sarif.
_EXTENSIONS: dict[str, set[str]] = {
    ".sarif": {"sarif"},
    ".xml": {"junit"},
    ".md": {"markdown"},
    ".html": {"html"},
    ".htm": {"html"},
    ".jsonl": {"jsonl"},
    ".json": {"json", "gitlab", "sarif"},
}


def _check_outputs(formats: list[Format], outputs: list[Path]) -> None:
    """Each --output pairs with the --format in the same position; `-` is stdout."""
    if len(outputs) > len(formats):
        raise fail(["more --output files than --format values: give each output its format"])
    for index, target in enumerate(outputs):
        wanted = _EXTENSIONS.get(target.suffix.lower())
        if str(target) != "-" and wanted and formats[index].value not in wanted:
            raise fail(
                [
                    f"--output {target} is paired with --format {formats[index].value} (outputs "
                    "pair with formats in order): list the formats that have an --output first"
                ]
            )
    files = [str(t) for t in outputs if str(t) != "-"]
    if len(files) != len(set(files)):
        raise fail(["two --output values name the same file: each format needs its own"])
    to_stdout = [
        f.value for i, f in enumerate(formats) if i >= len(outputs) or str(outputs[i]) == "-"
    ]
    if len(to_stdout) > 1:
        raise fail(
            [
                f"--format {' and '.join(to_stdout)} would both go to stdout and mix into one "
                "unreadable stream: give all but one an --output file"
            ]
        )


def _check_flags(
    live: bool, quiet: bool, show_suppressed: bool, live_only: tuple[object, ...]
) -> None:
    """Flags that contradict each other, or that do nothing without --live, are errors."""
    if quiet and show_suppressed:
        raise fail(["--quiet and --show-suppressed contradict each other: pass one of them"])
    if not live and any(value is not None for value in live_only):
        raise fail(["--out, --workers and --timeout set how --live collects: add --live"])


def _named_files(files: list[Path]) -> list[Path]:
    """FILES as given, a folder expanded to the files in it; exit 2 for a path that is not there."""
    out: list[Path] = []
    for file in files:
        if file.is_dir():
            out.extend(sorted(p for p in file.rglob("*") if p.is_file()))
        elif file.exists():
            out.append(file)
        else:
            raise fail([f"{file}: no such file (FILES are the files whose devices to check)"])
    return out


def _inputs(fabric: Path, configs: Path | None, snapshot: str | None) -> Path | None:
    """The folder whose files this run reads: the configs, the named or the newest snapshot."""
    from fabriclint.snapshot import newest_snapshot

    if configs is not None:
        return configs
    if snapshot is not None:
        named = Path(snapshot)
        return named if named.is_dir() else fabric / "snapshots" / snapshot
    return newest_snapshot(fabric / "snapshots")


def _touches(fabric: Path, configs: Path | None, snapshot: str | None, files: list[Path]) -> bool:
    """Whether any named file is one this run reads: the fabric's YAML or a file of its inputs
    (a file of another snapshot changes nothing this run checks)."""
    yaml = {(fabric / f"{n}.yaml").resolve() for n in ("inventory", "intent", "policy")}
    inputs = _inputs(fabric, configs, snapshot)
    root = inputs.resolve() if inputs is not None else None
    for file in files:
        path = file.resolve()
        if path in yaml or (root is not None and root in path.parents):
            return True
    return False


def _refuse_inputs_as_outputs(
    fabric: Path, configs: Path | None, snapshot: str | None, targets: list[Path | None]
) -> None:
    """A report must not replace what the check reads: `-o snapshots/s/manifest.json` destroyed
    the snapshot, `-o fabric/inventory.yaml` the inventory, and a report written into the
    --configs folder became an unknown device of the next run."""
    for target in targets:
        if (
            target is not None
            and str(target) != "-"
            and _touches(fabric, configs, snapshot, [target])
        ):
            raise fail(
                [
                    f"{target}: one of the inputs this check reads (the fabric's YAML, or a file "
                    "of the snapshot or configs folder): write the report somewhere else"
                ]
            )


def _statistics(result: CheckResult, formats: list[Format], outputs: list[Path]) -> None:
    """`--statistics`: after the text report on stdout, or on stderr beside another format."""
    from fabriclint.reporters.text import statistics
    from fabriclint.rules.internal import Failure

    try:
        text = statistics(result.report)
    except Exception as exc:
        result.contain(Failure.of("--statistics", exc))
        show_failures(result.failures[-1:])
        return
    to_stdout = [f for i, f in enumerate(formats) if i >= len(outputs) or str(outputs[i]) == "-"]
    echo(text, nl=False, err=bool(to_stdout) and to_stdout != ["text"])


def render_all(result: CheckResult, formats: list[Format], outputs: list[Path], view: View) -> None:
    """Render every requested format. A reporter that raises is contained: INTERNAL001 in the
    other formats, exit 3; its own output is not written (nothing half-made replaces a file)."""
    wanted = list(range(len(formats)))
    texts = _render(result, formats, outputs, wanted, view)
    if len(texts) < len(formats):  # again, so the formats that worked show the failure
        texts = _render(result, formats, outputs, sorted(texts), view)
    for index, text in sorted(texts.items()):
        _emit(text, outputs[index] if index < len(outputs) else None)
    show_failures(result.failures)


def _render(
    result: CheckResult,
    formats: list[Format],
    outputs: list[Path],
    indexes: list[int],
    view: View,
) -> dict[int, str]:
    from fabriclint.reporters import get_reporter
    from fabriclint.rules.internal import Failure

    texts: dict[int, str] = {}
    for index in indexes:
        fmt = formats[index]
        target = outputs[index] if index < len(outputs) else None
        tty = target is None and sys.stdout.isatty()
        render = get_reporter(
            fmt.value,
            color=view.color if view.color is not None else tty,
            fail_on=result.fail_on,
            anchor=view.anchor,
            quiet=view.quiet,
            show_suppressed=view.show_suppressed,
            cables=_cables(result) if fmt.value == "html" else (),
        )
        try:
            texts[index] = render(result.report)
        except Exception as exc:
            result.contain(Failure.of(f"reporter {fmt.value}", exc))
    return texts


def _cables(result: CheckResult) -> list[Cable]:
    """The cables of the run for the HTML map (the plan's, when the run kept no context); a
    failure here is contained like a reporter's and the map shows devices only."""
    from fabriclint.engine import fabric_cables
    from fabriclint.reporters import Cable
    from fabriclint.rules.internal import Failure

    try:
        if result.context is not None:
            return fabric_cables(result.context)
        return [Cable(*link.ends()) for link in result.fabric.inventory.links]
    except Exception as exc:
        result.contain(Failure.of("reporter html (cables)", exc))
        return []


def show_failures(failures: list[Failure]) -> None:
    """One stderr line per contained failure; the traceback too with --debug."""
    from fabriclint.cli.errors import debugging

    for failure in failures:
        echo(f"internal error: {failure.where}: {failure.error}", err=True)
        if debugging():
            echo(failure.trace, err=True)


def _collect_first(fabric: Path, live: LiveOptions, limit: list[str]) -> str:
    """`check --live`: collect into a new snapshot (exits 2/130 itself on bad input or Ctrl-C)."""
    from fabriclint.cli.collect import run_collect
    from fabriclint.collectors.base import Timeouts
    from fabriclint.collectors.run import CollectOptions

    options = CollectOptions(
        limit=limit,
        out=live.out,
        workers=live.workers,
        timeouts=Timeouts(command=live.timeout, device=Timeouts().connect + 4 * live.timeout),
        overlay=live.overlay,
        known_hosts=live.known_hosts,
        no_host_key_check=live.insecure,
        ssh_config=live.ssh_config,
    )
    return str(run_collect(fabric, options).snapshot)


def _emit(text: str, target: Path | None) -> None:
    """Print to stdout (`-o -` too), or write a file atomically (exit 2 when it cannot be
    written)."""
    emit(text, None if target is not None and str(target) == "-" else target)
