"""Working state of the EOS parser: what one pass over the running-config collects."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

from fabriclint.models.common import Source, make_source
from fabriclint.models.state import (
    Definition,
    PfcWatchdog,
    QosConfig,
    QueueConfig,
    Reference,
    Trust,
    Unparsed,
)

T = TypeVar("T")

At = tuple[T, Source]
"""A value and the line it was written on."""

Lined = tuple[int, int]
"""A number and the line number it was written on (its Source is made only when used)."""


@dataclass(slots=True)
class Scope:
    """QoS (and port) settings written in one place: a `qos profile` or an `interface` block."""

    kind: str
    """'profile' or 'interface'."""
    name: str
    source: Source
    """The block's first line."""
    trust: At[Trust] | None = None
    queues: dict[int, QueueConfig] = field(default_factory=dict)
    pfc_on: At[bool] | None = None
    pfc_prio: dict[int, At[bool]] = field(default_factory=dict)
    """Priority -> no-drop (True) or drop (False)."""
    wd_on: At[bool] | None = None
    wd_detect: At[float] | None = None
    wd_restore: At[float] | None = None
    wd_action: At[str] | None = None
    policy: At[str] | None = None
    """`service-policy type qos input NAME`."""
    profile: At[str] | None = None
    """`service-profile NAME` (interfaces only)."""
    mtu: Lined | None = None
    l2_mtu: Lined | None = None
    shutdown: At[bool] | None = None
    routed: At[bool] | None = None
    speed: Lined | None = None
    channel_group: int | None = None


# Fields merged "last layer wins" when a profile and an interface both set them.
SCALAR_FIELDS = (
    "trust",
    "pfc_on",
    "wd_on",
    "wd_detect",
    "wd_restore",
    "wd_action",
    "policy",
    "profile",
)


@dataclass(slots=True)
class Draft:
    """Everything collected from one device's outputs before the DeviceState is built."""

    file: str
    dscp: dict[int, list[At[int]]] = field(default_factory=dict)
    cos: dict[int, list[At[int]]] = field(default_factory=dict)
    tc_queue: dict[int, list[At[int]]] = field(default_factory=dict)
    pfc_all_off: Source | None = None
    wd_detect: At[float] | None = None
    wd_restore: At[float] | None = None
    wd_action: At[str] | None = None
    profiles: dict[str, Scope] = field(default_factory=dict)
    interfaces: dict[str, Scope] = field(default_factory=dict)
    definitions: list[Definition] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    unparsed: list[Unparsed] = field(default_factory=list)
    os_version: str | None = None
    version_source: Source | None = None
    facts: dict[str, str] = field(default_factory=dict)
    default: Source = field(init=False)
    """Source of platform defaults: the running-config file, no line."""
    watchdogs: dict[tuple[int, ...], PfcWatchdog] = field(default_factory=dict)
    """Watchdog objects already built, by the identity of the settings they come from."""

    shared_qos: dict[tuple[object, ...], QosConfig | None] = field(default_factory=dict)
    """Per-port QoS of ports that only inherit settings, by what they inherit."""

    def __post_init__(self) -> None:
        self.default = Source(file=self.file)

    lines: dict[int, Source] = field(default_factory=dict)
    """Sources already made, by line (a line often carries several values)."""

    def at(self, line: int) -> Source:
        """The source of `line` in the running-config."""
        found = self.lines.get(line)
        if found is None:
            found = self.lines[line] = make_source(self.file, line)
        return found

    def skip(self, text: str, reason: str, line: int) -> None:
        """Report a QoS-relevant line that is not modeled (PARSE001)."""
        self.unparsed.append(Unparsed(text=text, reason=reason, source=self.at(line)))

    def define(self, kind: str, name: str, line: int) -> None:
        """Record a named object the configuration defines."""
        self.definitions.append(Definition(kind=kind, name=name, source=self.at(line)))

    def refer(self, kind: str, name: str, by: str, line: int) -> None:
        """Record a use of a named object."""
        self.references.append(Reference(kind=kind, name=name, by=by, source=self.at(line)))
