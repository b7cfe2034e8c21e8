"""ECN rules (ECN001-ECN007): marking on lossless queues and on the queue of lossy (ECN-only)
RoCE, threshold sanity, WRED drop, the shape of the marking ramp, and the WRED/ECN profiles
defined but bound to no queue."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from pydantic import Field

from fabriclint.models.resolve import (
    Resolution,
    lossless_queues_of,
    lossless_tcs,
    tc_priority,
    tc_queue,
    tcs_in_use,
)
from fabriclint.models.state import (
    DeviceState,
    EcnConfig,
    EcnProfile,
    Interface,
    QosConfig,
    QueueConfig,
)
from fabriclint.rules.base import Context, NoOptions, Rule
from fabriclint.rules.scope import (
    Fault,
    FaultRule,
    Scope,
    Site,
    StrictOptions,
    first,
    owner,
    pfc_source,
    roce_ports,
    roce_resolutions,
    sites,
)


class LosslessQueueWithoutEcn(FaultRule[NoOptions]):
    """A lossless queue has no ECN marking.

    Why: PFC with no congestion control invites pause storms and head-of-line blocking; DCQCN
    needs the switch to mark ECN on the lossless queue before it pauses. Every lossless class
    some DSCP or PCP reaches is judged on every cabled port, not only the one the intent's RoCE
    DSCP lands in: a no-drop class reached by CoS (NX-OS `match cos 3` feeding `pause pfc-cos
    3`) pauses just the same. On NICs only queue-level ECN the parser models is checked (NIC
    DCQCN state is NIC002's). Options: none. Ports whose QoS shows no PFC have nothing to judge.

    Failing (EOS)::

        qos profile ROCE
           priority-flow-control priority 3 no-drop
           tx-queue 3
              bandwidth percent 50

    Passing::

        qos profile ROCE
           priority-flow-control priority 3 no-drop
           tx-queue 3
              random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes
    """

    code = "ECN001"
    name = "lossless-queue-without-ecn"
    severity = "error"
    summary = "A lossless queue/TC has no ECN marking"

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        roce = ctx.roce(state.name)
        for iface in roce_ports(ctx, self.code, state):
            qos = ctx.qos(state, iface.name)
            for queue, tc in _reached_lossless(qos).items():
                conf = (qos.queues or {}).get(queue)
                ecn = conf.ecn if conf is not None else None
                if (ecn is not None and ecn.enabled) or (state.is_host and ecn is None):
                    continue
                dscps = [
                    d for d in (roce.dscp if roce else []) if (qos.dscp_to_tc or {}).get(d) == tc
                ]
                yield _no_ecn(state, iface, qos, (queue, tc, conf), dscps)


def _reached_lossless(qos: QosConfig) -> dict[int, int]:
    """Egress queue -> (first) lossless traffic class on it, for the classes some DSCP or PCP
    map reaches (every lossless class when neither map is known)."""
    lossless = lossless_tcs(qos)
    reached = tcs_in_use(qos)
    if reached is not None:
        lossless &= reached
    out: dict[int, int] = {}
    for tc in sorted(lossless):
        out.setdefault(tc_queue(qos, tc), tc)
    return dict(sorted(out.items()))


def _no_ecn(
    state: DeviceState,
    iface: Interface,
    qos: QosConfig,
    where: tuple[int, int, QueueConfig | None],
    dscps: list[int],
) -> Fault:
    queue, tc, conf = where
    ecn = conf.ecn if conf is not None else None
    source = first(
        ecn.src("enabled") if ecn else None,
        conf.src() if conf else None,
        qos.sources.get(f"tc_to_queue.{tc}"),
        pfc_source(qos),
    )
    status = "is disabled" if ecn is not None else "is not configured"
    priority = tc_priority(qos, tc)
    what = (
        f"RoCE DSCP {', '.join(map(str, dscps))} is lossless (priority {priority})"
        if dscps
        else f"Traffic class {tc} is lossless (priority {priority})"
    )
    return Fault(
        owner(state, iface, "queues", "tc_to_queue", source=source),
        f"queues.{queue}.ecn",
        f"{what} but ECN marking on queue {queue} {{where}} {status}, so congestion is "
        "signalled only by PFC pauses",
        expected={"enabled": True},
        actual={"enabled": False} if ecn is not None else None,
        source=source,
        queue=queue,
        ports=[iface.name],
    )


def _marking(state: DeviceState) -> Iterator[tuple[Site, int, EcnConfig]]:
    """(site, queue, ECN) of every queue with ECN marking enabled, wherever queues are set."""
    for site in sites(state, "queues"):
        for number, queue in sorted((site.qos.queues or {}).items()):
            if queue.ecn is not None and queue.ecn.enabled:
                yield site, number, queue.ecn


class EcnThresholdOrder(FaultRule[NoOptions]):
    """An ECN minimum threshold is above the maximum (warning when equal: step marking).

    Why: with min > max most ASICs either reject the profile or mark everything above min at full
    probability; equal thresholds turn the marking ramp into a step, which makes DCQCN oscillate.
    Only thresholds known in bytes are compared; a queue whose thresholds are in other units
    (segments, microseconds) is skipped. Options: none.

    Failing (EOS): ``random-detect ecn minimum-threshold 1500 kbytes maximum-threshold 150 kbytes``

    Passing: ``random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes``
    """

    code = "ECN002"
    name = "ecn-threshold-order"
    severity = "error"
    summary = "ECN min threshold > max threshold (warning when equal: step marking)"

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        for site, number, ecn in _marking(state):
            pair = _thresholds(ecn)
            if pair is None:
                if ecn.min_raw or ecn.max_raw:
                    ctx.skip(self.code, state.name)  # units differ and are not bytes
                continue
            (low, high), unit = pair
            if low < high:
                continue
            problem = "above its maximum" if low > high else "equal to its maximum (step marking)"
            yield Fault(
                site.at(ecn.src("min_bytes", "max_bytes")),
                f"queues.{number}.ecn",
                f"ECN on queue {number} {{where}} has a minimum threshold of {low:.15g} {unit}, "
                f"{problem} of {high:.15g} {unit}",
                expected=f"min_bytes < max_bytes ({high})",
                actual={"min_bytes": low, "max_bytes": high},
                source=ecn.src("min_bytes", "max_bytes"),
                queue=number,
                severity=None if low > high else "warning",
            )


def _thresholds(ecn: EcnConfig) -> tuple[tuple[float, float], str] | None:
    """(min, max) and their unit: bytes when known, else the configured unit when both share it."""
    if ecn.min_bytes is not None and ecn.max_bytes is not None:
        return (ecn.min_bytes, ecn.max_bytes), "B"
    low, high = (ecn.min_raw or "").split(), (ecn.max_raw or "").split()
    if len(low) != 2 or len(high) != 2 or low[1] != high[1]:
        return None
    try:
        return (float(low[0]), float(high[0])), low[1]
    except ValueError:
        return None


class EcnThresholdImplausible(FaultRule["EcnThresholdImplausible.Options"]):
    """ECN thresholds below one MTU or above the buffer, or a marking probability of 0.

    Why: a threshold below one jumbo frame marks every packet (DCQCN throttles to nothing); one
    above the lossless buffer never marks before PFC pauses; probability 0 never marks at all.
    Options: `min_bytes_floor` (default 9216, one jumbo MTU) and `max_bytes_ceiling` (default
    64 MiB, used when the device's lossless pool size is unknown).

    Failing (EOS): ``random-detect ecn minimum-threshold 4 kbytes maximum-threshold 1500 kbytes``

    Passing: ``random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes``
    """

    class Options(StrictOptions):
        """Options of ECN003."""

        min_bytes_floor: int = Field(default=9216, ge=0)
        """Smallest plausible threshold (one MTU), bytes."""
        max_bytes_ceiling: int = Field(default=64 * 1024 * 1024, ge=0)
        """Largest plausible threshold when the lossless pool size is unknown, bytes."""

    code = "ECN003"
    name = "ecn-threshold-implausible"
    severity = "warning"
    summary = "ECN thresholds below one MTU or above the buffer, or probability 0"
    options_model = Options

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        for site, number, ecn in _marking(state):
            floor, ceiling, what = self._bounds(site.qos)
            for key, value, problem in _implausible(ecn, floor, ceiling, what):
                yield Fault(
                    site.at(ecn.src(key)),
                    f"queues.{number}.ecn.{key}",
                    f"ECN on queue {number} {{where}} has {problem}",
                    expected=[floor, ceiling] if key != "probability_pct" else "> 0",
                    actual=value,
                    source=ecn.src(key),
                    queue=number,
                )

    def _bounds(self, qos: QosConfig) -> tuple[int, int, str]:
        pool = qos.buffers.lossless_pool_bytes if qos.buffers is not None else None
        if pool:
            return self.options.min_bytes_floor, pool, "the lossless buffer pool"
        return self.options.min_bytes_floor, self.options.max_bytes_ceiling, "the buffer ceiling"


def _implausible(
    ecn: EcnConfig, floor: int, ceiling: int, what: str
) -> Iterator[tuple[str, float, str]]:
    """(field, value, problem) for each implausible setting of one ECN profile."""
    for key, label in (("min_bytes", "minimum"), ("max_bytes", "maximum")):
        value = getattr(ecn, key)
        if value is not None and value < floor:
            yield key, value, f"a {label} threshold of {value} B, below one MTU ({floor} B)"
        elif value is not None and value > ceiling:
            yield key, value, f"a {label} threshold of {value} B, above {what} ({ceiling} B)"
    if ecn.probability_pct == 0:
        yield "probability_pct", 0, "a marking probability of 0%, so it never marks"


class WredDropOnLossless(FaultRule[NoOptions]):
    """WRED drop (not ECN marking) is configured on a lossless queue.

    Why: a lossless queue must never drop; WRED drop discards RoCE packets before PFC engages,
    each drop costing a go-back-N retransmission. Use ECN marking only. Options: none.

    Failing (SONiC WRED_PROFILE on a PFC queue)::

        "AZURE_LOSSLESS": {"wred_green_enable": "true", "ecn": "ecn_none"}

    Passing::

        "AZURE_LOSSLESS": {"wred_green_enable": "true", "ecn": "ecn_all"}
    """

    code = "ECN004"
    name = "wred-drop-on-lossless"
    severity = "error"
    summary = "WRED drop (not ECN mark) is configured on a lossless queue"

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        for site in sites(state, "queues"):
            lossless = lossless_queues_of(site.users)
            for number, queue in sorted((site.qos.queues or {}).items()):
                if queue.wred_drop and number in lossless:
                    yield Fault(
                        site.at(queue.src("wred_drop")),
                        f"queues.{number}.wred_drop",
                        f"Queue {number} {{where}} is lossless but has WRED drop configured, "
                        "so it drops RoCE packets instead of marking them",
                        expected=False,
                        actual=True,
                        source=queue.src("wred_drop"),
                        queue=number,
                    )


class LossyRoceQueueWithoutEcn(FaultRule[NoOptions]):
    """The queue RoCE lands in has no ECN marking, where intent runs RoCE lossy (ECN only).

    Why: without PFC, ECN marking is the only congestion signal DCQCN gets; a RoCE queue that
    never marks fills up and drops, and every drop costs a go-back-N retransmission. NVIDIA's
    lossy RoCE (`qos roce mode lossy`) keeps ECN marking on the RoCE traffic class for exactly
    this reason. Judged only for profiles with `roce.mode: lossy`, on the cabled switch ports
    (NIC reaction and notification points are NIC002's): each intended RoCE DSCP is resolved to
    its egress queue, which must mark ECN. A queue that is lossless after all is ECN001's (and
    PFC009's) finding. Options: none. Skipped when the port's DSCP map is unknown.

    Failing (EOS, intent RoCE DSCP 26 priority 3, mode lossy)::

        qos map dscp 26 to traffic-class 3
        qos profile ROCE
           tx-queue 3
              bandwidth percent 50

    Passing::

        qos map dscp 26 to traffic-class 3
        qos profile ROCE
           tx-queue 3
              bandwidth percent 50
              random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes
    """

    code = "ECN005"
    name = "lossy-roce-queue-without-ecn"
    severity = "error"
    summary = "The RoCE queue has no ECN marking where intent runs RoCE lossy (ECN only)"

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        roce = ctx.roce(state.name)
        if state.is_host or roce is None or roce.mode != "lossy":
            return
        for iface, res in roce_resolutions(ctx, self.code, state):
            if res.lossless or (res.ecn is not None and res.ecn.enabled):
                continue
            yield _lossy_no_ecn(state, iface, ctx.qos(state, iface.name), res)


def _lossy_no_ecn(state: DeviceState, iface: Interface, qos: QosConfig, res: Resolution) -> Fault:
    queue = res.queue if res.queue is not None else res.tc
    ecn, conf = res.ecn, res.scheduler
    source = first(
        ecn.src("enabled") if ecn else None,
        conf.src() if conf else None,
        *res.sources,
    )
    status = "is disabled" if ecn is not None else "is not configured"
    return Fault(
        owner(state, iface, "queues", "tc_to_queue", "dscp_to_tc", source=source),
        f"queues.{queue}.ecn",
        f"RoCE DSCP {res.dscp} runs lossy (ECN only) in queue {queue} {{where}}, but ECN marking "
        f"there {status}, so congestion is signalled only by drops",
        expected={"enabled": True},
        actual={"enabled": False} if ecn is not None else None,
        source=source,
        queue=queue,
        ports=[iface.name],
    )


class EcnRampStep(FaultRule["EcnRampStep.Options"]):
    """The ECN marking ramp is far narrower than vendor guidance: near-step marking.

    Why: WRED/ECN marks with a probability that rises from 0 at the minimum threshold to the
    configured probability at the maximum, and marks everything above it. A ramp of a few KB
    (or a few percent of fill) turns that into a step: every flow is marked at once, DCQCN
    cuts every sender together and the queue oscillates between empty and full. Vendor RoCE
    examples use a wide ramp: NVIDIA Spectrum (Cumulus `qos roce`) marks from 150 KB to
    1.5 MB, the Cisco Nexus AI/ML blueprint uses 150 KB to 3000 KB, SONiC's lossless WRED
    profiles about 250 KB to 2 MB. Judged in the unit the platform states thresholds in: bytes
    (EOS/NX-OS kbytes and mbytes, SONiC, Cumulus), segments (EOS buffer cells, whose size the
    ASIC fixes) and percent fill levels (Junos drop profiles). A ramp of zero width is ECN002's
    (min equal to max); thresholds in other units (time, presets) are not judged. The message
    names the marking probability reached at the top of the ramp (100 % is the sharpest step).
    Options: `min_span_bytes` (default 92160, ten 9216-byte jumbo frames), `min_span_segments`
    (default 360, about the same at 256-byte cells) and `min_span_percent` (default 10 points
    of fill level).

    Failing (EOS): ``random-detect ecn minimum-threshold 150 kbytes maximum-threshold 160 kbytes``

    Passing: ``random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes``

    Failing (Junos drop profile)::

        drop-profiles { ROCE-DP { interpolate { fill-level [ 40 42 ]; drop-probability [ 0 100 ]; } } }

    Passing: ``interpolate { fill-level [ 20 80 ]; drop-probability [ 0 100 ]; }``
    """

    class Options(StrictOptions):
        """Options of ECN006."""

        min_span_bytes: int = Field(default=10 * 9216, ge=1)
        """Narrowest acceptable ramp (max - min) for thresholds in bytes."""
        min_span_segments: int = Field(default=360, ge=1)
        """Narrowest acceptable ramp for thresholds in segments (buffer cells)."""
        min_span_percent: float = Field(default=10, gt=0, le=100)
        """Narrowest acceptable ramp for thresholds in percent fill level, in points."""

    code = "ECN006"
    name = "ecn-ramp-step"
    severity = "warning"
    summary = "The ECN marking ramp (max - min) is far narrower than vendor guidance: step marking"
    options_model = Options

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        floors = {
            "B": float(self.options.min_span_bytes),
            "segments": float(self.options.min_span_segments),
            "percent": self.options.min_span_percent,
        }
        for site, number, ecn in _marking(state):
            pair = _thresholds(ecn)
            if pair is None or pair[1] not in floors:
                if ecn.min_raw or ecn.max_raw:
                    ctx.skip(self.code, state.name)  # time units or presets: no span to judge
                continue
            (low, high), unit = pair
            if 0 < high - low < floors[unit]:
                yield _narrow(site, number, ecn, (low, high, unit), floors[unit])


def _narrow(
    site: Site, number: int, ecn: EcnConfig, ramp: tuple[float, float, str], floor: float
) -> Fault:
    low, high, unit = ramp
    source = ecn.src("min_bytes", "max_bytes", "min_raw")
    top = f"{ecn.probability_pct:g}%" if ecn.probability_pct is not None else "full"
    return Fault(
        site.at(source),
        f"queues.{number}.ecn",
        f"ECN on queue {number} {{where}} ramps from {low:.15g} to {high:.15g} {unit}, a span of "
        f"{high - low:.15g} {unit} (under {floor:.15g} {unit}) to {top} marking: near-step "
        "marking makes DCQCN slow every sender at once",
        expected=f"max - min >= {floor:.15g} {unit}",
        actual={"min": low, "max": high, "unit": unit, "probability_pct": ecn.probability_pct},
        source=source,
        queue=number,
    )


ROCE_NAME = re.compile(r"roce|rdma|lossless", re.IGNORECASE)
"""Profile names that say the profile is meant for the RoCE (lossless) class."""


class EcnProfileInconsistent(FaultRule[NoOptions]):
    """A WRED/ECN profile bound to no queue is inconsistent in itself.

    Why: an unused profile is one binding away from being used (a port added to a QUEUE entry,
    a profile renamed in a template), and nothing else reads it: ECN002-ECN004 judge queues.
    So the profiles the configuration defines but no queue uses are checked on their own:
    a minimum threshold above the maximum, a marking probability outside 0-100 %, and ECN
    marking off in a profile whose name says it is for RoCE (`roce`, `rdma`, `lossless`), which
    would WRED-drop the RoCE class once bound. Profiles bound to queues are judged on the
    queues by ECN002 to ECN004. Options: none. Modeled for SONiC WRED_PROFILE (QUEUE entries
    bind them).

    Failing (SONiC, no QUEUE entry names it)::

        "WRED_PROFILE": {"ROCE_SPARE": {"wred_green_enable": "true", "ecn": "ecn_none",
                                        "green_min_threshold": "2097152",
                                        "green_max_threshold": "250000"}}

    Passing::

        "WRED_PROFILE": {"ROCE_SPARE": {"wred_green_enable": "true", "ecn": "ecn_all",
                                        "green_min_threshold": "250000",
                                        "green_max_threshold": "2097152"}}
    """

    code = "ECN007"
    name = "ecn-profile-inconsistent"
    severity = "warning"
    summary = (
        "A WRED/ECN profile bound to no queue is inconsistent (min > max, probability, ECN off)"
    )

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        for profile in state.unbound_ecn_profiles:
            scope = Scope(
                "profile",
                profile.name,
                f"{profile.kind} {profile.name}",
                f"unbound_ecn_profiles.{profile.name}",
            )
            for suffix, problem, expected, actual in _inconsistent(profile):
                source = profile.ecn.src(suffix.removeprefix("ecn."))
                yield Fault(
                    scope,
                    suffix,
                    f"{profile.kind} {profile.name} (bound to no queue) {problem}",
                    expected=expected,
                    actual=actual,
                    source=source,
                )


def _inconsistent(profile: EcnProfile) -> Iterator[tuple[str, str, Any, Any]]:
    """(path suffix, problem, expected, actual) of each inconsistency of one profile."""
    ecn = profile.ecn
    pair = _thresholds(ecn)
    if pair is not None and pair[0][0] > pair[0][1]:
        (low, high), unit = pair
        yield (
            "ecn.min_bytes",
            f"has a minimum threshold of {low:.15g} {unit}, above its maximum of {high:.15g} {unit}",
            f"min <= max ({high:.15g} {unit})",
            {"min": low, "max": high},
        )
    probability = ecn.probability_pct
    if probability is not None and not 0 <= probability <= 100:
        yield (
            "ecn.probability_pct",
            f"has a marking probability of {probability:g}%, outside 0-100%",
            "0-100",
            probability,
        )
    if not ecn.enabled and ROCE_NAME.search(profile.name):
        yield (
            "ecn.enabled",
            "is named for RoCE but does not mark ECN, so the class it is bound to would be "
            "dropped by WRED instead of marked",
            True,
            False,
        )


RULES: list[type[Rule[Any]]] = [
    LosslessQueueWithoutEcn,
    EcnThresholdOrder,
    EcnThresholdImplausible,
    WredDropOnLossless,
    LossyRoceQueueWithoutEcn,
    EcnRampStep,
    EcnProfileInconsistent,
]
