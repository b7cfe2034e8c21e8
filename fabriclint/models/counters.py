"""Traffic counters of one device at one moment, normalized across vendors.

The configuration says what a fabric *should* do; counters say what it *did*: pause frames per
priority, ECN marks per queue, drops by reason, PFC watchdog storms, and on RDMA ports the
DCQCN (CNP) and transport-error counters. `fabriclint counters` compares two of these (before
and after a benchmark) and the CTR rules judge the deltas.

Absent is not zero: a counter the device did not print is simply not in the model. mlx5 prints
per-priority pause counters only for priorities with PFC enabled, so a missing `rx_prio3_pause`
is itself evidence, and a rule never reads a missing counter as "no pauses".

Every value carries its width (a 32-bit counter wraps after 4,294,967,295) and its source line,
so a finding can cite both snapshots' lines.
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from fabriclint.models.common import Source
from fabriclint.models.state import InputProblem

Width = Literal[32, 64]


class Counter(BaseModel):
    """One counter reading."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, use_attribute_docstrings=True, defer_build=True
    )

    value: int = Field(ge=0)
    """The value as printed (a count, or microseconds for pause durations)."""
    width: Width = 64
    """Bits of the hardware counter: it wraps to 0 after 2**width - 1."""
    source: Source
    """File and line it was read from."""


class PriorityCounters(BaseModel):
    """Counters of one 802.1p priority on a port (PFC frames are per priority)."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, use_attribute_docstrings=True, defer_build=True
    )

    rx_pause: Counter | None = None
    """PFC pause frames received on this priority (the peer asked this port to stop)."""
    tx_pause: Counter | None = None
    """PFC pause frames sent on this priority (this port asked its peer to stop)."""
    rx_pause_duration_us: Counter | None = None
    """Time this priority was paused by the peer, in microseconds (mlx5 only)."""
    tx_pause_duration_us: Counter | None = None
    """Time this port paused its peer on this priority, in microseconds (mlx5 only)."""
    rx_pause_transitions: Counter | None = None
    """Xoff-to-Xon transitions received (mlx5 only)."""
    ecn_marked: Counter | None = None
    """Packets received with ECN CE marks on this priority (mlx5 `rx_prioN_marked`)."""
    drops: dict[str, Counter] = Field(default_factory=dict)
    """Packets dropped on this priority, by reason (`buf_discard`, `cong_discard`, `discards`)."""


class QueueCounters(BaseModel):
    """Counters of one egress queue of a switch port (ECN marking and drops are per queue)."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, use_attribute_docstrings=True, defer_build=True
    )

    ecn_marked: Counter | None = None
    """Packets this queue marked with ECN CE."""
    drops: dict[str, Counter] = Field(default_factory=dict)
    """Packets dropped by this queue, by reason (`queue`, `wred`, `watchdog-tx`, `watchdog-rx`)."""
    storm_detected: Counter | None = None
    """PFC watchdog: storms detected on this queue."""
    storm_restored: Counter | None = None
    """PFC watchdog: storms restored (the queue honours PFC again)."""


class PortCounters(BaseModel):
    """Counters of one port (a switch interface or a host netdev)."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, use_attribute_docstrings=True, defer_build=True
    )

    name: str
    """Port name as the device spells it."""
    priorities: dict[int, PriorityCounters] = Field(default_factory=dict)
    """Per 802.1p priority."""
    queues: dict[int, QueueCounters] = Field(default_factory=dict)
    """Per egress queue (switches)."""
    rx_pause_total: Counter | None = None
    """PFC frames received on all priorities, where the device gives only a total (EOS)."""
    tx_pause_total: Counter | None = None
    """PFC frames sent on all priorities, where the device gives only a total (EOS)."""
    storm_warning: Counter | None = None
    """mlx5 `tx_pause_storm_warning_events`: the NIC kept pausing longer than the warning time."""
    storm_error: Counter | None = None
    """mlx5 `tx_pause_storm_error_events`: the NIC's own watchdog stopped its pause storm."""
    drops: dict[str, Counter] = Field(default_factory=dict)
    """Port-wide drops by reason (mlx5 `rx_discards_phy`, `rx_out_of_buffer`)."""


class RdmaCounters(BaseModel):
    """The RDMA counters of one HCA port (`hw_counters` and `counters` in sysfs)."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, use_attribute_docstrings=True, defer_build=True
    )

    hca: str
    """HCA name (mlx5_0)."""
    port: int
    """HCA port number."""
    netdev: str | None = None
    """The netdev of the port, when `ibdev2netdev` names it."""
    counters: dict[str, Counter] = Field(default_factory=dict)
    """By kernel name: `np_ecn_marked_roce_packets`, `np_cnp_sent`, `rp_cnp_handled`,
    `rp_cnp_ignored`, `out_of_sequence`, `packet_seq_err`, `local_ack_timeout_err`, ..."""


class DeviceCounters(BaseModel):
    """Every counter read from one device in one snapshot."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, use_attribute_docstrings=True, defer_build=True
    )

    name: str
    """Device name."""
    platform: str
    """Platform key."""
    ports: dict[str, PortCounters] = Field(default_factory=dict)
    """By port name."""
    rdma: dict[str, RdmaCounters] = Field(default_factory=dict)
    """By `HCA/port` (mlx5_0/1)."""
    problems: list[InputProblem] = Field(default_factory=list)
    """Counter outputs that could not be read (the interval is then not trusted)."""
    inputs: list[str] = Field(default_factory=list)
    """Counter commands the values were read from."""
