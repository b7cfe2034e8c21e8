"""Build normalized QoS from the collected Junos class-of-service: maps, PFC, queues and ECN.

The traffic class (TC) of the model is the queue number of the forwarding class a code point is
classified into: DSCP -> forwarding class -> queue-num. Why, and how priorities are chosen, is in
docs/platforms/junos.md ("Traffic classes and priorities").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from fabriclint.models.common import Source
from fabriclint.models.state import (
    BufferConfig,
    DscpRewrite,
    MapConflict,
    PfcConfig,
    PfcWatchdog,
    PgBuffer,
    QosConfig,
    Trust,
)
from fabriclint.parsers.junos.draft import (
    Classifier,
    Cnp,
    CosPort,
    Draft,
    ForwardingClass,
    Lined,
)
from fabriclint.parsers.junos.sched import Queues
from fabriclint.parsers.junos.values import (
    BEST_EFFORT,
    DEFAULT_CLASSES,
    DEFAULT_DSCP_CLASS,
    DEFAULT_PCP_CLASS,
    LOSSLESS_DEFAULTS,
    code_point,
)
from fabriclint.parsers.junos.watchdog import watchdog

PCP = "ieee-802.1"
_UNIT_ORDER = ("", "*", "0")


class CodeMap(NamedTuple):
    """A classifier as a code point -> traffic class (queue) table."""

    values: dict[int, int]
    sources: dict[int, Source]
    conflicts: list[MapConflict]


class Priorities(NamedTuple):
    """Traffic class -> 802.1p priority, with sources and conflicting assignments."""

    values: dict[int, int]
    sources: dict[int, Source]
    conflicts: list[MapConflict]


@dataclass
class QosBuilder:
    """Builds the device-wide QoS and each port's QoS (shared between ports that agree)."""

    d: Draft
    classes: dict[str, ForwardingClass] = field(init=False)
    explicit: Priorities = field(init=False)
    """`pfc-priority` of the forwarding classes, by their queue."""
    maps: dict[tuple[str, str], CodeMap | None] = field(default_factory=dict)
    shared: dict[tuple[str | None, bool | None], QosConfig | None] = field(default_factory=dict)
    sched: Queues = field(init=False)
    watchdogs: dict[str, PfcWatchdog | None] = field(default_factory=dict)
    reported: set[tuple[str, ...]] = field(default_factory=set)

    def __post_init__(self) -> None:
        d = self.d
        defaults = {n: q for n, q in DEFAULT_CLASSES.items() if n not in d.classes}
        for name in defaults:
            d.define("forwarding-class", name, None)
        made = {n: ForwardingClass(n, None, Lined(q, None)) for n, q in defaults.items()}
        self.classes = {**made, **d.classes}
        self.explicit = self._explicit_priorities()
        self.sched = Queues(d, self.queue)

    # ---- forwarding classes and classifiers ------------------------------------------------------

    def queue(self, name: str) -> int | None:
        """Queue (= traffic class) of a forwarding class; None when undefined or without one."""
        found = self.classes.get(name)
        return found.queue.value if found is not None and found.queue is not None else None

    def _explicit_priorities(self) -> Priorities:
        values: dict[int, int] = {}
        sources: dict[int, Source] = {}
        conflicts: list[MapConflict] = []
        for fc in self.classes.values():
            if fc.queue is None or fc.pfc_priority is None:
                continue
            tc, prio, src = fc.queue.value, fc.pfc_priority.value, self.d.at(fc.pfc_priority.line)
            if tc in values and values[tc] != prio:
                conflicts.append(
                    _conflict("tc_to_priority", tc, (values[tc], sources[tc]), (prio, src))
                )
                continue
            values[tc], sources[tc] = prio, src
        return Priorities(values, sources, conflicts)

    def default_map(self, kind: str) -> CodeMap:
        """The platform's default classifier of `kind` (line-less sources)."""
        table = DEFAULT_PCP_CLASS if kind == PCP else DEFAULT_DSCP_CLASS
        values = {cp: q for cp, fc in table.items() if (q := self.queue(fc)) is not None}
        return CodeMap(values, dict.fromkeys(values, self.d.default), [])

    def classifier_map(self, kind: str, name: str) -> CodeMap | None:
        """A defined classifier as a table; None when it is not defined (QOS005 reports that)."""
        key = (kind, name)
        if key in self.maps:
            return self.maps[key]
        self.maps[key] = None  # guards `import` loops
        found = self.d.classifiers.get(key)
        if found is not None:
            self.maps[key] = self._table(found)
        return self.maps[key]

    def _table(self, clf: Classifier) -> CodeMap:
        base = self._base(clf)
        values, sources = dict(base.values), dict(base.sources)
        assigned: dict[int, list[tuple[int, Source]]] = {}
        for fc, loss, token, line in clf.entries:
            point, queue = code_point(token, clf.kind, self.d.aliases), self.queue(fc)
            if point is None:
                head = ("class-of-service", "classifiers", clf.kind, clf.name, "forwarding-class")
                words = (*head, fc, "loss-priority", loss, "code-points", token)
                self.d.skip(" ".join(words), "unknown code point", line)
            elif queue is not None:
                assigned.setdefault(point, []).append((queue, self.d.at(line)))
        name = "pcp_to_tc" if clf.kind == PCP else "dscp_to_tc"
        conflicts = []
        for point, pairs in assigned.items():
            values[point], sources[point] = pairs[-1]
            if len({queue for queue, _ in pairs}) > 1:
                conflicts.append(_conflict(name, point, *pairs))
        return CodeMap(values, sources, conflicts)

    def _base(self, clf: Classifier) -> CodeMap:
        """What code points the classifier does not list get: its import, else best effort."""
        if clf.imports is not None and clf.imports.value == "default":
            return self.default_map(clf.kind)
        if clf.imports is not None:
            imported = self.classifier_map(clf.kind, clf.imports.value)
            if imported is not None:
                return imported
        queue = self.queue(BEST_EFFORT)
        size = 8 if clf.kind == PCP else 64
        values = dict.fromkeys(range(size), queue) if queue is not None else {}
        return CodeMap(values, dict.fromkeys(values, self.d.default), [])

    # ---- device-wide -------------------------------------------------------------------------------

    def device(self) -> QosConfig:
        """Device-wide QoS: default classifiers, forwarding-class queues and priorities, buffers."""
        qos = QosConfig()
        default = self.d.default
        _put(qos, "dscp_to_tc", self.default_map("dscp"), default)
        _put(qos, "pcp_to_tc", self.default_map(PCP), default)
        queues = sorted({q for n in self.classes if (q := self.queue(n)) is not None and q < 8})
        qos.tc_to_queue = {q: q for q in queues}
        written_first = sorted(self.classes.values(), key=lambda fc: fc.line is None)
        for fc in written_first:
            if fc.queue is not None and fc.queue.value < 8:
                qos.sources.setdefault(f"tc_to_queue.{fc.queue.value}", self.d.at(fc.queue.line))
        qos.mark("tc_to_queue", default)
        prios = self.priorities([])
        if prios.values:
            _put(qos, "tc_to_priority", prios, default)
        self._lossy(qos)
        qos.buffers = self._buffers()
        return qos

    def priorities(self, output: list[tuple[str, int, int]]) -> Priorities:
        """TC -> priority: `pfc-priority`, then `flow-control-queue` mappings (identity for the
        others). A lossy TC whose identity another class claims is handled by `lossy_tcs`."""
        values: dict[int, int] = dict(self.explicit.values)
        sources = dict(self.explicit.sources)
        conflicts = list(self.explicit.conflicts)
        for token, queue, line in output:
            prio = code_point(token, PCP, self.d.aliases)
            if prio is None:
                continue
            known = values.get(queue)
            if known is not None and known != prio:
                given = (known, sources[queue])
                conflicts.append(_conflict("tc_to_priority", queue, given, (prio, self.d.at(line))))
            elif known is None:
                values[queue], sources[queue] = prio, self.d.at(line)
        return Priorities(values, sources, conflicts)

    def _lossy(self, qos: QosConfig) -> None:
        """`lossy_tcs`: unicast queues with no lossless forwarding class. A class is lossless
        with `no-loss`, or when it is the default `fcoe`/`no-loss` class not configured
        (Juniper, `forwarding-classes`/`queue-num`: "If you do not specify the no-loss option
        ... the forwarding class is lossy"; the two default classes are lossless)."""
        written = {fc.queue.value for fc in self.d.classes.values() if fc.queue is not None}
        lossless: set[int] = set()
        queues: dict[int, int | None] = {}
        for fc in sorted(self.classes.values(), key=lambda fc: fc.line is None):
            if fc.queue is None or not 0 <= fc.queue.value < 8:
                continue
            if fc.line is None and fc.queue.value in written:
                continue  # a configured class took the queue: one queue has one drop attribute
            queues.setdefault(fc.queue.value, fc.line)
            if fc.no_loss is not None or (fc.line is None and fc.name in LOSSLESS_DEFAULTS):
                lossless.add(fc.queue.value)
        qos.lossy_tcs = sorted(set(queues) - lossless)
        qos.mark("lossy_tcs", self.d.default)
        for queue in qos.lossy_tcs:
            qos.mark(f"lossy_tcs.{queue}", self.d.at(queues[queue]))

    def _buffers(self) -> BufferConfig | None:
        """`shared-buffer ingress buffer-partition lossless|lossless-headroom percent 0`."""
        pool, headroom = self.d.buffers.get("lossless"), self.d.buffers.get("lossless-headroom")
        if pool is None and headroom is None:
            return None
        buffers = BufferConfig()
        if pool is not None:
            buffers.lossless_pool_bytes = 0
            buffers.mark("lossless_pool_bytes", self.d.at(pool.line))
        if headroom is not None:
            src = self.d.at(headroom.line)
            pg = PgBuffer(headroom_bytes=0, sources={"": src, "headroom_bytes": src})
            buffers.priority_groups = dict.fromkeys(range(8), pg)
        buffers.mark("", self.d.at((pool or headroom or Lined(0, None)).line))
        return buffers

    # ---- per port ----------------------------------------------------------------------------------

    def port(self, cos: CosPort | None, routed: bool | None) -> QosConfig | None:
        """QoS of a port with CoS block `cos` (shared by every port with the same block)."""
        key = ((cos.key or cos.name) if cos is not None else None, routed)
        if key not in self.shared:
            self.shared[key] = self._port(cos, routed)
        return self.shared[key]

    def _port(self, cos: CosPort | None, routed: bool | None) -> QosConfig | None:
        if cos is None:
            if routed is None:
                return None
            trust = Trust.DSCP if routed else Trust.PCP
            return QosConfig(trust=trust, sources={"trust": self.d.default})
        qos = QosConfig()
        dscp = self._applied(cos, ("dscp", "dscp-ipv6"))
        pcp = self._applied(cos, (PCP,))
        _trust(qos, dscp, pcp, routed, self.d)
        dscp_map = self._apply_map(qos, "dscp_to_tc", dscp)
        self._apply_map(qos, "pcp_to_tc", pcp)
        if cos.cnp is not None:
            default = self.default_map("dscp").values
            self._pfc(qos, cos.cnp, dscp_map if dscp_map is not None else default)
        if cos.scheduler_map is not None:
            qos.queues = self.sched.of_map(cos.scheduler_map.value)
        if cos.rewrite is not None:
            qos.rewrite = self._rewrite(cos.rewrite)
        return qos

    def _rewrite(self, bound: Lined[str]) -> DscpRewrite | None:
        """The DSCP rewrite rule bound to a port as TC (queue) -> code point; the loss-priority
        `low` entry of a class stands for it (RoCE is classified low). None when undefined."""
        entries = self.d.rewrites.get(bound.value)
        if entries is None:
            return None  # dangling: QOS005
        rewrite = DscpRewrite(name=bound.value)
        rewrite.mark("", self.d.at(bound.line))
        for fc, loss, token, line in sorted(entries, key=lambda e: e[1] != "low"):
            point, tc = code_point(token, "dscp", self.d.aliases), self.queue(fc)
            if point is None or tc is None:
                if point is None:
                    head = ("class-of-service", "rewrite-rules", "dscp", bound.value)
                    words = (*head, "forwarding-class", fc, "loss-priority", loss, "code-point")
                    self.d.skip(" ".join((*words, token)), "unknown code point", line)
                continue
            if tc not in rewrite.by_tc:
                rewrite.by_tc[tc] = point
                rewrite.mark(f"by_tc.{tc}", self.d.at(line))
        return rewrite

    def _applied(self, cos: CosPort, kinds: tuple[str, ...]) -> tuple[str, Lined[str]] | None:
        """The classifier of the first of `kinds` applied to the port (physical, `*`, unit 0)."""
        for kind in kinds:
            entries = cos.classifiers.get(kind)
            if not entries:
                continue
            rank = {unit: i for i, unit in enumerate(_UNIT_ORDER)}
            _, chosen = min(entries, key=lambda e: rank.get(e[0], len(rank)))
            for other_unit, other in entries:
                if other.value != chosen.value:
                    self._per_unit(cos, kind, (other_unit, other), chosen)
            return kind, chosen
        return None

    def _per_unit(
        self, cos: CosPort, kind: str, other: tuple[str, Lined[str]], chosen: Lined[str]
    ) -> None:
        unit, name = other
        words = (
            "class-of-service",
            "interfaces",
            cos.classifier_blocks.get(kind, cos.name),
            "unit",
            unit,
            "classifiers",
            kind,
            name.value,
        )
        if words not in self.reported and name.line is not None:
            self.reported.add(words)
            reason = f"per-unit classifiers are not modeled; the port uses {chosen.value}"
            self.d.skip(" ".join(words), reason, name.line)

    def _apply_map(
        self, qos: QosConfig, field_name: str, applied: tuple[str, Lined[str]] | None
    ) -> dict[int, int] | None:
        if applied is None:
            return None
        kind, name = applied
        table = (
            self.default_map(kind)
            if name.value == "default"
            else self.classifier_map(kind, name.value)
        )
        if table is None:
            return None
        _put(qos, field_name, table, self.d.at(name.line))
        qos.conflicts.extend(table.conflicts)
        return table.values

    def _pfc(self, qos: QosConfig, applied: Lined[str], dscp_map: dict[int, int]) -> None:
        """PFC from the congestion notification profile applied to the port."""
        cnp = self.d.cnps.get(applied.value)
        if cnp is None:
            return  # dangling: QOS005
        here = self.d.at(applied.line)
        qos.mark("pfc", here)
        prios = self.priorities(cnp.output) if cnp.output else self.explicit
        if cnp.output:
            _put(qos, "tc_to_priority", prios, here)
            qos.conflicts.extend(c for c in prios.conflicts if c not in self.explicit.conflicts)
        found = self._pfc_priorities(cnp, dscp_map)
        inputs = [*cnp.input_pcp, *cnp.input_dscp]
        first_input = self.d.at(inputs[0].line) if inputs else here
        pfc = PfcConfig(enabled=bool(inputs), watchdog=self.watchdog(cnp))
        pfc.priorities = sorted({p for p, _ in found})
        pfc.sources = {"": here, "enabled": first_input}
        for prio, src in reversed(found):
            pfc.sources[f"priorities.{prio}"] = src
        if found:
            pfc.sources["priorities"] = qos.sources["pfc.priorities"] = found[0][1]
        qos.pfc = pfc

    def _pfc_priorities(self, cnp: Cnp, dscp_map: dict[int, int]) -> list[tuple[int, Source]]:
        """`input ieee-802.1 code-point X pfc` gives priority X; `input dscp code-point D pfc`
        gives the `pfc-priority` of the forwarding class D is classified into on the port."""
        out: list[tuple[int, Source]] = []
        for token, line in cnp.input_pcp:
            prio = code_point(token, PCP, self.d.aliases)
            if prio is not None:
                out.append((prio, self.d.at(line)))
        for token, line in cnp.input_dscp:
            dscp = code_point(token, "dscp", self.d.aliases)
            tc = dscp_map.get(dscp) if dscp is not None else None
            prio = self.explicit.values.get(tc) if tc is not None else None
            if prio is not None:
                out.append((prio, self.d.at(line)))
                continue
            head = ("class-of-service", "congestion-notification-profile", cnp.name)
            words = (*head, "input", "dscp", "code-point", token, "pfc")
            if words not in self.reported:
                self.reported.add(words)
                reason = "DSCP-based PFC: the code point's forwarding class has no pfc-priority"
                self.d.skip(" ".join(words), reason, line)
        return out

    def watchdog(self, cnp: Cnp) -> PfcWatchdog | None:
        """The profile's `pfc-watchdog` with its defaults (one object per profile)."""
        if cnp.name not in self.watchdogs:
            self.watchdogs[cnp.name] = watchdog(self.d, cnp)
        return self.watchdogs[cnp.name]


def _conflict(name: str, key: int, *pairs: tuple[int, Source]) -> MapConflict:
    return MapConflict(
        map=name, key=key, values=[v for v, _ in pairs], sources=[s for _, s in pairs]
    )


def _put(qos: QosConfig, name: str, table: CodeMap | Priorities, whole: Source) -> None:
    """Set map `name` of `qos` with one source per key and `whole` for the map."""
    setattr(qos, name, dict(table.values))
    qos.sources[name] = whole
    for key, src in table.sources.items():
        qos.sources[f"{name}.{key}"] = src


def _trust(
    qos: QosConfig,
    dscp: tuple[str, Lined[str]] | None,
    pcp: tuple[str, Lined[str]] | None,
    routed: bool | None,
    d: Draft,
) -> None:
    """DSCP and/or IEEE 802.1p classifiers say what the port trusts; else its default one."""
    if dscp is not None and pcp is not None:
        qos.trust, line = Trust.BOTH, dscp[1].line
    elif dscp is not None or pcp is not None:
        qos.trust = Trust.DSCP if dscp is not None else Trust.PCP
        line = (dscp or pcp or ("", Lined("", None)))[1].line
    elif routed is not None:
        qos.trust, line = (Trust.DSCP if routed else Trust.PCP), None
    else:
        return
    qos.mark("trust", d.at(line))
