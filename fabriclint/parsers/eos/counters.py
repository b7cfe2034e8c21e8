"""Counters of an Arista EOS switch, from the JSON form of its show commands.

- `show priority-flow-control counters detail | json`: `interfaces.IF.priorities.P.rxFrames` /
  `txFrames`, the PFC frames received and sent per priority;
- `show priority-flow-control counters | json` (fallback): `interfaceCounters.IF.rxFrames` /
  `txFrames`, totals over all priorities;
- `show qos interfaces ecn counters queue | json`: `intfQueueCounters.IF.queueCounters.Q`, the
  packets each queue marked with ECN (`-` where the queue has no ECN configured: absent).
The field names are those ANTA's PFC and ECN counter tests read from EOS (VerifyInterfacesPFCCounters,
VerifyInterfacesECNCounters).
"""

from __future__ import annotations

import json
import re
from typing import Any

from fabriclint.bounded import InputLimitError, json_loads
from fabriclint.models.counters import DeviceCounters
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.parsers.kit.counters import Builder
from fabriclint.parsers.kit.internal import counters_never_raise
from fabriclint.platforms.eos import ECN_QUEUES, PFC_DETAIL, PFC_TOTALS


class _Locator:
    """Line numbers of keys in a JSON text, found in document order (a key after its parent)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def line(self, *keys: str) -> int:
        """The line of the last of `keys`, each searched after the one before."""
        position = 0
        for key in keys:
            found = self.text.find(json.dumps(key), position)
            if found < 0:
                break
            position = found
        return self.text.count("\n", 0, position) + 1


def _load(builder: Builder, output: RawOutput, top: str) -> dict[str, Any] | None:
    """The object under `top` of a JSON output, or None after recording why not."""
    try:
        data = json_loads(output.text)
    except json.JSONDecodeError as exc:
        builder.problem(f"invalid JSON: {exc.msg}", output.file, exc.lineno)
        return None
    except InputLimitError as exc:
        builder.problem(exc.where(output.file), output.file, None)
        return None
    section = data.get(top) if isinstance(data, dict) else None
    if not isinstance(section, dict):
        builder.problem(f"no `{top}` object in this output", output.file, 1)
        return None
    return section


def _frames(
    builder: Builder, output: RawOutput, where: _Locator, path: tuple[str, ...], value: Any
) -> int | None:
    """A frame count (a non-negative integer); anything else is a located problem."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        builder.problem(
            f"{'.'.join(path)} is {value!r}, not a count", output.file, where.line(*path)
        )
        return None
    return value


def read_detail(builder: Builder, output: RawOutput) -> None:
    """PFC frames per interface and priority."""
    interfaces = _load(builder, output, "interfaces")
    where = _Locator(output.text)
    for name, body in (interfaces or {}).items():
        priorities = body.get("priorities") if isinstance(body, dict) else None
        for prio, counts in (priorities or {}).items() if isinstance(priorities, dict) else ():
            if not re.fullmatch(r"[0-7]", str(prio)) or not isinstance(counts, dict):
                builder.problem(f"priority {prio!r} of {name}", output.file, where.line(name, prio))
                continue
            for key, field in (("rxFrames", "rx_pause"), ("txFrames", "tx_pause")):
                path = (name, prio, key)
                value = _frames(builder, output, where, path, counts.get(key))
                if value is not None:
                    counter = builder.counter(value, output.file, where.line(*path))
                    builder.priority(name, int(prio), field, counter)


def read_totals(builder: Builder, output: RawOutput) -> None:
    """PFC frames per interface, all priorities together."""
    interfaces = _load(builder, output, "interfaceCounters")
    where = _Locator(output.text)
    for name, body in (interfaces or {}).items():
        if not isinstance(body, dict):
            continue
        for key, field in (("rxFrames", "rx_pause_total"), ("txFrames", "tx_pause_total")):
            value = _frames(builder, output, where, (name, key), body.get(key))
            if value is not None:
                builder.port(
                    name, field, builder.counter(value, output.file, where.line(name, key))
                )


def read_ecn(builder: Builder, output: RawOutput) -> None:
    """ECN-marked packets per interface and queue."""
    interfaces = _load(builder, output, "intfQueueCounters")
    where = _Locator(output.text)
    for name, body in (interfaces or {}).items():
        queues = body.get("queueCounters") if isinstance(body, dict) else None
        for queue, value in (queues or {}).items() if isinstance(queues, dict) else ():
            index = re.fullmatch(r"(?:UC|TxQ|Q)?([0-7])", str(queue))
            if index is None or value == "-":
                continue  # a multicast queue, or one without ECN: absent
            path = (name, str(queue))
            marked = _frames(builder, output, where, path, value)
            if marked is not None:
                counter = builder.counter(marked, output.file, where.line(*path))
                builder.queue(name, int(index[1]), "ecn_marked", counter)


@counters_never_raise("eos", "eos")
def parse(raw: RawDevice) -> DeviceCounters:
    """Counters of an EOS switch from whichever counter outputs were collected."""
    builder = Builder(raw=raw)
    for key, reader in (
        (PFC_DETAIL, read_detail),
        (PFC_TOTALS, read_totals),
        (ECN_QUEUES, read_ecn),
    ):
        output = raw.outputs.get(key)
        if output is not None:
            builder.inputs.append(key)
            reader(builder, output)
    return builder.build()
