"""The Rule base class and the context every rule reads (fabric, intent, parsed device states)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from fabriclint.models.common import Source
from fabriclint.models.finding import Finding
from fabriclint.models.intent import CnpClass, Intent, Profile, RoceClass
from fabriclint.models.inventory import Inventory
from fabriclint.models.policy import Severity
from fabriclint.models.resolve import Resolution, effective_qos, resolve_qos
from fabriclint.models.state import DeviceState, Interface, QosConfig
from fabriclint.rules.coverage import needs


class NoOptions(BaseModel):
    """A rule without options."""

    model_config = ConfigDict(extra="forbid", defer_build=True)  # as StrictOptions


OptionsT = TypeVar("OptionsT", bound=BaseModel)

Stage = Literal["rules", "drift", "suppress", "report"]
"""The engine stage that produces a rule's findings (engine.py): most rules are evaluated by the
rules stage through `check`; DRIFT001/DRIFT002 by the drift stage, the SUP rules by the
suppression stage and INTERNAL001 by the report stage, each through the rule's own method."""


@dataclass
class Context:
    """What rules see: the inventory, intent, and the parsed state of every complete device."""

    inventory: Inventory
    intent: Intent | None
    states: dict[str, DeviceState]
    skipped: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    """Rule code -> missing input -> devices the rule could not evaluate (reported as coverage)."""
    missing: dict[str, str] = field(default_factory=dict)
    """Inventory devices with no usable data in the snapshot -> why (DRIFT003)."""
    status: dict[str, str] = field(default_factory=dict)
    """Inventory device -> status word for the report (ok, unreachable, missing, unsupported, ...)."""
    outside: dict[str, str] = field(default_factory=dict)
    """Inventory devices deliberately left out of this check -> why (status not-checked)."""
    partial: set[str] = field(default_factory=set)
    """Inventory devices a selection left out (--limit, FILES, --changed-since)."""
    unexpected: dict[str, str] = field(default_factory=dict)
    """Snapshot devices the inventory does not list -> their platform (DRIFT004)."""
    cabled_count: dict[str, int] = field(default_factory=dict)
    """Device -> how many link ends the cabling plan gives it (set while reading devices)."""
    unverified: dict[str, list[str]] = field(default_factory=dict)
    """Device -> snapshot files its manifest lists without a sha256 (PARSE004)."""
    locate_link_end: Callable[[int, str], Source | None] | None = None
    """(link index, 'a'|'b') -> its line in inventory.yaml (lazy: positions cost a re-read)."""
    memo: dict[Any, Any] = field(default_factory=dict)
    """Results rules share within one run."""

    def __post_init__(self) -> None:
        self._peers = self.inventory.peers()
        self._ports: dict[str, list[str]] = {}
        for dev, port in sorted(self._peers):
            self._ports.setdefault(dev, []).append(port)
        self._qos: dict[tuple[str, str | None], QosConfig] = {}

    def skip(self, code: str, device: str, missing: str | None = None) -> None:
        """Record that `code` could not be evaluated on `device` for lack of `missing` (by
        default the input the rule needs, from rules/coverage.py)."""
        why = missing or needs(code)
        self.skipped.setdefault(code, {}).setdefault(why, set()).add(device)

    def skipped_on(self, code: str) -> set[str]:
        """Devices `code` was not (fully) evaluated on, whatever input they lacked."""
        return set().union(*self.skipped.get(code, {}).values())

    def profile(self, device: str) -> Profile | None:
        """The intent profile that applies to `device`, if any."""
        if self.intent is None:
            return None
        inv = self.inventory.devices.get(device)
        role = inv.role if inv else None
        return self.intent.profile_for(device, role)

    def roce(self, device: str) -> RoceClass | None:
        """The RoCE class intended for `device`."""
        prof = self.profile(device)
        return prof.roce if prof else None

    def cnp(self, device: str) -> CnpClass | None:
        """The CNP class intended for `device`."""
        prof = self.profile(device)
        return prof.cnp if prof else None

    def link_source(self, device: str, port: str) -> Source | None:
        """Where the cabling plan names device:port (inventory.yaml line), when known."""
        if self.locate_link_end is None:
            return None
        for index, link in enumerate(self.inventory.links):
            for side, end in zip(("a", "b"), link.ends(), strict=True):
                if end == (device, port):
                    return self.locate_link_end(index, side)
        return None

    def peer(self, device: str, port: str) -> tuple[str, str] | None:
        """(device, port) at the other end of the cable plugged into device:port."""
        return self._peers.get((device, port))

    def rdma_ports(self, state: DeviceState) -> list[Interface]:
        """Ports of `state` in the cabling plan (they carry RDMA), in name order."""
        names = self._ports.get(state.name, [])
        return [state.interfaces[n] for n in names if n in state.interfaces]

    def cabled_ports(self, device: str) -> list[str]:
        """Names of all ports of `device` in the cabling plan, present in the state or not."""
        return list(self._ports.get(device, []))

    def qos(self, state: DeviceState, port: str | None) -> QosConfig:
        """Effective QoS of a port (memoized: rules ask for the same port many times)."""
        key = (state.name, port)
        found = self._qos.get(key)
        if found is None:
            found = self._qos[key] = effective_qos(state, port)
        return found

    def resolve(self, state: DeviceState, port: str | None, dscp: int) -> Resolution:
        """Resolve a DSCP on a port (see models/resolve.py)."""
        return resolve_qos(self.qos(state, port), dscp)

    def links(self) -> Iterator[tuple[tuple[str, str], tuple[str, str]]]:
        """Every cable whose both ends were parsed, as ((dev, port), (dev, port))."""
        for link in self.inventory.links:
            a, b = link.ends()
            if a[0] in self.states and b[0] in self.states:
                yield a, b


class Rule(ABC, Generic[OptionsT]):
    """A check. Subclasses set the class attributes, an `Options` model, and `check`."""

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    summary: ClassVar[str]
    options_model: ClassVar[type[BaseModel]] = NoOptions
    stage: ClassVar[Stage] = "rules"
    """The engine stage that reports this rule (only "rules" rules are run through `check`)."""
    deprecated: ClassVar[str | None] = None
    """Set when the rule is deprecated: why, and what to use instead (rules/registry.py)."""
    kinds: ClassVar[frozenset[str] | None] = None
    """The device kinds (switch, host, subnet-manager) the rule judges when it judges only
    some: a fabric with none of them gives it nothing to check (None: any fabric)."""
    command: ClassVar[str | None] = None
    """The command that feeds this rule its data when it is not `check` (`counters`, `bench
    judge`): `check` runs it on nothing, so a selection of only such rules checks nothing."""

    def __init__(self, options: OptionsT, severity: Severity | None = None) -> None:
        self.options = options
        self.effective_severity: Severity = severity or self.severity

    @abstractmethod
    def check(self, ctx: Context) -> Iterator[Finding]:
        """Yield findings."""

    def finding(
        self,
        device: str | None,
        obj: str,
        path: str,
        message: str,
        *,
        expected: Any = None,
        actual: Any = None,
        source: Source | None = None,
        severity: Severity | None = None,
    ) -> Finding:
        """Build a Finding of this rule."""
        return Finding(
            rule=self.code,
            name=self.name,
            severity=severity or self.effective_severity,
            device=device,
            object=obj,
            path=path,
            expected=expected,
            actual=actual,
            message=message,
            source=source,
        )
