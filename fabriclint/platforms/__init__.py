"""Platform descriptors: one module per platform, and the registry every platform list derives from.

The parser registry, the collectors' command plans and allowlists, the inventory schema's
platform examples, the `--configs` keys, the lab's device types and the docs checks all read
`ALL`/`get` here; nothing else lists platforms. Importing this package imports no parser.
"""

from __future__ import annotations

from fabriclint.platforms import cumulus, eos, junos, mlnx_host, nxos, opensm, sonic
from fabriclint.platforms.base import KINDS, CommandSpec, DeviceKind, Platform
from fabriclint.registry import Registry

__all__ = [
    "ALL",
    "KINDS",
    "NAMES",
    "REGISTRY",
    "CommandSpec",
    "DeviceKind",
    "Platform",
    "get",
    "kind_of",
]

ALL: tuple[Platform, ...] = (
    eos.PLATFORM,
    nxos.PLATFORM,
    junos.PLATFORM,
    sonic.PLATFORM,
    cumulus.PLATFORM,
    mlnx_host.PLATFORM,
    opensm.PLATFORM,
)
"""Every platform, in catalog order (the order docs, schemas and messages list them in)."""

REGISTRY: Registry[Platform] = Registry("platform", ((p.name, p) for p in ALL))
"""The descriptors by name (the same registry shape as report formats and rules)."""

NAMES: tuple[str, ...] = REGISTRY.names


def get(name: str) -> Platform | None:
    """The descriptor of platform `name`; None for a platform fabriclint does not know."""
    return REGISTRY.get(name)


def kind_of(name: str) -> DeviceKind:
    """The device kind of platform `name`; an unknown platform is taken for a switch (it is
    never parsed, so nothing is decided by it but the cabling roles of its neighbours)."""
    platform = REGISTRY.get(name)
    return platform.kind if platform is not None else "switch"
