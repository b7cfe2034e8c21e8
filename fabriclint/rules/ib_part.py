"""IB011 (partitions that isolate nothing on a multi-tenant fabric) and IB012 (partition
enforcement off while partitions are declared): what partitions.conf and opensm.conf leave of
tenant isolation. partitions.conf syntax errors are IB009's (ib_hca)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fabriclint.models.finding import Finding
from fabriclint.models.ib import IbIntent, Partition
from fabriclint.models.state import DeviceState
from fabriclint.rules.base import Context, NoOptions, Rule
from fabriclint.rules.ib_fleet import IB_FABRIC, conf, conf_object, infiniband, sm_nodes

DEFAULT_PKEY = 0x7FFF
"""The default partition, which OpenSM always creates."""

_EVERY_HCA = frozenset({"ALL", "ALL_CAS"})
"""Port specifiers that name every channel adapter of the subnet."""


def _ib_intent(ctx: Context, device: str) -> IbIntent | None:
    profile = ctx.profile(device)
    return profile.infiniband if profile is not None else None


def _opens(partition: Partition) -> bool:
    """Whether a partition makes every HCA a full member (`ALL=full`, or `ALL` under
    `defmember=full`): every port of it can talk to every other."""
    return any(m.port in _EVERY_HCA and m.membership != "limited" for m in partition.members)


# ---- IB011 ---------------------------------------------------------------------------------------


class PartitionsIsolateNothing(Rule[NoOptions]):
    """Every partition makes every HCA a full member, on a fabric whose intent declares tenants.

    Full members of one partition talk to every other full member; limited members only to
    full ones. Tenants are kept apart only when some partition is not open to every host: with
    `Default=0x7fff: ALL=full;` as the only partition (or an empty partitions.conf, which OpenSM
    treats the same), or every tenant partition written `ALL=full` / `defmember=full: ALL`, any
    host reaches any other tenant's hosts, storage and IPoIB. Checked on each SM node whose
    intent profile lists `infiniband.tenants`; a partition is open when an `ALL` or `ALL_CAS`
    member has full (or both) membership. An SM node whose partitions.conf was not collected
    is skipped (coverage).

    OpenSM partition configuration (opensm/doc/partition-config.txt, "Partition Definition"):
    full members communicate with full and limited members, limited members only with full ones.

    Options: none.

    Fails (tenants team-a, team-b):
        Default=0x7fff, ipoib: ALL=full;
        team-a=0x8001: ALL=full;

    Passes: `Default=0x7fff: ALL=limited, SELF=full;` and `team-a=0x8001: 0x0002c903000010a0=full;`.
    """

    code = "IB011"
    kinds = IB_FABRIC
    name = "partitions-isolate-nothing"
    severity = "error"
    summary = "every partition makes every HCA a full member on a fabric that declares tenants"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in sm_nodes(ctx):
            ib = _ib_intent(ctx, state.name)
            if ib is None or not ib.tenants:
                continue
            parts = infiniband(state).partitions
            if parts is None:
                ctx.skip(self.code, state.name)  # not collected: what it holds is unknown
            elif all(_opens(p) for p in parts):
                yield self._finding(state, parts, ib.tenants)

    def _finding(self, state: DeviceState, parts: list[Partition], tenants: list[str]) -> Finding:
        listed = ", ".join(p.name or "?" for p in parts)
        what = f"every partition ({listed}) makes every HCA a full member" if parts else ""
        what = what or "partitions.conf defines no partition: every port is a full member of 0x7fff"
        return self.finding(
            state.name,
            "partitions.conf",
            "infiniband.partitions",
            f"{what}, so the tenants {', '.join(tenants)} are not isolated from each other",
            expected="a partition per tenant that lists its own ports",
            actual="ALL=full",
            source=parts[0].src() if parts else infiniband(state).src(),
        )


# ---- IB012 ---------------------------------------------------------------------------------------


def _declared(ctx: Context, state: DeviceState) -> bool:
    """Whether partitions are declared: partitions.conf defines one besides the default, or
    the intent profile lists partitions."""
    parts = infiniband(state).partitions or []
    ib = _ib_intent(ctx, state.name)
    return any(p.pkey != DEFAULT_PKEY for p in parts) or bool(ib is not None and ib.partitions)


class PartitionEnforcementOff(Rule[NoOptions]):
    """Partition enforcement is turned off where partitions are declared.

    OpenSM enforces partitions by programming each switch port's P_Key table and its inbound
    and outbound filtering (`part_enforce both`, the default). With `part_enforce off`, or
    `no_partition_enforcement TRUE` (which overrides `part_enforce`), switches forward packets
    of any P_Key: a host that sets another tenant's P_Key in its own table reaches that
    tenant, so the partitions isolate nothing in the switches. Checked on each SM node whose
    partitions.conf defines a partition besides the default 0x7fff, or whose intent profile
    lists `infiniband.partitions`. `in` or `out` (one direction) is not reported.

    OpenSM opensm.conf (`part_enforce`: both, in, out, off; `no_partition_enforcement`,
    "disable partition enforcement by switches"), opensm/osm_subnet.c.

    Options: none.

    Fails: partitions tenant-a=0x8001 and tenant-b=0x8002, and `part_enforce off`.

    Passes: `part_enforce both` (or the key absent).
    """

    code = "IB012"
    kinds = IB_FABRIC
    name = "partition-enforcement-off"
    severity = "error"
    summary = "partition enforcement is off while partitions are declared"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in sm_nodes(ctx):
            sm = conf(state)
            if sm.options["part_enforce"].value != "off" or not _declared(ctx, state):
                continue
            key = (
                "no_partition_enforcement"
                if sm.flag("no_partition_enforcement")
                else "part_enforce"
            )
            opt = sm.options[key]
            yield self.finding(
                state.name,
                conf_object(key),
                f"infiniband.sm.{key}",
                f"{key} {opt.written}: switches do not filter P_Keys, so hosts can join any "
                "declared partition by setting its P_Key",
                expected="both" if key == "part_enforce" else False,
                actual=opt.written,
                source=opt.source,
            )


RULES: list[type[Rule[Any]]] = [PartitionsIsolateNothing, PartitionEnforcementOff]
