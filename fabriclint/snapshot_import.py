"""`fabriclint snapshot import` and `snapshot rehash`: snapshots from outputs other tools collected.

Ansible and Nornir playbooks save one file per device and command, in a folder per device
(`outputs/leaf01/show_running-config.txt`) or flat (`outputs/leaf01_show_running_config.log`);
the command is spelled with spaces, `_` or `-` between words and `/` as `%2F`, `_` or `-`.
Each file is matched against the snapshot keys its device's platform reads (commands.py), per
interface and per HCA commands included; a file named only after the device (`leaf01.cfg`,
Ansible's `leaf01_config.<date>` backups) is the platform's configuration. Files that match
nothing are listed, never dropped silently. An entry that is neither a folder nor a regular file
(a FIFO, a socket, a device file, a link to nothing) refuses the import with its path (exit 2):
what it would have held is unknown, and a FIFO must never be read (it would wait for a writer).
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from fabriclint.confine import UnsafeInput, read_inside
from fabriclint.snapshot import (
    MANIFEST,
    SnapshotError,
    atomic_write,
    config_key,
    main_config_key,
    read_manifest,
    safe_manifest,
    sha256_of,
    write_snapshot,
)

EXTENSIONS = (".txt", ".log", ".out", ".cfg", ".conf", ".json", ".yaml", ".yml")
CONFIG_WORDS = re.compile(
    r"(?:running[-_ ]?config|show[-_ ]run|config|backup|startup[-_ ]?config)(?:[-_.@].*)?", re.I
)
"""A file named this way (after the device name) is the device's whole configuration."""
_SEPARATOR = r"[\s_-]+"


@dataclass
class Imported:
    """What an import found: outputs per device and what it could not place."""

    devices: dict[str, tuple[str, dict[str, str]]] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)


def _word(token: str) -> str:
    """A regex for one word of a command as tools spell it in file names."""
    out = []
    for char in token:
        if char in "-_":
            out.append("[-_]")
        elif char == "/":
            out.append("(?:/|_|-)")
        else:
            out.append(re.escape(char))
    return "".join(out)


_PLACEHOLDER = {
    "{netdev}": "(?P<netdev>[A-Za-z0-9][A-Za-z0-9_.-]*?)",
    "{hca}": "(?P<hca>[A-Za-z0-9][A-Za-z0-9_.-]*?)",
    "{port}": "(?P<port>[0-9]{1,2})",
}


def _loose(command: str) -> re.Pattern[str]:
    """Match `command` (a key or a template with {netdev}/{hca}/{port}) however a file spells it."""
    parts = []
    for token in command.split(" "):
        for name, regex in _PLACEHOLDER.items():
            if name in token:
                before, _, after = token.partition(name)
                parts.append(_word(before) + regex + _word(after))
                break
        else:
            parts.append(_word(token))
    return re.compile(_SEPARATOR.join(parts), re.I)


def _templates(platform: str) -> list[str]:
    """The per-interface/HCA command templates of a platform (hosts only)."""
    from fabriclint import platforms

    descriptor = platforms.REGISTRY.get(platform)
    return list(descriptor.templates) if descriptor is not None else []


def _keys(platform: str) -> list[str]:
    from fabriclint.commands import PLATFORMS

    spec = PLATFORMS.get(platform)
    return list(dict.fromkeys(s.key for s in spec.commands)) if spec else []


def _spellings(name: str) -> list[str]:
    """The file name without its extension, then as given (`config_db.json` is a key), each
    also with `%2F` decoded. Without the extension first: `mlnx_qos_-i_ens1np0.txt` is the
    netdev ens1np0, not `ens1np0.txt`."""
    lower = name.lower()
    out = [name[: -len(ext)] for ext in EXTENSIONS if lower.endswith(ext)] + [name]
    return list(dict.fromkeys(s for x in out for s in (x, urllib.parse.unquote(x))))


def command_key(platform: str, filename: str) -> str | None:
    """The snapshot key a file of outputs holds, by its name, or None when it matches none."""
    from fabriclint.commands import is_allowed

    for spelling in _spellings(filename):
        for key in _keys(platform):
            names = [key, key.rsplit("/", 1)[-1]] if key.startswith("/") else [key]
            if any(_loose(n).fullmatch(spelling) for n in names):
                return key
        for template in _templates(platform):
            match = _loose(template).fullmatch(spelling)
            if match:
                key = template.format(**match.groupdict())
                if is_allowed(platform, key):  # the allowlist's strict names: never a path trick
                    return key
    return None


def _is_config(rest: str) -> bool:
    """A file named only after its device, or `running-config`, `config.<date>` and the like."""
    return rest == "" or any(CONFIG_WORDS.fullmatch(s) for s in _spellings(rest))


def _add(found: Imported, device: str, platform: str, key: str, text: str, shown: str) -> None:
    outputs = found.devices.setdefault(device, (platform, {}))[1]
    if key in outputs:
        found.unknown.append(f"{shown}: a second file for {device}'s `{key}`")
        return
    outputs[key] = text


def _read(path: Path, root: Path) -> str:
    try:
        return read_inside(path, root).decode("utf-8", errors="replace")
    except UnsafeInput as exc:
        raise SnapshotError(str(exc)) from None
    except OSError as exc:
        raise SnapshotError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _place(found: Imported, device: str, platform: str, rest: str, path: Path, root: Path) -> None:
    """Add one file to `found` under its key, or to the unknown list."""
    shown = str(path.relative_to(root))
    key = command_key(platform, rest) if rest else None
    if key is None and main_config_key(platform) is not None and _is_config(rest):
        text = _read(path, root)
        _add(found, device, platform, config_key(platform, text), text, shown)
    elif key is None:
        found.unknown.append(f"{shown}: no {platform} input by that name")
    else:
        _add(found, device, platform, key, _read(path, root), shown)


_SPECIAL = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _refuse_special(path: Path, root: Path) -> None:
    """SnapshotError for an entry that is neither a folder nor a regular file (a link to a file
    is judged by what it points to): skipping it would import the device without an output it
    may hold. A link to a folder is refused too: listing it walked wherever it points (`/etc`),
    outside the folder the user named, and inside a device folder it was skipped silently."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        kind = "a link to nothing" if path.is_symlink() else "unreadable"
    else:
        if stat.S_ISDIR(mode) and path.is_symlink():
            kind = "a link to a folder"
        elif stat.S_ISREG(mode) or stat.S_ISDIR(mode):
            return
        else:
            kind = next((name for test, name in _SPECIAL if test(mode)), "not a regular file")
    shown = path.relative_to(root)
    raise SnapshotError(f"{root / shown}: {kind}, not a regular file; refused (remove it)")


def _split_flat(filename: str, names: list[str]) -> tuple[str, str] | None:
    """(device, rest) of a flat file name `<device><sep><command>`, longest device name first;
    the rest is "" for a file named only after the device (`leaf01.cfg`)."""
    for name in sorted(names, key=len, reverse=True):
        if filename == name or any(filename.startswith(name + s) for s in "_-.@"):
            rest = filename[len(name) :].lstrip("_-.@")
            return name, "" if f".{rest.lower()}" in EXTENSIONS else rest
    return None


def import_outputs(source: Path, platform_of: PlatformMap) -> Imported:
    """Every device's outputs under `source` (a folder per device, or flat files)."""
    if not source.is_dir():
        raise SnapshotError(f"{source}: folder of outputs not found")
    found = Imported()
    for path in sorted(source.iterdir()):
        if path.name.startswith(".") or path.name == MANIFEST:
            continue
        _refuse_special(path, source)
        if path.is_dir():
            _import_folder(found, path, source, platform_of)
            continue
        split = _split_flat(path.name, platform_of.names())
        platform = platform_of.get(split[0]) if split else None
        if split is None or platform is None:
            found.unknown.append(f"{path.name}: names no device with a known platform")
            continue
        _place(found, split[0], platform, split[1], path, source)
    return found


def _hidden(relative: Path) -> bool:
    """True when a part of `relative` (a path inside a device folder) starts with a dot."""
    return any(part.startswith(".") for part in relative.parts)


def _import_folder(found: Imported, folder: Path, root: Path, platform_of: PlatformMap) -> None:
    from fabriclint.models.names import device_name_problem

    platform = platform_of.get(folder.name)
    # hidden at any depth (`.git/config`, an editor's `.swp`): not an output, as at the top level
    entries = [p for p in folder.rglob("*") if not _hidden(p.relative_to(folder))]
    for path in entries:
        _refuse_special(path, root)
    files = sorted(p for p in entries if p.is_file())
    bad = device_name_problem(folder.name)
    if bad:
        found.unknown += [
            f"{p.relative_to(root)}: {folder.name!r} is no device name ({bad})" for p in files
        ]
        return
    if platform is None:
        found.unknown += [
            f"{p.relative_to(root)}: device {folder.name!r} has no platform (--platform-map)"
            for p in files
        ]
        return
    for path in files:
        rest = path.name
        if rest.startswith(folder.name) and _split_flat(rest, [folder.name]):
            rest = (_split_flat(rest, [folder.name]) or ("", rest))[1]
        _place(found, folder.name, platform, rest, path, root)


@dataclass
class PlatformMap:
    """Device name -> platform: the fabric's inventory, then `GLOB=PLATFORM` entries."""

    known: dict[str, str] = field(default_factory=dict)
    globs: list[tuple[str, str]] = field(default_factory=list)

    def get(self, device: str) -> str | None:
        """The platform of `device`, or None."""
        if device in self.known:
            return self.known[device]
        return next((p for g, p in self.globs if fnmatch.fnmatchcase(device, g)), None)

    def names(self) -> list[str]:
        """Device names known exactly (what a flat file name can start with)."""
        exact = [g for g, _ in self.globs if not any(c in g for c in "*?[")]
        return list(dict.fromkeys([*self.known, *exact]))


def parse_platform_map(entries: list[str], known: dict[str, str]) -> PlatformMap:
    """`GLOB=PLATFORM` entries (SnapshotError for one without `=` or of an unknown platform)."""
    from fabriclint import platforms

    out = PlatformMap(known=dict(known))
    for entry in entries:
        for item in filter(None, (e.strip() for e in entry.split(","))):
            glob, sep, platform = item.partition("=")
            if not sep or not glob or not platform:
                raise SnapshotError(f"--platform-map {item!r}: write it GLOB=PLATFORM (leaf*=eos)")
            if platforms.get(platform) is None:  # else every file reads as unmatched
                raise SnapshotError(
                    f"--platform-map {item!r}: unknown platform {platform!r} "
                    f"(one of {', '.join(platforms.NAMES)})"
                )
            out.globs.append((glob, platform))
    return out


def write_imported(found: Imported, out: Path) -> Path:
    """Write the snapshot (manifest last, atomically); refuse to replace an existing one."""
    if (out / MANIFEST).exists():
        raise SnapshotError(f"{out}: already a snapshot; choose a new --out")
    if not found.devices:
        raise SnapshotError("no output file matched a device's inputs; nothing to import")
    return write_snapshot(out, found.devices, source="import")


@dataclass
class Rehashed:
    """What `snapshot rehash` changed and saw."""

    changed: list[str] = field(default_factory=list)
    unlisted: list[str] = field(default_factory=list)


def rehash(root: Path) -> Rehashed:
    """Recompute every listed file's sha256 and rewrite the manifest atomically. A listed file
    that is missing or unsafe is a SnapshotError (nothing is written); files in a device's
    folder that the manifest does not list are reported (`unlisted`), not added."""
    manifest = read_manifest(safe_manifest(root))
    result = Rehashed()
    for name, entry in manifest.devices.items():
        for filename in entry.files.values():
            data = _bytes(root / name / filename, root)
            digest = sha256_of(data)
            if entry.sha256.get(filename) != digest:
                result.changed.append(f"{name}/{filename}")
                entry.sha256[filename] = digest
        folder = root / name
        listed = set(entry.files.values())
        if folder.is_dir():
            result.unlisted += [
                f"{name}/{p.name}"
                for p in sorted(folder.iterdir())
                if p.is_file() and p.name not in listed and not p.name.startswith(".")
            ]
    atomic_write(root / MANIFEST, manifest.model_dump_json(indent=2) + "\n")
    return result


def _bytes(path: Path, root: Path) -> bytes:
    try:
        return read_inside(path, root)
    except UnsafeInput as exc:
        raise SnapshotError(str(exc)) from None
    except OSError as exc:
        raise SnapshotError(f"{path}: cannot read: {exc.strerror or exc}") from None
