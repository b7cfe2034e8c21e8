"""The one registry shape for platforms, report formats and rules: named entries in catalog order.

Each name is registered once; a failed lookup names what exists; a *reserved* name (a removed
rule's code) can never be registered again, so a code keeps one meaning for as long as reports,
baselines and suppressions may hold it. Imports nothing of the project: every layer can use it,
and the CLI can list names at start-up without importing what they name.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Generic, TypeVar

T = TypeVar("T")


class UnknownName(ValueError):
    """A lookup of a name the registry does not hold (the message lists the valid ones)."""


class Registry(Generic[T]):
    """Entries of one kind (`what`: "platform", "report format", "rule"), by name, in order."""

    def __init__(
        self, what: str, entries: Iterable[tuple[str, T]], reserved: Mapping[str, str] | None = None
    ) -> None:
        self.what = what
        self.reserved: dict[str, str] = dict(reserved or {})
        """Names that can never be used again, with why (`removed in 0.9: ...`)."""
        self._entries: dict[str, T] = {}
        for name, entry in entries:
            self._add(name, entry)
        self.names: tuple[str, ...] = tuple(self._entries)

    def _add(self, name: str, entry: T) -> None:
        if name in self._entries:
            raise ValueError(f"{self.what} '{name}' is registered twice")
        if name in self.reserved:
            raise ValueError(
                f"{self.what} '{name}' is reserved ({self.reserved[name]}): "
                f"a removed {self.what} is never reused"
            )
        self._entries[name] = entry

    def get(self, name: str) -> T | None:
        """The entry named `name`, or None."""
        return self._entries.get(name)

    def __getitem__(self, name: str) -> T:
        entry = self._entries.get(name)
        if entry is not None:
            return entry
        if name in self.reserved:
            raise UnknownName(f"{self.what} '{name}' was removed: {self.reserved[name]}")
        raise UnknownName(f"unknown {self.what} '{name}': choose one of {', '.join(self.names)}")

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[T]:
        return iter(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)
