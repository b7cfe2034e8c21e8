"""Counters of a Cisco NX-OS switch: `show interface priority-flow-control`.

The table lists per port its PFC mode, operational state (with the VL bitmap of the priorities
PFC is on for) and, in its last two columns, `RxPPP` and `TxPPP`: the per-priority pause (PPP)
frames received and sent, over all priorities together. Slot banners (`slot  1`), `=====`
rules and the header are skipped; a port row whose last two columns are not counts is a
located problem.
"""

from __future__ import annotations

import re

from fabriclint.models.counters import DeviceCounters
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.parsers.kit.counters import Builder, NotACount, count, lines
from fabriclint.parsers.kit.internal import counters_never_raise
from fabriclint.platforms.nxos import PFC_COUNTERS

_PORT = re.compile(r"^(Eth(?:ernet)?[0-9][0-9/.]*|port-channel[0-9]+)\s", re.IGNORECASE)


def read_pfc(builder: Builder, output: RawOutput) -> None:
    """PFC frames received and sent per port (all priorities)."""
    header = False
    for number, line in lines(output.text):
        if "RxPPP" in line and "TxPPP" in line:
            header = True
            continue
        match = _PORT.match(line.strip())
        if match is None:
            continue
        cells = line.split()
        try:
            rx, tx = count(cells[-2]), count(cells[-1])
        except (NotACount, IndexError) as exc:
            builder.problem(f"{match[1]}: RxPPP/TxPPP: {exc}", output.file, number)
            continue
        for value, field in ((rx, "rx_pause_total"), (tx, "tx_pause_total")):
            if value is not None:
                builder.port(match[1], field, builder.counter(value, output.file, number))
    if not header and output.text.strip():
        builder.problem("no `RxPPP  TxPPP` header in this output", output.file, 1)


@counters_never_raise("nxos", "nxos")
def parse(raw: RawDevice) -> DeviceCounters:
    """Counters of an NX-OS switch from its PFC counter output."""
    builder = Builder(raw=raw)
    output = raw.outputs.get(PFC_COUNTERS)
    if output is not None:
        builder.inputs.append(PFC_COUNTERS)
        read_pfc(builder, output)
    return builder.build()
