"""Deliver a night all or nothing: every file it writes (report.json, report.md, index.html,
`reports/latest`, the metrics textfile) is first staged as a temporary file beside its target,
inside the history's transaction; only when all are staged are they renamed into place, and
only then does the night commit.

A file that cannot be written (a full disk, a folder where the file should be, a read-only
mount) therefore fails the night before anything is visible: the history is rolled back, the
temporary files and the folders made for them are removed, and the next night compares with
the last night that was delivered. Without this, a night recorded but never reported would
have its new findings counted as `persisting` the next night: the alert would be lost.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from fabriclint.snapshot import write_temp


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


@dataclass
class Staged:
    """The temporary files staged so far, each with the file it will replace."""

    moves: list[tuple[Path, Path]] = field(default_factory=list)
    created: list[Path] = field(default_factory=list)
    """Folders made for the staged files, outermost first (removed again on discard)."""

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
            tmp = write_temp(target, data)
        except OSError as exc:
            raise DeliveryError(f"{path}: cannot write: {exc.strerror or exc}") from None
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
                tmp.write_text(name + "\n")
        except OSError as exc:
            raise DeliveryError(f"{link}: cannot write: {exc.strerror or exc}") from None
        self.moves.append((tmp, link))

    def publish(self) -> None:
        """Rename every staged file into place (what was staged has been checked replaceable)."""
        while self.moves:
            tmp, target = self.moves[0]
            try:
                os.replace(tmp, target)
            except OSError as exc:
                raise DeliveryError(f"{target}: cannot write: {exc.strerror or exc}") from None
            self.moves.pop(0)
        self.created.clear()

    def discard(self) -> None:
        """Remove what is still staged and the folders made for it (when left empty)."""
        for tmp, _ in self.moves:
            tmp.unlink(missing_ok=True)
        self.moves.clear()
        for folder in reversed(self.created):
            with contextlib.suppress(OSError):  # something else was put there: not ours
                folder.rmdir()
        self.created.clear()
