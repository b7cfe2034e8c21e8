"""Cumulus transceivers: `nv show platform transceiver -o json` (optional, for the BOM lock).

NVUE's JSON of the transceiver collection: an object keyed by the port holding the module
(`swp1`), each with the fields its text form shows, `identifier`, `vendor-name`, `vendor-pn`,
`vendor-sn`, `vendor-rev`, `status`, ... and `fw-version` where the module reports one (NVUE
command reference, `nv show platform transceiver`, Cumulus Linux 5.11 and later). An empty
cage shows no vendor fields (or a `status` of unplugged / removed / not present). A cage serves
its breakouts: the module of `swp1` is also that of each `swp1s0` ... `swp1s3` the state knows.
"""

from __future__ import annotations

import re

from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.optics import Read, attach, line_of, load_json, module
from fabriclint.platforms.cumulus import TRANSCEIVERS

_BREAKOUT = re.compile(r"^(swp[0-9]+)s[0-9]+$")
_EMPTY = re.compile(r"unplug|remov|not present|absent|empty", re.IGNORECASE)


def read_transceivers(raw: RawDevice, state: DeviceState) -> None:
    """Record the modules of the NVUE transceiver JSON on `state`, when collected."""
    output = raw.outputs.get(TRANSCEIVERS)
    if output is not None:
        attach(state, raw, TRANSCEIVERS, cages(output.text, list(state.interfaces)))


def cages(text: str, interfaces: list[str]) -> Read:
    """The modules by interface of the JSON text (or why it is not NVUE transceiver JSON)."""
    data, failed = load_json(text)
    if failed is not None:
        return failed
    if not isinstance(data, dict):
        return Read(error="not an object keyed by port: not `nv show platform transceiver` JSON")
    breakouts: dict[str, list[str]] = {}
    for name in interfaces:
        split = _BREAKOUT.match(name)
        if split is not None:
            breakouts.setdefault(split[1], []).append(name)
    read = Read()
    for port, info in data.items():
        if not isinstance(info, dict):
            return Read(error=f"port {port!r} is not an object", line=line_of(text, f'"{port}"'))
        if _EMPTY.search(str(info.get("status", ""))):
            continue
        fields = ("vendor-name", "vendor-pn", "vendor-sn", "fw-version")
        shown = module(*(info.get(name) for name in fields))
        if shown:
            for name in (port, *breakouts.get(port, ())):
                read.modules[name] = shown
    return read
