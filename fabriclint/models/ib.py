"""InfiniBand: subnet-manager state (opensm.conf, partitions, QoS policy, sminfo), HCA ports, intent.

State models are filled by parsers (every value knows its line); intent models are what users
write under `infiniband:` in an intent.yaml profile. OpenSM semantics (key set, defaults, what it
silently replaces) live in the opensm parser; these models only hold the results.
"""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from fabriclint.models.common import DEFERRED, Located, Source
from fabriclint.models.inventory import Strict
from fabriclint.models.types import RoceMtu

OptionValue = bool | int | str | None
"""An OpenSM option value: booleans, integers, strings; None is OpenSM's `(null)`. 64-bit keys and
masks are lower-case hex strings (0x0000000000000001) so JSON readers do not round them."""

Membership = Literal["full", "limited", "both"]


class _Model(BaseModel):
    # The state models are built when an InfiniBand parser or a state read back first needs
    # them: a RoCE fabric's check never does.
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, defer_build=True)


# ---- opensm.conf ---------------------------------------------------------------------------------


class SmOption(_Model):
    """One opensm.conf key: as written, and as OpenSM uses it."""

    key: str
    """Option name."""
    value: OptionValue
    """The value OpenSM uses: the written one when valid, OpenSM's replacement when not, its
    default when the key is absent."""
    written: str | None = None
    """The text after the key (comment and quotes stripped); None when the key is absent."""
    source: Source | None = None
    """Line of the (last) occurrence; None for a default."""
    reset: str | None = None
    """Why OpenSM does not use the written value as written (IB006); None when it does."""
    build: str | None = None
    """The OpenSM build the written value needs (`nvidia`: a routing engine of NVIDIA's OpenSM,
    platforms/opensm_keys.py BUILDS), kept as the value: upstream OpenSM skips it and uses
    minhop, which IB006 reports unless the policy declares that build. None otherwise."""
    redacted: bool = False
    """True when the collector replaced a secret with a redaction marker (value unknown, set)."""


class UnknownOption(_Model):
    """A line whose key OpenSM does not know: it logs 'Unrecognized token' and ignores it (IB007)."""

    key: str
    """The key as written."""
    text: str
    """The whole line."""
    source: Source | None = None
    """Where it is."""


class VlArbEntry(_Model):
    """One `vl:weight` entry of a VL-arbitration table."""

    vl: int
    """Virtual lane as written."""
    weight: int
    """Weight in 64-byte credits (0 = entry skipped)."""


class QosTables(Located):
    """The SL2VL / VL-arbitration settings of one port class (`qos_` = default for all classes)."""

    model_config = DEFERRED

    prefix: str
    """qos, qos_ca, qos_sw0, qos_swe or qos_rtr."""
    max_vls: int | None = None
    """`<prefix>_max_vls` when written and non-zero."""
    high_limit: int | None = None
    """`<prefix>_high_limit` when written and not -1."""
    sl2vl: list[int] | None = None
    """VL of SL 0, 1, ... as written (15 = drop)."""
    vlarb_high: list[VlArbEntry] | None = None
    """High-priority arbitration table."""
    vlarb_low: list[VlArbEntry] | None = None
    """Low-priority arbitration table."""
    malformed: dict[str, list[str]] = Field(default_factory=dict)
    """Entries OpenSM cannot read as written (it reads them as 0 or a prefix), by table
    (sl2vl, vlarb_high, vlarb_low)."""


class SmConfig(Located):
    """A whole opensm.conf: every key OpenSM knows (defaults filled in), unknown keys, QoS tables."""

    model_config = DEFERRED

    file: str
    """The file it was read from."""
    options: dict[str, SmOption] = Field(default_factory=dict)
    """Every option of OpenSM by key, with the value OpenSM uses."""
    unknown: list[UnknownOption] = Field(default_factory=list)
    """Keys OpenSM ignores."""
    tables: dict[str, QosTables] = Field(default_factory=dict)
    """Written SL2VL/VLArb settings by prefix."""

    def value(self, key: str) -> OptionValue:
        """The value OpenSM uses for `key` (None for an unknown key)."""
        found = self.options.get(key)
        return found.value if found is not None else None

    def flag(self, key: str) -> bool:
        """A boolean option (False when absent)."""
        return self.value(key) is True

    def number(self, key: str, fallback: int = 0) -> int:
        """An integer option."""
        found = self.value(key)
        return found if isinstance(found, int) and not isinstance(found, bool) else fallback

    def src(self, *keys: str) -> Source | None:
        """The line of the first written key among `keys`, else the file."""
        for key in keys:
            found = self.options.get(key)
            if found is not None and found.source is not None:
                return found.source
        return self.sources.get("")


# ---- partitions.conf -----------------------------------------------------------------------------


class PartitionMember(_Model):
    """One port specifier of a partition."""

    port: str
    """Port GUID (0x + 16 hex digits) or ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF."""
    membership: Membership
    """Membership OpenSM gives the port."""
    source: Source | None = None
    """Where it is."""


class McGroup(_Model):
    """An `mgid=` multicast group line of a partition."""

    mgid: str
    """The multicast GID as written."""
    flags: dict[str, str] = Field(default_factory=dict)
    """Group flags as written (rate, mtu, sl, scope, Q_Key, TClass, FlowLabel)."""
    source: Source | None = None
    """Where it is."""


class Partition(Located):
    """One partition (definitions with the same P_Key are merged, as OpenSM does)."""

    model_config = DEFERRED

    name: str = ""
    """Partition name (first definition's)."""
    pkey: int | None = None
    """P_Key, low 15 bits (OpenSM ignores the top bit); None when OpenSM generates it."""
    ipoib: bool = False
    """IPoIB broadcast group created."""
    mtu: int | None = None
    """IPoIB group MTU as an IBTA code (1=256 ... 5=4096); None = OpenSM default 4 (2048)."""
    rate: int | None = None
    """IPoIB group rate as an IBTA code; None = OpenSM default 3 (10 Gb/s)."""
    sl: int | None = None
    """Service level; None = 0."""
    flags: dict[str, str] = Field(default_factory=dict)
    """Other partition flags as written (scope, Q_Key, TClass, FlowLabel, indx0)."""
    defmember: Membership = "limited"
    """Default membership of ports listed without one."""
    members: list[PartitionMember] = Field(default_factory=list)
    """Member ports in file order."""
    mgroups: list[McGroup] = Field(default_factory=list)
    """Pre-created multicast groups."""


class PartitionIssue(_Model):
    """Something in partitions.conf that OpenSM rejects or reads differently than written (IB009)."""

    message: str
    """What is wrong and what OpenSM does instead."""
    severity: Literal["error", "warning"] = "error"
    """error: OpenSM drops or changes what the line asks for; warning: it ignores a word."""
    text: str = ""
    """The line as written."""
    source: Source | None = None
    """Where it is."""


# ---- qos-policy.conf -----------------------------------------------------------------------------


class PortGroup(_Model):
    """A `port-group` of the QoS policy."""

    name: str
    """Group name."""
    port_guids: list[str] = Field(default_factory=list)
    """port-guid values and ranges as written."""
    port_names: list[str] = Field(default_factory=list)
    """port-name values ('node description/Pn')."""
    partitions: list[str] = Field(default_factory=list)
    """partition names."""
    pkeys: list[str] = Field(default_factory=list)
    """pkey values and ranges."""
    node_types: list[str] = Field(default_factory=list)
    """CA, SWITCH, ROUTER, ALL, SELF."""
    source: Source | None = None
    """Where the group starts."""


class QosLevel(_Model):
    """A `qos-level`: the SL and path limits applied to matching path queries."""

    name: str
    """Level name (DEFAULT is mandatory)."""
    sl: int | None = None
    """Service level."""
    mtu_limit: int | None = None
    """MTU limit (IBTA code)."""
    rate_limit: int | None = None
    """Rate limit (IBTA code)."""
    pkeys: list[str] = Field(default_factory=list)
    """pkey values and ranges."""
    packet_life: int | None = None
    """Packet lifetime code."""
    source: Source | None = None
    """Where the level starts."""


class QosMatchRule(_Model):
    """A `qos-match-rule`: which path queries get which level."""

    use: str = ""
    """Description."""
    qos_class: str | None = None
    """QoS class values and ranges."""
    sources_groups: list[str] = Field(default_factory=list)
    """`source:` port groups."""
    destinations: list[str] = Field(default_factory=list)
    """`destination:` port groups."""
    service_ids: str | None = None
    """service-id values and ranges."""
    pkeys: str | None = None
    """pkey values and ranges."""
    level: str | None = None
    """qos-level-name."""
    source: Source | None = None
    """Where the rule starts."""


class QosUlp(_Model):
    """A `qos-ulps` line: a ULP (or application) and the SL it gets."""

    match: str
    """The criterion as written (default, sdp, ipoib, pkey 0x..., ...)."""
    sl: int | None = None
    """Service level."""
    source: Source | None = None
    """Where it is."""


class QosPolicy(Located):
    """qos-policy.conf."""

    model_config = DEFERRED

    file: str
    """The file it was read from."""
    port_groups: list[PortGroup] = Field(default_factory=list)
    """Port groups."""
    levels: list[QosLevel] = Field(default_factory=list)
    """QoS levels."""
    match_rules: list[QosMatchRule] = Field(default_factory=list)
    """Match rules in order (first match wins)."""
    ulps: list[QosUlp] = Field(default_factory=list)
    """Simplified per-ULP rules."""
    statements: int = 0
    """Number of policy lines other than comments (0 = the file holds no policy)."""


# ---- sminfo and HCA ports ------------------------------------------------------------------------

SM_STATES = ("SMINFO_NOTACT", "SMINFO_DISCOVER", "SMINFO_STANDBY", "SMINFO_MASTER")
"""SMInfo states by number."""


class SmInfo(_Model):
    """One `sminfo` answer: the state of one subnet manager as seen from the node that asked."""

    guid: str
    """Port GUID of the SM that answered (0x + 16 hex digits)."""
    lid: int
    """Its LID."""
    priority: int
    """SM priority it reports."""
    state: int
    """SMInfo state: 0 not active, 1 discovering, 2 standby, 3 master."""
    activity: int = 0
    """Activity counter."""
    source: Source | None = None
    """Where it is."""

    @property
    def is_master(self) -> bool:
        """True for SMINFO_MASTER."""
        return self.state == 3


class HcaPort(_Model):
    """InfiniBand addressing of one HCA port (ibstat / ibv_devinfo), keyed like DeviceState.rdma."""

    hca: str
    """RDMA device (mlx5_0)."""
    port: int
    """Port number."""
    port_guid: str | None = None
    """Port GUID (0x + 16 hex digits)."""
    node_guid: str | None = None
    """Node GUID."""
    base_lid: int | None = None
    """LID the SM assigned (0 = none)."""
    sm_lid: int | None = None
    """LID of the master SM as this port sees it (0 = none)."""
    lmc: int | None = None
    """LMC the SM programmed."""
    source: Source | None = None
    """Where the port block starts."""


class InfinibandState(Located):
    """InfiniBand facts of a device: SM configuration and state (SM nodes), HCA ports (hosts)."""

    model_config = DEFERRED

    sm: SmConfig | None = None
    """opensm.conf, when given."""
    partitions: list[Partition] | None = None
    """partitions.conf, when given (None = not given; OpenSM then creates only the default
    partition with every port a full member)."""
    partitions_file: str | None = None
    """The partitions.conf file."""
    partition_issues: list[PartitionIssue] = Field(default_factory=list)
    """What OpenSM rejects or reads differently in partitions.conf (IB009)."""
    qos_policy: QosPolicy | None = None
    """qos-policy.conf, when given."""
    sminfo: list[SmInfo] = Field(default_factory=list)
    """`sminfo` answers."""
    hca_ports: dict[str, HcaPort] = Field(default_factory=dict)
    """HCA port addressing by the key of the port in DeviceState.rdma."""


# ---- intent --------------------------------------------------------------------------------------

IntentValue = bool | int | str


class SmIntent(Strict):
    """Intended subnet-manager settings. Only declared settings are compared (drift)."""

    routing_engine: str | None = None
    """`routing_engine` as written in opensm.conf (e.g. ftree,updn)."""
    lmc: Annotated[int, Field(ge=0, le=7)] | None = None
    """LID mask control: 2^lmc LIDs per port."""
    sm_priority: Annotated[int, Field(ge=0, le=15)] | None = None
    """SM priority (use a device override for the master / standby)."""
    qos: bool | None = None
    """Whether OpenSM QoS (SL2VL, VL arbitration, QoS policy) is on."""
    max_op_vls: Annotated[int, Field(ge=1, le=5)] | None = None
    """OperationalVLs code: 1=VL0, 2=VL0-1, 3=VL0-3, 4=VL0-7, 5=VL0-14."""
    sweep_interval: Annotated[int, Field(ge=0)] | None = None
    """Seconds between light sweeps (0 = no sweeping)."""
    keys: Literal["non-default"] | None = None
    """`non-default`: m_key, sm_key and sa_key must not be OpenSM's defaults (values are secrets
    and never written in intent)."""
    m_key_protection_level: Annotated[int, Field(ge=0, le=3)] | None = None
    """M_Key protection level."""
    options: dict[str, IntentValue] = Field(default_factory=dict)
    """Any other opensm.conf key and the value OpenSM must use (qos_ca_sl2vl, ignore_other_sm, ...)."""


class HcaIntent(Strict):
    """Intended state of a host's InfiniBand HCA ports."""

    ports: list[str] | None = None
    """HCA ports that must be present and up, as fabriclint names them (mlx5_0/1, or the IPoIB
    netdev); default: every InfiniBand port of the host."""
    rate_gbps: Annotated[float, Field(gt=0)] | None = None
    """Minimum link rate in Gb/s (400 for NDR 4X)."""
    width: Annotated[str, Field(pattern=r"^[0-9]+X$")] | None = None
    """Expected link width (4X)."""
    active_mtu: RoceMtu | None = None
    """Expected active IB MTU in bytes."""
    firmware: str | None = None
    """Expected firmware version."""


class PartitionIntent(Strict):
    """A partition that must exist in partitions.conf."""

    pkey: Annotated[int, Field(ge=1, le=0xFFFF)]
    """P_Key (the top, membership bit is ignored: 0x8001 and 0x0001 are one partition)."""
    ipoib: bool | None = None
    """Whether the partition must carry IPoIB."""
    mtu: RoceMtu | None = None
    """IPoIB broadcast group MTU in bytes."""
    sl: Annotated[int, Field(ge=0, le=15)] | None = None
    """Service level."""
    members: list[str] = Field(default_factory=list)
    """Ports that must be members: inventory host names (all their InfiniBand ports), port GUIDs,
    or ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF."""
    membership: Literal["full", "limited"] | None = None
    """Membership the listed members must have (default: any)."""


class IbIntent(Strict):
    """InfiniBand section of a profile."""

    sm: SmIntent | None = None
    """Subnet-manager settings (SM nodes)."""
    hca: HcaIntent | None = None
    """HCA port expectations (hosts)."""
    partitions: dict[str, PartitionIntent] | None = None
    """Partitions by name that the SM nodes must define."""
    tenants: list[str] | None = None
    """Tenants that share the fabric (names, e.g. `[team-a, team-b]`): declared, the partitions
    must keep them apart (IB011: not every partition may make every HCA a full member)."""
