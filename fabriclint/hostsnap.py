"""`fabriclint host snapshot` and `snapshot merge`: a host's outputs taken on the host itself,
and many hosts' folders (plus a switch snapshot) merged into one snapshot.

On clusters of thousands of hosts the scheduler, not SSH from one box, reaches every node:
each node runs `host snapshot --out DIR` (through `srun`, a Kubernetes DaemonSet...), which runs
its platform's read-only command plan locally (`collectors/local.py`, behind the same
allowlist gate as SSH collection), redacts the outputs as collection does and writes
`DIR/<name>/`: the output files, named as in a snapshot, and `host.json`, the device's
manifest entry (platform, status, reason, files, sha256) with what was skipped. The folder is
built hidden and renamed into place, so a folder that exists is complete; a host whose plan
failed still writes one, with its status and reason, so the merge says why.

`merge` reads snapshots (`manifest.json`), host folders (`host.json`) and folders of host
folders, and writes one snapshot; each file's sha256 is checked against its record as it is
copied, and a file with no record is refused (exit 2), never copied unchecked. Devices the caller expected that no source holds are entered `unreachable` with the
reason given, so a node that returned nothing makes any check of the snapshot incomplete.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import secrets
import shutil
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fabriclint import __version__
from fabriclint.collectors.base import CollectError, DeviceResult, Target
from fabriclint.collectors.local import LocalSession
from fabriclint.collectors.plan import Deadline, GuardedSession, run_plan
from fabriclint.collectors.redact import redact
from fabriclint.confine import UnsafeInput, read_inside
from fabriclint.models.names import device_name_problem
from fabriclint.snapshot import (
    MANIFEST,
    DeviceStatus,
    Manifest,
    ManifestDevice,
    SnapshotError,
    atomic_write,
    command_to_filename,
    read_manifest,
    safe_manifest,
    sha256_of,
)

HOST_RECORD = "host.json"
NODE_NAME_ENV = "SLURMD_NODENAME"
"""Where the device name comes from under Slurm when `--name` is not given."""
DEFAULT_PLATFORM = "mlnx-host"


class HostSnapshotError(Exception):
    """Bad options or an output folder that cannot be used (exit 2; nothing was run)."""


class HostRecord(BaseModel):
    """host.json: one host's manifest entry and how it was taken."""

    model_config = ConfigDict(extra="forbid")

    fabriclint: str
    device: str
    platform: str
    status: DeviceStatus = "ok"
    error: str | None = None
    files: dict[str, str] = Field(default_factory=dict)
    sha256: dict[str, str] = Field(default_factory=dict)
    skipped: list[str] = Field(default_factory=list)
    """Optional commands that failed or are not installed (not available, not a change)."""
    counters: bool = False
    started: str = ""
    seconds: float = 0.0


@dataclass
class HostOptions:
    """A typed `fabriclint host snapshot` (built by the CLI, or by tests)."""

    out: Path
    name: str | None = None
    """Device name (default: $SLURMD_NODENAME, else the short host name)."""
    platform: str = DEFAULT_PLATFORM
    counters: bool = False
    sudo: bool = False
    command_timeout: float = 30.0
    time_limit: float = 600.0
    """Seconds for the whole plan; a command never runs past it."""
    env: Mapping[str, str] | None = None
    """The commands' environment (default: this process's)."""


def device_name(given: str | None, env: Mapping[str, str]) -> str:
    """The host's device name: `given`, else $SLURMD_NODENAME, else the short host name. A
    `--name` that was given is used or refused, never replaced: `--name ""` falling back to
    the host name would write another device's folder."""
    if given is not None:
        name, origin, hint = given, "--name ", ""
    elif env.get(NODE_NAME_ENV):
        name, origin, hint = env[NODE_NAME_ENV], f"${NODE_NAME_ENV} ", " (give --name)"
    else:
        name, origin = socket.gethostname().split(".")[0], "the host name "
        hint = " (give --name)"
    problem = device_name_problem(name)
    if problem:
        raise HostSnapshotError(f"{origin}{name!r} cannot name a device: {problem}{hint}")
    return name


def _check_platform(name: str) -> None:
    from fabriclint.commands import PLATFORMS

    platform = PLATFORMS.get(name)
    if platform is None or platform.kind != "host" or not platform.shell:
        hosts = sorted(p.name for p in PLATFORMS.values() if p.kind == "host" and p.shell)
        raise HostSnapshotError(f"--platform {name!r}: not a host platform ({', '.join(hosts)})")


def collect_here(opts: HostOptions, name: str) -> DeviceResult:
    """Run the platform's plan on this machine; never raises for a command's sake."""
    env = dict(os.environ if opts.env is None else opts.env)
    target = Target(
        name, opts.platform, "localhost", 0, None, sudo=opts.sudo, counters=opts.counters
    )
    start = time.monotonic()
    result = DeviceResult(name, opts.platform, attempts=1)
    session = GuardedSession(LocalSession(env), opts.platform)
    try:
        plan = run_plan(session, target, Deadline(start + opts.time_limit, opts.command_timeout))
    except CollectError as err:
        result.status, result.reason = err.status, redact(err.reason, opts.platform)
    else:
        result.outputs = {k: redact(v, opts.platform) for k, v in plan.outputs.items()}
        result.skipped = [redact(s, opts.platform) for s in plan.skipped]
    finally:
        session.close()
    result.seconds = round(time.monotonic() - start, 3)
    return result


def take(opts: HostOptions) -> tuple[Path, DeviceResult]:
    """Run this host's plan and write `out/<name>/`; HostSnapshotError for bad options."""
    _check_platform(opts.platform)
    name = device_name(opts.name, os.environ if opts.env is None else opts.env)
    final = opts.out / name
    if final.exists() or final.is_symlink():  # a dangling link is in the way too
        raise HostSnapshotError(f"{final}: exists already; host folders are never overwritten")
    try:
        opts.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise HostSnapshotError(f"{opts.out}: cannot create: {exc.strerror or exc}") from None
    started = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    result = collect_here(opts, name)
    write_host_folder(final, result, opts.counters, started)
    return final, result


def write_host_folder(final: Path, result: DeviceResult, counters: bool, started: str) -> None:
    """The host's folder, built hidden next to `final` and renamed into place."""
    temp = final.parent / f".{final.name}.partial-{secrets.token_hex(4)}"
    temp.mkdir()
    try:
        record = HostRecord(
            fabriclint=__version__,
            device=result.name,
            platform=result.platform,
            status=result.status,
            error=result.reason,
            skipped=result.skipped,
            counters=counters,
            started=started,
            seconds=result.seconds,
        )
        for key, text in result.outputs.items():
            filename = command_to_filename(key)
            atomic_write(temp / filename, text)
            record.files[key] = filename
            record.sha256[filename] = sha256_of(text.encode("utf-8"))
        atomic_write(temp / HOST_RECORD, record.model_dump_json(indent=2) + "\n")
        os.rename(temp, final)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise


# ---- merge -------------------------------------------------------------------------------


@dataclass
class Source:
    """One device found in a source: its entry and the folder its files are in."""

    entry: ManifestDevice
    folder: Path
    root: Path
    shown: str
    record: Path
    """The manifest.json or host.json that holds the entry (named when a file is refused)."""


@dataclass
class Merged:
    """What a merge wrote: devices by source, and the expected ones no source held."""

    path: Path
    devices: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    """Folders inside a folder of host folders that hold no host.json (a host whose `host
    snapshot` did not finish leaves `.NAME.partial-*`): said, never silently dropped."""


def read_host_record(folder: Path, root: Path) -> HostRecord:
    """A host folder's host.json; SnapshotError with the file when it is unreadable."""
    path = folder / HOST_RECORD
    try:
        record = HostRecord.model_validate_json(read_inside(path, root))
    except (OSError, UnsafeInput) as exc:
        raise SnapshotError(f"{path}: cannot read: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise SnapshotError(f"{path}: not a host record: {where}: {first['msg']}") from None
    if record.device != folder.name:
        raise SnapshotError(f"{path}: records device {record.device!r}, not {folder.name!r}")
    return record


def _host_source(folder: Path, root: Path) -> Source:
    record = read_host_record(folder, root)
    try:
        entry = ManifestDevice(
            platform=record.platform,
            status=record.status,
            error=record.error,
            files=record.files,
            sha256=record.sha256,
        )
    except ValidationError as exc:
        raise SnapshotError(f"{folder / HOST_RECORD}: {exc.errors()[0]['msg']}") from None
    return Source(entry, folder, root, str(folder), folder / HOST_RECORD)


def sources_of(path: Path) -> tuple[dict[str, Source], list[str]]:
    """Devices in `path` (a snapshot, a host folder, or a folder of host folders), and the
    sub-folders of a folder of host folders that are not host folders (said, never dropped)."""
    if (path / MANIFEST).is_file():
        manifest = read_manifest(safe_manifest(path))
        found = {
            name: Source(entry, path / name, path, f"{path}/{name}", path / MANIFEST)
            for name, entry in manifest.devices.items()
        }
        return found, []
    if (path / HOST_RECORD).is_file():
        return {path.name: _host_source(path, path.parent)}, []
    if not path.is_dir():
        raise SnapshotError(f"{path}: no snapshot or host folder there")
    found = {}
    ignored: list[str] = []
    for child in sorted(path.iterdir()):
        hidden = child.name.startswith(".") or device_name_problem(child.name) is not None
        if not hidden and (child / HOST_RECORD).is_file():
            found[child.name] = _host_source(child, path)
        elif child.is_dir():
            ignored.append(str(child))
    return found, ignored


def _gather(paths: list[Path]) -> tuple[dict[str, Source], list[str]]:
    found: dict[str, Source] = {}
    ignored: list[str] = []
    for path in paths:
        devices, skipped = sources_of(path)
        ignored += skipped
        for name, source in devices.items():
            if name in found:
                raise SnapshotError(f"{name}: in {found[name].shown} and in {source.shown}")
            found[name] = source
    return found, ignored


def _copy(name: str, source: Source, temp: Path) -> None:
    """Copy one device's files into the new snapshot, each checked against its sha256. A file
    with no sha256 record cannot be checked, so it is refused rather than copied on trust."""
    if source.entry.status != "ok":
        return
    (temp / name).mkdir()
    for filename in source.entry.files.values():
        path = source.folder / filename
        if filename not in source.entry.sha256:
            raise SnapshotError(
                f"{path}: no sha256 record in {source.record} (merge copies only files it can"
                " verify: review the file, then `fabriclint snapshot rehash` the snapshot or"
                " take the host snapshot again)"
            )
        try:
            data = read_inside(path, source.root)
        except (OSError, UnsafeInput) as exc:
            raise SnapshotError(f"{path}: cannot read: {exc}") from None
        if source.entry.sha256[filename] != sha256_of(data):
            raise SnapshotError(f"{path}: sha256 differs from its record (changed after writing)")
        (temp / name / filename).write_bytes(data)


def merge(
    out: Path,
    paths: list[Path],
    expect: Mapping[str, str] | None = None,
    missing_reason: str = "",
) -> Merged:
    """Write `out`, one snapshot of every device in `paths` (see the module docstring);
    `expect` (device -> platform) names devices entered unreachable when no source holds them."""
    _refuse_out_in_a_source(out, paths)
    if out.exists():
        raise SnapshotError(f"{out}: exists already; snapshots are never overwritten")
    found, ignored = _gather(paths)
    expected = dict(expect or {})
    missing = {name: p for name, p in expected.items() if name not in found}
    if not found and not missing:
        raise SnapshotError("no device in " + ", ".join(str(p) for p in paths))
    out.parent.mkdir(parents=True, exist_ok=True)
    temp = out.parent / f".{out.name}.partial-{secrets.token_hex(4)}"
    temp.mkdir()
    try:
        entries = _write_merged(temp, found, missing, missing_reason)
        atomic_write(temp / MANIFEST, entries.model_dump_json(indent=2) + "\n")
        os.rename(temp, out)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise
    shown = {name: source.shown for name, source in found.items()}
    return Merged(out, shown, list(missing), ignored)


def _refuse_out_in_a_source(out: Path, paths: list[Path]) -> None:
    """OUT inside (or equal to) a SOURCE would be written into what is being read, and read
    back by the next merge of that source as one more device folder."""
    target = out.resolve()
    for path in paths:
        if target.is_relative_to(path.resolve()):
            raise SnapshotError(f"{out}: inside the source {path}; write the merge elsewhere")


def _write_merged(
    temp: Path, found: dict[str, Source], missing: dict[str, str], reason: str
) -> Manifest:
    devices: dict[str, ManifestDevice] = {}
    for name, source in found.items():
        _copy(name, source, temp)
        entry = source.entry
        devices[name] = (
            entry
            if entry.status == "ok"
            else ManifestDevice(**{**entry.model_dump(), "files": {}, "sha256": {}})
        )
    for name, platform in missing.items():
        devices[name] = ManifestDevice(
            platform=platform, status="unreachable", error=reason or None
        )
    record: dict[str, Any] = {
        "fabriclint": __version__,
        "merged": {name: source.shown for name, source in found.items()},
        "missing": list(missing),
    }
    atomic_write(temp / "merge.json", json.dumps(record, indent=2) + "\n")
    created = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return Manifest(fabriclint=__version__, created=created, source="live", devices=devices)
