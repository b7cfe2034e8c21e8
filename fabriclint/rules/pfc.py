"""PFC rules (PFC001-PFC009): lossless priorities, watchdog, classification, link symmetry, and
PFC where intent runs RoCE lossy (ECN only)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import Field

from fabriclint.models.finding import Finding
from fabriclint.models.resolve import (
    Resolution,
    lossless_priorities,
    priorities_in_use,
)
from fabriclint.models.state import DeviceState, Interface, PfcWatchdog, QosConfig, Trust
from fabriclint.rules.base import Context, NoOptions, Rule
from fabriclint.rules.scope import (
    Fault,
    FaultRule,
    Site,
    StrictOptions,
    first,
    is_infiniband,
    owner,
    pfc_on,
    pfc_source,
    roce_ports,
    roce_resolutions,
    sites,
)

# ---- PFC rules ----------------------------------------------------------------------------------


class PfcPriorityUnused(FaultRule[NoOptions]):
    """PFC is enabled on a priority that no DSCP or PCP class maps to.

    Why: a lossless priority nothing uses still reserves headroom buffer and can still be paused by
    a misbehaving peer; usually it is a typo (PFC on 4 while RoCE maps to 3). Options: none.
    Skipped when the device's DSCP and PCP maps are both unknown.

    Failing (EOS)::

        qos map dscp 26 to traffic-class 3
        priority-flow-control priority 4 no-drop

    Passing::

        qos map dscp 26 to traffic-class 3
        priority-flow-control priority 3 no-drop
    """

    code = "PFC001"
    name = "pfc-priority-unused"
    severity = "warning"
    summary = "PFC is enabled on a priority that no DSCP/PCP class maps to"

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        for site in sites(state, "pfc"):
            lossless = lossless_priorities(site.qos)
            if not lossless:
                continue
            used = [priorities_in_use(q) for q in site.users]
            if any(u is None for u in used):
                ctx.skip(self.code, state.name)
                continue
            reached = set().union(*(u for u in used if u is not None))
            unused = [p for p in lossless if p not in reached]
            if unused:
                yield Fault(
                    site.at(pfc_source(site.qos)),
                    "pfc.priorities",
                    f"PFC is enabled on priorities {unused} {{where}}, but no DSCP or PCP class "
                    f"maps to them (classes use priorities {sorted(reached)})",
                    expected=[p for p in lossless if p in reached],
                    actual=lossless,
                    source=pfc_source(site.qos),
                )


class RdmaPriorityNotLossless(FaultRule[NoOptions]):
    """The priority RoCE traffic maps to has no PFC on a port that carries RDMA.

    Why: RoCE v2 assumes a lossless network; a single drop costs a go-back-N retransmission and
    collapses throughput. Resolves each intended RoCE DSCP on every cabled port (switches and NICs).
    When the DSCP lands on a priority other than the intended one the DSCP map is reported,
    otherwise the PFC priority list. Options: none. Skipped without a RoCE class in intent or when
    the port's DSCP map is unknown. Not judged where intent runs RoCE lossy (`roce.mode: lossy`,
    ECN only): there PFC on the RoCE priority is PFC009's finding instead.

    Failing (EOS, intent RoCE DSCP 26 priority 3)::

        qos map dscp 26 to traffic-class 1
        priority-flow-control priority 3 no-drop

    Passing::

        qos map dscp 26 to traffic-class 3
        priority-flow-control priority 3 no-drop
    """

    code = "PFC002"
    name = "rdma-priority-not-lossless"
    severity = "error"
    summary = "The priority RoCE traffic maps to has no PFC (on a port that carries RDMA)"

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        roce = ctx.roce(state.name)
        if roce is not None and roce.mode == "lossy":
            return  # ECN-only RoCE: no PFC is the intent (PFC009 judges the opposite)
        for iface, res in roce_resolutions(ctx, self.code, state):
            if not res.lossless and roce is not None:
                yield self._fault(state, iface, ctx.qos(state, iface.name), res, roce.priority)

    def _fault(
        self, state: DeviceState, iface: Interface, qos: QosConfig, res: Resolution, want: int
    ) -> Fault:
        lossless = lossless_priorities(qos)
        tail = f"which has no PFC (lossless priorities: {lossless})"
        if res.priority == want:
            scope = owner(state, iface, "pfc", source=pfc_source(qos))
            text = f"RoCE DSCP {res.dscp} maps to priority {want} {{where}}, {tail}"
            return Fault(
                scope,
                "pfc.priorities",
                text,
                expected=sorted({*lossless, want}),
                actual=lossless,
                source=pfc_source(qos),
                ports=[iface.name],
            )
        source = first(qos.sources.get(f"dscp_to_tc.{res.dscp}"), *res.sources)
        scope = owner(state, iface, "dscp_to_tc", "tc_to_priority", source=source)
        if res.tc is None:
            text = f"RoCE DSCP {res.dscp} is not in the DSCP map {{where}}, so it falls into the "
            text += "default class, " + tail
        elif res.priority is None:
            text = f"RoCE DSCP {res.dscp} lands in traffic class {res.tc} {{where}}, a lossy class "
            text += "with no 802.1p priority of its own, " + tail
        else:
            text = f"RoCE DSCP {res.dscp} maps to priority {res.priority} {{where}}, {tail}"
        suffix = f"dscp_to_tc.{res.dscp}"
        return Fault(scope, suffix, text, want, res.priority, source, ports=[iface.name])


class TooManyLosslessPriorities(FaultRule["TooManyLosslessPriorities.Options"]):
    """More lossless (PFC) priorities than the option allows.

    Why: every lossless priority reserves headroom on every port; switch buffers usually fit one or
    two, and more lossless classes mean more pause spreading. Option `max_lossless` (default 2).

    Failing::

        priority-flow-control priority 2 no-drop
        priority-flow-control priority 3 no-drop
        priority-flow-control priority 4 no-drop

    Passing::

        priority-flow-control priority 3 no-drop
    """

    class Options(StrictOptions):
        """Options of PFC003."""

        max_lossless: int = Field(default=2, ge=0)
        """Most lossless priorities allowed on one port."""

    code = "PFC003"
    name = "too-many-lossless-priorities"
    severity = "warning"
    summary = "More lossless priorities than the option allows (default 2)"
    options_model = Options

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        limit = self.options.max_lossless
        for site in sites(state, "pfc"):
            lossless = lossless_priorities(site.qos)
            if len(lossless) > limit:
                yield Fault(
                    site.at(pfc_source(site.qos)),
                    "pfc.priorities",
                    f"{len(lossless)} priorities are lossless {{where}} ({lossless}); "
                    f"at most {limit} are allowed",
                    expected=f"at most {limit}",
                    actual=lossless,
                    source=pfc_source(site.qos),
                )


def _own_watchdog(iface: Interface) -> PfcWatchdog | None:
    own = iface.qos.pfc if iface.qos is not None else None
    return own.watchdog if own is not None else None


class PfcWithoutWatchdog(FaultRule[NoOptions]):
    """PFC is enabled on a switch port while the PFC watchdog is off there.

    Why: a NIC or port stuck in pause (a pause storm) otherwise freezes the lossless class across
    the fabric; the watchdog detects the stuck queue and drops or forwards to break the deadlock.
    Switches only (NICs have no PFC watchdog). Every port with PFC on is checked, in the cabling
    plan or not. A port without its own watchdog setting inherits the device-wide one. Options: none.

    Failing (EOS)::

        interface Ethernet1
           priority-flow-control on
           priority-flow-control priority 3 no-drop

    Passing::

        priority-flow-control pause watchdog default timeout 0.2
        interface Ethernet1
           priority-flow-control on
           priority-flow-control priority 3 no-drop
    """

    code = "PFC004"
    name = "pfc-without-watchdog"
    severity = "error"
    summary = "PFC enabled on a port while the PFC watchdog is off there"

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        if state.is_host:
            return
        device = state.qos.pfc.watchdog if state.qos.pfc is not None else None
        # Every port with PFC on, cabled or not: a spare port with PFC and no watchdog is one
        # plugged-in host away from an unbreakable pause storm.
        for iface in sorted(state.interfaces.values(), key=lambda i: i.name):
            qos = ctx.qos(state, iface.name)
            own = _own_watchdog(iface)
            watchdog = own if own is not None else device
            if not pfc_on(qos) or (watchdog is not None and watchdog.enabled):
                continue
            # Where the watchdog is written off, else where PFC is turned on without one.
            source = first(watchdog.sources.get("enabled") if watchdog else None, pfc_source(qos))
            state_text = "off" if watchdog is not None else "not configured"
            yield Fault(
                owner(state, iface, "pfc", source=source),
                "pfc.watchdog",
                f"PFC is on for priorities {lossless_priorities(qos)} {{where}}, but the PFC "
                f"watchdog is {state_text}, so a pause storm would not be broken",
                expected={"enabled": True},
                actual={"enabled": False} if watchdog is not None else None,
                source=source,
                ports=[iface.name],
            )


class PfcPortUnclassified(FaultRule[NoOptions]):
    """PFC is on for an RDMA port that has no trust (classification) mode.

    Why: with no trust mode the port does not classify ingress traffic by DSCP or PCP, so RoCE
    lands in the default (lossy) class even though PFC is on. Parsers record the platform default
    trust when the configuration relies on it. PFC switched on counts even with no lossless
    priority left (a dangling network-qos class, PFC006's finding): the port is still
    unclassified. Options: none.

    Failing (EOS)::

        interface Ethernet1
           qos trust none
           priority-flow-control on

    Passing::

        interface Ethernet1
           qos trust dscp
           priority-flow-control on
    """

    code = "PFC005"
    name = "pfc-port-unclassified"
    severity = "error"
    summary = "PFC is on for a port that has no trust/classification policy applied"

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        for iface in roce_ports(ctx, self.code, state):
            qos = ctx.qos(state, iface.name)
            enabled = qos.pfc is not None and qos.pfc.enabled
            if not enabled or qos.trust not in (None, Trust.NONE):
                continue
            source = first(qos.sources.get("trust"), pfc_source(qos))
            trust = "no trust mode is set" if qos.trust is None else "trust is none"
            prios = lossless_priorities(qos)
            what = f"for priorities {prios}" if prios else "(for no priority yet)"
            yield Fault(
                owner(state, iface, "trust", source=source),
                "trust",
                f"PFC is on {what} {{where}}, but {trust}, "
                "so ingress traffic is not classified into the lossless class",
                expected="dscp",
                actual=qos.trust.value if qos.trust else None,
                source=source,
                ports=[iface.name],
            )


class PfcEnabledNoPriority(FaultRule[NoOptions]):
    """PFC is turned on with an empty priority list.

    Why: the operator meant to make a class lossless, but no priority is protected, so RDMA
    traffic is silently dropped under congestion. Options: none.

    Failing (EOS)::

        interface Ethernet1
           priority-flow-control on

    Passing::

        interface Ethernet1
           priority-flow-control on
           priority-flow-control priority 3 no-drop
    """

    code = "PFC006"
    name = "pfc-enabled-no-priority"
    severity = "error"
    summary = "PFC turned on with an empty priority list"

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        for site in sites(state, "pfc"):
            pfc = site.qos.pfc
            if pfc is not None and pfc.enabled and not pfc.priorities:
                yield Fault(
                    site.at(pfc_source(site.qos)),
                    "pfc.priorities",
                    "PFC is enabled {where} but no priority is lossless",
                    expected="at least one priority",
                    actual=[],
                    source=pfc_source(site.qos),
                )


class PfcLinkAsymmetric(Rule[NoOptions]):
    """The two ends of a cable disagree on which priorities are lossless.

    Why: PFC is hop by hop; if one end pauses priority 3 and the other does not honour it (or
    pauses a different one) the lossless class drops at that link. Checks every cable of the
    cabling plan, switch-switch and switch-NIC; the finding is attached to the first end. Options:
    none. Skipped when a cabled port is missing from the state (or a NIC's PFC is unknown).

    Failing: leaf01:Ethernet1 has PFC on [3], gpu01:ens1np0 on [3, 4].

    Passing: both ends have PFC on [3].
    """

    code = "PFC007"
    name = "pfc-link-asymmetric"
    severity = "error"
    summary = "The two ends of a link disagree on PFC priorities"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for (a_dev, a_port), (b_dev, b_port) in ctx.links():
            mine = self._end(ctx, a_dev, a_port)
            peer = self._end(ctx, b_dev, b_port)
            if mine is None or peer is None or mine == peer:
                continue
            state = ctx.states[a_dev]
            yield self.finding(
                a_dev,
                f"link {a_dev}:{a_port} - {b_dev}:{b_port}",
                f"interfaces.{a_port}.qos.pfc.priorities",
                f"PFC priorities differ across the link: {mine} on {a_dev}:{a_port} "
                f"but {peer} on {b_dev}:{b_port}",
                expected=peer,
                actual=mine,
                source=pfc_source(ctx.qos(state, a_port)),
            )

    def _end(self, ctx: Context, device: str, port: str) -> list[int] | None:
        """Lossless priorities at one end; None when not Ethernet or unknown (recorded)."""
        state = ctx.states[device]
        if state.is_subnet_manager or is_infiniband(state, port):
            return None
        if port not in state.interfaces or (state.is_host and ctx.qos(state, port).pfc is None):
            ctx.skip(self.code, device)
            return None
        return lossless_priorities(ctx.qos(state, port))


class TimerRange(StrictOptions):
    """Accepted PFC watchdog timers, milliseconds."""

    detection_min_ms: float = 10
    """Shortest accepted detection time."""
    detection_max_ms: float = 2000
    """Longest accepted detection time."""
    restoration_min_ms: float = 10
    """Shortest accepted restoration time."""
    restoration_max_ms: float = 60000
    """Longest accepted restoration time."""


_SONIC = TimerRange(
    detection_min_ms=100, detection_max_ms=5000, restoration_min_ms=100, restoration_max_ms=60000
)


class PfcWatchdogTimersInvalid(FaultRule["PfcWatchdogTimersInvalid.Options"]):
    """PFC watchdog detection/restoration outside the platform's range, or restoration < detection.

    Why: a detection time too short drops lossless traffic on ordinary congestion, one too long
    lets a pause storm spread; restoring before the detection window ends flaps the queue. Only
    enabled watchdogs are checked. Options: `default` (a range: detection 10-2000 ms, restoration
    10-60000 ms) and `platforms` (ranges by platform key; SONiC pfcwd accepts detection 100-5000 ms
    and restoration 100-60000 ms).

    Failing (SONiC PFC_WD)::

        "Ethernet0": {"detection_time": "5", "restoration_time": "2", "action": "drop"}

    Passing::

        "Ethernet0": {"detection_time": "200", "restoration_time": "400", "action": "drop"}
    """

    class Options(StrictOptions):
        """Options of PFC008."""

        default: TimerRange = TimerRange()
        """Range used for platforms not listed in `platforms`."""
        platforms: dict[str, TimerRange] = {"sonic": _SONIC}
        """Ranges by platform key."""

    code = "PFC008"
    name = "pfc-watchdog-timers-invalid"
    severity = "warning"
    summary = (
        "Watchdog detection/restoration outside the platform's range, or restoration < detection"
    )
    options_model = Options

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        limits = self.options.platforms.get(state.platform, self.options.default)
        for site in sites(state, "pfc"):
            watchdog = site.qos.pfc.watchdog if site.qos.pfc is not None else None
            if watchdog is not None and watchdog.enabled:
                yield from _timer_faults(site, watchdog, limits)


def _timer_faults(site: Site, wd: PfcWatchdog, limits: TimerRange) -> Iterator[Fault]:
    detect, restore = wd.detection_ms, wd.restoration_ms
    low, high = limits.detection_min_ms, limits.detection_max_ms
    if detect is not None and not low <= detect <= high:
        yield Fault(
            site.at(wd.src("detection_ms")),
            "pfc.watchdog.detection_ms",
            f"PFC watchdog detection time {detect:g} ms {{where}} is outside {low:g}-{high:g} ms",
            expected=[low, high],
            actual=detect,
            source=wd.src("detection_ms"),
        )
    low, high = limits.restoration_min_ms, limits.restoration_max_ms
    if restore is None:
        return
    problem = None
    if not low <= restore <= high:
        problem = f"is outside {low:g}-{high:g} ms"
    elif detect is not None and restore < detect:
        problem = f"is shorter than the detection time ({detect:g} ms)"
    if problem:
        yield Fault(
            site.at(wd.src("restoration_ms")),
            "pfc.watchdog.restoration_ms",
            f"PFC watchdog restoration time {restore:g} ms {{where}} {problem}",
            expected=[max(low, detect or low), high],
            actual=restore,
            source=wd.src("restoration_ms"),
        )


class PfcOnLossyRoce(FaultRule[NoOptions]):
    """PFC is on for the priority RoCE rides, where intent runs RoCE lossy (ECN only).

    Why: a lossy (ECN/DCQCN-only) design chooses drops over pauses: its buffers carry no PFC
    headroom and its hosts expect no pause frames (NVIDIA `qos roce mode lossy`, "RoCE lossy" in
    the Cumulus Linux and Onyx user guides). A port that still pauses the RoCE priority spreads
    congestion to its neighbours with none of the lossless design's headroom or watchdog, and
    the two ends of the link disagree on what a full queue means. Judged only for profiles with
    `roce.mode: lossy`, on every cabled port, switches and NICs: each intended RoCE DSCP is
    resolved and the priority it lands in must have no PFC. Options: none. Skipped when the
    port's DSCP map is unknown.

    Failing (EOS, intent RoCE DSCP 26 priority 3, mode lossy)::

        qos map dscp 26 to traffic-class 3
        qos profile ROCE
           priority-flow-control on
           priority-flow-control priority 3 no-drop

    Passing::

        qos map dscp 26 to traffic-class 3
        qos profile ROCE
           tx-queue 3
              random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes
    """

    code = "PFC009"
    name = "pfc-on-lossy-roce"
    severity = "error"
    summary = "PFC is on for the RoCE priority where intent runs RoCE lossy (ECN only)"

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        roce = ctx.roce(state.name)
        if roce is None or roce.mode != "lossy":
            return
        for iface, res in roce_resolutions(ctx, self.code, state):
            if res.lossless:
                yield self._fault(state, iface, ctx.qos(state, iface.name), res)

    def _fault(
        self, state: DeviceState, iface: Interface, qos: QosConfig, res: Resolution
    ) -> Fault:
        lossless = lossless_priorities(qos)
        source = pfc_source(qos)
        return Fault(
            owner(state, iface, "pfc", source=source),
            "pfc.priorities",
            f"RoCE DSCP {res.dscp} maps to priority {res.priority} {{where}}, which has PFC on "
            f"(lossless priorities: {lossless}), but intent runs RoCE lossy (ECN only, no PFC)",
            expected=[p for p in lossless if p != res.priority],
            actual=lossless,
            source=source,
            ports=[iface.name],
        )


RULES: list[type[Rule[Any]]] = [
    PfcPriorityUnused,
    RdmaPriorityNotLossless,
    TooManyLosslessPriorities,
    PfcWithoutWatchdog,
    PfcPortUnclassified,
    PfcEnabledNoPriority,
    PfcLinkAsymmetric,
    PfcWatchdogTimersInvalid,
    PfcOnLossyRoce,
]
