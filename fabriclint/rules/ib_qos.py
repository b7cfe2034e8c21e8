"""IB003-IB004: OpenSM QoS settings that do nothing (qos off) or use VLs the subnet does not run."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fabriclint.models.common import Source
from fabriclint.models.finding import Finding
from fabriclint.models.ib import QosPolicy, QosTables, SmConfig, VlArbEntry
from fabriclint.models.state import DeviceState
from fabriclint.platforms.opensm_keys import DATA_VLS_BY_OP_VLS, QOS_TABLE_KEYS
from fabriclint.rules.base import Context, NoOptions, Rule
from fabriclint.rules.ib_fleet import IB_FABRIC, conf, conf_object, infiniband, sm_nodes
from fabriclint.rules.scope import names

# ---- IB003 ---------------------------------------------------------------------------------------


class QosTablesIgnored(Rule[NoOptions]):
    """QoS settings are written while `qos` is FALSE, so OpenSM ignores them.

    With `qos FALSE` (the default) OpenSM programs no SL2VL or VL-arbitration table, never reads
    qos-policy.conf, and silently sets every partition's `sl=` back to 0. Whoever wrote the
    tables believes the fabric separates traffic classes; it does not. Reported once per file:
    the qos_* tables of opensm.conf, each partition with an SL, a non-empty qos-policy.conf.

    Options: none.

    Fails: `qos FALSE` with `qos_ca_sl2vl 0,1,2,3,...` (or `Storage=0x8002, sl=1: ...`).

    Passes: `qos TRUE` with the same tables, or no qos_* table at all.
    """

    code = "IB003"
    kinds = IB_FABRIC
    name = "qos-tables-ignored"
    severity = "warning"
    summary = "qos_* tables (or partition SLs, or a QoS policy) are set while qos is FALSE"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in sm_nodes(ctx):
            if conf(state).flag("qos"):
                continue
            yield from self._tables(state, conf(state))
            yield from self._partitions(state)
            yield from self._policy(state)

    def _tables(self, state: DeviceState, sm: SmConfig) -> Iterator[Finding]:
        keys = [k for k in sorted(QOS_TABLE_KEYS) if _set(sm, k)]
        if not keys:
            return
        written = [s for k in keys if (s := sm.options[k].source) is not None]
        first = min(written, key=lambda source: source.line or 0)
        yield self.finding(
            state.name,
            "opensm.conf qos tables",
            "infiniband.sm.qos_tables",
            f"{', '.join(keys)} {'is' if len(keys) == 1 else 'are'} set but qos is FALSE: "
            "OpenSM programs no SL2VL or VL arbitration table",
            expected={"qos": True},
            actual={"qos": False},
            source=first,
        )

    def _partitions(self, state: DeviceState) -> Iterator[Finding]:
        for part in infiniband(state).partitions or []:
            if part.sl:
                yield self.finding(
                    state.name,
                    f"partition {part.name}",
                    f"infiniband.partitions.{part.name}.sl",
                    f"partition {part.name} asks for sl={part.sl} but qos is FALSE: OpenSM "
                    "uses SL 0 for it",
                    expected=0,
                    actual=part.sl,
                    source=part.src("sl"),
                )

    def _policy(self, state: DeviceState) -> Iterator[Finding]:
        policy = infiniband(state).qos_policy
        if policy is not None and policy.statements:
            yield self.finding(
                state.name,
                "qos-policy.conf",
                "infiniband.qos_policy",
                "qos-policy.conf holds a policy but qos is FALSE: OpenSM never reads it",
                source=_first_statement(policy) or policy.src(),
            )


def _first_statement(policy: QosPolicy) -> Source | None:
    """The first line of the policy (where a reader sees what OpenSM will ignore)."""
    found: list[Source | None] = [g.source for g in policy.port_groups]
    found += [level.source for level in policy.levels]
    found += [rule.source for rule in policy.match_rules]
    found += [ulp.source for ulp in policy.ulps]
    lines = [source for source in found if source is not None and source.line]
    return min(lines, key=lambda source: source.line or 0, default=None)


def _set(sm: SmConfig, key: str) -> bool:
    """A qos_* key written with a value that sets something (not 0, -1 or (null))."""
    opt = sm.options[key]
    return opt.source is not None and opt.value not in (None, 0, -1)


# ---- IB004 ---------------------------------------------------------------------------------------


def _limit(sm: SmConfig, tables: QosTables) -> tuple[int, str]:
    """How many VLs the tables may use, and why."""
    code = sm.number("max_op_vls", 5)
    limit, why = DATA_VLS_BY_OP_VLS.get(code, 15), f"max_op_vls {code}"
    base = sm.tables.get("qos")
    declared = tables.max_vls or (base.max_vls if base is not None else None)
    if declared is not None and declared < limit:
        prefix = tables.prefix if tables.max_vls else "qos"
        limit, why = declared, f"{prefix}_max_vls {declared}"
    return limit, why


class VlArbVlOutOfRange(Rule[NoOptions]):
    """An SL2VL or VL-arbitration entry uses a VL the subnet does not operate.

    `max_op_vls` is an OperationalVLs code (1=VL0, 2=VL0-1, 3=VL0-3, 4=VL0-7, 5=VL0-14); a
    `qos_<class>_max_vls` (or `qos_max_vls`) declares how many VLs the tables are written for.
    OpenSM masks each VL with the port's operational VLs, so an SL mapped to VL 9 with VL0-7
    lands on VL 1, sharing a VL (and its buffers and arbitration weight) with other traffic. VL
    15 in an SL2VL table means drop and is fine; arbitration entries with weight 0 are skipped
    and not reported. Checked only when `qos` is TRUE (otherwise IB003 applies).

    Options: none.

    Fails: `max_op_vls 4` with `qos_ca_sl2vl 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15`.

    Passes: `max_op_vls 4` with `qos_ca_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7`.
    """

    code = "IB004"
    kinds = IB_FABRIC
    name = "vlarb-vl-out-of-range"
    severity = "error"
    summary = "an SL2VL or VL-arbitration entry uses a VL at or above max_op_vls / qos_max_vls"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in sm_nodes(ctx):
            sm = conf(state)
            if not sm.flag("qos"):
                continue
            for tables in sm.tables.values():
                yield from self._tables(state.name, sm, tables)

    def _tables(self, device: str, sm: SmConfig, tables: QosTables) -> Iterator[Finding]:
        limit, why = _limit(sm, tables)
        mask = limit - 1 if why.startswith("max_op_vls") else None
        bad_sl = [(sl, vl) for sl, vl in enumerate(tables.sl2vl or []) if limit <= vl != 15]
        if bad_sl:
            shown = [f"SL {sl}->VL {vl}{_masked(vl, mask)}" for sl, vl in bad_sl]
            yield self._finding(device, tables, "sl2vl", (names(shown), limit, why), bad_sl)
        for name in ("vlarb_high", "vlarb_low"):
            entries: list[VlArbEntry] = getattr(tables, name) or []
            bad = [(i, e.vl) for i, e in enumerate(entries) if e.weight and e.vl >= limit]
            if bad:
                shown = [f"VL {vl}{_masked(vl, mask)}" for _, vl in bad]
                yield self._finding(device, tables, name, (names(shown), limit, why), bad)

    def _finding(
        self,
        device: str,
        tables: QosTables,
        name: str,
        what: tuple[str, int, str],
        bad: list[tuple[int, int]],
    ) -> Finding:
        shown, limit, why = what
        key = f"{tables.prefix}_{name}"
        return self.finding(
            device,
            conf_object(key),
            f"infiniband.sm.{key}",
            f"{key} uses {shown} but {why} allows VL0-{limit - 1}",
            expected=f"VL0-{limit - 1}",
            actual=sorted({vl for _, vl in bad}),
            source=tables.src(name),
        )


def _masked(vl: int, mask: int | None) -> str:
    """Where OpenSM's VL mask puts `vl` (only when the limit is the operational VLs)."""
    return f" (OpenSM masks it to VL {vl & mask})" if mask is not None else ""


RULES: list[type[Rule[Any]]] = [
    QosTablesIgnored,
    VlArbVlOutOfRange,
]
