"""The tree the NVUE readers walk: nodes that remember the line they start on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Scalar = str | int | float | bool | None


@dataclass(slots=True)
class Item:
    """One node: a mapping (`dict[str, Item]`), a sequence (`list[Item]`) or a scalar; `line` is 1-based
    (the line of the key for mapping values)."""

    value: Any
    line: int

    def get(self, key: str) -> Item | None:
        """The child `key` of a mapping (None when absent or when this is not a mapping)."""
        return self.value.get(key) if isinstance(self.value, dict) else None

    def items(self) -> list[tuple[str, Item]]:
        """Children of a mapping as (key, item); [] for anything else."""
        return list(self.value.items()) if isinstance(self.value, dict) else []

    @property
    def is_map(self) -> bool:
        """True for a mapping."""
        return isinstance(self.value, dict)
