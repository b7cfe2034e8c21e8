"""`fabriclint bench run` and `bench judge`: one verdict on a benchmark, from the BOM, the
configuration, the counters over the run and the results.

`run` verifies nothing itself: it collects the fabric's configuration and counters (before),
runs the benchmark command (its output saved), collects the counters again (after) and writes
everything into a bundle; `judge` then reads only the bundle (and the fabric's YAML), so a
bundle judged later, or elsewhere, gets the same verdict. The bundle, `FABRIC/bench/<UTC time>/`:

    lock.json             the BOM lock the run was held to
    snapshots/config/     the configuration collected before the run (BOM and `check`)
    snapshots/before/     counters before the command;  snapshots/after/: after it
    command.json          argv, start and end, exit status, the NCCL_*/UCX_* environment
    output/stdout.txt     what the command printed (stderr.txt beside it)
    results/              the results files (nccl-tests -J JSON, or the text output)
    verdict.json          trusted or not, every reason, the findings, bandwidth per size,
    verdict.md            pause-frame deltas per port and priority; the same as Markdown
    index.html            and as a self-contained page

The bundle is built in a hidden folder next to its final place and renamed into place at the
end: a bundle that exists is complete.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import shutil
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from fabriclint import bom
from fabriclint.bounded import json_loads
from fabriclint.engine import (
    CheckOptions,
    CheckResult,
    UsageError,
    option_models,
    parse_snapshot,
    run_check,
)
from fabriclint.hostsnap import merge
from fabriclint.loaders.fabric import Fabric, load_fabric
from fabriclint.models.bom import BomLock
from fabriclint.models.finding import SEVERITY_RANK, Finding
from fabriclint.models.nccl import NcclRun
from fabriclint.ncclresults import (
    KEPT_ENV,
    ResultsError,
    read_results,
    read_text,
    scrubbed,
    version_text,
)
from fabriclint.rules import bench
from fabriclint.rules.internal import Failure
from fabriclint.selection import Selection
from fabriclint.slurm import HostTask, SlurmError, SrunRecord, run_srun, srun_path
from fabriclint.snapshot import atomic_write

CONFIG, BEFORE, AFTER = "config", "before", "after"
SLURM_RECORD = "hosts-via-slurm.json"
"""What srun did per phase (`bench run --hosts-via slurm`)."""
SRUN_SLACK = 60.0
"""Seconds srun may take beyond one host's time budget (scheduling, step start)."""


@dataclass
class Verdict:
    """What a bundle says: trusted, not trusted (every reason), or incomplete (what is missing)."""

    reasons: list[str] = field(default_factory=list)
    """Why the result cannot be trusted, one line each."""
    incomplete: list[str] = field(default_factory=list)
    """What could not be judged (a device not collected, results unreadable, a failure)."""
    findings: dict[str, list[Finding]] = field(default_factory=dict)
    """Stage (config, counters, results) -> its findings, failing or not."""
    bom_changes: list[str] = field(default_factory=list)
    bandwidth: list[dict[str, Any]] = field(default_factory=list)
    """Per results file and size: bus bandwidth out of place and in place."""
    pauses: list[dict[str, Any]] = field(default_factory=list)
    """Pause frames per device, port and priority over the run."""
    command: dict[str, Any] = field(default_factory=dict)
    nccl_versions: dict[str, str | None] = field(default_factory=dict)
    """Results file -> the NCCL version it shows (None: not shown)."""

    @property
    def exit_code(self) -> int:
        """3 incomplete (whatever else), 1 not trusted, 0 trusted."""
        return 3 if self.incomplete else 1 if self.reasons else 0

    @property
    def word(self) -> str:
        """trusted, not trusted, or incomplete."""
        return {0: "trusted", 1: "not trusted", 3: "incomplete"}[self.exit_code]


def judge(fabric_dir: Path, bundle: Path) -> Verdict:
    """The verdict of a bundle (UsageError / FabricError / SnapshotError for bad input)."""
    fabric = load_fabric(fabric_dir, option_models())
    snaps = bundle / "snapshots"
    verdict = Verdict(command=_command(bundle))
    locked = _judge_bom(verdict, fabric_dir, bundle)
    _judge_check(
        verdict, "config", run_check(CheckOptions(fabric_dir=fabric_dir, snapshot=snaps / CONFIG))
    )
    _judge_counters(verdict, fabric_dir, bundle)
    _judge_command(verdict)
    _judge_hosts(verdict, bundle)
    _judge_results(verdict, fabric, bundle, locked)
    verdict.pauses = pause_deltas(snaps / BEFORE, snaps / AFTER)
    return _relative(verdict, bundle)


def _relative(verdict: Verdict, bundle: Path) -> Verdict:
    """Reasons with paths inside the bundle shown relative to it: a bundle judged where it was
    built, after it moved, or elsewhere reads the same."""
    forms = {str(bundle.resolve()), str(bundle), os.path.relpath(bundle.resolve())}
    prefixes = sorted((f"{form.rstrip('/')}/" for form in forms), key=len, reverse=True)

    def clean(line: str) -> str:
        for prefix in prefixes:
            line = line.replace(prefix, "")
        return line

    verdict.reasons = [clean(r) for r in verdict.reasons]
    verdict.incomplete = [clean(r) for r in verdict.incomplete]
    return verdict


def _command(bundle: Path) -> dict[str, Any]:
    """command.json; UsageError for one that is unreadable or was edited into nonsense (its
    `seconds` become the counters' interval, its `exit_status` a reason)."""
    path = bundle / "command.json"
    try:
        data = json_loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # ValueError: also InputLimitError (bounded.py)
        raise UsageError(f"{path}: not a bench bundle: {exc}") from None
    problem = _command_problem(data)
    if problem:
        raise UsageError(f"{path}: not a bench bundle: {problem}")
    return cast("dict[str, Any]", data)


def _command_problem(data: Any) -> str | None:
    """What is wrong with a command record, or None."""
    if not isinstance(data, dict):
        return "not a JSON object"
    seconds = data.get("seconds")
    number = isinstance(seconds, int | float) and not isinstance(seconds, bool)
    if seconds is not None and not (number and math.isfinite(seconds) and seconds >= 0):
        return f"`seconds` is not a number of seconds: {seconds!r}"
    status = data.get("exit_status")
    if status is not None and (not isinstance(status, int) or isinstance(status, bool)):
        return f"`exit_status` is not an integer: {status!r}"
    return None


def _judge_bom(verdict: Verdict, fabric_dir: Path, bundle: Path) -> BomLock:
    now = bom.take(fabric_dir, bundle / "snapshots" / CONFIG)
    locked = bom.read_lock(bundle / "lock.json", now.lock.fabric)
    found = bom.verify(locked, now)
    verdict.bom_changes = found.changes
    verdict.reasons.extend(f"BOM: {line}" for line in found.changes)
    verdict.incomplete.extend(f"BOM: {line}" for line in found.unknown)
    return locked


def _judge_nccl_versions(verdict: Verdict, runs: list[NcclRun], locked: BomLock) -> None:
    """The NCCL version of each results file: against the lock's, and between the files."""
    verdict.nccl_versions = {run.file: version_text(run.nccl_version) for run in runs}
    shown = sorted({v for v in verdict.nccl_versions.values() if v is not None})
    if len(shown) > 1:
        verdict.reasons.append(f"results: the results files used different NCCL versions {shown}")
    changes = bom.nccl_changes(locked, verdict.nccl_versions)
    verdict.bom_changes.extend(changes)
    verdict.reasons.extend(f"BOM: {line}" for line in changes)


def _failing(result: CheckResult) -> list[Finding]:
    rank = SEVERITY_RANK[result.fail_on]
    return [
        f
        for f in result.report.findings
        if f.suppressed is None and SEVERITY_RANK[f.severity] >= rank
    ]


def _judge_check(verdict: Verdict, stage: str, result: CheckResult) -> None:
    verdict.findings[stage] = list(result.report.findings)
    for f in _failing(result):
        where = f.device or "fabric"
        verdict.reasons.append(f"{stage}: {where} {f.rule} {f.object}: {f.message}")
    if result.exit_code == 3:
        bad = [
            f"{d.name} {d.status}"
            for d in result.report.devices
            if d.status not in ("ok", "not-checked")
        ]
        why = ", ".join(bad) or "an internal error (INTERNAL001)"
        verdict.incomplete.append(f"{stage}: incomplete ({why})")


def _judge_counters(verdict: Verdict, fabric_dir: Path, bundle: Path) -> None:
    from fabriclint.counterrun import CounterOptions, run_counters

    snaps = bundle / "snapshots"
    seconds = float(verdict.command.get("seconds") or 0) or None
    opts = CounterOptions(
        fabric_dir=fabric_dir,
        before=snaps / BEFORE,
        after=snaps / AFTER,
        config=snaps / CONFIG,
        interval_s=max(seconds, 1.0) if seconds else None,
    )
    _judge_check(verdict, "counters", run_counters(opts))


def _judge_command(verdict: Verdict) -> None:
    status = verdict.command.get("exit_status")
    if status != 0:
        verdict.reasons.append(f"command: exited with status {status} ({_argv(verdict.command)})")


def _judge_hosts(verdict: Verdict, bundle: Path) -> None:
    """An srun that failed leaves the run incomplete, whatever its nodes wrote (the nodes that
    wrote nothing are unreachable in their snapshot, and named there)."""
    path = bundle / SLURM_RECORD
    if not path.is_file():
        return
    try:
        phases = json_loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # ValueError: also InputLimitError (bounded.py)
        raise UsageError(f"{path}: not a bench bundle: {exc}") from None
    if not isinstance(phases, dict):
        raise UsageError(f"{path}: not a bench bundle: not a JSON object")
    for phase, data in sorted(phases.items()):
        record = data if isinstance(data, dict) else {}
        if record.get("exit_status") != 0 or record.get("error"):
            nodes = ", ".join(str(n) for n in record.get("nodes") or [])
            why = SrunRecord(argv=[], nodes=[], **_srun_fields(record)).failure()
            verdict.incomplete.append(f"hosts via slurm ({phase}): on {nodes}: {why}")


def _srun_fields(record: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of a recorded srun that say why it failed."""
    stderr = record.get("stderr")
    return {
        "exit_status": record.get("exit_status"),
        "error": record.get("error"),
        "stderr": [str(line) for line in stderr] if isinstance(stderr, list) else [],
    }


def _argv(command: Mapping[str, Any]) -> str:
    return " ".join(str(a) for a in command.get("argv") or [])


def _judge_results(verdict: Verdict, fabric: Fabric, bundle: Path, locked: BomLock) -> None:
    runs: list[NcclRun] = []
    unreadable: list[str] = []
    for path in sorted((bundle / "results").glob("*")):
        try:
            runs.append(read_results(path, path.relative_to(bundle).as_posix(), root=bundle))
        except ResultsError as exc:
            unreadable.append(f"results: {exc}")
    verdict.incomplete.extend(unreadable)
    if not runs:
        if not unreadable:  # the command wrote none of the files it was to write
            verdict.incomplete.append(f"results: no results file in {bundle / 'results'}")
        return
    _judge_nccl_versions(verdict, runs, locked)
    env = verdict.command.get("env")
    for run in runs:  # text output records no environment: the one the command was given
        if run.env is None and isinstance(env, dict):
            run.env = {str(k): str(v) for k, v in env.items()}
        verdict.bandwidth.extend(_bandwidth(run))
    findings, failures, gaps = bench_findings(fabric, bundle / "snapshots" / CONFIG, runs)
    verdict.findings["results"] = findings
    rank = SEVERITY_RANK[fabric.policy.fail_on or "error"]
    for f in findings:
        if f.suppressed is None and SEVERITY_RANK[f.severity] >= rank:
            verdict.reasons.append(f"results: {f.rule} {f.message}")
    verdict.incomplete.extend(f"results: {f.where} failed: {f.error}" for f in failures)
    verdict.incomplete.extend(f"results: {gap}" for gap in gaps)


def _bandwidth(run: NcclRun) -> list[dict[str, Any]]:
    return [
        {
            "file": run.file,
            "size": row.size,
            "out_of_place": row.out_of_place.bus_bw if row.out_of_place else None,
            "in_place": row.in_place.bus_bw if row.in_place else None,
            "wrong": row.wrong(),
        }
        for row in run.results
    ]


def bench_findings(
    fabric: Fabric, config: Path, runs: list[NcclRun]
) -> tuple[list[Finding], list[Failure], list[str]]:
    """The BENCH rules the policy selects over `runs`, with the configuration of `config`:
    their findings, their failures, and what each could not judge (its coverage gaps: a rule
    that lacked its input judged nothing, so the run cannot be trusted on it)."""
    from fabriclint.engine import find_snapshot

    opts = CheckOptions(fabric_dir=fabric.root, snapshot=config)
    ctx = parse_snapshot(fabric, find_snapshot(fabric, opts), opts)
    ctx.memo[bench.BENCH] = bench.BenchRun(runs)
    selection = Selection(fabric.policy)
    findings: list[Finding] = []
    failures: list[Failure] = []
    for rule_cls in bench.RULES:
        if not selection.selected(rule_cls.code):
            continue
        options = rule_cls.options_model.model_validate(
            fabric.policy.options.get(rule_cls.code, {})
        )
        rule = rule_cls(options, selection.severity(rule_cls.code, rule_cls.severity))
        try:
            findings.extend(rule.check(ctx))
        except Exception as exc:  # a rule bug: incomplete, never a pass
            failures.append(Failure.of(f"rule {rule_cls.code}", exc))
    return findings, failures, _gaps(ctx.skipped)


def _gaps(skipped: Mapping[str, Mapping[str, set[str]]]) -> list[str]:
    """One line per rule and missing input: `BENCH004 not judged on gpu01: missing ...`."""
    return [
        f"{code} not judged on {', '.join(sorted(devices))}: missing {why}"
        for code, whys in sorted(skipped.items())
        for why, devices in sorted(whys.items())
    ]


def pause_deltas(before: Path, after: Path) -> list[dict[str, Any]]:
    """PFC pause frames received and sent per device, port and priority between two counter
    snapshots (only where one moved); devices without counters on a side are left out."""
    from fabriclint.parsers.counters import get_counter_parser, parse_counters
    from fabriclint.snapshot import SnapshotError, load_snapshot

    try:
        old, new = load_snapshot(before, base=Path.cwd()), load_snapshot(after, base=Path.cwd())
    except SnapshotError:
        return []
    rows: list[dict[str, Any]] = []
    for name, loaded in sorted(new.devices.items()):
        prior = old.devices.get(name)
        if loaded.raw is None or prior is None or prior.raw is None:
            continue
        if get_counter_parser(loaded.raw.platform) is None:
            continue
        a, b = parse_counters(prior.raw), parse_counters(loaded.raw)
        if a is None or b is None:
            continue
        for port, counters in sorted(b.ports.items()):
            rows.extend(_port_pauses(name, port, a.ports.get(port), counters))
    return rows


def _moved(old: Any, new: Any) -> int:
    return max(new.value - old.value, 0) if old is not None and new is not None else 0


def _port_pauses(device: str, port: str, old: Any, new: Any) -> list[dict[str, Any]]:
    out = []
    for prio, counters in sorted(new.priorities.items()):
        prior = old.priorities.get(prio) if old is not None else None
        rx = _moved(getattr(prior, "rx_pause", None), counters.rx_pause)
        tx = _moved(getattr(prior, "tx_pause", None), counters.tx_pause)
        if rx or tx:
            out.append(
                {"device": device, "port": port, "priority": prio, "rx_pause": rx, "tx_pause": tx}
            )
    return out


# ---- bench run ---------------------------------------------------------------------------


@dataclass
class RunOptions:
    """A typed `fabriclint bench run` (built by the CLI, or by tests)."""

    fabric_dir: Path
    lock: Path
    command: list[str]
    collect: Any
    """The CollectOptions every collection starts from (overlay, host keys, timeouts...)."""
    results: list[Path] = field(default_factory=list)
    """Results files the command writes (default: its `-J FILE`, else its stdout as text)."""
    out_root: Path | None = None
    """Where bundles go (default FABRIC/bench)."""
    timeout_s: float | None = None
    env: Mapping[str, str] | None = None
    """The command's environment (default: this process's)."""
    hosts_via: str = "ssh"
    """How host outputs are gathered: "ssh" (with the switches) or "slurm" (`srun` runs
    `host snapshot` on every host node; the switches are still collected over SSH)."""
    srun_args: list[str] = field(default_factory=list)
    """Extra srun options (`--partition=gpu`, `--account=...`)."""


def results_files(opts: RunOptions) -> list[Path]:
    """The files to read after the command: --results, else the command's `-J FILE`."""
    if opts.results:
        return list(opts.results)
    argv = opts.command
    for i, arg in enumerate(argv):
        if arg == "-J" and i + 1 < len(argv):
            return [Path(argv[i + 1])]
        if arg.startswith("-J") and len(arg) > 2:
            return [Path(arg[2:])]
    return []


def _stamp() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H%M%SZ")


def _final(root: Path) -> Path:
    base = root / _stamp()
    path, n = base, 2
    while path.exists():
        path, n = base.with_name(f"{base.name}-{n}"), n + 1
    return path


def _collect(opts: RunOptions, out: Path, counters: bool, slurm: dict[str, Any]) -> None:
    """One snapshot of the fabric at `out`: every device over SSH, or the hosts through srun
    (its record into `slurm`, by phase) merged with the switches over SSH."""
    from dataclasses import replace

    from fabriclint.collectors.run import collect

    if opts.hosts_via != "slurm":
        collect(opts.fabric_dir, replace(opts.collect, out=out, counters=counters))
        return
    switches, hosts = _split_devices(opts.fabric_dir)
    sources: list[Path] = []
    if switches:
        ssh = out.with_name(f".{out.name}.ssh")
        collect(
            opts.fabric_dir,
            replace(opts.collect, out=ssh, counters=counters, limit=[",".join(switches)]),
        )
        sources.append(ssh)
    reason = ""
    if hosts:
        folder = out.parent.parent / "hosts" / out.name
        record = _srun_hosts(opts, folder, hosts, counters)
        slurm[out.name] = record.as_dict()
        sources.append(folder)
        reason = record.reason()
    merge(out, sources, hosts, reason)
    for source in sources:
        shutil.rmtree(source, ignore_errors=True)


def _split_devices(fabric_dir: Path) -> tuple[list[str], dict[str, str]]:
    """(switch and SM names, host name -> platform) of the inventory."""
    from fabriclint.collectors.run import load_inventory
    from fabriclint.platforms import kind_of

    devices = load_inventory(fabric_dir).devices
    hosts = {n: d.platform for n, d in devices.items() if kind_of(d.platform) == "host"}
    return [n for n in devices if n not in hosts], hosts


def _srun_hosts(
    opts: RunOptions, folder: Path, hosts: dict[str, str], counters: bool
) -> SrunRecord:
    """`host snapshot` on every host node into `folder` (made first: the tasks write in it)."""
    platforms = sorted(set(hosts.values()))
    if len(platforms) > 1:  # one srun line runs one --platform
        raise UsageError(f"--hosts-via slurm: the hosts have several platforms ({platforms})")
    folder.mkdir(parents=True, exist_ok=True)
    limits = opts.collect.timeouts
    task = HostTask(folder.resolve(), platforms[0], counters, opts.collect.sudo, limits.command)
    return run_srun(list(hosts), task, opts.srun_args, timeout_s=limits.device + SRUN_SLACK)


def _run_command(opts: RunOptions, work: Path) -> dict[str, Any]:
    """Run the command with its output in work/output/; never raises for the command's sake."""
    env = dict(os.environ if opts.env is None else opts.env)
    (work / "output").mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    record: dict[str, Any] = {
        "argv": list(opts.command),
        "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "env": {k: v for k, v in sorted(env.items()) if k.startswith(KEPT_ENV)},
    }
    with (
        open(work / "output" / "stdout.txt", "wb") as out,
        open(work / "output" / "stderr.txt", "wb") as err,
    ):
        try:
            done = subprocess.run(
                opts.command, stdout=out, stderr=err, env=env, timeout=opts.timeout_s, check=False
            )
            record["exit_status"] = done.returncode
        except FileNotFoundError:
            record["exit_status"], record["error"] = 127, f"command not found: {opts.command[0]}"
        except subprocess.TimeoutExpired:
            record["exit_status"], record["error"] = None, f"timed out after {opts.timeout_s:g} s"
    record["ended"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    record["seconds"] = round(time.monotonic() - started, 3)
    return record


def _keep_results(opts: RunOptions, work: Path) -> None:
    """Copy the results (env scrubbed) into work/results/; the stdout when no file is named."""
    target = work / "results"
    target.mkdir(parents=True, exist_ok=True)
    files = results_files(opts) or [work / "output" / "stdout.txt"]
    for i, path in enumerate(files):
        try:  # bounded: a results path may name /dev/stdout, a FIFO or a huge file
            text = read_text(path)
        except ResultsError:
            continue  # judged: a missing results file leaves the run incomplete
        atomic_write(target / f"{i:02d}-{path.name}", scrubbed(text))


def run(opts: RunOptions) -> tuple[Path, Verdict]:
    """Collect, run, collect, judge; the bundle's final path and its verdict."""
    name = load_fabric(opts.fabric_dir, option_models()).inventory.name
    lock_text = bom.dumps(
        bom.read_lock(opts.lock, name)
    )  # a bad lock stops here, nothing contacted
    if opts.hosts_via == "slurm":
        try:
            srun_path()
        except SlurmError as exc:
            raise UsageError(str(exc)) from None
    for path in results_files(opts):
        if path.exists():  # nccl-tests would write FILE.0 beside it and the old one be read
            raise UsageError(f"{path}: exists; the results must be new (remove it or name another)")
    root = opts.out_root or opts.fabric_dir / "bench"
    final = _final(root)
    work = root / f".{final.name}.partial-{os.getpid()}"
    work.mkdir(parents=True)
    try:
        atomic_write(work / "lock.json", lock_text)
        slurm: dict[str, Any] = {}
        _collect(opts, work / "snapshots" / CONFIG, False, slurm)
        _collect(opts, work / "snapshots" / BEFORE, True, slurm)
        record = _run_command(opts, work)
        _collect(opts, work / "snapshots" / AFTER, True, slurm)
        _keep_results(opts, work)
        if slurm:
            atomic_write(work / SLURM_RECORD, json.dumps(slurm, indent=2) + "\n")
            shutil.rmtree(work / "hosts", ignore_errors=True)
        atomic_write(work / "command.json", json.dumps(record, indent=2) + "\n")
        verdict = judge(opts.fabric_dir, work)
        write_reports(work, verdict)
        os.rename(work, final)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return final, verdict


def write_reports(bundle: Path, verdict: Verdict) -> None:
    """verdict.json, verdict.md and index.html into the bundle (each atomically)."""
    from fabriclint import benchreport

    atomic_write(bundle / "verdict.json", benchreport.to_json(verdict))
    atomic_write(bundle / "verdict.md", benchreport.to_markdown(verdict))
    atomic_write(bundle / "index.html", benchreport.to_html(verdict))
