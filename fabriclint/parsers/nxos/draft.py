"""Working state of the NX-OS parser: what one pass over the running-config records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, TypeVar

from fabriclint.models.state import EcnConfig, QosConfig
from fabriclint.parsers.kit.draft import BaseDraft
from fabriclint.parsers.kit.vlans import L2Port

T = TypeVar("T")

Lined = tuple[T, int]
"""A value and the line number it was written on (its Source is made only when used)."""

# Policy/class types that carry QoS; their definition and reference kinds (see QOS005/QOS006).
QOS, QUEUING, NETWORK_QOS = "qos", "queuing", "network-qos"
POLICY_KIND = {
    QOS: "policy-map",
    QUEUING: "queuing-policy-map",
    NETWORK_QOS: "network-qos-policy-map",
}
CLASS_KIND = {QOS: "class-map", QUEUING: "queuing-class", NETWORK_QOS: "network-qos-class"}


@dataclass(slots=True)
class ClassMap:
    """A `class-map type T [match-any|match-all] NAME` block."""

    kind: str
    name: str
    line: int
    match_any: bool = False
    dscp: list[Lined[list[int]]] = field(default_factory=list)
    cos: list[Lined[list[int]]] = field(default_factory=list)
    qos_group: Lined[int] | None = None
    criteria: int = 0
    """How many `match` lines the class has (match-all of several is reported)."""


@dataclass(slots=True)
class PolicyClass:
    """One `class ...` of a policy-map and the actions under it."""

    name: str
    line: int
    set_qos_group: Lined[int] | None = None
    set_dscp: tuple[int, int, str] | None = None
    """`set dscp D` of a type qos class: (DSCP, line, the line's text). Modelled where the
    policy is bound `output` (an egress rewrite); reported as unparsed where it is not."""
    priority: int | None = None
    """Line of `priority [level N]`."""
    bandwidth: Lined[float] | None = None
    ecn: EcnConfig | None = None
    wred_drop: int | None = None
    """Line of a `random-detect` without `ecn` (WRED drop)."""
    mtu: Lined[int] | None = None
    pause_cos: Lined[list[int]] | None = None
    """`pause pfc-cos L` / `pause no-drop pfc-cos L`: the PFC CoS values of a no-drop class."""
    no_drop: int | None = None
    """Line of `pause no-drop` without `pfc-cos`."""
    buffer: Lined[tuple[int, int, int]] | None = None
    """`pause buffer-size B pause-threshold X resume-threshold Y` in bytes."""


@dataclass(slots=True)
class Policy:
    """A `policy-map type T NAME` block."""

    kind: str
    name: str
    line: int
    classes: list[PolicyClass] = field(default_factory=list)


@dataclass(slots=True)
class Applied:
    """The service-policies, PFC and port lines written for one interface (or `system qos`)."""

    name: str
    line: int
    policies: dict[tuple[str, str], Lined[str]] = field(default_factory=dict)
    """(type, direction) -> policy name: ('qos', 'input'), ('queuing', 'output'), ..."""
    pfc_mode: Lined[str] | None = None
    watchdog: Lined[bool] | None = None
    mtu: Lined[int] | None = None
    shutdown: Lined[bool] | None = None
    routed: Lined[bool] | None = None
    speed: Lined[int] | None = None
    channel_group: int | None = None
    l2: L2Port = field(default_factory=L2Port)
    """`switchport mode|access vlan|trunk allowed vlan`."""


@dataclass(slots=True)
class Watchdog:
    """Global PFC watchdog settings (`priority-flow-control watch-dog...`)."""

    on: Lined[bool] | None = None
    interval: Lined[int] | None = None
    shutdown_multiplier: Lined[int] | None = None
    auto_restore: Lined[int] | None = None
    fixed_restore: Lined[int] | None = None


@dataclass(slots=True)
class Draft(BaseDraft):
    """Everything collected from one device's outputs before the DeviceState is built."""

    STRIP: ClassVar[bool] = True
    class_maps: dict[tuple[str, str], ClassMap] = field(default_factory=dict)
    policies: dict[tuple[str, str], Policy] = field(default_factory=dict)
    system: Applied = field(default_factory=lambda: Applied("system qos", 0))
    watchdog: Watchdog = field(default_factory=Watchdog)
    interfaces: dict[str, Applied] = field(default_factory=dict)
    os_version: Lined[str] | None = None
    facts: dict[str, str] = field(default_factory=dict)
    routed_default: Lined[bool] | None = None
    """`[no] system default switchport`: True when ports are routed by default."""
    switchport_shutdown: Lined[bool] | None = None
    """`[no] system default switchport shutdown`."""
    foreign: Lined[str] | None = None
    """A header line showing the text is another vendor's configuration."""
    recognized: int = 0
    """Top-level statements that are NX-OS syntax (0 = not an NX-OS configuration)."""
    shared_qos: dict[tuple[object, ...], QosConfig | None] = field(default_factory=dict)
    """Per-port QoS already built, by the lines it comes from (ports of one range share it)."""
