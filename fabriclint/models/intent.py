"""Intent: the settings a fabric should have, in fabric terms, not vendor terms (intent.yaml)."""

from typing import Literal

from pydantic import Field, model_validator

from fabriclint.models.ib import IbIntent
from fabriclint.models.inventory import Strict
from fabriclint.models.types import Bytes, Dscp, Millis, Mtu, Percent, Priority, RoceMtu

RoceMode = Literal["lossless", "lossy"]
"""How the network protects RoCE: `lossless` (PFC on its priority, ECN/DCQCN on top) or `lossy`
(ECN/DCQCN only, no PFC: NVIDIA's `qos roce mode lossy`, the ECN-only designs of many AI fabrics)."""


class RoceClass(Strict):
    """The RDMA (RoCE v2) traffic class."""

    dscp: list[Dscp] = Field(min_length=1)
    """DSCP values RoCE traffic carries (26 in NVIDIA's defaults)."""
    priority: Priority
    """802.1p priority RoCE maps to (and, in `lossless` mode, PFC protects)."""
    mode: RoceMode = "lossless"
    """`lossless`: PFC must be on the RoCE priority (PFC002) and ECN on lossless queues (ECN001).
    `lossy`: ECN marking on the RoCE queue is mandatory (ECN005) and PFC on the RoCE priority is
    a finding (PFC009); CNP handling (QOS004, NIC003) is judged either way. Mixed fabrics give
    each role a profile of its own mode. A lossy profile must not list the RoCE priority in
    `pfc.priorities` (`validate` refuses it); a lossless one must."""


class CnpClass(Strict):
    """Congestion notification packets (DCQCN)."""

    dscp: Dscp
    """DSCP of CNPs (48 in NVIDIA's defaults)."""
    priority: Priority
    """802.1p priority of CNPs."""
    strict: bool = True
    """Whether CNPs must be served by a strict-priority queue."""


class Watchdog(Strict):
    """Intended PFC watchdog."""

    enabled: bool = True
    """Whether the watchdog must be on wherever PFC is on."""
    detection_ms: Millis | None = None
    """Expected detection time (ms)."""
    restoration_ms: Millis | None = None
    """Expected restoration time (ms)."""


class PfcIntent(Strict):
    """Intended PFC."""

    priorities: list[Priority]
    """The lossless priorities; every RDMA-carrying port has PFC on exactly these."""
    watchdog: Watchdog | None = None
    """Watchdog expectations."""


class EcnIntent(Strict):
    """Intended ECN marking on the RoCE queue."""

    min_bytes: Bytes
    """Minimum threshold in bytes."""
    max_bytes: Bytes
    """Maximum threshold in bytes."""
    probability_pct: Percent | None = None
    """Marking probability at the maximum threshold."""
    tolerance_pct: Percent = 0
    """Accepted relative difference (switch ASICs round thresholds to cells)."""
    tolerance_bytes: Bytes = 0
    """Accepted absolute difference in bytes (used when larger than the percent)."""

    @model_validator(mode="after")
    def _order(self) -> "EcnIntent":
        if self.min_bytes > self.max_bytes:
            raise ValueError("min_bytes must not exceed max_bytes")
        return self


class QueueIntent(Strict):
    """Intended scheduling of one traffic class's queue."""

    mode: Literal["strict", "dwrr", "ets"]
    """Scheduler mode."""
    weight: Percent | None = None
    """Weight/percent for weighted modes."""


class MtuIntent(Strict):
    """Intended MTUs."""

    switch_port: Mtu | None = None
    """MTU of switch ports in the cabling plan."""
    host: Mtu | None = None
    """MTU of host RDMA netdevs."""
    roce: RoceMtu | None = None
    """Active RoCE/IB MTU of host NIC ports."""


class Profile(Strict):
    """A named set of intended settings. Every section is optional: only what is declared is checked."""

    description: str | None = None
    """Free text."""
    trust: Literal["dscp", "pcp", "both"] | None = None
    """Trust mode for RDMA-carrying ports (switch ports and NICs)."""
    roce: RoceClass | None = None
    """The RoCE class."""
    cnp: CnpClass | None = None
    """The CNP class."""
    pfc: PfcIntent | None = None
    """PFC."""
    ecn: EcnIntent | None = None
    """ECN thresholds on the RoCE queue."""
    scheduler: dict[Priority, QueueIntent] | None = None
    """Scheduling by the priority whose queue it is."""
    mtu: MtuIntent | None = None
    """MTUs."""
    infiniband: IbIntent | None = None
    """InfiniBand: subnet-manager settings, HCA expectations, partitions."""

    @property
    def lossy(self) -> bool:
        """Whether RoCE runs lossy (ECN only, no PFC) under this profile."""
        return self.roce is not None and self.roce.mode == "lossy"


class RoleIntent(Strict):
    """What a role uses."""

    profile: str
    """Name of the profile devices of this role follow."""


class DeviceIntent(Strict):
    """Per-device choice of profile and overrides."""

    profile: str | None = None
    """Profile to use instead of the role's."""
    overrides: Profile | None = None
    """Sections that replace those of the profile for this device."""


class Intent(Strict):
    """intent.yaml."""

    profiles: dict[str, Profile]
    """Named profiles."""
    roles: dict[str, RoleIntent] = Field(default_factory=dict)
    """Role name -> profile."""
    devices: dict[str, DeviceIntent] = Field(default_factory=dict)
    """Per-device profile choice and overrides."""

    def profile_for(self, device: str, role: str | None) -> Profile | None:
        """The effective profile of a device: its own or its role's, with overrides applied."""
        chosen = self.devices.get(device)
        name = chosen.profile if chosen and chosen.profile else None
        if name is None and role is not None and role in self.roles:
            name = self.roles[role].profile
        base = self.profiles.get(name) if name else None
        if chosen is None or chosen.overrides is None:
            return base
        merged = base.model_copy() if base else Profile()
        for field in chosen.overrides.model_fields_set:
            setattr(merged, field, getattr(chosen.overrides, field))
        return merged
