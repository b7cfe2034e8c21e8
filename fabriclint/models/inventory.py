"""Inventory: devices, how to reach them, and the cabling plan (inventory.yaml)."""

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from fabriclint import platforms
from fabriclint.models.address import Host
from fabriclint.models.names import NAMES_SCHEMA, DeviceName
from fabriclint.models.types import Port

PlatformName = Annotated[
    str,
    StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]*$", min_length=2, max_length=40),
    Field(examples=list(platforms.NAMES)),
]
"""A platform key: one of the platforms fabriclint has a descriptor for (fabriclint/platforms/;
editors complete these from the JSON Schema's examples), or a platform fabriclint has no parser for (dellos10,
iosxr, ...), accepted so the inventory can describe the whole fabric; `validate` warns and
`check` reports such a device `unsupported` (incomplete, exit 3), never checked clean."""


class Strict(BaseModel):
    """Base for user-written models: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class Credentials(Strict):
    """Where secrets come from. Never the secrets themselves."""

    username_env: str | None = None
    """Environment variable holding the username."""
    password_env: str | None = None
    """Environment variable holding the password (omit to be prompted or to use SSH keys)."""
    ssh_key: str | None = None
    """Path to an SSH private key file."""


class Device(Strict):
    """One device of the fabric."""

    platform: PlatformName
    """Platform key: which parser and collector apply (eos, mlnx-host, ...). Any other lower-case
    name is accepted with a warning and makes `check` incomplete (the device is unsupported)."""
    role: str
    """Role name (leaf, spine, gpu-host, ...); intent chooses a profile per role."""
    host: Host | None = None
    """Management address or DNS name, for live collection (the port goes in `port`)."""
    port: Port = 22
    """SSH port."""
    credentials: Credentials = Field(default_factory=Credentials)
    """Names of environment variables holding credentials."""
    tags: list[str] = Field(default_factory=list)
    """Free-form tags for selection."""
    rail: int | None = Field(default=None, ge=0)
    """GPU rail a leaf serves (rail-optimized fabrics: NIC i of every host on the leaf of rail
    i); CAB005 reports a cable from a host port of another rail (docs/cabling.md)."""
    rails: dict[str, int] = Field(default_factory=dict)
    """A host's rail per port (`{ens1np0: 0, ens2np0: 1}`), judged against its leaves' `rail`."""
    managed_by: DeviceName | None = None
    """The device that runs this one, for a device fabriclint does not log into: an InfiniBand
    switch run by a subnet manager (`managed_by: sm01`). Nothing is collected from it and it is
    reported `not-checked`; its cables are judged (CAB rules) from that subnet manager's
    `ibnetdiscover` output."""


class Link(Strict):
    """One cable of the cabling plan: two 'device:port' ends."""

    a: str
    """One end, 'device:port'."""
    b: str
    """The other end, 'device:port'."""

    @field_validator("a", "b")
    @classmethod
    def _endpoint(cls, value: str) -> str:
        device, sep, port = value.partition(":")
        if not sep or not device or not port:
            raise ValueError(f"link end {value!r} must be written 'device:port'")
        return value

    def ends(self) -> tuple[tuple[str, str], tuple[str, str]]:
        """Both ends as (device, port) pairs."""
        a_dev, _, a_port = self.a.partition(":")
        b_dev, _, b_port = self.b.partition(":")
        return (a_dev, a_port), (b_dev, b_port)


class Inventory(Strict):
    """inventory.yaml: the devices and the cabling plan."""

    name: str
    """Fabric name, shown in reports."""
    devices: dict[DeviceName, Device] = Field(json_schema_extra=NAMES_SCHEMA)
    """Devices by name (each name one safe path component: it names the device's snapshot folder)."""
    links: list[Link] = Field(default_factory=list)
    """The cabling plan."""

    def peers(self) -> dict[tuple[str, str], tuple[str, str]]:
        """Map each (device, port) end to the (device, port) at the other end of its cable."""
        out: dict[tuple[str, str], tuple[str, str]] = {}
        for link in self.links:
            a, b = link.ends()
            out[a] = b
            out[b] = a
        return out
