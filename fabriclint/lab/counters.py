"""Counters that move: the lab answers counter commands with readings that advance by one
benchmark interval of a scenario at every collection (`fabriclint lab serve --counters`).

The served snapshot's own counter outputs are the base reading (collection 0). Each SSH session
to a device starts its next collection: every counter then reads `base + n * step`, where the
steps come from the scenario and the cabling plan, so the two ends of a cable stay consistent
(a switch's `tx` pauses are its NIC's `rx` pauses) and `collect --counters` twice, then
`fabriclint counters`, finds exactly what the scenario seeded:

| scenario | what moves | found by |
|---|---|---|
| healthy | pauses on the lossless priority both ways on every cable, ECN marks, CNPs | nothing |
| pause-storm | the first host's first NIC pauses its leaf without end (storm guard events) | CTR002 |
| ecn-off | the first leaf pauses but its RoCE queue marks nothing | CTR004 |
| cnp-ignored | the first host's first NIC ignores CNPs | CTR006 |
| lossy-drops | the first host's second NIC drops on the lossless priority | CTR003 |

Renderers exist for the platforms the lab can move (EOS, ConnectX hosts); the counter outputs of
other platforms are served as stored (they do not move).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fabriclint.commands import ETHTOOL_STATS, HW_COUNTERS
from fabriclint.models.counters import Counter, DeviceCounters, PortCounters
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.parsers.counters import parse_counters
from fabriclint.platforms import kind_of

if TYPE_CHECKING:
    from fabriclint.lab.device import LabDevice

SCENARIOS = ("healthy", "pause-storm", "ecn-off", "cnp-ignored", "lossy-drops")
ROCE = 3
EOS_PFC = "show priority-flow-control counters detail | json"
EOS_ECN = "show qos interfaces ecn counters queue | json"
PAUSES = 1500
"""PFC frames each end of a cable sends per interval in every scenario."""
MARKS = 4000
"""ECN marks per switch port per interval."""


class ScenarioError(ValueError):
    """An unknown scenario, or one the served fabric cannot play."""


@dataclass
class Counts:
    """One port's (or HCA port's) counter steps per interval, by the names the renderers use."""

    rx: dict[int, int] = field(default_factory=dict)
    tx: dict[int, int] = field(default_factory=dict)
    ecn: int = 0
    named: dict[str, int] = field(default_factory=dict)
    """ethtool or hw_counters name -> step."""


Ends = dict[tuple[str, str], Counts]
Cable = tuple[tuple[str, str], tuple[str, str]]


def _is_host(platforms: dict[str, str], device: str) -> bool:
    """True when the inventory names `device` with a host platform (an unknown device: no)."""
    return device in platforms and kind_of(platforms[device]) == "host"


def _healthy(
    cables: list[Cable], platforms: dict[str, str], hcas: dict[tuple[str, str], str]
) -> Ends:
    ends: Ends = {}
    for a, b in cables:
        for sender, receiver in ((a, b), (b, a)):
            ends.setdefault(sender, Counts()).tx[ROCE] = PAUSES
            ends.setdefault(receiver, Counts()).rx[ROCE] = PAUSES
        for host, switch in ((a, b), (b, a)):
            if _is_host(platforms, host[0]) and not _is_host(platforms, switch[0]):
                ends.setdefault(switch, Counts()).ecn = MARKS
                hca = ends.setdefault((host[0], hcas.get(host, "")), Counts())
                hca.named |= {"np_ecn_marked_roce_packets": MARKS, "np_cnp_sent": MARKS * 9 // 10}
                hca.named["rp_cnp_handled"] = MARKS // 2
    for (device, _port), counts in ends.items():
        if device in platforms and not _is_host(platforms, device) and counts.rx:
            counts.ecn = counts.ecn or MARKS
    return ends


def _first(cables: list[Cable], platforms: dict[str, str], kind: str) -> list[tuple[str, str]]:
    """Link ends of the first device of `kind` (host or switch), in cabling order."""
    ends = sorted({e for c in cables for e in c if _is_host(platforms, e[0]) == (kind == "host")})
    if not ends:
        raise ScenarioError(f"the fabric has no cabled {kind}: this scenario cannot be played")
    first = ends[0][0]
    return [e for e in ends if e[0] == first]


def plan(
    scenario: str, cables: list[Cable], platforms: dict[str, str], hcas: dict[tuple[str, str], str]
) -> Ends:
    """The per-interval steps of `scenario` on this cabling plan."""
    if scenario not in SCENARIOS:
        raise ScenarioError(
            f"unknown counter scenario {scenario!r}: choose one of {', '.join(SCENARIOS)}"
        )
    ends = _healthy(cables, platforms, hcas)
    peers = {a: b for c in cables for a, b in (c, c[::-1])}
    if scenario == "pause-storm":
        nic = _first(cables, platforms, "host")[0]
        ends[nic].named["tx_pause_storm_warning_events"] = 1
        ends[nic].tx[ROCE] = ends[peers[nic]].rx[ROCE] = 200_000
    elif scenario == "ecn-off":
        leaf = _first(cables, platforms, "switch")[0][0]
        for end, counts in ends.items():
            if end[0] == leaf:
                counts.ecn = 0
                peer = peers.get(end)
                if peer and _is_host(platforms, peer[0]):
                    hca = ends.get((peer[0], hcas.get(peer, "")))
                    if hca:
                        hca.named["np_ecn_marked_roce_packets"] = hca.named["np_cnp_sent"] = 0
    elif scenario == "cnp-ignored":
        nic = _first(cables, platforms, "host")[0]
        ends.setdefault((nic[0], hcas.get(nic, "")), Counts()).named["rp_cnp_ignored"] = 50
    elif scenario == "lossy-drops":
        nic = _first(cables, platforms, "host")[-1]
        ends[nic].named[f"rx_prio{ROCE}_buf_discard"] = 100
    return ends


# ---- rendering --------------------------------------------------------------------------------


def _value(counter: Counter | None) -> int:
    return counter.value if counter is not None else 0


def _eos(base: DeviceCounters, ends: Ends, n: int) -> dict[str, str]:
    pfc, ecn = {}, {}
    for name, port in sorted(base.ports.items()):
        step = ends.get((base.name, name), Counts())
        priorities = {}
        for prio, counters in sorted(port.priorities.items()):
            rx = _value(counters.rx_pause) + n * step.rx.get(prio, 0)
            tx = _value(counters.tx_pause) + n * step.tx.get(prio, 0)
            priorities[str(prio)] = {"rxFrames": rx, "txFrames": tx}
        if priorities:
            pfc[name] = {"priorities": priorities}
        queues: dict[str, int | str] = {}
        for queue, qc in sorted(port.queues.items()):
            if qc.ecn_marked is not None:
                queues[str(queue)] = qc.ecn_marked.value + (n * step.ecn if queue == ROCE else 0)
        if queues:
            ecn[name] = {"queueCounters": queues}
    out = {EOS_PFC: json.dumps({"interfaces": pfc}, indent=2) + "\n"}
    if ecn:
        out[EOS_ECN] = json.dumps({"intfQueueCounters": ecn}, indent=2) + "\n"
    return out


_ETHTOOL_FIELDS = {
    "rx_pause": "rx_prio{p}_pause",
    "tx_pause": "tx_prio{p}_pause",
    "rx_pause_duration_us": "rx_prio{p}_pause_duration",
    "tx_pause_duration_us": "tx_prio{p}_pause_duration",
    "rx_pause_transitions": "rx_prio{p}_pause_transition",
    "ecn_marked": "rx_prio{p}_marked",
}
_PORT_FIELDS = {
    "storm_warning": "tx_pause_storm_warning_events",
    "storm_error": "tx_pause_storm_error_events",
}


def _ethtool_values(port: PortCounters) -> dict[str, int]:
    """The mlx5 `ethtool -S` names and values of one port's base reading."""
    values: dict[str, int] = {}
    for prio, counters in sorted(port.priorities.items()):
        for key, pattern in _ETHTOOL_FIELDS.items():
            counter = getattr(counters, key)
            if counter is not None:
                values[pattern.format(p=prio)] = counter.value
        for reason, counter in counters.drops.items():
            values[f"rx_prio{prio}_{reason}"] = counter.value
    for key, name in _PORT_FIELDS.items():
        counter = getattr(port, key)
        if counter is not None:
            values[name] = counter.value
    for reason, counter in port.drops.items():
        values[reason] = counter.value
    return values


def _host(base: DeviceCounters, ends: Ends, n: int) -> dict[str, str]:
    out: dict[str, str] = {}
    for netdev in sorted(base.ports):
        step = ends.get((base.name, netdev), Counts())
        values = _ethtool_values(base.ports[netdev])
        steps = dict(step.named)
        steps |= {f"rx_prio{p}_pause": v for p, v in step.rx.items()}
        steps |= {f"tx_prio{p}_pause": v for p, v in step.tx.items()}
        lines = [f"     {k}: {v + n * steps.get(k, 0)}" for k, v in values.items()]
        out[ETHTOOL_STATS.format(netdev=netdev)] = "NIC statistics:\n" + "\n".join(lines) + "\n"
    for _key, hca in sorted(base.rdma.items()):
        step = ends.get((base.name, hca.hca), Counts())
        lines = [
            f"/sys/class/infiniband/{hca.hca}/ports/{hca.port}/hw_counters/{name}:"
            f"{counter.value + n * step.named.get(name, 0)}"
            for name, counter in sorted(hca.counters.items())
        ]
        out[HW_COUNTERS.format(hca=hca.hca, port=hca.port)] = "\n".join(lines) + "\n"
    return out


RENDERERS: dict[str, Callable[[DeviceCounters, Ends, int], dict[str, str]]] = {
    "eos": _eos,
    "mlnx-host": _host,
}


@dataclass
class MovingCounters:
    """The counter answers of one lab device: its base reading advanced per collection."""

    base: DeviceCounters
    ends: Ends
    collections: int = -1
    """Sessions served so far minus one: collection n reads base + n * step."""
    current: dict[str, str] = field(default_factory=dict)
    """Counter command -> answer in the current collection."""

    def next_collection(self) -> None:
        """A new SSH session: the device's counters move on by one interval."""
        self.collections += 1
        render = RENDERERS[self.base.platform]
        self.current = render(self.base, self.ends, self.collections)


def attach(devices: list[LabDevice], cables: list[Cable], scenario: str) -> int:
    """Make the counters of `devices` move per `scenario` on the cabling plan; returns how many
    devices move (the others, without counter outputs or a renderer, answer as stored)."""
    platforms = {d.name: d.platform for d in devices}
    bases: dict[str, DeviceCounters] = {}
    for device in devices:
        if device.platform in RENDERERS:
            raw = RawDevice(
                name=device.name,
                platform=device.platform,
                outputs={
                    k: RawOutput(text=v, file=f"lab/{device.name}")
                    for k, v in device.outputs.items()
                },
            )
            base = parse_counters(raw)
            if base is not None and base.inputs and not base.problems:
                bases[device.name] = base
    hcas = {(n, r.netdev): r.hca for n, b in bases.items() for r in b.rdma.values() if r.netdev}
    ends = plan(scenario, cables, platforms, hcas)
    for device in devices:
        if device.name in bases:
            device.counters = MovingCounters(base=bases[device.name], ends=ends)
    return len(bases)
