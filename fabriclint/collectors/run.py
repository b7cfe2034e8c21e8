"""Collect a fabric into a new snapshot: `collect(fabric_dir, options) -> CollectResult`.

The entry point for `fabriclint collect` and `fabriclint check --live`. Everything that can be
known before connecting is checked first (inventory, overlay, --limit, known_hosts, credentials,
the allowlist); problems then raise CollectUsageError and nothing is contacted.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gc
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fabriclint import __version__
from fabriclint.collectors.base import Collector, DeviceResult, SshPolicy, Target, Timeouts
from fabriclint.collectors.credentials import (
    CredentialError,
    Prompt,
    Scrubber,
    prompt_missing,
    resolve_logins,
)
from fabriclint.collectors.device import Settings, planned_commands, preflight
from fabriclint.collectors.limit import LimitError, select
from fabriclint.collectors.overlay import Overlay, apply_overlay, load_overlay
from fabriclint.collectors.pool import PER_ENDPOINT, Job, Listener, run_jobs
from fabriclint.collectors.shards import (
    ShardSpec,
    default_processes,
    device_job,
    endpoint_groups,
    run_sharded,
)
from fabriclint.collectors.store import (
    SnapshotExists,
    SnapshotWriter,
    default_name,
    sweep_partials,
    sweepable,
)
from fabriclint.loaders.fabric import has_source, inventory_path, live_problems, refuse_outside
from fabriclint.loaders.yaml import Problem, load_yaml, validate_doc
from fabriclint.models.address import HOST_SHAPE
from fabriclint.models.inventory import Device, Inventory

DEFAULT_KNOWN_HOSTS = Path("~/.ssh/known_hosts")


def default_workers() -> int:
    """Devices collected at once: 32 per CPU, at most 128.

    A session waits on the network and the device almost all the time: with the shell read by
    pattern a device costs ~10-15 ms of collector CPU (SSH handshake, packets, redaction)
    against ~0.4 s of waiting at 50 ms per command, and far more on real switches, where a
    `show running-config` takes seconds. Measured with benchmarks/collect_scale.py (500 lab
    devices, 50 ms per command, 2 CPUs shared with the lab): 64 and 128 workers were fastest,
    32 took 20-50 % longer, and 256 doubled the collector's CPU (one process: the threads share
    one interpreter lock, so more CPUs do not make more threads cheaper).
    """
    return min(128, 32 * (os.cpu_count() or 2))


@dataclass
class CollectOptions:
    """A typed run configuration for live collection (built by the CLI, tests, benchmarks)."""

    limit: list[str] = field(default_factory=list)
    out: Path | None = None
    """Snapshot folder to create (default FABRIC/snapshots/<UTC time>, or <UTC time>-2... when
    another run took that name); must not exist."""
    workers: int | None = None
    """Sessions at once in all (default `default_workers()`), split over the processes."""
    processes: int | None = None
    """Collector processes (default: one per CPU, at most one per 100 devices:
    `shards.default_processes`); 1 = this process only. Devices are handed out to them as they have room, whole endpoints at a time
    (`collectors/shards.py`)."""
    per_endpoint: int = PER_ENDPOINT
    """Sessions at once to one endpoint (host:port): one device is collected by one session."""
    timeouts: Timeouts = field(default_factory=Timeouts)
    retries: int = 2
    known_hosts: Path | None = None
    """Default: the overlay's, else ~/.ssh/known_hosts."""
    no_host_key_check: bool = False
    """--insecure-no-host-key-check: accept any host key (recorded in collect.json)."""
    ssh_config: Path | None = None
    allow_legacy_ssh: bool = False
    overlay: Path | None = None
    sudo: bool = False
    counters: bool = False
    """Collect only counter commands (`--counters`), for `fabriclint counters`."""
    facts: bool = True
    prompt: Prompt | None = None
    env: Mapping[str, str] | None = None
    listener: Listener | None = None
    collector: Collector | None = None
    """Tests may inject one; default is the netmiko collector."""
    publishing: Callable[[], None] | None = None
    """Called just before the finished snapshot is renamed into place (the CLI stops turning
    Ctrl-C into an abort there: the snapshot is complete)."""
    notice: Callable[[str], None] | None = None
    """Says what the run did besides collecting (the stale partial folders it removed); the CLI
    prints each line on stderr."""


@dataclass
class CollectResult:
    """Where the snapshot went and whether every selected device was read."""

    snapshot: Path
    complete: bool
    devices: dict[str, DeviceResult]
    host_key_check: bool

    @property
    def failed(self) -> list[DeviceResult]:
        """Devices whose status is not ok."""
        return [r for r in self.devices.values() if r.status != "ok"]


class CollectUsageError(Exception):
    """Nothing was collected: the inputs or options are wrong (exit 2)."""

    def __init__(self, problems: list[Problem | str]) -> None:
        super().__init__("; ".join(str(p) for p in problems))
        self.problems = problems


def load_inventory(fabric_dir: Path) -> Inventory:
    """inventory.yaml of the fabric (or its live source's cache), validated; CollectUsageError
    with located problems."""
    if has_source(fabric_dir) and (live := live_problems(fabric_dir)):
        raise CollectUsageError(list(live))
    path = inventory_path(fabric_dir)
    if not path.is_file():
        raise CollectUsageError([f"{path}: no inventory.yaml"])
    refused = refuse_outside(path, fabric_dir)
    if refused is not None:
        raise CollectUsageError([f"{path}: {refused}"])
    doc, problems = load_yaml(path, str(path))
    inventory, errors = validate_doc(doc, Inventory) if doc is not None else (None, [])
    if inventory is None or problems or errors:
        raise CollectUsageError([*problems, *errors])
    return inventory


def _devices(fabric_dir: Path, options: CollectOptions) -> tuple[dict[str, Device], Overlay | None]:
    # a device another one runs (an InfiniBand switch under its subnet manager) is not logged into
    devices = {n: d for n, d in load_inventory(fabric_dir).devices.items() if d.managed_by is None}
    overlay = None
    if options.overlay is not None:
        overlay, problems = load_overlay(options.overlay, devices)
        if problems:
            raise CollectUsageError(problems)
    try:
        chosen = select(devices, options.limit)
    except LimitError as exc:
        raise CollectUsageError([str(exc)]) from None
    merged = apply_overlay(devices, overlay)
    return {name: merged[name] for name in chosen}, overlay


def _policy(options: CollectOptions, overlay: Overlay | None) -> SshPolicy:
    problems: list[Problem | str] = []
    known: Path | None = None
    if not options.no_host_key_check:
        given = options.known_hosts or (
            Path(overlay.known_hosts) if overlay and overlay.known_hosts else None
        )
        known = (given or DEFAULT_KNOWN_HOSTS).expanduser()
        if not known.is_file():
            problems.append(
                f"{known}: known_hosts file not found; host keys are verified by default "
                "(pass --known-hosts FILE, or --insecure-no-host-key-check to skip verification)"
            )
        else:
            problems += _text_problems(known, "known_hosts file")
    if options.ssh_config is not None and not options.ssh_config.expanduser().is_file():
        problems.append(f"{options.ssh_config}: SSH config file not found")
    elif options.ssh_config is not None:
        problems += _text_problems(options.ssh_config.expanduser(), "SSH config file")
    if problems:
        raise CollectUsageError(problems)
    ssh_config = options.ssh_config.expanduser() if options.ssh_config else None
    return SshPolicy(
        known_hosts=known, ssh_config=ssh_config, allow_legacy=options.allow_legacy_ssh
    )


def _text_problems(path: Path, what: str) -> list[Problem | str]:
    """Why `path` cannot be read as UTF-8 text (the SSH libraries would raise mid-run)."""
    try:
        data = path.read_bytes()
        data.decode("utf-8")
    except OSError as exc:
        return [f"{path}: cannot read the {what}: {exc.strerror or exc}"]
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return [f"{path}:{line}: the {what} is not UTF-8 text (byte {exc.start}: {exc.reason})"]
    return []


def _targets(devices: dict[str, Device], options: CollectOptions) -> tuple[list[Target], Scrubber]:
    try:
        logins = resolve_logins(
            {n: d.credentials for n, d in devices.items()}, options.env, options.prompt
        )
    except CredentialError as exc:
        raise CollectUsageError([str(exc)]) from None
    missing = sorted(
        {str(lg.key_file) for lg in logins.values() if lg.key_file and not lg.key_file.is_file()}
    )
    if missing:
        raise CollectUsageError([f"{path}: ssh_key file not found" for path in missing])
    scrub = Scrubber([login.password for login in logins.values() if login.password])
    targets = [
        Target(
            name=name,
            platform=device.platform,
            host=device.host or "",
            port=device.port,
            username=logins[name].username,
            password=logins[name].password,
            key_file=logins[name].key_file,
            sudo=options.sudo,
            counters=options.counters,
        )
        for name, device in devices.items()
    ]
    return targets, scrub


def _collector(options: CollectOptions, policy: SshPolicy, scrub: Scrubber) -> Collector:
    if options.collector is not None:
        return options.collector
    from fabriclint.collectors.netmiko_ssh import NetmikoCollector

    if policy.allow_legacy:
        from fabriclint.collectors.legacy import allow_legacy_algorithms

        allow_legacy_algorithms()
    return NetmikoCollector(policy, scrub)


# A host name, an IPv4 or an IPv6 address (with a zone): an SSH config's `ProxyCommand ssh -W
# %h:%p jump` puts the host into a command line, so a PR inventory's `host: "x:22
# -oProxyCommand=touch${IFS}/tmp/p;:"` ran a command; blanks, `$`, `;` or a leading `-` are refused.
def _early_result(target: Target, settings: Settings) -> DeviceResult | None:
    """A result without connecting: no address, one that is no host name or address, or a
    plan outside the allowlist."""
    if not target.host:
        reason = "no host in the inventory (nothing to connect to)"
        return DeviceResult(target.name, target.platform, "unreachable", reason)
    if not HOST_SHAPE.fullmatch(target.host):  # also checked when the inventory is read
        reason = f"host {target.host!r} is no host name or address (no connection was opened)"
        return DeviceResult(target.name, target.platform, "unreachable", reason)
    return preflight(target, settings)


def collect(fabric_dir: Path, options: CollectOptions) -> CollectResult:
    """Collect the selected devices into a new snapshot folder; see the module docstring."""
    started = dt.datetime.now(dt.UTC)
    devices, overlay = _devices(fabric_dir, options)
    policy = _policy(options, overlay)
    targets, scrub = _targets(devices, options)
    settings = Settings(options.timeouts, options.retries, facts=options.facts)
    out = options.out or fabric_dir / "snapshots" / default_name(started)
    try:
        writer = SnapshotWriter(out, unique=options.out is None)
    except SnapshotExists as exc:
        raise CollectUsageError([str(exc)]) from None
    try:
        _sweep(fabric_dir, writer, options.notice)
        collector = _collector(options, policy, scrub)
        with _frozen_gc():
            results, processes = _run(targets, settings, scrub, collector, writer, options, policy)
        record = _record(started, options, policy, settings, results, processes)
        path = writer.finish(list(devices), record, options.publishing)
    except BaseException:
        writer.discard()
        raise
    complete = all(r.status == "ok" for r in results.values())
    return CollectResult(path, complete, results, policy.known_hosts is not None)


def _sweep(fabric_dir: Path, writer: SnapshotWriter, notice: Callable[[str], None] | None) -> None:
    """Remove the partial snapshot folders killed collections left in FABRIC/snapshots (this
    run's own is locked, so it is kept), before any device is contacted; one line each."""
    snapshots = fabric_dir / "snapshots"
    if not sweepable(snapshots, writer.temp):
        return
    for path in sweep_partials(snapshots):
        if notice is not None:
            notice(f"removed a stale partial snapshot folder a killed collection left: {path}")


@contextlib.contextmanager
def _frozen_gc() -> Iterator[None]:
    """The objects that exist before the sessions start (imported modules, the inventory, the
    plans) kept out of the cyclic garbage collector's full passes while they run, then handed
    back to it. A full pass walked all of them once or twice per run (~0.1-0.2 s for 300 lab
    devices, 0.3-0.7 ms per device); the sessions' own short-lived objects are collected as
    before. A forked worker process also touches fewer of the pages it shares with the run.
    A caller that froze objects itself keeps them frozen (freezing does not nest: nothing is
    done then)."""
    ours = gc.get_freeze_count() == 0
    if ours:
        gc.freeze()
    try:
        yield
    finally:
        if ours:
            gc.unfreeze()


def _run(
    targets: list[Target],
    settings: Settings,
    scrub: Scrubber,
    collector: Collector,
    writer: SnapshotWriter,
    options: CollectOptions,
    policy: SshPolicy,
) -> tuple[dict[str, DeviceResult], int]:
    """Every device's result, and how many collector processes there were."""
    results: dict[str, DeviceResult] = {}
    reachable = []
    for target in targets:
        early = _early_result(target, settings)
        if early is None:
            reachable.append(target)
        else:
            results[target.name] = early
            writer.add(early)
    outer = options.listener

    def listener(event: str, name: str, result: DeviceResult | None) -> None:
        if result is not None:
            writer.add(result)
        if outer is not None:
            outer(event, name, result)

    for early in results.values():
        listener("done", early.name, early)
    plan = _Plan(reachable, settings, scrub, collector, policy)
    return results | plan.collect(options, listener), plan.processes


@dataclass
class _Plan:
    """The devices to connect to and how: in this process, or spread over several."""

    targets: list[Target]
    settings: Settings
    scrub: Scrubber
    collector: Collector
    policy: SshPolicy
    processes: int = 1
    """How many processes collected (set by `collect`)."""

    def collect(self, options: CollectOptions, listener: Listener) -> dict[str, DeviceResult]:
        """Collect every target, each result handed to `listener` as it arrives."""
        workers = options.workers or default_workers()
        self.targets = longest_first(self.targets, self.settings)
        groups = len(endpoint_groups(self.targets))
        self.processes = min(processes_for(options, len(self.targets)), max(1, groups))
        if self.processes <= 1:
            jobs = [self._job(target) for target in self.targets]
            return run_jobs(jobs, workers, listener, options.per_endpoint)
        spec = ShardSpec(self.settings, self.policy, self.scrub, workers, options.per_endpoint)
        return run_sharded(self.collector, self.targets, spec, self.processes, listener)

    def _job(self, target: Target) -> Job:
        return device_job(self.collector, target, self.settings, self.scrub)


def longest_first(targets: list[Target], settings: Settings) -> list[Target]:
    """`targets` in the order they are started: the most planned commands first (inventory
    order among equals). Started in inventory order, a fabric whose hosts come after its
    switches ended on a last wave of hosts, the slowest devices, with most workers idle
    (~0.5 s of 4.4 in the benchmark); longest first, the short ones fill in at the end. The
    snapshot is the same whatever the order (its manifest is in inventory order)."""
    size = {target.name: len(planned_commands(target, settings)) for target in targets}
    return sorted(targets, key=lambda target: -size[target.name])


def processes_for(options: CollectOptions, devices: int) -> int:
    """Collector processes of a run: `options.processes`, else `default_processes` (one per
    CPU and per MIN_SHARD devices); always one with an injected collector (it lives in this process)."""
    if options.collector is not None:
        return 1
    return max(1, options.processes or default_processes(devices))


def _record(
    started: dt.datetime,
    options: CollectOptions,
    policy: SshPolicy,
    settings: Settings,
    results: dict[str, DeviceResult],
    processes: int,
) -> dict[str, Any]:
    """collect.json: how this snapshot was taken (no secret can be in it: none is passed)."""
    finished = dt.datetime.now(dt.UTC)
    check = (
        f"known_hosts {policy.known_hosts}"
        if policy.known_hosts
        else "DISABLED (--insecure-no-host-key-check)"
    )
    devices = {name: _device_record(r) for name, r in results.items()}
    return {
        "fabriclint": __version__,
        "started": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "finished": finished.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "seconds": round((finished - started).total_seconds(), 3),
        "host_key_check": check,
        "ssh_config": str(policy.ssh_config) if policy.ssh_config else None,
        "allow_legacy_ssh": policy.allow_legacy,
        "sudo": options.sudo,
        "counters": options.counters,
        "limit": options.limit,
        "workers": options.workers or default_workers(),
        "processes": processes,
        "timeouts": vars(settings.timeouts),
        "retries": settings.retries,
        "devices": devices,
    }


def _device_record(result: DeviceResult) -> dict[str, Any]:
    return {
        "status": result.status,
        "reason": result.reason,
        "attempts": result.attempts,
        "seconds": result.seconds,
        "skipped": result.skipped,
        "notes": result.notes,
    }


def ask_credentials(fabric_dir: Path, options: CollectOptions) -> int:
    """Before any progress display: ask (options.prompt) for every unset credential variable
    the selected devices name; the answers go into options.env so collect() asks nothing.
    Returns how many devices are selected. Raises CollectUsageError like collect()."""
    devices, _ = _devices(fabric_dir, options)
    if options.prompt is not None:
        env = options.env if options.env is not None else os.environ
        creds = {name: device.credentials for name, device in devices.items()}
        options.env = prompt_missing(creds, env, options.prompt)
        options.prompt = None
    return len(devices)


def collect_live(fabric_dir: Path, options: CollectOptions) -> tuple[Path, bool]:
    """For `check --live`: collect, then return (snapshot path, every device read)."""
    result = collect(fabric_dir, options)
    return result.snapshot, result.complete
