"""NIC008: the values a ConnectX really sends with (defaults included), as the switch it is
cabled to classifies them. NIC003/NIC004 compare those values with the intent's classes and
NIC007 with the NIC's own dscp2prio map; without a RoCE (or CNP) class in intent nothing else
asks where the switch puts them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fabriclint.models.finding import Finding
from fabriclint.models.resolve import Resolution, lossless_priorities
from fabriclint.models.state import DeviceState, RdmaPort, SchedulerMode, Trust
from fabriclint.rules.base import Context, NoOptions, Rule
from fabriclint.rules.helpers import is_switch

DEFAULT_ROCE_TOS = 0
"""cma_roce_tos when nobody set it (RDMA-CM default_roce_tos): ToS 0, DSCP 0."""
DEFAULT_CNP_DSCP = 48
"""roce_np/cnp_dscp of the mlx5 driver when nobody set it (NVIDIA, "RoCE ECN configuration")."""

_DSCP_TRUST = (Trust.DSCP, Trust.BOTH)

Cable = tuple[DeviceState, RdmaPort, DeviceState, str]
"""(host, its NIC port, the switch, the switch port) of one host-switch cable."""


def _cables(ctx: Context) -> Iterator[Cable]:
    """Every cable of the plan between a host's RoCE NIC port and a switch port in the state."""
    for a, b in ctx.links():
        ends = (a, b) if ctx.states[a[0]].is_host else (b, a)
        host, switch = ctx.states[ends[0][0]], ctx.states[ends[1][0]]
        nic = host.rdma.get(ends[0][1])
        if not host.is_host or not is_switch(switch) or nic is None:
            continue
        if (nic.link_layer or "ethernet").lower() == "ethernet":
            yield host, nic, switch, ends[1][1]


def _note(value: int, default: int) -> str:
    return " (the driver default)" if value == default else ""


def _protection(res: Resolution) -> str | None:
    """What protects RoCE in the class a DSCP lands in (PFC, else ECN marking); None: nothing."""
    if res.lossless:
        return "PFC"
    return "ECN" if res.ecn is not None and res.ecn.enabled else None


class NicDefaultTosMisclassified(Rule[NoOptions]):
    """The RoCE ToS or CNP DSCP a NIC really sends with lands in the wrong class of its switch.

    Judges the values in force, defaults included: RDMA-CM traffic leaves with `cma_roce_tos`
    (ToS 0, DSCP 0, until someone sets it) and CNPs with `roce_np/cnp_dscp` (48 on ConnectX by
    default), as the NIC's outputs show them. The cabled switch port classifies each DSCP
    (its trust, DSCP map, PFC and queues): RoCE must land on a priority with PFC or on a queue
    that marks ECN, and CNPs on a lossless priority or a strict-priority queue, never a
    best-effort queue where they wait behind (or are dropped with) bulk traffic. Judged for
    hosts whose intent profile declares no RoCE class (resp. no CNP class): with one, NIC004
    (resp. NIC003) compares the NIC with the class and PFC002 the switch's map. Skipped
    (coverage) when the ToS or CNP DSCP was not collected or the switch port does not trust
    DSCP.

    NVIDIA "RoCE ECN / DCQCN configuration" (`/sys/class/net/IF/ecn/roce_np/cnp_dscp`, default
    48) and MLNX_OFED `cma_roce_tos` (default_roce_tos, 0).

    Options: none.

    Fails (no RoCE class in intent; leaf01 maps DSCP 26 to the PFC priority 3)::

        cma_roce_tos -d mlx5_0 -p 1  ->  0   (DSCP 0: leaf01 Ethernet1/1 puts it on priority 0)

    Passes: `cma_roce_tos -d mlx5_0 -p 1 -t 106` (DSCP 26, priority 3 with PFC).
    """

    code = "NIC008"
    name = "nic-default-tos-misclassified"
    severity = "error"
    summary = "the RoCE ToS or CNP DSCP a NIC sends with (defaults included) lands in the wrong switch class"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for host, nic, switch, port in _cables(ctx):
            roce, cnp = ctx.roce(host.name) is None, ctx.cnp(host.name) is None
            if not (roce or cnp):
                continue
            if port not in switch.interfaces or ctx.qos(switch, port).trust not in _DSCP_TRUST:
                ctx.skip(self.code, host.name, "the cabled switch port's DSCP trust and map")
                continue
            if roce:
                yield from self._roce(ctx, host, nic, (switch, port))
            if cnp:
                yield from self._cnp(ctx, host, nic, (switch, port))

    def _roce(
        self, ctx: Context, host: DeviceState, nic: RdmaPort, end: tuple[DeviceState, str]
    ) -> Iterator[Finding]:
        if nic.roce_tos is None:
            ctx.skip(self.code, host.name, "cma_roce_tos of each cabled NIC")
            return
        dscp = nic.roce_tos >> 2
        res = ctx.resolve(end[0], end[1], dscp)
        if _protection(res) is not None or res.priority is None:
            return
        pfc = lossless_priorities(ctx.qos(end[0], end[1]))
        yield self.finding(
            host.name,
            f"interface {nic.netdev}",
            f"rdma.{nic.netdev}.roce_tos",
            f"{nic.netdev} sends RoCE with cma_roce_tos {nic.roce_tos}"
            f"{_note(nic.roce_tos, DEFAULT_ROCE_TOS)}, DSCP {dscp}, which {end[0].name}:{end[1]} "
            f"puts on priority {res.priority}, without PFC or ECN (PFC is on {pfc or 'none'}): "
            "RoCE runs unprotected",
            expected=f"a DSCP the switch puts on a priority with PFC or ECN ({pfc or 'none'})",
            actual={"roce_tos": nic.roce_tos, "dscp": dscp, "priority": res.priority},
            source=nic.src("roce_tos"),
        )

    def _cnp(
        self, ctx: Context, host: DeviceState, nic: RdmaPort, end: tuple[DeviceState, str]
    ) -> Iterator[Finding]:
        if nic.cnp_dscp is None:
            ctx.skip(self.code, host.name, "roce_np/cnp_dscp of each cabled NIC")
            return
        res = ctx.resolve(end[0], end[1], nic.cnp_dscp)
        queue = res.scheduler
        strict = queue is not None and queue.scheduler == SchedulerMode.STRICT
        if res.lossless or strict or res.priority is None:
            return
        yield self.finding(
            host.name,
            f"interface {nic.netdev}",
            f"rdma.{nic.netdev}.cnp_dscp",
            f"{nic.netdev} sends CNPs with DSCP {nic.cnp_dscp}"
            f"{_note(nic.cnp_dscp, DEFAULT_CNP_DSCP)}, which {end[0].name}:{end[1]} puts on "
            f"priority {res.priority} (queue {res.queue}), neither lossless nor strict priority: "
            "CNPs wait behind the traffic they should slow down",
            expected="a CNP DSCP the switch puts on a strict-priority queue",
            actual={"cnp_dscp": nic.cnp_dscp, "priority": res.priority, "queue": res.queue},
            source=nic.src("cnp_dscp"),
        )


RULES: list[type[Rule[Any]]] = [NicDefaultTosMisclassified]
