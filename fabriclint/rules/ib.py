"""IB rules (placeholder until the InfiniBand family is written)."""

from __future__ import annotations

from typing import Any

from fabriclint.rules.base import Rule

RULES: list[type[Rule[Any]]] = []
