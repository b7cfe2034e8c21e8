"""Working state of the EOS parser: what one pass over the running-config records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

from fabriclint.models.common import Source
from fabriclint.models.state import PfcWatchdog, QosConfig, QueueConfig, Trust
from fabriclint.parsers.kit.draft import BaseDraft
from fabriclint.parsers.kit.vlans import L2Port

T = TypeVar("T")

At = tuple[T, Source]
"""A value and the line it was written on."""

Lined = tuple[int, int]
"""A number and the line number it was written on (its Source is made only when used)."""


@dataclass(slots=True)
class Layer:
    """QoS (and port) settings written in one place, a `qos profile` or an `interface` block: one
    layer of a port's settings (a port-channel's, a profile's, its own), stacked by eos/qos.merge."""

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
    l2: L2Port = field(default_factory=L2Port)
    """`switchport mode|access vlan|trunk allowed vlan` (interfaces only)."""


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
class Draft(BaseDraft):
    """Everything collected from one device's outputs before the DeviceState is built."""

    dscp: dict[int, list[At[int]]] = field(default_factory=dict)
    cos: dict[int, list[At[int]]] = field(default_factory=dict)
    tc_queue: dict[int, list[At[int]]] = field(default_factory=dict)
    tc_dscp: dict[int, list[At[int]]] = field(default_factory=dict)
    """`qos map traffic-class N to dscp D`: the egress rewrite, in force with `qos rewrite dscp`."""
    rewrite_dscp: Source | None = None
    """`qos rewrite dscp`."""
    pfc_all_off: Source | None = None
    wd_detect: At[float] | None = None
    wd_restore: At[float] | None = None
    wd_action: At[str] | None = None
    profiles: dict[str, Layer] = field(default_factory=dict)
    interfaces: dict[str, Layer] = field(default_factory=dict)
    os_version: str | None = None
    version_source: Source | None = None
    facts: dict[str, str] = field(default_factory=dict)
    watchdogs: dict[tuple[int, ...], PfcWatchdog] = field(default_factory=dict)
    """Watchdog objects already built, by the identity of the settings they come from."""

    shared_qos: dict[tuple[object, ...], QosConfig | None] = field(default_factory=dict)
    """Per-port QoS of ports that only inherit settings, by what they inherit."""
