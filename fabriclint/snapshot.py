"""Snapshot folders (manifest + raw outputs per device) and flat folders of rendered configs."""

from __future__ import annotations

import datetime as dt
import errno
import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from fabriclint import __version__
from fabriclint.bounded import InputLimitError, json_loads
from fabriclint.confine import UnsafeInput, check_inside, max_file_size, read_inside
from fabriclint.leftovers import lock_file
from fabriclint.models.names import DeviceName, check_device_name
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.platforms import ALL as DESCRIPTORS
from fabriclint.platforms import get as descriptor_of

DeviceStatus = Literal["ok", "unreachable", "auth-failed", "timeout", "command-failed"]
MANIFEST = "manifest.json"


class SnapshotError(Exception):
    """A snapshot folder that cannot be read at all (a user input error)."""


class ManifestDevice(BaseModel):
    """One device's entry in manifest.json."""

    model_config = ConfigDict(extra="forbid")

    platform: str
    status: DeviceStatus = "ok"
    error: str | None = None
    files: dict[str, str] = Field(default_factory=dict)
    sha256: dict[str, str] = Field(default_factory=dict)

    @field_validator("files")
    @classmethod
    def _inside_the_device_folder(cls, files: dict[str, str]) -> dict[str, str]:
        for name in files.values():
            parts = PurePosixPath(name.replace("\\", "/")).parts
            if not parts or name.startswith(("/", "\\")) or ".." in parts or ":" in parts[0]:
                raise ValueError(f"file name {name!r} must stay inside the device's folder")
            if any(ord(c) < 32 for c in name):  # NUL cannot be in a path; the rest is a trick
                raise ValueError(f"file name {name!r} holds a control character")
        return files


class Manifest(BaseModel):
    """manifest.json of a snapshot."""

    model_config = ConfigDict(extra="forbid")

    fabriclint: str
    created: str
    source: Literal["live", "candidate", "import"]
    devices: dict[DeviceName, ManifestDevice]


class LoadedDevice(BaseModel):
    """A device read from a snapshot: its raw outputs, or why it has none."""

    model_config = ConfigDict(extra="forbid")

    raw: RawDevice | None
    status: str
    """ok, a collection status from the manifest, or a read problem (missing-file, ...)."""
    error: str | None = None
    _unread: _Unread | None = PrivateAttr(default=None)
    """Where to read the files of a device loaded lazily and not read yet (`read_device`)."""

    @property
    def unread(self) -> bool:
        """Whether the files of this (lazily loaded) device are still to be read: its status
        says `ok` and its outputs name their files, but hold no text yet."""
        return self._unread is not None


class _Unread(NamedTuple):
    """What `read_device` needs to read a lazily loaded device."""

    root: Path
    name: str
    entry: ManifestDevice
    shown: str


class Snapshot(BaseModel):
    """A snapshot as read: every device the manifest (or folder) names."""

    model_config = ConfigDict(extra="forbid")

    path: str
    devices: dict[str, LoadedDevice]
    unverified: dict[str, list[str]] = Field(default_factory=dict)
    """Device -> files its manifest entry gives no sha256 for (PARSE004: tampering unseen)."""


def command_to_filename(command: str) -> str:
    """File name for a command's output: spaces -> '_', '/' -> '%2F', plus '.txt'."""
    return command.replace("/", "%2F").replace(" ", "_") + ".txt"


def sha256_of(data: bytes) -> str:
    """Hex sha256."""
    return hashlib.sha256(data).hexdigest()


def write_target(path: Path) -> Path:
    """The file `atomic_write(path)` replaces: `path`, or the file a symlink at `path` leads
    to (the link is kept, its target updated). OSError when that is not a regular file: a
    device node (/dev/full), a FIFO or a directory is never replaced by a file."""
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return target
    if not stat.S_ISREG(mode):
        kind = "a directory" if stat.S_ISDIR(mode) else "a device, FIFO or socket"
        raise OSError(errno.EINVAL, f"{kind}, not a regular file; refusing to replace it")
    return target


def atomic_write(path: Path, data: str) -> None:
    """Write `data` to `path` so that readers see the old file or the new one, never half.

    Through a symlink the link's target is written (a temp file next to it, renamed over it);
    anything but a regular file or a missing one is refused (see write_target)."""
    target = write_target(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = write_temp(target, data)
    try:
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_temp(target: Path, data: str) -> Path:
    """`data` in a new temporary file beside `target` (`.NAME.XXXXXXXX.tmp`), written, flushed
    to disk and given an ordinary file's mode: ready to be renamed over `target`. Nothing is
    left behind when it fails."""
    tmp, fd = stage_temp(target, data)
    os.close(fd)
    return tmp


def stage_temp(target: Path, data: str | bytes, hold: bool = False) -> tuple[Path, int]:
    """As write_temp, but the file's descriptor is returned open. With `hold` the file is
    under an exclusive `flock` from its creation (before anything is written) until that
    descriptor is closed: the kernel drops it when the process dies, however it dies, so
    `leftovers.held_by_someone` tells a live run's staging file from one a killed run left."""
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    tmp = Path(name)
    try:
        if hold:
            lock_file(fd)
        view = memoryview(data.encode("utf-8") if isinstance(data, str) else data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a report is an ordinary file
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    return tmp, fd


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _display(path: Path, base: Path | None) -> str:
    if base is not None:
        try:
            return str(path.resolve().relative_to(base.resolve()))
        except ValueError:
            pass
    return str(path)


def _read_device(
    root: Path, name: str, entry: ManifestDevice, shown: str, lazy: bool = False
) -> LoadedDevice:
    """Read one device's files; `shown` is the snapshot folder as findings should name it.
    `lazy`: name the files but read none yet (`read_device` reads them)."""
    if entry.status != "ok":
        return LoadedDevice(raw=None, status=entry.status, error=entry.error)
    if lazy:
        named = {
            command: RawOutput(text="", file=f"{shown}/{name}/{filename}")
            for command, filename in entry.files.items()
        }
        loaded = LoadedDevice(
            raw=RawDevice(name=name, platform=entry.platform, outputs=named), status="ok"
        )
        # absolute: the working directory may change before the files are read
        loaded._unread = _Unread(root=root.absolute(), name=name, entry=entry, shown=shown)
        return loaded
    outputs: dict[str, RawOutput] = {}
    for command, filename in entry.files.items():
        path = root / name / filename
        try:
            data = read_inside(path, root)
        except UnsafeInput as exc:
            reason = f"{shown}/{name}/{filename}: {_why(exc)}"
            return LoadedDevice(raw=None, status=exc.kind, error=reason)
        except OSError as exc:
            reason = f"{shown}/{name}/{filename}: {exc.strerror or exc}"
            return LoadedDevice(raw=None, status="missing-file", error=reason)
        expected = entry.sha256.get(filename)
        if expected and sha256_of(data) != expected:
            reason = (
                f"{shown}/{name}/{filename}: sha256 differs from the manifest (changed after "
                f"collection; after a deliberate edit: fabriclint snapshot rehash {shown})"
            )
            return LoadedDevice(raw=None, status="checksum-mismatch", error=reason)
        text = data.decode("utf-8", errors="replace")
        outputs[command] = RawOutput(text=text, file=f"{shown}/{name}/{filename}")
    raw = RawDevice(name=name, platform=entry.platform, outputs=outputs)
    return LoadedDevice(raw=raw, status="ok")


def read_device(loaded: LoadedDevice) -> LoadedDevice:
    """Read the files of a lazily loaded device now (no-op once read): `loaded` becomes what an
    eager `load_snapshot` would have given (its texts, or no raw input and why)."""
    pending = loaded._unread
    if pending is None:
        return loaded
    loaded._unread = None
    read = _read_device(pending.root, pending.name, pending.entry, pending.shown)
    loaded.raw, loaded.status, loaded.error = read.raw, read.status, read.error
    return loaded


def settle(loaded: LoadedDevice, read: LoadedDevice) -> None:
    """`loaded` as `read_device` leaves it, from a copy of it read elsewhere (a worker process
    of `check --jobs`): its texts, or no raw input and why."""
    loaded._unread = None
    loaded.raw, loaded.status, loaded.error = read.raw, read.status, read.error


def read_all(snap: Snapshot) -> None:
    """Read every device of `snap` still unread (lazily loaded ones nothing parsed)."""
    for loaded in snap.devices.values():
        read_device(loaded)


def _why(exc: UnsafeInput) -> str:
    """The refusal without its leading path (the caller names the file as findings do)."""
    return str(exc).partition(": ")[2] or str(exc)


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _second_line(text: str, key: str) -> int:
    token = json.dumps(key) + ":"
    compact = text.replace(json.dumps(key) + " :", token)
    first = compact.find(token)
    second = compact.find(token, first + 1)
    return compact.count("\n", 0, second) + 1 if second >= 0 else 1


def read_manifest(root: Path) -> Manifest:
    """Parse and validate manifest.json, raising SnapshotError with a located message."""
    path = root / MANIFEST
    if not path.is_file():
        raise SnapshotError(f"{path}: no {MANIFEST}; not a complete snapshot")
    try:
        text = path.read_text(encoding="utf-8")
        data = json_loads(text, object_pairs_hook=_no_duplicates)
    except UnicodeDecodeError as exc:
        raise SnapshotError(f"{path}: not UTF-8 text (byte {exc.start})") from exc
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from exc
    except InputLimitError as exc:  # nested too deep, a huge integer
        raise SnapshotError(f"{exc.where(str(path))} (invalid manifest)") from exc
    except _DuplicateKey as exc:
        line = _second_line(text, exc.key)
        raise SnapshotError(
            f"{path}:{line}: duplicate key {exc.key!r}; a manifest must name each device and file once"
        ) from exc
    try:
        return Manifest.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise SnapshotError(f"{path}: {where}: {first['msg']}") from exc


def load_snapshot(root: Path, base: Path | None = None, lazy: bool = False) -> Snapshot:
    """Read a snapshot folder. Devices that cannot be read get a non-ok status (never dropped).

    `lazy`: read the manifest now and each device's files only when `read_device` asks (the
    check reads a device just before parsing it and forgets its text after, so a large
    snapshot's text is never all in memory); until then an `ok` device's outputs hold no text
    and a file that turns out unreadable changes its status then."""
    if not root.is_dir():
        raise SnapshotError(f"{root}: snapshot folder not found")
    manifest = read_manifest(safe_manifest(root))
    shown = _display(root, base)
    devices = {
        name: _read_device(root, name, entry, shown, lazy)
        for name, entry in manifest.devices.items()
    }
    unverified = {
        name: missing
        for name, entry in manifest.devices.items()
        if entry.status == "ok"
        and (missing := [f for f in entry.files.values() if f not in entry.sha256])
    }
    return Snapshot(path=shown, devices=devices, unverified=unverified)


def safe_manifest(root: Path) -> Path:
    """`root` after checking its manifest.json is a regular file inside it, within the size
    limit (SnapshotError otherwise); read_manifest then parses it."""
    try:
        max_file_size()
        check_inside(root / MANIFEST, root)
    except (UnsafeInput, ValueError) as exc:
        raise SnapshotError(str(exc)) from None
    except OSError:
        pass  # missing: read_manifest says so
    return root


def named_snapshot(fabric_root: Path, name: str) -> Path:
    """FABRIC/snapshots/NAME, which must resolve inside the fabric folder (SnapshotError)."""
    path = fabric_root / "snapshots" / name
    resolved, inside = path.resolve(), fabric_root.resolve()
    if not resolved.is_relative_to(inside):
        raise SnapshotError(
            f"{path}: resolves to {resolved}, outside the fabric folder {fabric_root}"
        )
    return path


def main_config_key(platform: str) -> str | None:
    """The output that is a device's whole configuration (its descriptor's first config key);
    None for a platform with no single configuration (hosts, OpenSM) or an unknown one."""
    descriptor = descriptor_of(platform)
    return descriptor.config_keys[0] if descriptor and descriptor.config_keys else None


class NoConfigForm(ValueError):
    """A rendered config for a platform that has no single configuration to stand for."""


def config_key(platform: str, text: str) -> str:
    """The input key a rendered config stands for (the descriptor's config form: Cumulus has
    three, NVUE YAML, NCLU `net add` commands and the legacy traffic.conf, and the text says
    which it is). NoConfigForm for a platform without one, never a guessed key."""
    descriptor = descriptor_of(platform)
    key = descriptor.rendered_key(text) if descriptor is not None else None
    if key is None:
        forms = ", ".join(p.name for p in DESCRIPTORS if p.rendered_key("") is not None)
        what = "is unknown" if descriptor is None else "has no single configuration"
        raise NoConfigForm(
            f"platform '{platform}' {what}: --configs reads rendered configs of {forms} only"
        )
    return key


def load_configs(root: Path, platforms: Mapping[str, str], base: Path | None = None) -> Snapshot:
    """Read a flat folder of rendered configs named after devices (leaf01.cfg, leaf01.conf, ...).

    `platforms` maps inventory device names to platform keys; files for unknown devices are kept
    (as platform 'unknown') so the report can say they are unexpected.
    """
    if not root.is_dir():
        raise SnapshotError(f"{root}: configs folder not found")
    try:
        max_file_size()
    except ValueError as exc:
        raise SnapshotError(str(exc)) from None
    devices: dict[str, LoadedDevice] = {}
    for path in _config_files(root, platforms, base):
        name = path.stem
        platform = platforms.get(name, "unknown")
        try:
            text = read_inside(path, root).decode("utf-8", errors="replace")
        except UnsafeInput as exc:
            devices[name] = LoadedDevice(raw=None, status=exc.kind, error=str(exc))
            continue
        except OSError as exc:
            error = f"{_display(path, base)}: {exc.strerror or exc}"
            devices[name] = LoadedDevice(raw=None, status="missing-file", error=error)
            continue
        try:
            # a file of no inventory device is never parsed (the report names it unexpected)
            command = config_key(platform, text) if name in platforms else path.name
        except NoConfigForm as exc:
            error = f"{_display(path, base)}: {exc}"
            devices[name] = LoadedDevice(raw=None, status="unsupported", error=error)
            continue
        raw = RawDevice(
            name=name,
            platform=platform,
            outputs={command: RawOutput(text=text, file=_display(path, base))},
        )
        devices[name] = LoadedDevice(raw=raw, status="ok")
    return Snapshot(path=_display(root, base), devices=devices)


def _config_files(root: Path, platforms: Mapping[str, str], base: Path | None) -> list[Path]:
    """The files of a configs folder, by name. Two for one inventory device (`leaf01.cfg` and
    `leaf01.old`) are refused: whichever sorted last would be checked, silently."""
    files = [
        path
        for path in sorted(root.iterdir())
        if not path.name.startswith(".") and (path.is_file() or path.is_symlink())
    ]
    seen: dict[str, Path] = {}
    for path in files:
        first = seen.setdefault(path.stem, path)
        if first is not path and path.stem in platforms:
            raise SnapshotError(
                f"{_display(first, base)} and {path.name} are both configs of device "
                f"'{path.stem}': keep one (or move the other out of {_display(root, base)})"
            )
    return files


def write_snapshot(
    root: Path,
    devices: dict[str, tuple[str, dict[str, str]]],
    source: Literal["live", "candidate", "import"] = "candidate",
    statuses: dict[str, tuple[DeviceStatus, str | None]] | None = None,
) -> Path:
    """Write a snapshot: `devices` maps name -> (platform, {command: text}). Manifest last, atomically."""
    entries: dict[str, ManifestDevice] = {}
    for name, (platform, outputs) in devices.items():
        check_device_name(name)  # a name is a folder: never a path
        status, error = (statuses or {}).get(name, ("ok", None))
        entry = ManifestDevice(platform=platform, status=status, error=error)
        for command, text in outputs.items():
            filename = command_to_filename(command)
            atomic_write(root / name / filename, text)
            entry.files[command] = filename
            entry.sha256[filename] = sha256_of(text.encode("utf-8"))
        entries[name] = entry
    created = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    manifest = Manifest(fabriclint=__version__, created=created, source=source, devices=entries)
    atomic_write(root / MANIFEST, manifest.model_dump_json(indent=2) + "\n")
    return root


def _created(folder: Path) -> str:
    try:
        text = read_inside(folder / MANIFEST, folder).decode("utf-8")
        return str(json_loads(text).get("created", ""))
    except (OSError, ValueError, AttributeError, UnsafeInput):
        return ""


def newest_snapshot(snapshots_dir: Path) -> Path | None:
    """The newest complete snapshot: latest manifest `created` time, then name (file times lie
    after a git checkout). Folders without a manifest are half-written and never chosen;
    nor is a link to a folder outside `snapshots_dir` (a fabric folder from a PR is untrusted)."""
    if not snapshots_dir.is_dir():
        return None
    inside = snapshots_dir.resolve()
    candidates = [
        p
        for p in snapshots_dir.iterdir()
        if (p / MANIFEST).is_file() and p.resolve().is_relative_to(inside)
    ]
    if not candidates:
        return None
    return max(candidates, key=lambda p: (_created(p), p.name))
