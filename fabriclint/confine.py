"""Reading files from folders fabriclint does not trust (snapshots, fabric folders from a PR).

Every such read goes through `read_inside`: the path is resolved (symlinks followed) and must
stay inside the folder it was named under; only a regular file is read (a FIFO would block
forever, a link to /dev/zero would fill memory); and at most the per-file size limit
(`FABRICLINT_MAX_FILE_SIZE`, default 64 MiB) is read. A refusal is an `UnsafeInput` naming the
file and the reason, never a traceback.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

MAX_FILE_SIZE_ENV = "FABRICLINT_MAX_FILE_SIZE"
DEFAULT_MAX_FILE_SIZE = 64 * 1024 * 1024
_SIZE = re.compile(r"^\s*([0-9]+)\s*([KMG]?)(?:i?B)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}


class UnsafeInput(Exception):
    """A file that is not read: outside its folder, not a regular file, or too large."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        """unsafe-path (resolves outside), not-a-file, or too-large."""


def max_file_size() -> int:
    """The per-file limit in bytes: $FABRICLINT_MAX_FILE_SIZE (`1048576`, `512K`, `64M`,
    `2GiB`) or 64 MiB. ValueError with a clear message for a value that is not a size."""
    text = os.environ.get(MAX_FILE_SIZE_ENV)
    if text is None or not text.strip():
        return DEFAULT_MAX_FILE_SIZE
    match = _SIZE.match(text)
    if match is None or int(match[1]) == 0:
        raise ValueError(
            f"${MAX_FILE_SIZE_ENV}={text!r} is not a size: write bytes, or a number with K, M or G"
        )
    return int(match[1]) * _UNITS[match[2].upper()]


def _size(limit: int) -> str:
    for unit, factor in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if limit >= factor and limit % factor == 0:
            return f"{limit // factor} {unit}"
    return f"{limit} bytes"


def resolve_inside(path: Path, root: Path) -> Path:
    """`path` resolved; UnsafeInput when it (or a symlink on the way) leads outside `root`.
    A path that does not exist raises FileNotFoundError as usual. (`root` is resolved once per
    folder: see `_resolved`.)"""
    try:
        resolved = path.resolve(strict=True)
    except ValueError:  # an embedded NUL: no file has that name
        raise UnsafeInput("unsafe-path", f"{path}: not a valid file name") from None
    if not resolved.is_relative_to(_resolved(root)):
        raise UnsafeInput(
            "unsafe-path",
            f"{path}: resolves to {resolved}, outside {root}; links must stay inside it",
        )
    return resolved


_ROOTS: dict[Path, tuple[int, int, Path]] = {}


def _resolved(root: Path) -> Path:
    """`root.resolve()`, remembered while `root` is the same folder (device and inode), so a
    snapshot of 10,000 files resolves its folder once, not 10,000 times."""
    info = root.lstat()
    known = _ROOTS.get(root)
    if known is not None and known[:2] == (info.st_dev, info.st_ino):
        return known[2]
    resolved = root.resolve()
    if len(_ROOTS) > 256:
        _ROOTS.clear()
    _ROOTS[root] = (info.st_dev, info.st_ino, resolved)
    return resolved


def read_inside(path: Path, root: Path, limit: int | None = None) -> bytes:
    """The bytes of the regular file `path`, which must resolve inside `root` (see the module
    docstring). OSError for a file that cannot be read; UnsafeInput for one refused."""
    cap = max_file_size() if limit is None else limit
    resolved = resolve_inside(path, root)
    # O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: a link swapped in
    # after resolve() is refused rather than followed.
    fd = os.open(
        resolved, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    )
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeInput("not-a-file", f"{path}: not a regular file; refused")
        if info.st_size > cap:
            raise UnsafeInput("too-large", _too_large(path, cap))
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(cap + 1)
    finally:
        os.close(fd)
    if len(data) > cap:  # grew while being read
        raise UnsafeInput("too-large", _too_large(path, cap))
    return data


def _too_large(path: Path, cap: int) -> str:
    return (
        f"{path}: larger than the {_size(cap)} per-file limit "
        f"(raise it with {MAX_FILE_SIZE_ENV}, e.g. {MAX_FILE_SIZE_ENV}=256M)"
    )


def check_inside(path: Path, root: Path) -> None:
    """Refuse (UnsafeInput) a file that exists but would not pass `read_inside`, without
    reading it: for callers that read the file themselves (the manifest, YAML files)."""
    resolved = resolve_inside(path, root)
    info = resolved.stat()
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeInput("not-a-file", f"{path}: not a regular file; refused")
    cap = max_file_size()
    if info.st_size > cap:
        raise UnsafeInput("too-large", _too_large(path, cap))
