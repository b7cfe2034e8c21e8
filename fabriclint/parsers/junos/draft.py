"""Working state of the Junos parser: what one pass over the statements records.

Values are kept with their line numbers; Sources are made when the DeviceState is built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, NamedTuple, TypeVar

from fabriclint.models.common import Source
from fabriclint.parsers.kit.draft import BaseDraft, Where

T = TypeVar("T")


class Lined(NamedTuple, Generic[T]):
    """A value and the line it was written on."""

    value: T
    line: int | None
    """None for a platform default."""


@dataclass(slots=True)
class Unit:
    """One logical unit of an interface (`unit 0 { family inet { mtu 9170; } }`)."""

    inet: int | None = None
    """Line of `family inet` (the unit routes IPv4)."""
    inet_mtu: Lined[int] | None = None
    switching: int | None = None
    """Line of `family ethernet-switching` (or `bridge`): the unit bridges."""
    members: list[Lined[str]] = field(default_factory=list)
    """`family ethernet-switching vlan members` as written: VLAN names, ids, ranges, `all`."""


@dataclass(slots=True)
class Port:
    """A physical interface under `interfaces`."""

    name: str
    line: int
    mtu: Lined[int] | None = None
    disable: int | None = None
    speed: Lined[int] | None = None
    tagging: int | None = None
    """Line of `vlan-tagging` / `flexible-vlan-tagging` (adds a 4-byte tag to the overhead)."""
    bundle: Lined[str] | None = None
    """The aggregated interface (`ether-options 802.3ad ae1`) this port is a member of."""
    units: dict[str, Unit] = field(default_factory=dict)


@dataclass(slots=True)
class Vlan:
    """`vlans NAME`: its 802.1Q id and the `irb` unit that routes it (`l3-interface irb.10`)."""

    name: str
    vlan_id: Lined[int] | None = None
    l3: Lined[str] | None = None


@dataclass(slots=True)
class Instance:
    """`routing-instances NAME`: its `instance-type`, its own `vlans` and the units it lists
    (`interface et-0/0/1.0`), whose `vlan members` name those VLANs."""

    name: str
    kind: str | None = None
    vlans: dict[str, Vlan] = field(default_factory=dict)
    units: set[str] = field(default_factory=set)


L2_INSTANCES = frozenset({"mac-vrf", "virtual-switch"})
"""Instance types that bridge their own VLANs (Juniper, "MAC-VRF Routing Instance Type
Overview" for EVPN-VXLAN; `virtual-switch`, the type it replaces): their `vlans` are VLANs of
the switch like the top-level ones."""


@dataclass(slots=True)
class Classifier:
    """`classifiers (dscp|dscp-ipv6|ieee-802.1) NAME`."""

    kind: str
    name: str
    line: int
    entries: list[tuple[str, str, str, int]] = field(default_factory=list)
    """(forwarding class, loss priority, code point as written, line), in order."""
    imports: Lined[str] | None = None


@dataclass(slots=True)
class ForwardingClass:
    """`forwarding-classes class NAME queue-num N [no-loss] [pfc-priority P]`."""

    name: str
    line: int | None
    """None for the platform's default classes."""
    queue: Lined[int] | None = None
    no_loss: int | None = None
    pfc_priority: Lined[int] | None = None


@dataclass(slots=True)
class Cnp:
    """`congestion-notification-profile NAME`."""

    name: str
    line: int
    input_pcp: list[Lined[str]] = field(default_factory=list)
    """Code points (as written) of `input ieee-802.1 code-point X pfc`."""
    input_dscp: list[Lined[str]] = field(default_factory=list)
    """Code points (as written) of `input dscp code-point X pfc` (DSCP-based PFC)."""
    output: list[tuple[str, int, int]] = field(default_factory=list)
    """(code point, queue, line) of `output ieee-802.1 code-point X flow-control-queue Q`."""
    watchdog: int | None = None
    """Line of `pfc-watchdog`."""
    watchdog_options: dict[str, Lined[str]] = field(default_factory=dict)


@dataclass(slots=True)
class DropProfile:
    """`drop-profiles NAME`: fill levels (percent of the queue buffer) and probabilities."""

    name: str
    line: int
    fill: Lined[list[float]] | None = None
    probability: Lined[list[float]] | None = None
    points: list[tuple[float, float, int]] = field(default_factory=list)
    """Segmented form: (fill level, probability, line)."""


@dataclass(slots=True)
class Scheduler:
    """`schedulers NAME`."""

    name: str
    line: int
    rate: Lined[float] | None = None
    priority: Lined[str] | None = None
    drops: list[tuple[str, str, int]] = field(default_factory=list)
    """(loss priority, drop profile, line) of each `drop-profile-map`."""
    ecn: int | None = None
    """Line of `explicit-congestion-notification`."""


@dataclass(slots=True)
class SchedulerMap:
    """`scheduler-maps NAME forwarding-class FC scheduler S`."""

    name: str
    line: int
    entries: dict[str, Lined[str]] = field(default_factory=dict)


ALL_INTERFACES = "all"
"""`class-of-service interfaces all`: every interface (Juniper: a congestion notification profile
or forwarding class set can be assigned globally to all interfaces)."""


@dataclass(slots=True)
class CosPort:
    """`class-of-service interfaces NAME` (NAME may be a wildcard such as `et-*`)."""

    name: str
    line: int
    classifiers: dict[str, list[tuple[str, Lined[str]]]] = field(default_factory=dict)
    """Classifier type -> [(unit, name)]; unit '' = on the physical interface."""
    cnp: Lined[str] | None = None
    scheduler_map: Lined[str] | None = None
    rewrite: Lined[str] | None = None
    """`unit U rewrite-rules dscp NAME` (the first unit of `_UNIT_ORDER` wins, as classifiers)."""
    applied: tuple[list[str], Source | None] | None = None
    """Names applied and the first line applying one (computed once, shared by its ports)."""
    key: str = ""
    """For a port's effective block merged from several (junos/assemble.py): the blocks it came
    from, e.g. `et-0/0/1|et-*` (ports with the same key share one QosConfig); '' otherwise."""
    classifier_blocks: dict[str, str] = field(default_factory=dict)
    """Classifier type -> name of the block that applies it (merged blocks only)."""

    @property
    def wildcard(self) -> bool:
        """True for `et-*`, `xe-0/0/*` and `all`: blocks that name no single port."""
        return "*" in self.name or self.name == ALL_INTERFACES


@dataclass(slots=True)
class Draft(BaseDraft):
    """Everything collected from one configuration before the DeviceState is built. A named
    object is defined once (its first line) and referred to once per user."""

    version: Lined[str] | None = None
    facts: dict[str, str] = field(default_factory=dict)
    ports: dict[str, Port] = field(default_factory=dict)
    vlans: dict[str, Vlan] = field(default_factory=dict)
    """Top-level `vlans` by name (a MAC-VRF routing instance's own are in `instances`)."""
    instances: dict[str, Instance] = field(default_factory=dict)
    """`routing-instances` by name (only their type, VLANs and units are read)."""
    classifiers: dict[tuple[str, str], Classifier] = field(default_factory=dict)
    aliases: dict[tuple[str, str], int] = field(default_factory=dict)
    classes: dict[str, ForwardingClass] = field(default_factory=dict)
    cnps: dict[str, Cnp] = field(default_factory=dict)
    drop_profiles: dict[str, DropProfile] = field(default_factory=dict)
    schedulers: dict[str, Scheduler] = field(default_factory=dict)
    scheduler_maps: dict[str, SchedulerMap] = field(default_factory=dict)
    cos_ports: dict[str, CosPort] = field(default_factory=dict)
    rewrites: dict[str, list[tuple[str, str, str, int]]] = field(default_factory=dict)
    """`rewrite-rules dscp NAME forwarding-class FC loss-priority LP code-point CP`:
    name -> [(FC, LP, CP, line)]."""
    buffers: dict[str, Lined[float]] = field(default_factory=dict)
    """Ingress shared-buffer partition (lossless, lossless-headroom) -> percent."""
    _refs: set[tuple[str, str, str]] = field(default_factory=set)
    _defined: set[tuple[str, str]] = field(default_factory=set)

    def define(self, kind: str, name: str, place: Where) -> None:
        """Record a named object the configuration defines (its first line)."""
        if (kind, name) not in self._defined:
            self._defined.add((kind, name))
            BaseDraft.define(self, kind, name, place)

    def refer(self, kind: str, name: str, by: str, place: Where) -> None:
        """Record a use of a named object (once per object and user)."""
        if (kind, name, by) not in self._refs:
            self._refs.add((kind, name, by))
            BaseDraft.refer(self, kind, name, by, place)
