"""The bill-of-materials lock (`fabriclint bom lock`): what a benchmark's result depends on.

Only what collected outputs show is locked; a value no output shows is absent, never guessed.
The lock holds identities and versions, never credentials or addresses.
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

_STRICT = ConfigDict(extra="forbid", use_attribute_docstrings=True, defer_build=True)


class NicLock(BaseModel):
    """One RDMA NIC port of a host, as ibv_devinfo, ethtool and ibdev2netdev show it."""

    model_config = _STRICT

    netdev: str | None = None
    """Linux interface name (ens1np0)."""
    model: str | None = None
    """NIC family (ConnectX-7)."""
    psid: str | None = None
    """Board PSID (board_id)."""
    firmware: str | None = None
    """Firmware version."""
    driver: str | None = None
    """Driver version."""
    rate_gbps: float | None = None
    """Link rate in Gb/s."""
    width: str | None = None
    """Link width (4X)."""
    module: dict[str, str] | None = None
    """The cable or transceiver (mlxlink `-m`): vendor, part_number, serial, firmware; None
    when not shown (never a change)."""


class GpuLock(BaseModel):
    """A host's GPUs, as `nvidia-smi --query-gpu` shows them."""

    model_config = _STRICT

    count: int
    """Number of GPUs listed."""
    model: str | None = None
    """GPU model (NVIDIA H100 80GB HBM3); models that differ are joined with " + "."""
    driver: str | None = None
    """NVIDIA driver version."""
    vbios: str | None = None
    """VBIOS version."""


class HostLock(BaseModel):
    """A host: its NIC ports keyed by HCA (mlx5_0), or by interface when no HCA is known, and
    its GPUs when an output shows them."""

    model_config = _STRICT

    nics: dict[str, NicLock] = Field(default_factory=dict)
    """HCA (or interface) -> what its outputs show."""
    gpus: GpuLock | None = None
    """The GPUs (None: no `nvidia-smi` output; not shown is never a change)."""
    kernel: str | None = None
    """Kernel release (`uname -r`); None when not shown (never a change)."""
    cuda: str | None = None
    """CUDA version the NVIDIA driver supports (the `nvidia-smi` header); None when not shown."""


class SwitchLock(BaseModel):
    """A switch: model, OS version and the speed of each cabled port."""

    model_config = _STRICT

    model: str | None = None
    """Hardware model (DCS-7060X5-64S)."""
    os_version: str | None = None
    """Operating system version."""
    ports: dict[str, int | None] = Field(default_factory=dict)
    """Cabled port -> speed in Mb/s (None when no output shows it)."""
    transceivers: dict[str, dict[str, str]] | None = None
    """Cabled port -> its transceiver (vendor, part_number, serial, firmware: those shown), from the
    platform's transceiver command; a cabled port with no module shown is absent. None when
    no transceiver output was collected (not shown, never a change)."""


class ConfigLock(BaseModel):
    """Hashes of the normalized MTU/QoS settings: a semantic change changes them, a comment or
    a moved line does not."""

    model_config = _STRICT

    sha256: str
    """Over every device's hash, in name order."""
    devices: dict[str, str] = Field(default_factory=dict)
    """Device -> sha256 of its normalized MTU/QoS settings."""


class BomLock(BaseModel):
    """A `fabriclint bom lock` file: if any item changes after the benchmark, rerun it."""

    model_config = ConfigDict(
        extra="forbid", use_attribute_docstrings=True, populate_by_name=True, defer_build=True
    )

    schema_: str | None = Field(default=None, alias="$schema")
    """Optional path of this schema, for editors."""
    format: Literal[1] = 1
    """Version of this file's format."""
    fabric: str
    """The inventory's name."""
    snapshot: str
    """Name of the snapshot the lock was taken from."""
    hosts: dict[str, HostLock] = Field(default_factory=dict)
    """Host -> its NICs, GPUs, kernel and CUDA versions."""
    switches: dict[str, SwitchLock] = Field(default_factory=dict)
    """Switch -> model, OS version, port speeds, transceivers."""
    config: ConfigLock
    """Normalized MTU/QoS settings, hashed."""
    nccl_version: str | None = None
    """NCCL library version of a reference run (`bom lock --results FILE`: the nccl-tests
    output's `nccl_version`); `bench run` compares each run's with it. None: not locked."""
