"""QOS rules about what the RoCE class carries: RoCE re-marked on the way out (QOS010), other
traffic classified into the RoCE queue or a lossless priority (QOS011)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fabriclint.models.common import Source
from fabriclint.models.intent import CnpClass, RoceClass
from fabriclint.models.resolve import egress_dscp, lossless_tcs, tc_queue, traffic_classes
from fabriclint.models.state import DeviceState, Interface, QosConfig, Trust
from fabriclint.rules.base import Context, NoOptions, Rule
from fabriclint.rules.scope import (
    Fault,
    FaultRule,
    StrictOptions,
    first,
    names,
    owner,
    pfc_source,
    roce_ports,
)


def _roce_scope(
    ctx: Context, code: str, state: DeviceState
) -> tuple[RoceClass, CnpClass | None, list[Interface]] | None:
    """The intent's RoCE and CNP classes for `state` and its RoCE ports; None (a skip recorded
    when it has RoCE ports) when the intent profile declares no RoCE class."""
    roce, ports = ctx.roce(state.name), roce_ports(ctx, code, state)
    if roce is None:
        if ports:
            ctx.skip(code, state.name, "the RoCE class (`roce:`) in the intent profile")
        return None
    return roce, ctx.cnp(state.name), ports


class RoceDscpRewritten(FaultRule[NoOptions]):
    """An egress rewrite changes the RoCE (or CNP) DSCP on the way out of an RDMA port.

    Why: the next hop classifies RoCE by its DSCP; re-marked, RoCE lands in another class there
    (often a lossy one without ECN), and re-marked CNPs lose their strict queue. The DSCP a packet
    leaves with is worked out from the rewrite bound to the port (Junos `rewrite-rules dscp`
    under the interface unit, EOS `qos rewrite dscp` with `qos map traffic-class N to dscp D`
    and its platform defaults, SONiC `tc_to_dscp_map`/`dscp_to_dscp_map` in PORT_QOS_MAP, an
    NX-OS `service-policy type qos output` whose class sets a DSCP) and the class the RoCE DSCP
    is in. A rewrite that writes the DSCP a packet came with is fine. Options: none. Skipped
    without a RoCE class in intent, or when a port's DSCP map is unknown.

    Failing (Junos; RoCE DSCP 26 is in forwarding class `roce`)::

        class-of-service rewrite-rules dscp RW forwarding-class roce loss-priority low code-point af11
        class-of-service interfaces et-0/0/0 unit 0 rewrite-rules dscp RW

    Passing::

        class-of-service rewrite-rules dscp RW forwarding-class roce loss-priority low code-point 011010

    Reference: Juniper, "Rewriting Packet Headers to Ensure Forwarding Behavior" (a rewrite rule
    sets the code point of outgoing packets by forwarding class and loss priority); Arista EOS
    "qos rewrite dscp" (DSCP rewritten from the traffic-class to DSCP map).
    """

    code = "QOS010"
    name = "roce-dscp-rewritten"
    severity = "error"
    summary = "An egress rewrite changes the RoCE (or CNP) DSCP on the way out"

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        scope = _roce_scope(ctx, self.code, state)
        if scope is None:
            return
        roce, cnp, ports = scope
        watched = [(d, "RoCE") for d in roce.dscp] + ([(cnp.dscp, "CNP")] if cnp else [])
        for iface in ports:
            qos = ctx.qos(state, iface.name)
            if qos.rewrite is None:
                continue
            if qos.rewrite.by_tc and qos.dscp_to_tc is None:
                ctx.skip(self.code, state.name, "the DSCP-to-traffic-class map of each cabled port")
                continue
            for dscp, what in watched:
                fault = _rewrite_fault(state, iface, qos, dscp, what)
                if fault is not None:
                    yield fault


def _rewrite_fault(
    state: DeviceState, iface: Interface, qos: QosConfig, dscp: int, what: str
) -> Fault | None:
    """The fault of one watched DSCP re-marked on `iface`, if it is."""
    found = egress_dscp(qos, dscp)
    rewrite = qos.rewrite
    if found is None or found[0] == dscp or rewrite is None:
        return None
    out, source = found
    tc = (qos.dscp_to_tc or {}).get(dscp)
    key = f"by_dscp.{dscp}" if dscp in rewrite.by_dscp else f"by_tc.{tc}"
    named = f" {rewrite.name}" if rewrite.name else ""
    entry, bound = rewrite.sources.get(key), rewrite.src("")
    if entry is not None and entry.line:
        line = f" (line {entry.line})"
    else:  # a platform default entry: point at what turns the rewrite on
        line = f" (its platform default entry, the rewrite turned on at line {_line(bound)})"
    return Fault(
        owner(state, iface, "rewrite", source=bound),
        f"rewrite.{key}",
        f"{what} DSCP {dscp} leaves {{where}} re-marked to DSCP {out} by the egress rewrite"
        f"{named}{line}, so the next hop classifies {what} traffic by DSCP {out}, not {dscp}",
        expected=dscp,
        actual=out,
        source=source if source is not None and source.line else bound,
        ports=[iface.name],
    )


class ForeignTrafficInLosslessClass(FaultRule["ForeignTrafficInLosslessClass.Options"]):
    """DSCPs (or CoS values) other than RoCE's and CNP's are classified into the RoCE queue or a
    lossless priority on an RDMA port.

    Why: a lossless class is only safe for traffic that reacts to congestion (DCQCN); any other
    flow classified into it (storage, a mis-marked tenant, a platform default such as DSCP 24-31
    following class selector 3) is a noisy neighbour: it fills the RoCE queue, gets ECN marks it
    ignores and, with PFC, pauses RoCE upstream. The effective map of each RDMA port is judged,
    platform defaults included: by DSCP where the port trusts DSCP, by CoS where it trusts CoS,
    both with trust `both`. The classes judged are those whose queue is the RoCE queue, and, in
    `lossless` mode, every class with PFC on its priority (in `lossy` mode there is none). The
    intent's RoCE DSCPs and priority and its CNP DSCP and priority are allowed (CNPs sharing the
    RoCE queue are QOS004's finding). NIC ports are not judged (a NIC's dscp2prio orders what
    its host sends; the switch port classifies everyone's). Option `allow_class_selector`
    (default true): accept the other DSCPs of a RoCE DSCP's class selector (DSCP >> 3: 24-31 for
    RoCE on 26), which every vendor default map (EOS, Spectrum `qos roce`, ConnectX dscp2prio)
    groups with it; false reports them too. Skipped without a RoCE class in intent, or when the
    map the port classifies by is unknown.

    Failing (EOS; DSCP 24-31 follow the default class-selector map into traffic class 3)::

        qos map dscp 26 to traffic-class 3

    Passing::

        qos map dscp 26 to traffic-class 3
        qos map dscp 24 25 27 28 29 30 31 to traffic-class 0

    Reference: NVIDIA, "RoCE Configuration for NVIDIA Spectrum Switches" (only RoCE in the
    lossless traffic class, CNPs in their own strict class); Arista EOS "qos map dscp" (the
    default DSCP to traffic-class map follows the class selector).
    """

    class Options(StrictOptions):
        """Options of QOS011."""

        allow_class_selector: bool = True
        """Accept the DSCPs that share a RoCE DSCP's class selector (DSCP >> 3)."""

    code = "QOS011"
    name = "foreign-traffic-in-lossless-class"
    severity = "warning"
    summary = "Other DSCPs/CoS values are classified into the RoCE queue or a lossless priority"
    options_model = Options

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        if state.is_host:
            return  # a NIC's dscp2prio orders what the host sends; the switch classifies everyone's
        scope = _roce_scope(ctx, self.code, state)
        if scope is None:
            return
        roce, cnp, ports = scope
        lossy = roce.mode == "lossy"
        allowed_dscp = {*roce.dscp, *((cnp.dscp,) if cnp else ())}
        if self.options.allow_class_selector:
            allowed_dscp |= {d for d in range(64) if any(d >> 3 == r >> 3 for r in roce.dscp)}
        allowed_cos = {roce.priority, *((cnp.priority,) if cnp else ())}
        for iface in ports:
            qos = ctx.qos(state, iface.name)
            judged = _judged_maps(qos)
            if judged is None:
                ctx.skip(self.code, state.name, "the map each cabled port classifies by")
                continue
            targets = _target_tcs(qos, roce, lossy)
            for field, mapping in judged:
                allowed = allowed_dscp if field == "dscp_to_tc" else allowed_cos
                extra = {k: tc for k, tc in mapping.items() if tc in targets and k not in allowed}
                if extra:
                    yield _foreign_fault(state, iface, qos, (field, extra), roce.dscp)


_BY_TRUST: dict[Trust | None, tuple[str, ...]] = {
    Trust.PCP: ("pcp_to_tc",),
    Trust.BOTH: ("dscp_to_tc", "pcp_to_tc"),
    Trust.NONE: (),
}
"""The maps a port classifies by, by trust mode (DSCP, and unknown trust, by the DSCP map)."""


def _judged_maps(qos: QosConfig) -> list[tuple[str, dict[int, int]]] | None:
    """(field, map) of each map a port classifies by under its trust mode (a CoS-trusting port
    with no CoS map uses the identity map); None when a map it classifies by is unknown."""
    out: list[tuple[str, dict[int, int]]] = []
    for field in _BY_TRUST.get(qos.trust, ("dscp_to_tc",)):
        mapping: dict[int, int] | None = getattr(qos, field)
        if mapping is None and field == "pcp_to_tc":
            mapping = {p: p for p in range(8)}
        if mapping is None:
            return None
        out.append((field, mapping))
    return out


def _target_tcs(qos: QosConfig, roce: RoceClass, lossy: bool) -> set[int]:
    """The classes judged: those sharing RoCE's queue, plus every lossless class (lossless
    mode). RoCE's class is found by its priority on a port trusting CoS only, else by its DSCP;
    in lossless mode it counts only when it is lossless (RoCE in a lossy class is PFC002's)."""
    if qos.trust is Trust.PCP:
        tcs = {(qos.pcp_to_tc or {p: p for p in range(8)}).get(roce.priority, roce.priority)}
    else:
        tcs = {tc for d in roce.dscp if (tc := (qos.dscp_to_tc or {}).get(d)) is not None}
    lossless = set() if lossy else lossless_tcs(qos)
    queues = {tc_queue(qos, tc) for tc in tcs if lossy or tc in lossless}
    return {tc for tc in traffic_classes(qos) if tc_queue(qos, tc) in queues} | lossless


def _line(source: Source | None) -> str:
    """The line number of `source` as text ('?' when it has none)."""
    return str(source.line) if source is not None and source.line else "?"


def _foreign_fault(
    state: DeviceState,
    iface: Interface,
    qos: QosConfig,
    found: tuple[str, dict[int, int]],
    roce_dscp: list[int],
) -> Fault:
    """One fault naming each extra value of map `field` (`found`: the field and its extra
    entries) and the line that maps it."""
    field, extra = found
    noun = "DSCP" if field == "dscp_to_tc" else "CoS"
    by_line: dict[int | None, list[int]] = {}
    sources: list[Source] = []
    for key in sorted(extra):
        source = qos.sources.get(f"{field}.{key}")
        line = source.line if source is not None else None
        by_line.setdefault(line, []).append(key)
        if source is not None and line:
            sources.append(source)
    parts = [
        f"{noun} {names([str(k) for k in keys], 8)} "
        f"({f'line {line}' if line else 'platform default'})"
        for line, keys in sorted(by_line.items(), key=lambda item: item[0] or 0)
    ]
    tcs = sorted(set(extra.values()))
    # All platform defaults: point at what makes their class judged (PFC on it, else RoCE's line).
    fallback = [pfc_source(qos)] if set(tcs) & lossless_tcs(qos) else []
    fallback += [qos.sources.get(f"dscp_to_tc.{d}") for d in roce_dscp]
    source = first(*sources, *(s for s in fallback if s is not None and s.line))
    source = source or qos.sources.get(field)
    return Fault(
        owner(state, iface, field, source=source),
        field,
        f"{'; '.join(parts)} {'are' if len(extra) > 1 else 'is'} classified {{where}} into "
        f"traffic class{'es' if len(tcs) > 1 else ''} {', '.join(map(str, tcs))}, RoCE's queue "
        "or a lossless priority: other traffic shares the lossless class with RoCE",
        expected="only the RoCE and CNP values",
        actual={str(k): v for k, v in sorted(extra.items())},
        source=source,
        ports=[iface.name],
    )


RULES: list[type[Rule[Any]]] = [RoceDscpRewritten, ForeignTrafficInLosslessClass]
