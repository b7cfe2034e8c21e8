"""Working state of the Cumulus parser: what every input (NVUE, traffic.conf, NCLU, `nv show qos
roce`) contributes, before it becomes a DeviceState."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

from fabriclint.models.common import Source
from fabriclint.models.state import InputProblem
from fabriclint.parsers.cumulus.layers import At, Parts
from fabriclint.parsers.kit.draft import BaseDraft
from fabriclint.parsers.kit.vlans import Vlans

# Kinds of the named profiles (NVUE profiles, traffic.conf port groups). QOS006 checks kinds
# containing "profile"; the ones below the line only feed definitions/references.
MAPPING = "mapping-profile"
PFC = "pfc-profile"
CONGESTION = "congestion-control-profile"
SCHEDULER = "egress-scheduler-profile"
WATCHDOG = "pfc-watchdog-profile"
QUEUE_MAP = "egress-queue-mapping-profile"
SHAPER = "egress-shaper-profile"
PAUSE = "link-pause-profile"
REMARK = "remark-profile"

# The profile NVUE applies to every port that names no other one.
GLOBAL = "default-global"


@dataclass
class PortDraft:
    """What the inputs say about one interface."""

    name: str
    source: Source
    mtu: At[int] | None = None
    admin_up: At[bool] | None = None
    speed: At[int] | None = None
    routed: At[bool] | None = None
    uses: dict[str, At[str]] = field(default_factory=dict)
    """Profile kind -> (profile name, where the port is attached to it)."""
    watchdog: At[bool] | None = None
    """PFC watchdog turned on/off on this port."""
    vlans: At[Vlans] | None = None
    """VLANs a bridge port carries (NVUE `bridge: domain:`)."""
    channel: At[str] | None = None
    """The bond this port is a member of (NVUE `bond: member:`)."""


@dataclass
class Draft(BaseDraft):
    """Everything collected from the inputs of one device (`file`: the first input file, the
    source of defaults no input line implies). Places are Sources: the inputs are several files."""

    STRIP: ClassVar[bool] = True
    defaults: list[Parts] = field(default_factory=list)
    """Platform and RoCE defaults, lowest first (per-port profiles stack on these)."""
    config: list[Parts] = field(default_factory=list)
    """Device-wide written settings and operational state, lowest first."""
    profiles: dict[str, dict[str, Parts]] = field(default_factory=dict)
    """Kind -> profile name -> its settings."""
    ports: dict[str, PortDraft] = field(default_factory=dict)
    styles: dict[str, str] = field(default_factory=dict)
    """Configuration style read successfully ("nvue", "legacy") -> its first file: the platform
    defaults of that style apply."""
    roce: At[str] | None = None
    """RoCE mode and where it is turned on."""
    watchdog_all: At[bool] | None = None
    """PFC watchdog on every port (a legacy `pfc_watchdog` group on `allports`)."""
    poll: At[float] | None = None
    robustness: At[int] | None = None
    facts: dict[str, str] = field(default_factory=dict)
    os_version: At[str] | None = None
    problems: list[InputProblem] = field(default_factory=list)

    def port(self, name: str, src: Source) -> PortDraft:
        """The draft of interface `name` (created at `src` on first mention)."""
        found = self.ports.get(name)
        if found is None:
            found = self.ports[name] = PortDraft(name, src)
        return found

    def problem(
        self, kind: Literal["duplicate-key", "unparseable"], message: str, src: Source
    ) -> None:
        """Record an input problem (duplicate-key: PARSE002, unparseable: PARSE003)."""
        self.problems.append(InputProblem(kind=kind, message=message, source=src))
