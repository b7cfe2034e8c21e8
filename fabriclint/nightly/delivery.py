"""Deliver a night all or nothing: every file it writes (report.json, report.md, index.html,
`reports/latest`, the metrics textfile) is first staged as a temporary file beside its target,
inside the history's transaction; only when all are staged are they renamed into place, and
only then does the night commit.

A file that cannot be written (a full disk, a folder where the file should be, a read-only
mount) therefore fails the night before anything is visible: the history is rolled back, the
temporary files and the folders made for them are removed, and the next night compares with
the last night that was delivered. Without this, a night recorded but never reported would
have its new findings counted as `persisting` the next night: the alert would be lost.

Publishing is all or nothing too, as far as renames allow: before a file is replaced, the one
it replaces gets a second name (a hard link, or a copy where the file system has none), so a
rename that fails half-way puts back every file already replaced (or removes it, when there
was none) and the report folder, `latest` and the metrics stay as the last night left them.

A run killed outright (SIGKILL, the OOM killer, a power cut) between staging and publishing
leaves its staging files behind; the next night removes them (`sweep`). They are told apart
from a live run's by name (`.NAME.XXXXXXXX.tmp`, NAME one of the files nightly writes in that
folder), by age (`GRACE`) and by the exclusive `flock` each run holds on its staging files
until it has published or discarded them: the kernel drops it when the process dies. The
sweep runs inside the night's history transaction, so no other run of the same history can
be staging at that moment; the lock protects the files of a run with another history.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from fabriclint import leftovers
from fabriclint.leftovers import abandoned, held_by_someone, lock_file
from fabriclint.snapshot import stage_temp

REPORT_FILES = ("report.json", "report.md", "index.html")
GRACE = leftovers.GRACE
"""Seconds a staging file is left alone whatever its lock says (leftovers.GRACE)."""
_STAGING = re.compile(r"\.(?P<name>.+)\.(?:[a-z0-9_]{8}|[0-9]+)\.tmp")
"""`.NAME.XXXXXXXX.tmp` (a staged file or a kept previous one) or `.NAME.PID.tmp` (a link)."""


class DeliveryError(Exception):
    """A report, `latest` or the metrics could not be written: the night is not recorded."""


def _replaceable(path: Path) -> Path:
    """The file a rename onto `path` replaces (through a symlink, its target); refuses what
    is not a regular file (a folder, a FIFO): a rename would fail there, after the others."""
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return target
    except OSError as exc:  # a file where a folder of the path should be
        raise DeliveryError(f"{path}: cannot write: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a device, FIFO or socket"
        raise DeliveryError(f"{path}: cannot write: {kind} is there")
    return target


def metrics_target(path: Path) -> Path:
    """The file a `--metrics PATH` night replaces (through a symlink, its target)."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _fresh(target: Path) -> Path:
    """An unused `.NAME.XXXXXXXX.tmp` beside `target` (the shape the sweep recognises)."""
    while True:
        path = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        if not os.path.lexists(path):
            return path


@dataclass
class Staged:
    """The temporary files staged so far, each with the file it will replace."""

    moves: list[tuple[Path, Path]] = field(default_factory=list)
    created: list[Path] = field(default_factory=list)
    """Folders made for the staged files, outermost first (removed again on discard)."""
    held: list[int] = field(default_factory=list)
    """Open descriptors of the staged (and kept previous) files: each under this run's
    flock until the night is published or discarded (what tells the sweep it is alive)."""
    kept: list[Path] = field(default_factory=list)
    """Second names of the files publishing replaced (removed once all are in place)."""

    def _folder(self, folder: Path) -> None:
        missing = [p for p in (folder, *folder.parents) if not p.exists()]
        for path in reversed(missing):
            path.mkdir()
            self.created.append(path)

    def file(self, path: Path, data: str) -> None:
        """Stage `data` for `path` (written and flushed to disk, not yet visible)."""
        target = _replaceable(path)
        try:
            self._folder(target.parent)
            tmp, fd = stage_temp(target, data, hold=True)
        except OSError as exc:
            raise DeliveryError(f"{path}: cannot write: {exc.strerror or exc}") from None
        self.held.append(fd)
        self.moves.append((tmp, target))

    def link(self, link: Path, name: str) -> None:
        """Stage `link` as a symlink to the sibling `name` (a file naming it where symlinks
        are not allowed). A real folder at `link` is refused: a rename cannot replace it."""
        if link.is_dir() and not link.is_symlink():
            raise DeliveryError(f"{link}: cannot point it at {name}: a folder is there")
        tmp = link.with_name(f".{link.name}.{os.getpid()}.tmp")
        try:
            self._folder(link.parent)
            tmp.unlink(missing_ok=True)
            try:
                tmp.symlink_to(name, target_is_directory=True)
            except OSError:
                tmp, fd = stage_temp(link, name + "\n", hold=True)
                self.held.append(fd)
        except OSError as exc:
            raise DeliveryError(f"{link}: cannot write: {exc.strerror or exc}") from None
        self.moves.append((tmp, link))

    def _keep(self, target: Path) -> Path | None:
        """A second name for what `target` is now (None: nothing there), to put it back."""
        if not os.path.lexists(target):
            return None
        kept = _fresh(target)
        if target.is_symlink():
            os.symlink(os.readlink(target), kept)
            self.kept.append(kept)
            return kept
        try:
            os.link(target, kept, follow_symlinks=False)
        except OSError:  # no hard links on this file system: a copy of the bytes instead
            kept, fd = stage_temp(target, target.read_bytes(), hold=True)
            self.kept.append(kept)
        else:
            self.kept.append(kept)
            fd = os.open(kept, os.O_RDONLY | os.O_NOFOLLOW)
            lock_file(fd)
        self.held.append(fd)
        return kept

    def publish(self) -> None:
        """Rename every staged file into place (what was staged has been checked replaceable).
        When one fails, the files already replaced are put back as they were."""
        done: list[tuple[Path, Path | None]] = []
        while self.moves:
            tmp, target = self.moves[0]
            try:
                kept = self._keep(target)
                os.replace(tmp, target)
            except OSError as exc:
                failed = _put_back(done)
                why = f"{target}: cannot write: {exc.strerror or exc}"
                if failed:
                    why += "; and could not put back the previous " + ", ".join(failed)
                raise DeliveryError(why) from None
            done.append((target, kept))
            self.moves.pop(0)
        self.created.clear()
        self._drop_kept()

    def _drop_kept(self) -> None:
        for kept in self.kept:
            with contextlib.suppress(OSError):
                kept.unlink()
        self.kept.clear()

    def discard(self) -> None:
        """Remove what is still staged and the folders made for it (when left empty)."""
        for tmp, _ in self.moves:
            tmp.unlink(missing_ok=True)
        self.moves.clear()
        self._drop_kept()
        for folder in reversed(self.created):
            with contextlib.suppress(OSError):  # something else was put there: not ours
                folder.rmdir()
        self.created.clear()
        for fd in self.held:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.held.clear()


def _put_back(done: list[tuple[Path, Path | None]]) -> list[str]:
    """Undo the renames `done` (newest first): the kept file back under its name, or the new
    file removed where there was none. What could not be undone, located."""
    failed = []
    for target, kept in reversed(done):
        try:
            if kept is None:
                target.unlink()
            else:
                os.replace(kept, target)
        except OSError as exc:
            failed.append(f"{target} ({exc.strerror or exc})")
    return failed


def sweep(
    folders: dict[Path, set[str]],
    spare: Path | None = None,
    made: frozenset[Path] | set[Path] = frozenset(),
) -> list[Path]:
    """Remove the staging files killed runs left in `folders` (each with the names of the
    files nightly writes there): named `.NAME.XXXXXXXX.tmp`, older than GRACE and locked by
    no process. A run folder a killed run made (`made`: the report folders nightly names, never
    a folder the user made, such as the metrics file's) and left holding only such files goes
    too (never `spare`, tonight's). Returns what was removed."""
    now = time.time()
    removed: list[Path] = []
    for folder, names in folders.items():
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        mine = []
        for entry in entries:
            match = _STAGING.fullmatch(entry.name)
            if match is None or match["name"] not in names:
                continue
            path = Path(entry.path)
            if _stale(path, now) and _removed(path):
                mine.append(path)
        removed += mine
        if mine and folder != spare and folder in made:  # a run folder under reports/
            with contextlib.suppress(OSError):  # not empty: a report or someone's file is there
                folder.rmdir()
                removed.append(folder)
    return removed


def _removed(path: Path) -> bool:
    """Unlink `path`; one that cannot be (a read-only folder) is left: it never fails a night."""
    try:
        path.unlink()
    except OSError:  # FileNotFoundError too: another night removed it first
        return False
    return True


def _stale(path: Path, now: float) -> bool:
    """Whether the staging entry `path` was left by a run that is no longer alive."""
    try:
        info = path.lstat()
    except OSError:
        return False
    if not stat.S_ISLNK(info.st_mode):
        return abandoned(path, now, GRACE)  # a regular file, old and locked by no process
    # a staged `latest`, which cannot be locked: alive while its folder's files are held
    if now - max(info.st_mtime, info.st_ctime) < GRACE:
        return False
    try:
        name = os.readlink(path)
    except OSError:
        return False
    if "/" in name or name in ("", ".", ".."):
        return False  # not one nightly makes: left alone
    return not _holds_a_live_file(path.parent / name)


def _holds_a_live_file(folder: Path) -> bool:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return False
    return any(e.is_file(follow_symlinks=False) and held_by_someone(Path(e.path)) for e in entries)
