"""Platform descriptors: one module per platform, and the registry every platform list derives from.

The parser registry, the collectors' command plans and allowlists, the inventory schema's
platform examples, the `--configs` keys, the lab's device types and the docs checks all read
`ALL`/`get` here; nothing else lists platforms. Importing this package imports no parser.
"""

from __future__ import annotations

from fabriclint.platforms import cumulus, eos, junos, mlnx_host, nxos, opensm, sonic
from fabriclint.platforms.base import KINDS, CommandSpec, DeviceKind, Platform

__all__ = ["ALL", "KINDS", "NAMES", "CommandSpec", "DeviceKind", "Platform", "get", "kind_of"]

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

NAMES: tuple[str, ...] = tuple(p.name for p in ALL)

_BY_NAME: dict[str, Platform] = {p.name: p for p in ALL}
assert len(_BY_NAME) == len(ALL), "two descriptors share a platform name"


def get(name: str) -> Platform | None:
    """The descriptor of platform `name`; None for a platform fabriclint does not know."""
    return _BY_NAME.get(name)


def kind_of(name: str) -> DeviceKind:
    """The device kind of platform `name`; an unknown platform is taken for a switch (it is
    never parsed, so nothing is decided by it but the cabling roles of its neighbours)."""
    platform = _BY_NAME.get(name)
    return platform.kind if platform is not None else "switch"
