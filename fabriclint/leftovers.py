"""What a run killed outright (SIGKILL, the OOM killer, a power cut) leaves behind, and how
the next run tells it from what a live run is still writing.

A live run holds an exclusive `flock` on each thing it is still writing (a staging file, a
partial snapshot folder) from the moment it exists until it is done with it; the kernel
drops that lock when the process dies, however it dies. Whatever is younger than GRACE is
left alone whatever its lock says. Shared by nightly's sweeps of its staging files
(nightly/delivery.py, nightly/retention.py) and the collection's sweep of its partial
snapshot folders (collectors/store.py).
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

GRACE = 60.0
"""Seconds a left-behind file or folder is kept whatever its lock says: it covers the instant
between creating it and locking it (and a file system where a lock is not seen at once)."""


def lock_file(fd: int) -> None:
    """Hold an exclusive flock on `fd` (a file's or a folder's); a file system without locks
    just goes without (what it holds is then never swept)."""
    import fcntl

    with contextlib.suppress(OSError):  # ENOLCK, EOPNOTSUPP: the sweep then keeps the file
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def held_by_someone(path: Path, folder: bool = False) -> bool:
    """Whether a live process holds a lock on the regular file `path` (with `folder`: the
    folder `path`), or whether that cannot be told (no such thing, another kind of thing, a
    link, no locks on this file system): only False means "no one holds it"."""
    import fcntl

    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if folder:
        flags |= os.O_DIRECTORY
    try:
        fd = os.open(path, flags)
    except OSError:
        return True
    try:
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISDIR(mode) if folder else stat.S_ISREG(mode)):
            return True
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # held (EWOULDBLOCK), or locks not supported here: cannot tell
        return True
    finally:
        os.close(fd)  # releases the lock just taken
    return False


def abandoned(path: Path, now: float, grace: float = GRACE, folder: bool = False) -> bool:
    """Whether `path`, a regular file (with `folder`: a folder; a link is neither), was left
    by a run that is no longer alive: older than `grace` seconds (its last change) and
    locked by no process. The age is read first, so a thing just made is never probed: the
    probe's own lock must not meet its creator's."""
    try:
        info = path.lstat()
    except OSError:
        return False
    if not (stat.S_ISDIR(info.st_mode) if folder else stat.S_ISREG(info.st_mode)):
        return False
    if now - max(info.st_mtime, info.st_ctime) < grace:
        return False
    return not held_by_someone(path, folder)
