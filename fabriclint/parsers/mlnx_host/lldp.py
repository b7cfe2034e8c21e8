"""Host LLDP neighbours: lldpd's `lldpctl -f json` (lldpctl(8)).

The switch a NIC port is cabled to is the chassis (keyed by its system name) and port ID of the
port's entry; lldpd writes one entry as an object, several as a list (parsers/kit/lldp.py).
"""

from __future__ import annotations

from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.lldp import attach, from_lldpctl
from fabriclint.platforms.mlnx_host import LLDP


def read_lldp(raw: RawDevice, state: DeviceState) -> None:
    """Record the neighbours of `lldpctl -f json` on `state`, when collected."""
    output = raw.outputs.get(LLDP)
    if output is not None:
        attach(state, raw, LLDP, from_lldpctl(output.text))
