"""Cumulus Linux defaults the configurations rely on: the platform's, and what `qos roce` implies.

Sources: NVIDIA Cumulus Linux user guide 5.x, "Quality of Service" (default trust, DSCP/PCP maps,
egress queue mapping, default-global ECN and egress scheduler) and "RDMA over Converged Ethernet -
RoCE" (the "Default RoCE Configuration" table and the `nv show qos roce` example output).
"""

from __future__ import annotations

from fabriclint.models.common import Source, source_at
from fabriclint.models.state import EcnConfig, PfcConfig, PfcWatchdog, SchedulerMode, Trust
from fabriclint.parsers.cumulus.layers import Ecn, Parts, Sched, assign

ECN_MIN = 150_000
ECN_MAX = 1_500_000
ROCE_PRIORITY = 3
CNP_PRIORITY = 6
WATCHDOG_POLL_MS = 100.0
WATCHDOG_ROBUSTNESS = 3
WATCHDOG_ACTION = "drop"

# Egress scheduler default-global: queues 0, 2, 4, 6 get 12 %, queues 1, 3, 5, 7 get 13 %.
_BASE_WEIGHTS = {tc: 12.0 if tc % 2 == 0 else 13.0 for tc in range(8)}

LOSSLESS_MODES = frozenset({"lossless", "lossless-single-ipool"})
LOSSY_MODES = frozenset({"lossy"})


def class_selector(parts: Parts, src: Source) -> None:
    """DSCP d -> switch priority d >> 3 and PCP p -> switch priority p (the platform maps)."""
    for dscp in range(64):
        assign(parts.dscp, [dscp], dscp >> 3, src)
    for pcp in range(8):
        assign(parts.pcp, [pcp], pcp, src)


def ecn(src: Source) -> Ecn:
    """ECN marking at the default thresholds (150,000 B / 1,500,000 B, probability 100), RED off."""
    config = EcnConfig(enabled=True, min_bytes=ECN_MIN, max_bytes=ECN_MAX, probability_pct=100.0)
    config.mark("", src)
    return Ecn(config, (False, src))


def nvue_base(src: Source) -> Parts:
    """Cumulus Linux 5.x without RoCE: trust 802.1p, identity maps, ECN on queue 0, DWRR 12/13 %."""
    parts = Parts(trust=(Trust.PCP, src))
    class_selector(parts, src)
    parts.sp_tc = {sp: (sp, src) for sp in range(8)}
    parts.ecn = {0: ecn(src)}
    parts.sched = {
        tc: Sched(SchedulerMode.DWRR, weight, src) for tc, weight in _BASE_WEIGHTS.items()
    }
    return parts


def legacy_base(src: Source) -> Parts:
    """traffic.conf (CL 3.x/4.x): a value the file does not map goes to the default switch priority 0;
    trust 802.1p; switch priority n is egress queue n."""
    parts = Parts(trust=(Trust.PCP, src))
    for dscp in range(64):
        assign(parts.dscp, [dscp], 0, src)
    for pcp in range(8):
        assign(parts.pcp, [pcp], 0, src)
    parts.sp_tc = {sp: (sp, src) for sp in range(8)}
    return parts


def roce(mode: str, src: Source) -> Parts:
    """What `qos roce` (mode lossless/lossy) configures: trust both, SP 3 -> TC 3 (RoCE), SP 6 -> TC 6
    (CNP), other SPs -> TC 0; ETS TC 6 strict, TC 3 and TC 0 DWRR 50 %; ECN on TC 0 and 3;
    PFC on SP 3 in lossless modes."""
    parts = Parts(trust=(Trust.BOTH, src))
    class_selector(parts, src)
    parts.sp_tc = {sp: (sp if sp in (ROCE_PRIORITY, CNP_PRIORITY) else 0, src) for sp in range(8)}
    parts.ecn, parts.ecn_replaces = {0: ecn(src), ROCE_PRIORITY: ecn(src)}, True
    parts.sched = {
        0: Sched(SchedulerMode.DWRR, 50.0, src),
        ROCE_PRIORITY: Sched(SchedulerMode.DWRR, 50.0, src),
        CNP_PRIORITY: Sched(SchedulerMode.STRICT, None, src),
    }
    parts.sched_replaces = True
    if mode in LOSSLESS_MODES:
        parts.pfc = pfc_on([ROCE_PRIORITY], src)
    return parts


def pfc_on(priorities: list[int], src: Source) -> PfcConfig:
    """PFC enabled on `priorities`, written at `src`."""
    pfc = PfcConfig(enabled=True, priorities=sorted(set(priorities)))
    for key in ("", "enabled", "priorities"):
        pfc.mark(key, src)
    return pfc


def watchdog(
    enabled: bool,
    src: Source,
    poll: tuple[float, Source] | None = None,
    robustness: tuple[int, Source] | None = None,
) -> PfcWatchdog:
    """A port's PFC watchdog: it acts after `robustness` polling intervals (100 ms x 3 by default)
    and drops the paused queue's traffic; it has no restoration timer of its own (it restores
    after one polling interval without pause frames), so restoration_ms stays None."""
    poll_ms, poll_src = poll or (WATCHDOG_POLL_MS, source_at(src.file))
    count, count_src = robustness or (WATCHDOG_ROBUSTNESS, source_at(src.file))
    sources = {"": src, "enabled": src, "detection_ms": poll_src if poll is not None else count_src}
    if enabled:
        sources["action"] = source_at(src.file)
    return PfcWatchdog(
        enabled=enabled,
        detection_ms=poll_ms * count,
        action=WATCHDOG_ACTION if enabled else None,
        sources=sources,
    )
