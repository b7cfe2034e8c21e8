"""The normalized, vendor-neutral DeviceState every parser produces and every rule reads.

Units are fixed: bytes for sizes and thresholds, milliseconds for times, percent 0-100.
Values outside their protocol range (DSCP > 63, priority > 7) are kept, never dropped, so
rules can report them (QOS003).
"""

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from fabriclint import platforms
from fabriclint.models.common import DEFERRED, Located, Source
from fabriclint.models.ib import InfinibandState
from fabriclint.platforms.base import DeviceKind


class Trust(StrEnum):
    """Which header field a port classifies ingress traffic by."""

    DSCP = "dscp"
    PCP = "pcp"
    BOTH = "both"
    NONE = "none"


class SchedulerMode(StrEnum):
    """How a queue is scheduled at egress."""

    STRICT = "strict"
    DWRR = "dwrr"
    ETS = "ets"


class EcnConfig(Located):
    """ECN marking (WRED with ECN) on one egress queue."""

    enabled: bool = True
    """Whether ECN marking is on for this queue."""
    min_bytes: int | None = None
    """Minimum (start-marking) threshold in bytes, when it could be expressed in bytes."""
    max_bytes: int | None = None
    """Maximum (mark-all) threshold in bytes, when it could be expressed in bytes."""
    min_raw: str | None = None
    """Minimum threshold as configured (e.g. '320 segments'), kept when units differ from bytes."""
    max_raw: str | None = None
    """Maximum threshold as configured."""
    probability_pct: float | None = None
    """Marking probability at the maximum threshold, percent."""


class QueueConfig(Located):
    """One egress queue: scheduling, ECN and WRED drop."""

    queue: int
    """Queue number."""
    scheduler: SchedulerMode | None = None
    """Strict priority or weighted (DWRR/ETS); None when not configured."""
    weight: float | None = None
    """Bandwidth weight or percent for weighted queues."""
    ecn: EcnConfig | None = None
    """ECN marking on this queue; None when not configured."""
    wred_drop: bool = False
    """True when WRED *drop* (not ECN mark) is configured on this queue."""
    mtu: int | None = None
    """Per-class MTU of the class served by this queue, on platforms that have one (NX-OS network-qos)."""


class PfcWatchdog(Located):
    """PFC pause-storm watchdog."""

    enabled: bool = False
    """Whether the watchdog is active."""
    detection_ms: float | None = None
    """Time a queue may stay paused before the watchdog acts, milliseconds."""
    restoration_ms: float | None = None
    """Time after which the watchdog restores the queue, milliseconds."""
    action: str | None = None
    """What the watchdog does: drop, forward, no-drop, ..."""


class PfcConfig(Located):
    """Priority flow control on a port (or switch-wide)."""

    enabled: bool = False
    """Whether PFC is turned on."""
    priorities: list[int] = Field(default_factory=list)
    """The no-drop (lossless) priorities."""
    watchdog: PfcWatchdog | None = None
    """Watchdog settings that apply here."""


class PgBuffer(Located):
    """Ingress priority-group buffer settings."""

    headroom_bytes: int | None = None
    """Headroom reserved for in-flight data after XOFF."""
    xoff_bytes: int | None = None
    """XOFF threshold."""
    xon_bytes: int | None = None
    """XON threshold."""
    profile: str | None = None
    """Name of the buffer profile these settings come from (SONiC BUFFER_PROFILE), if named."""
    pool: str | None = None
    """Buffer pool the profile draws from (SONiC BUFFER_POOL), if known."""
    pool_type: Literal["ingress", "egress"] | None = None
    """Direction of that pool (SONiC BUFFER_POOL `type`); None when unknown."""
    pool_bytes: int | None = None
    """Size of that pool, bytes; None when unknown (a dynamic pool sized by the switch)."""


class BufferConfig(Located):
    """Lossless buffer configuration."""

    lossless_pool_bytes: int | None = None
    """Size of the lossless (ingress) pool, bytes."""
    priority_groups: dict[int, PgBuffer] = Field(default_factory=dict)
    """Per priority group (or priority) headroom."""
    queue_buffers: dict[int, PgBuffer] = Field(default_factory=dict)
    """Per egress queue, the buffer profile it uses (SONiC BUFFER_QUEUE): only its name and
    pool are read (egress queues have no headroom)."""


class EcnProfile(Located):
    """A named WRED/ECN profile the configuration defines but binds to no queue (SONiC
    WRED_PROFILE no QUEUE entry names): unused today, one binding away from being used, so its
    internal consistency is still checked (ECN007)."""

    kind: str
    """What defines it, as the configuration names it (WRED_PROFILE)."""
    name: str
    """Its name."""
    ecn: EcnConfig
    """Its marking settings, as a queue bound to it would get them."""


class MapConflict(BaseModel):
    """One key assigned twice in the same map (QOS002)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    map: str
    """Which map (dscp_to_tc, ...)."""
    key: int
    """The key assigned twice."""
    values: list[int]
    """The values it was assigned, in order."""
    sources: list[Source] = Field(default_factory=list)
    """Where each assignment is."""


class DscpRewrite(Located):
    """Egress DSCP re-marking in force on a port (or switch-wide): the DSCP packets leave with.

    Sources: `by_tc.N` / `by_dscp.N` the line writing that entry, `` the line binding the
    rewrite (a Junos `rewrite-rules dscp` under an interface, SONiC `tc_to_dscp_map`)."""

    name: str | None = None
    """The rewrite rule, map or policy (None for the unnamed switch-wide EOS map)."""
    by_tc: dict[int, int] = Field(default_factory=dict)
    """Traffic class -> DSCP written on the way out (Junos rewrite rules, EOS `qos map
    traffic-class N to dscp D`, SONiC TC_TO_DSCP_MAP). A class not listed keeps its DSCP."""
    by_dscp: dict[int, int] = Field(default_factory=dict)
    """DSCP as received -> DSCP written on the way out (SONiC DSCP_TO_DSCP_MAP, an NX-OS egress
    policy class matching `dscp` that sets one); looked up before `by_tc`."""


class QosConfig(Located):
    """Classification, mapping and queueing. None means 'not set at this level' (inherit)."""

    trust: Trust | None = None
    """Trust mode."""
    dscp_to_tc: dict[int, int] | None = None
    """DSCP -> traffic class. On hosts the 'traffic class' is the 802.1p priority (dscp2prio)."""
    pcp_to_tc: dict[int, int] | None = None
    """802.1p PCP -> traffic class."""
    tc_to_priority: dict[int, int] | None = None
    """Traffic class -> 802.1p priority used in PFC frames (identity when absent)."""
    lossy_tcs: list[int] | None = None
    """Traffic classes the platform declares lossy whatever PFC says (Junos forwarding classes
    without `no-loss`); None when losslessness is only a matter of PFC on the priority. Such a
    class is never lossless, and one whose identity priority another class's `tc_to_priority`
    entry claims has no 802.1p priority of its own (models/resolve.py `tc_priority`)."""
    tc_to_queue: dict[int, int] | None = None
    """Traffic class -> egress queue (identity when absent)."""
    tc_to_pg: dict[int, int] | None = None
    """Traffic class -> ingress priority group."""
    queues: dict[int, QueueConfig] | None = None
    """Egress queues by number."""
    pfc: PfcConfig | None = None
    """Priority flow control."""
    buffers: BufferConfig | None = None
    """Lossless buffers."""
    rewrite: DscpRewrite | None = None
    """Egress DSCP re-marking in force; None when the DSCP leaves as it came."""
    conflicts: list[MapConflict] = Field(default_factory=list)
    """Keys assigned more than once in one map."""
    profile: str | None = None
    """Name of the QoS profile/policy this configuration came from, if any."""


class Interface(Located):
    """One port."""

    name: str
    """Interface name as the platform spells it."""
    admin_up: bool | None = None
    """Administrative state."""
    oper_up: bool | None = None
    """Operational (link) state, when known."""
    mtu: int | None = None
    """Layer-3 / link MTU in bytes."""
    speed_mbps: int | None = None
    """Speed in Mb/s."""
    routed: bool | None = None
    """True for a routed (no switchport) port."""
    role: Literal["host-facing", "fabric", "other"] | None = None
    """What the port connects to, from the cabling plan."""
    neighbor: str | None = None
    """'device:port' at the other end, from the cabling plan."""
    qos: QosConfig | None = None
    """Per-port QoS that overrides the device-wide configuration field by field."""
    profiles: list[str] = Field(default_factory=list)
    """Names of QoS profiles/policies applied to the port."""
    vlans: list[int] | Literal["all"] | None = None
    """VLANs this layer-2 port carries, sorted: its access VLAN, the VLANs its trunk allows
    (`"all"` for a trunk with no allowed list), its VLAN memberships (SONiC `VLAN_MEMBER`).
    None for a routed port and for a switched port whose input names no VLAN."""
    svi_vlan: int | None = None
    """The VLAN a VLAN interface (SVI, `interface Vlan10`) routes; None for other ports."""
    parent: str | None = None
    """The port a routed sub-interface rides on (`Ethernet1/1` for `Ethernet1/1.100`), as
    this device names its interfaces; None for other ports."""
    channel: str | None = None
    """The port-channel (LAG, bond, `ae`) this port is a member of, as this device names that
    interface (`Port-Channel10`); None when it is in none."""


class RdmaPort(Located):
    """An RDMA-capable NIC port (ConnectX netdev / HCA port)."""

    netdev: str
    """Linux netdev name (e.g. eth0, ens1f0np0)."""
    hca: str | None = None
    """RDMA device name (mlx5_0)."""
    port: int = 1
    """HCA port number."""
    link_layer: str | None = None
    """Ethernet or InfiniBand."""
    state: str | None = None
    """Logical port state (PORT_ACTIVE / Active / Down ...)."""
    phys_state: str | None = None
    """Physical state (LINK_UP / LinkUp / Disabled ...)."""
    rate_gbps: float | None = None
    """Link rate in Gb/s."""
    width: str | None = None
    """Link width (4X)."""
    active_mtu: int | None = None
    """Active RoCE/IB MTU in bytes."""
    model: str | None = None
    """NIC family (ConnectX-7) when the parser's identity table places the card by its device id
    (MT4129, vendor_part_id 4129) or firmware major; else the model or board id as printed."""
    psid: str | None = None
    """Board PSID (`board_id` of `ibv_devinfo`, MT_0000000838): which firmware image the card takes."""
    firmware: str | None = None
    """Firmware version."""
    driver: str | None = None
    """Driver version."""
    roce_tos: int | None = None
    """Default ToS of RDMA-CM connections (cma_roce_tos), DSCP << 2 | ECN bits."""
    cnp_dscp: int | None = None
    """DSCP the NIC puts on CNPs it sends."""
    cnp_priority: int | None = None
    """802.1p priority the NIC puts on CNPs it sends."""
    ecn_np: dict[int, bool] = Field(default_factory=dict)
    """Notification point (CNP generation) enabled per priority."""
    ecn_rp: dict[int, bool] = Field(default_factory=dict)
    """Reaction point (rate reduction) enabled per priority."""
    module: dict[str, str] | None = None
    """The cable or transceiver in the port (mlxlink `-m`): vendor, part_number, serial,
    firmware, as shown; None when not collected."""
    roce_gids: dict[int, str] | None = None
    """GID index -> RoCE version (v1, v2) of this HCA port, from `show_gids`; None when not
    collected."""


class Definition(BaseModel):
    """A named object a configuration defines (map, profile, policy, class, scheduler)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    kind: str
    """Kind of object (qos-profile, policy-map, class-map, ...)."""
    name: str
    """Its name."""
    source: Source | None = None
    """Where it is defined."""


class Reference(BaseModel):
    """A use of a named object."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    kind: str
    """Kind of object referenced."""
    name: str
    """Name referenced."""
    by: str
    """What references it (interface Ethernet1, policy-map X)."""
    source: Source | None = None
    """Where the reference is."""


class Unparsed(BaseModel):
    """A QoS-relevant line the parser saw but could not model (PARSE001)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    text: str
    """The line as written."""
    reason: str = "not modeled"
    """Why it was not modeled."""
    source: Source | None = None
    """Where it is."""


class InputProblem(BaseModel):
    """A problem with an input file: duplicate key (PARSE002) or unparseable input (PARSE003)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    kind: Literal["duplicate-key", "unparseable"]
    """What went wrong."""
    message: str
    """Human explanation."""
    source: Source | None = None
    """Where it went wrong."""


class Block(BaseModel):
    """A block of a device's input that defines one object a finding can be reported against (a
    qos profile, an interface block): its kind, name and span. Blocks are few per device (tens),
    so provenance costs a short table, not a field per line: a setting's owning block is the
    innermost block whose span holds the setting's source line (rules/scope.py `locate`)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    kind: str
    """What the block defines, as findings name it (qos-profile, interface)."""
    name: str
    """The object's name (ROCE, Ethernet1)."""
    file: str
    """The input file the span counts lines in."""
    first: int
    """The block's header line."""
    last: int
    """The block's last line (its header line when it holds nothing)."""
    path: str | None = None
    """Model path findings use for what the block defines (interfaces.Ethernet1.qos,
    profiles.ROCE); None for a block no finding is reported against (a class-map, whose lines
    belong to whatever applies it)."""

    def holds(self, source: Source) -> bool:
        """True when `source` is a line of this block."""
        return source.file == self.file and self.first <= (source.line or 0) <= self.last


class LldpNeighbor(BaseModel):
    """One LLDP neighbour a device reports on one of its ports (what the cable really reaches)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    local_port: str
    """The port it was seen on, spelled as this device's interfaces are (`Ethernet1/1`)."""
    remote_system: str
    """The neighbour's LLDP system name as sent (may be a FQDN, `leaf01.example.net`)."""
    remote_port: str
    """The neighbour's port as it names it (port ID, or its description when the ID is a MAC)."""
    source: Source | None = None
    """The LLDP output line the neighbour was read from."""
    local_system: str | None = None
    """The system `local_port` belongs to, when the output describes other devices' ports (a
    subnet manager's `ibnetdiscover` shows every link of the InfiniBand subnet); None: this
    device's own port."""

    @model_serializer(mode="wrap")
    def _own_port_is_implied(self, handler: SerializerFunctionWrapHandler) -> Any:
        """Leave `local_system` out when None (an LLDP neighbour: this device's own port), so
        LLDP states serialize as they did before ibnetdiscover existed."""
        data = handler(self)
        if isinstance(data, dict) and data.get("local_system") is None:
            data.pop("local_system", None)
        return data


class DeviceState(Located):
    """Everything fabriclint knows about one device, normalized."""

    # Parsers make it with `construct` (its parts are validated models already); its validator,
    # which holds every state model's, is built only when a state is read back or dumped.
    model_config = DEFERRED

    name: str
    """Device name (inventory name)."""
    platform: str
    """Platform key (eos, mlnx-host, ...)."""
    role: str | None = None
    """Role from the inventory."""
    os_version: str | None = None
    """Operating system version, when the inputs show it."""
    facts: dict[str, str] = Field(default_factory=dict)
    """Model, serial and similar facts."""
    qos: QosConfig = Field(default_factory=QosConfig)
    """Device-wide QoS (ports inherit what they do not override)."""
    interfaces: dict[str, Interface] = Field(default_factory=dict)
    """Ports by name."""
    rdma: dict[str, RdmaPort] = Field(default_factory=dict)
    """RDMA NIC ports by netdev name (hosts)."""
    infiniband: InfinibandState | None = None
    """InfiniBand facts: subnet-manager configuration and state (opensm nodes), HCA port
    addressing (InfiniBand hosts); None for devices without InfiniBand."""
    definitions: list[Definition] = Field(default_factory=list)
    """Named QoS objects defined."""
    unbound_ecn_profiles: list[EcnProfile] = Field(default_factory=list)
    """WRED/ECN profiles defined but bound to no queue (those bound are on the queues)."""
    blocks: list[Block] = Field(default_factory=list)
    """The blocks settings are written in, with their spans, in input order (empty for a parser
    family that records none yet: rules then fall back to the nearest header above a line)."""
    references: list[Reference] = Field(default_factory=list)
    """Uses of named QoS objects."""
    unparsed: list[Unparsed] = Field(default_factory=list)
    """QoS-relevant lines not modeled."""
    problems: list[InputProblem] = Field(default_factory=list)
    """Input problems (duplicate keys, unparseable files)."""
    inputs: list[str] = Field(default_factory=list)
    """Commands/files the state was built from."""
    neighbors: list[LldpNeighbor] | None = None
    """LLDP neighbours by port (the CAB rules compare them with the cabling plan); None when
    no LLDP output was collected, [] when LLDP ran and saw no neighbour."""

    @property
    def kind(self) -> DeviceKind:
        """Switch, host or subnet manager: the platform descriptor's kind (fabriclint/platforms/).
        Derived, not stored, so it cannot disagree with `platform` (nor change the state's JSON)."""
        return platforms.kind_of(self.platform)

    @property
    def is_host(self) -> bool:
        """True for a server with NICs rather than a switch."""
        return self.kind == "host"

    @property
    def is_subnet_manager(self) -> bool:
        """True for an InfiniBand subnet-manager node (configuration files, no ports to check)."""
        return self.kind == "subnet-manager"
