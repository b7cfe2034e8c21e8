"""IB rules: InfiniBand subnet managers (OpenSM), partitions and HCA ports.

IB001/IB002 compare all SM nodes of the fabric (master and standby told apart by `sminfo`, else
by sm_priority); IB003-IB008 read one SM node's opensm.conf (ib_qos: QoS, ib_sm: the rest);
IB009 partitions.conf and IB010 host HCA ports (ib_hca); each module registers its own RULES
(rules/registry.py). The shared helpers are in ib_fleet.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from fabriclint.models.finding import Finding
from fabriclint.models.ib import SM_STATES, OptionValue, SmInfo
from fabriclint.models.state import DeviceState
from fabriclint.platforms.opensm_keys import QOS_TABLE_KEYS
from fabriclint.rules.base import Context, NoOptions, Rule
from fabriclint.rules.helpers import hosts
from fabriclint.rules.ib_fleet import (
    IB_FABRIC,
    active_sms,
    conf,
    ib_ports,
    master,
    node_of,
    observations,
    option_source,
    priority,
    reference_sm,
    sm_nodes,
)
from fabriclint.rules.scope import StrictOptions, names

_SM = "subnet manager"

# ---- IB001 ---------------------------------------------------------------------------------------


class SmMasterCount(Rule[NoOptions]):
    """The fabric has no master SM, more than one, or SMs that share the top sm_priority.

    Exactly one SM must be master. `sminfo` on the SM nodes shows the master each one sees: no
    MASTER at all means nobody programs the fabric (new ports stay in Initialize), two MASTERs
    (or hosts whose ports see different SM LIDs) mean two SMs fight over LIDs and routes. SMs
    with the same highest `sm_priority` leave the choice to the lowest port GUID, so a reboot
    decides who is master; a master whose priority is below an active standby's should not be
    master. SM nodes with `sm_inactive TRUE` are left out; without `sminfo` the master is the
    unique top priority.

    Options: none.

    Fails: sm01 and sm02 both `sm_priority 15`; or sminfo on sm02 says SMINFO_MASTER with a
    GUID other than sm01's.

    Passes: sm01 `sm_priority 15` (master), sm02 `sm_priority 14` (SMINFO_STANDBY).
    """

    code = "IB001"
    kinds = IB_FABRIC
    name = "sm-master-count"
    severity = "error"
    summary = "no master SM, or more than one, or SMs share the top sm_priority"

    def check(self, ctx: Context) -> Iterator[Finding]:
        sms = active_sms(ctx)
        if not sm_nodes(ctx):
            for state in hosts(ctx):
                if ib_ports(ctx, state):
                    ctx.skip(self.code, state.name)
            return
        yield from self._sminfo(ctx)
        yield from self._tie(ctx, sms)
        yield from self._outranked(ctx, sms)
        yield from self._host_views(ctx)

    def _sminfo(self, ctx: Context) -> Iterator[Finding]:
        seen = observations(ctx)
        asked = {state.name for state, _ in seen}
        for state in sm_nodes(ctx):
            if state.name not in asked:
                ctx.skip(self.code, state.name)
        masters: dict[str, list[tuple[DeviceState, SmInfo]]] = {}
        for state, info in seen:
            if info.is_master:
                masters.setdefault(info.guid, []).append((state, info))
        if not masters and seen and all(s.name in asked for s in active_sms(ctx)):
            state, info = seen[0]
            shown = SM_STATES[info.state] if info.state < len(SM_STATES) else str(info.state)
            text = f"no sminfo shows a MASTER SM ({state.name} sees {info.guid} in {shown})"
            yield self.finding(state.name, _SM, "infiniband.sminfo", text, source=info.source)
        elif len(masters) > 1:
            yield self._two_masters(ctx, masters)

    def _two_masters(
        self, ctx: Context, masters: dict[str, list[tuple[DeviceState, SmInfo]]]
    ) -> Finding:
        def who(guid: str) -> str:
            node = node_of(ctx, guid)
            return f"{guid} ({node.name})" if node else guid

        guids = sorted(masters)
        state, info = masters[guids[-1]][0]
        owner = node_of(ctx, guids[-1]) or state
        return self.finding(
            owner.name,
            _SM,
            "infiniband.sminfo.master",
            f"{len(guids)} SMs are MASTER: {', '.join(who(g) for g in guids)}",
            expected=1,
            actual=len(guids),
            source=info.source,
        )

    def _tie(self, ctx: Context, sms: list[DeviceState]) -> Iterator[Finding]:
        if len(sms) < 2:
            return
        top = max(priority(s) for s in sms)
        tied = [s for s in sms if priority(s) == top]
        if len(tied) < 2:
            return
        chief = master(ctx)
        blamed = next((s for s in reversed(tied) if s is not chief), tied[-1])
        yield self.finding(
            blamed.name,
            _SM,
            "infiniband.sm.sm_priority",
            f"{names([s.name for s in tied])} share the top sm_priority {top}: the lowest port "
            "GUID wins, so which SM is master depends on start order",
            expected=f"a single SM with priority {top}",
            actual={s.name: top for s in tied},
            source=option_source(blamed, "sm_priority"),
        )

    def _outranked(self, ctx: Context, sms: list[DeviceState]) -> Iterator[Finding]:
        masters = {i.guid for _, i in observations(ctx) if i.is_master}
        chief = node_of(ctx, next(iter(masters))) if len(masters) == 1 else None
        if chief is None or chief not in sms:
            return
        higher = [s for s in sms if priority(s) > priority(chief)]
        if higher:
            yield self.finding(
                chief.name,
                _SM,
                "infiniband.sm.sm_priority",
                f"{chief.name} is master with sm_priority {priority(chief)} while "
                f"{names([s.name for s in higher])} has a higher one: that SM is not running "
                "as it should, or does not see this one",
                expected=max(priority(s) for s in higher),
                actual=priority(chief),
                source=option_source(chief, "sm_priority"),
            )

    def _host_views(self, ctx: Context) -> Iterator[Finding]:
        views: dict[str, dict[int, list[str]]] = {}
        for state in hosts(ctx):
            ib = state.infiniband
            for key, port in ib.hca_ports.items() if ib else []:
                if port.sm_lid and port.base_lid:
                    views.setdefault(state.name, {}).setdefault(port.sm_lid, []).append(key)
        counts = Counter(
            lid for view in views.values() for lid, ports in view.items() for _ in ports
        )
        if len(counts) < 2:
            return
        usual = counts.most_common(1)[0][0]
        for device, view in sorted(views.items()):
            for lid, ports in sorted(view.items()):
                if lid != usual:
                    yield self._odd_view(ctx, device, lid, ports, usual, counts)

    def _odd_view(
        self,
        ctx: Context,
        device: str,
        lid: int,
        ports: list[str],
        usual: int,
        counts: Counter[int],
    ) -> Finding:
        ib = ctx.states[device].infiniband
        source = ib.hca_ports[ports[0]].source if ib else None
        return self.finding(
            device,
            f"interface {ports[0]}",
            f"infiniband.hca_ports.{ports[0]}.sm_lid",
            f"{names(ports)} see the master SM at LID {lid} while {counts[usual]} of "
            f"{sum(counts.values())} IB ports see LID {usual}: two masters or a split subnet",
            expected=usual,
            actual=lid,
            source=source,
        )


# ---- IB002 ---------------------------------------------------------------------------------------

_COMPARED = [
    "routing_engine", "root_guid_file", "cn_guid_file", "io_guid_file", "guid_routing_order_file",
    "port_shifting", "scatter_ports", "use_ucast_cache", "lmc", "lmc_esp0", "qos", "max_op_vls",
    "m_key", "sm_key", "sa_key", "m_key_protection_level", "m_key_lease_period", "sweep_interval",
    "reassign_lids", "force_heavy_sweep", "sweep_on_trap", "subnet_prefix", "part_enforce",
    "allow_both_pkeys",
]  # fmt: skip
_SECRET = frozenset({"m_key", "sm_key", "sa_key"})


class SmConfigDivergent(Rule["SmConfigDivergent.Options"]):
    """A standby SM is configured differently from the master (routing, LMC, QoS, keys, sweep).

    After a failover the standby re-programs the whole fabric with its own settings: another
    routing engine reroutes every flow, another LMC renumbers LIDs, another sm_key breaks the
    SM handover itself, QoS tables (compared when either SM has `qos TRUE`) change which VL each
    SL uses. Each standby is compared with the master (from `sminfo`, else the top priority);
    the values OpenSM uses are compared, not the text. Key values are never shown.

    Options:
        compare: opensm.conf keys compared (default: routing, LMC, QoS, keys, sweep, subnet
            prefix and partition enforcement settings; qos_* tables are added when QoS is on).

    Fails: master sm01 `routing_engine ftree`, standby sm02 `routing_engine minhop`.

    Passes: both `routing_engine ftree`, same lmc, qos and keys.
    """

    class Options(StrictOptions):
        """Options of IB002."""

        compare: list[str] = list(_COMPARED)
        """opensm.conf keys that must match between the master and each standby."""

    code = "IB002"
    kinds = IB_FABRIC
    name = "sm-config-divergent"
    severity = "error"
    summary = "master and standby SMs differ in routing engine, lmc, qos, keys, or sweep settings"
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        chief = reference_sm(ctx)
        if chief is None:
            return
        for state in active_sms(ctx):
            if state is not chief:
                yield from self._compare(chief, state)

    def _keys(self, chief: DeviceState, other: DeviceState) -> list[str]:
        keys = list(self.options.compare)
        if conf(chief).flag("qos") or conf(other).flag("qos"):
            keys += sorted(QOS_TABLE_KEYS)
        return keys

    def _compare(self, chief: DeviceState, other: DeviceState) -> Iterator[Finding]:
        mine, theirs = conf(other), conf(chief)
        for key in self._keys(chief, other):
            a, b = mine.options.get(key), theirs.options.get(key)
            if a is None or b is None or a.redacted or b.redacted or a.value == b.value:
                continue
            yield self._finding(chief, other, key, b.value, a.value)

    def _finding(
        self, chief: DeviceState, other: DeviceState, key: str, want: OptionValue, have: OptionValue
    ) -> Finding:
        secret = key in _SECRET
        if secret:
            shown = f"differs from the master {chief.name}'s (values not shown)"
        else:
            shown = f"is {_show(have)} but the master {chief.name} has {_show(want)}"
        expected: Any = None if secret else want
        actual: Any = None if secret else have
        return self.finding(
            other.name,
            f"opensm.conf {key}",
            f"infiniband.sm.{key}",
            f"{key} on standby {other.name} {shown}: a failover would change it",
            expected=expected,
            actual=actual,
            source=option_source(other, key),
        )


def _show(value: OptionValue) -> str:
    if value is None:
        return "(null)"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return str(value)


RULES: list[type[Rule[Any]]] = [SmMasterCount, SmConfigDivergent]
