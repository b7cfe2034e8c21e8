"""Counter outputs of a generated fabric before and after a benchmark interval.

A `Traffic` holds, per link end (device, port), what its counters did over the interval: PFC
frames sent and received per priority, pause time, ECN marks, drops, NIC storm events and the
RDMA (DCQCN, transport) counters. `healthy` is a busy but healthy all-reduce: pauses on the
lossless priority in both directions of every cable (each end counting what the other sent), ECN
marks on the RoCE queue, a CNP for most marks, no loss. Seeded faults change it
(scripts/gen_roce_pod_bench.py), and `render` writes each device's counter outputs in its
platform's syntax (EOS JSON, `ethtool -S`, sysfs `grep -rH`) at a base reading plus the deltas.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from benchmarks.fabricgen import Fabric
from fabriclint.commands import ETHTOOL_STATS, HW_COUNTERS

EOS_PFC = "show priority-flow-control counters detail | json"
EOS_ECN = "show qos interfaces ecn counters queue | json"
ROCE_PRIORITY = 3
INTERVAL_S = 600

RDMA_NAMES = (
    "duplicate_request",
    "implied_nak_seq_err",
    "lifespan",
    "local_ack_timeout_err",
    "np_cnp_sent",
    "np_ecn_marked_roce_packets",
    "out_of_sequence",
    "packet_seq_err",
    "rnr_nak_retry_err",
    "roce_adp_retrans",
    "roce_slow_restart",
    "rp_cnp_handled",
    "rp_cnp_ignored",
)


@dataclass
class End:
    """What one link end's counters did over the interval."""

    rx_pause: dict[int, int] = field(default_factory=dict)
    tx_pause: dict[int, int] = field(default_factory=dict)
    rx_pause_us: dict[int, int] = field(default_factory=dict)
    tx_pause_us: dict[int, int] = field(default_factory=dict)
    ecn_marked: dict[int, int] = field(default_factory=dict)
    """Per queue on a switch (the RoCE queue is the RoCE priority's)."""
    drops: dict[int, dict[str, int]] = field(default_factory=dict)
    storm_warning: int = 0
    storm_error: int = 0
    rdma: dict[str, int] = field(default_factory=dict)


@dataclass
class Traffic:
    """Every link end's counter deltas, and the HCA of each host netdev."""

    ends: dict[tuple[str, str], End] = field(default_factory=dict)
    hcas: dict[tuple[str, str], str] = field(default_factory=dict)

    def end(self, device: str, port: str) -> End:
        """The End of device:port (created empty)."""
        return self.ends.setdefault((device, port), End())


def _cables(fab: Fabric) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    out = []
    for a, b in fab.links:
        da, pa = a.split(":")
        db, pb = b.split(":")
        out.append(((da, pa), (db, pb)))
    return out


def healthy(fab: Fabric, seed: int = 7) -> Traffic:
    """A healthy interval: every pause counted at both ends, ECN marks answered by CNPs."""
    rng = random.Random(seed)
    traffic = Traffic()
    for host in fab.hosts.values():
        for nic in host.nics:
            traffic.hcas[(host.name, nic.netdev)] = nic.hca
    for a, b in _cables(fab):
        for sender, receiver in ((a, b), (b, a)):
            frames = rng.randint(800, 2400)
            traffic.end(*sender).tx_pause[ROCE_PRIORITY] = frames
            traffic.end(*receiver).rx_pause[ROCE_PRIORITY] = frames
            # each pause holds the link ~2-5 us: well under 1 % of the interval
            traffic.end(*sender).tx_pause_us[ROCE_PRIORITY] = frames * rng.randint(2, 5)
            traffic.end(*receiver).rx_pause_us[ROCE_PRIORITY] = frames * rng.randint(2, 5)
    _marks(fab, traffic, rng)
    return traffic


def _marks(fab: Fabric, traffic: Traffic, rng: random.Random) -> None:
    """ECN marks on the switches' RoCE queues; each host NIC receives the marks of the leaf
    port facing it, answers most with CNPs, and handles the CNPs its peers send it."""
    for (device, _port), end in list(traffic.ends.items()):
        if device in fab.switches:
            end.ecn_marked[ROCE_PRIORITY] = rng.randint(5000, 20000)
    for a, b in _cables(fab):
        for host_end, switch_end in ((a, b), (b, a)):
            if host_end[0] not in fab.hosts:
                continue
            marked = traffic.end(*switch_end).ecn_marked[ROCE_PRIORITY]
            rdma = traffic.end(*host_end).rdma
            rdma["np_ecn_marked_roce_packets"] = marked
            rdma["np_cnp_sent"] = marked * 9 // 10  # the NP coalesces CNPs per QP
            rdma["rp_cnp_handled"] = rng.randint(4000, 15000)


# ---- rendering ---------------------------------------------------------------------------------


def _base(rng: random.Random) -> int:
    """A reading since boot: large and different per counter."""
    return rng.randint(10_000, 5_000_000)


def _eos_pfc(fab: Fabric, name: str, traffic: Traffic, rng: random.Random, after: bool) -> str:
    interfaces = {}
    for port in fab.switches[name].ports:
        end = traffic.ends.get((name, port), End())
        priorities = {}
        for prio in range(8):
            rx = _base(rng) if prio == ROCE_PRIORITY else 0
            tx = _base(rng) if prio == ROCE_PRIORITY else 0
            if after:
                rx, tx = rx + end.rx_pause.get(prio, 0), tx + end.tx_pause.get(prio, 0)
            priorities[str(prio)] = {"rxFrames": rx, "txFrames": tx}
        interfaces[port] = {"priorities": priorities}
    return json.dumps({"interfaces": interfaces}, indent=2) + "\n"


def _eos_ecn(fab: Fabric, name: str, traffic: Traffic, rng: random.Random, after: bool) -> str:
    interfaces = {}
    for port in fab.switches[name].ports:
        end = traffic.ends.get((name, port), End())
        queues: dict[str, int | str] = {str(q): "-" for q in range(8)}
        marked = _base(rng)
        queues[str(ROCE_PRIORITY)] = marked + (end.ecn_marked.get(ROCE_PRIORITY, 0) if after else 0)
        interfaces[port] = {"queueCounters": queues}
    return json.dumps({"intfQueueCounters": interfaces}, indent=2) + "\n"


def _ethtool(end: End, rng: random.Random, after: bool) -> str:
    lines = ["NIC statistics:"]
    values: dict[str, int] = {"rx_packets": 0, "tx_packets": 0, "rx_bytes": 0, "tx_bytes": 0}
    for prio in range(8):
        values[f"rx_prio{prio}_bytes"] = 0
        values[f"rx_prio{prio}_packets"] = 0
        values[f"rx_prio{prio}_buf_discard"] = 0
        values[f"rx_prio{prio}_cong_discard"] = 0
        values[f"rx_prio{prio}_discards"] = 0
    p = ROCE_PRIORITY  # mlx5 prints pause counters only for PFC-enabled priorities
    delta = {
        f"rx_prio{p}_pause": end.rx_pause.get(p, 0),
        f"rx_prio{p}_pause_duration": end.rx_pause_us.get(p, 0),
        f"rx_prio{p}_pause_transition": end.rx_pause.get(p, 0),
        f"tx_prio{p}_pause": end.tx_pause.get(p, 0),
        f"tx_prio{p}_pause_duration": end.tx_pause_us.get(p, 0),
        f"rx_prio{p}_buf_discard": end.drops.get(p, {}).get("buf_discard", 0),
        "tx_pause_storm_warning_events": end.storm_warning,
        "tx_pause_storm_error_events": end.storm_error,
        "rx_discards_phy": 0,
        "rx_out_of_buffer": 0,
    }
    values.update(dict.fromkeys(delta, 0))
    for name in values:
        start = 0 if "storm" in name or "discard" in name or "out_of" in name else _base(rng)
        lines.append(f"     {name}: {start + (delta.get(name, 0) if after else 0)}")
    return "\n".join(lines) + "\n"


def _hw_counters(hca: str, end: End, rng: random.Random, after: bool) -> str:
    lines = []
    for name in RDMA_NAMES:
        if name == "lifespan":
            value = 10
        else:
            start = (
                _base(rng)
                if name in ("np_cnp_sent", "np_ecn_marked_roce_packets", "rp_cnp_handled")
                else 0
            )
            value = start + (end.rdma.get(name, 0) if after else 0)
        lines.append(f"/sys/class/infiniband/{hca}/ports/1/hw_counters/{name}:{value}")
    return "\n".join(lines) + "\n"


def render(fab: Fabric, traffic: Traffic, after: bool, seed: int = 11) -> dict[str, dict[str, str]]:
    """Device -> counter outputs (snapshot key -> text): the base reading, plus the deltas when
    `after`. The same seed gives the same base on both sides."""
    rng = random.Random(seed)
    out: dict[str, dict[str, str]] = {}
    for name in sorted(fab.switches):
        out[name] = {
            EOS_PFC: _eos_pfc(fab, name, traffic, rng, after),
            EOS_ECN: _eos_ecn(fab, name, traffic, rng, after),
        }
    for name in sorted(fab.hosts):
        outputs: dict[str, str] = {}
        for nic in fab.hosts[name].nics:
            end = traffic.ends.get((name, nic.netdev), End())
            outputs[ETHTOOL_STATS.format(netdev=nic.netdev)] = _ethtool(end, rng, after)
            key = HW_COUNTERS.format(hca=nic.hca, port=1)
            outputs[key] = _hw_counters(nic.hca, end, rng, after)
        out[name] = outputs
    return out
