"""Buffer rules (BUF001-BUF003): the ingress priority group each PFC priority lands in has a
lossless headroom profile, buffer profiles are attached in their pool's direction, and the
pools lossless traffic draws from are not empty.

QOS008 judges the lossless pool and the headroom size of lossless priority groups; these rules
judge what the TC -> PG map and the profile bindings connect (SONiC TC_TO_PRIORITY_GROUP_MAP,
BUFFER_PG, BUFFER_QUEUE, BUFFER_PROFILE, BUFFER_POOL; any platform whose parser names the
buffer profiles of its priority groups).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fabriclint.models.resolve import (
    lossless_priorities,
    lossless_queues_of,
    priority_pgs,
)
from fabriclint.models.state import BufferConfig, DeviceState, PgBuffer, QosConfig
from fabriclint.rules.base import Context, NoOptions, Rule
from fabriclint.rules.scope import Fault, FaultRule, Site, first, locate, sites


def _profiled(buffers: BufferConfig | None) -> bool:
    """True when the parser names the buffer profile of some priority group (the PG table is
    then complete: a PG missing from it has no buffer of its own)."""
    return buffers is not None and any(pg.profile for pg in buffers.priority_groups.values())


def _lossy_profile(pg: PgBuffer) -> bool:
    """A named profile that reserves buffer but has no XOFF threshold: a lossy PG profile (a
    headroom of 0 is QOS008's finding; a profile with nothing known is dynamic or undefined)."""
    return bool(pg.profile) and pg.xoff_bytes is None and bool(pg.headroom_bytes)


class PfcPriorityWithoutHeadroom(FaultRule[NoOptions]):
    """A PFC priority lands in a priority group with no lossless headroom profile.

    Why: PFC pauses per priority, but the switch reserves headroom per ingress priority group
    (PG): the traffic class of a no-drop priority must map (TC_TO_PRIORITY_GROUP_MAP) to a PG
    whose buffer profile has an XOFF threshold and headroom for the data in flight after the
    pause. A priority whose class maps to PG 0 (the lossy PG), or to a PG with no BUFFER_PG
    entry, or whose PG uses a lossy profile (a size but no `xoff`), sends PFC frames but drops
    what arrives after them. NVIDIA and the SONiC buffer design (buffermgrd) give each
    lossless PG a `pg_lossless_<speed>_<cable>_profile` with `xon`/`xoff`. Judged on ports
    whose buffers name their PG profiles and whose TC -> PG map is known; a PG whose profile
    reserves 0 B is QOS008's finding. Options: none.

    Failing (SONiC, PFC on priority 3)::

        "TC_TO_PRIORITY_GROUP_MAP": {"ROCE": {"0": "0", "3": "0"}},
        "BUFFER_PG": {"Ethernet0|3": {"profile": "pg_lossless_400000_5m_profile"}}

    Passing::

        "TC_TO_PRIORITY_GROUP_MAP": {"ROCE": {"0": "0", "3": "3"}},
        "BUFFER_PG": {"Ethernet0|3": {"profile": "pg_lossless_400000_5m_profile"}}
    """

    code = "BUF001"
    name = "pfc-priority-without-headroom"
    severity = "error"
    summary = (
        "A PFC priority maps (TC -> PG) to a priority group without a lossless headroom profile"
    )

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        for site in sites(state, "buffers"):
            if not _profiled(site.qos.buffers):
                continue
            for qos in site.users:
                yield from _pg_faults(site, qos)


def _pg_faults(site: Site, qos: QosConfig) -> Iterator[Fault]:
    groups = site.qos.buffers.priority_groups if site.qos.buffers is not None else {}
    for priority in lossless_priorities(qos):
        for tc, group in priority_pgs(qos, priority):
            pg = groups.get(group)
            if pg is not None and not _lossy_profile(pg):
                continue
            source = first(pg.src("xoff_bytes") if pg else None, qos.sources.get(f"tc_to_pg.{tc}"))
            problem = (
                "which has no buffer entry (no headroom reserved)"
                if pg is None
                else f"whose buffer profile {pg.profile} has no XOFF threshold (a lossy profile)"
            )
            # A missing entry is the port's own gap (BUFFER_PG is per port), not the map's.
            scope = site.at(source) if pg is not None else locate(site.state, site.iface, None)
            yield Fault(
                scope,
                f"buffers.priority_groups.{group}",
                f"PFC priority {priority} (traffic class {tc}) maps to priority group {group} "
                f"{{where}}, {problem}, so what arrives after a pause is dropped",
                expected="a lossless profile (xoff, xon, headroom)",
                actual=pg.profile if pg is not None else None,
                source=source,
                ports=[site.iface.name] if site.iface is not None else [],
            )


class BufferProfileDirection(FaultRule[NoOptions]):
    """A buffer profile is attached against its pool's direction.

    Why: ingress priority groups take buffer from an ingress pool and egress queues from an
    egress pool (SONiC BUFFER_POOL `type`). A profile of an egress pool on a BUFFER_PG entry,
    or of an ingress pool on a BUFFER_QUEUE entry, does not reserve what PFC counts on:
    depending on the ASIC the binding is refused or accounted in the wrong pool, and either
    way the lossless PG has no ingress headroom. Judged where the parser knows each profile's
    pool and the pool's type. Options: none.

    Failing (SONiC)::

        "BUFFER_POOL": {"egress_lossless_pool": {"type": "egress", "size": "60817392"}},
        "BUFFER_PROFILE": {"egress_lossless_profile": {"pool": "egress_lossless_pool", "size": "0"}},
        "BUFFER_PG": {"Ethernet0|3": {"profile": "egress_lossless_profile"}}

    Passing::

        "BUFFER_PG": {"Ethernet0|3": {"profile": "pg_lossless_400000_5m_profile"}}
    """

    code = "BUF002"
    name = "buffer-profile-direction"
    severity = "error"
    summary = (
        "An egress-pool profile on an ingress PG, or an ingress-pool profile on an egress queue"
    )

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        for site in sites(state, "buffers"):
            buffers = site.qos.buffers
            if buffers is None:
                continue
            uses = (
                ("priority_groups", "a priority group", "ingress", buffers.priority_groups),
                ("queue_buffers", "an egress queue", "egress", buffers.queue_buffers),
            )
            for field, noun, wanted, table in uses:
                for number, pg in sorted(table.items()):
                    if pg.pool_type is not None and pg.pool_type != wanted:
                        yield _crossed(site, (field, noun, wanted), number, pg)


def _crossed(site: Site, use: tuple[str, str, str], number: int, pg: PgBuffer) -> Fault:
    field, noun, wanted = use
    source = pg.src("pool")
    return Fault(
        site.at(source),
        f"buffers.{field}.{number}",
        f"{noun.split(' ', 1)[1].capitalize()} {number} {{where}} uses buffer profile "
        f"{pg.profile}, whose pool {pg.pool} is an {pg.pool_type} pool: {noun} needs an "
        f"{wanted} pool",
        expected=f"a profile of an {wanted} pool",
        actual={"profile": pg.profile, "pool": pg.pool, "pool_type": pg.pool_type},
        source=source,
    )


class LosslessPoolEmpty(FaultRule[NoOptions]):
    """A buffer pool lossless traffic draws from is sized 0.

    Why: a lossless priority group or queue reserves its buffer from the pool its profile
    names; a pool of size 0 has nothing to give, so the lossless class gets no buffer at all
    and drops (or pauses constantly) at the first burst. This covers every pool a lossless PG
    (one with an XOFF threshold) or the queue of a lossless class draws from, egress pools
    included; the main lossless ingress pool, when lossless priorities exist, is QOS008's.
    Options: none.

    Failing (SONiC, queue 3 lossless)::

        "BUFFER_POOL": {"egress_lossless_pool": {"type": "egress", "size": "0"}},
        "BUFFER_QUEUE": {"Ethernet0|3": {"profile": "egress_lossless_profile"}}

    Passing: ``"BUFFER_POOL": {"egress_lossless_pool": {"type": "egress", "size": "60817392"}}``
    """

    code = "BUF003"
    name = "lossless-pool-empty"
    severity = "error"
    summary = "A buffer pool that lossless priority groups or queues draw from is sized 0"

    def faults(self, ctx: Context, state: DeviceState) -> Iterator[Fault]:
        for site in sites(state, "buffers"):
            buffers = site.qos.buffers
            if buffers is None:
                continue
            lossless_queues = lossless_queues_of(site.users)
            judged = buffers.src("lossless_pool_bytes") if lossless_priorities(site.qos) else None
            uses: list[tuple[str, str, int, PgBuffer]] = [
                ("priority_groups", "priority group", n, pg)
                for n, pg in sorted(buffers.priority_groups.items())
                if pg.xoff_bytes
            ]
            uses += [
                ("queue_buffers", "queue", n, pg)
                for n, pg in sorted(buffers.queue_buffers.items())
                if n in lossless_queues
            ]
            for field, noun, number, pg in uses:
                if pg.pool_bytes == 0 and (judged is None or pg.src("pool_bytes") != judged):
                    yield _empty(site, (field, noun), number, pg)


def _empty(site: Site, use: tuple[str, str], number: int, pg: PgBuffer) -> Fault:
    field, noun = use
    source = pg.src("pool_bytes")
    return Fault(
        site.at(source),
        f"buffers.{field}.{number}.pool_bytes",
        f"Lossless {noun} {number} {{where}} draws from buffer pool {pg.pool} "
        f"(profile {pg.profile}), which is sized 0 B",
        expected="> 0",
        actual=0,
        source=source,
    )


RULES: list[type[Rule[Any]]] = [
    PfcPriorityWithoutHeadroom,
    BufferProfileDirection,
    LosslessPoolEmpty,
]
