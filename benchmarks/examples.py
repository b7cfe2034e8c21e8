"""Writing an example fabric's two snapshots and its FAULTS.md (shared by scripts/gen_*.py)."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from fabriclint.snapshot import write_snapshot

Devices = Mapping[str, tuple[str, dict[str, str]]]
HEADER = ["", "| rule | device | object | change |", "|---|---|---|---|"]


Model = TypeVar("Model")


@dataclass(frozen=True)
class Fault(Generic[Model]):
    """One seeded fault: the rule that must report it, where, what was changed, and the change
    applied to the example's model (a fabric, a pod, a cluster)."""

    rule: str
    device: str
    object: str
    change: str
    apply: Callable[[Model], None]


def set_fields(obj: object, **values: object) -> None:
    """Set attributes of a generated device (a seeded fault's change)."""
    for key, value in values.items():
        setattr(obj, key, value)


class FaultRow(Protocol):
    """A seeded fault as FAULTS.md lists it."""

    @property
    def rule(self) -> str: ...
    @property
    def device(self) -> str: ...
    @property
    def object(self) -> str: ...
    @property
    def change(self) -> str: ...


def faults_markdown(intro: list[str], faults: Iterable[FaultRow]) -> str:
    """`# Faults seeded in broken`, the intro lines, then one table row per fault."""
    lines = ["# Faults seeded in `broken`", "", *intro, *HEADER]
    lines += [f"| {f.rule} | {f.device} | {f.object} | {f.change} |" for f in faults]
    return "\n".join(lines) + "\n"


def write_pair(snapshots: Path, baseline: Devices, broken: Devices, faults_md: str) -> None:
    """(Re)write `baseline` and `broken` under `snapshots`, then broken/FAULTS.md."""
    for name, devices in (("baseline", baseline), ("broken", broken)):
        target = snapshots / name
        if target.exists():
            shutil.rmtree(target)
        write_snapshot(target, dict(devices), source="candidate")
    (snapshots / "broken" / "FAULTS.md").write_text(faults_md, encoding="utf-8")
