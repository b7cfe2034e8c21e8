"""Per-platform parsers: pure functions from RawDevice to DeviceState (no I/O)."""

from __future__ import annotations

from collections.abc import Callable

from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState

Parser = Callable[[RawDevice], DeviceState]


def get_parser(platform: str) -> Parser | None:
    """The parser for `platform`, imported on demand; None when the platform has none yet."""
    if platform == "eos":
        from fabriclint.parsers.eos import parse as parse_eos

        return parse_eos
    if platform == "mlnx-host":
        from fabriclint.parsers.mlnx_host import parse as parse_host

        return parse_host
    return None


SUPPORTED_PLATFORMS = ("eos", "mlnx-host")
