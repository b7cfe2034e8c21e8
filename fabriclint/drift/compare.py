"""Compare a device's actual settings with its rendered intent, object by object.

Plain equality (with tolerance) decides; only the values that differ are explained (drift/explain.py,
DeepDiff's words; docs/architecture.md: deepdiff of whole trees is far too slow at fabric scale).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fabriclint.drift.explain import explain
from fabriclint.intent.render import Expected, Rendered
from fabriclint.models.common import Source, source_at
from fabriclint.models.ib import InfinibandState, Partition
from fabriclint.models.resolve import (
    effective_qos,
    lossless_priorities,
    priority_queues,
    resolve_qos,
)
from fabriclint.models.state import DeviceState, QosConfig, QueueConfig


@dataclass(frozen=True)
class Drift:
    """One intended setting that is missing or different on a device."""

    obj: str
    path: str
    port: str
    key: str
    expected: Any
    actual: Any
    label: str
    source: Source | None
    missing: bool
    explanation: str = ""
    comparable: bool = True
    """False when the device states the value in units intent cannot be compared with."""


def _queue_for_priority(qos: QosConfig, priority: int) -> QueueConfig | None:
    for queue in priority_queues(qos, priority):  # a no-loss class's queue first
        found = (qos.queues or {}).get(queue)
        if found is not None:
            return found
    return None


def _roce_queue(qos: QosConfig, roce_dscp: int | None) -> QueueConfig | None:
    return resolve_qos(qos, roce_dscp).scheduler if roce_dscp is not None else None


def _attr(obj: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if obj is None:
            return None
        obj = getattr(obj, part, None)
    return obj


Value = tuple[Any, Source | None]

_TRUST_COVERS: dict[str, frozenset[str]] = {"dscp": frozenset({"both"})}
"""Intended trust -> other trust modes that satisfy it. `both` (Cumulus `pcp,dscp`) classifies IP
packets by their DSCP and only non-IP frames by PCP (NVIDIA Cumulus Linux user guide, "Quality of
Service", classification by trust mode), so RoCE v2 is classified by DSCP either way; QOS001
accepts it for the same reason."""


def _trust_covers(key: str, exp: Expected, actual: Any) -> bool:
    """A trust mode that is not the intended one but classifies RoCE v2 the same way."""
    return key == "qos.trust" and actual in _TRUST_COVERS.get(str(_plain_value(exp.value)), ())


class Uncomparable(str):
    """A value present on the device in units intent cannot be compared with (e.g. segments)."""


def _plain_value(value: Any) -> Any:
    return value.value if hasattr(value, "value") else value


def _mtu(state: DeviceState, port: str, _qos: QosConfig, _key: str, _dscp: int | None) -> Value:
    iface = state.interfaces.get(port)
    return (iface.mtu, iface.src("mtu")) if iface else (None, None)


def _qos_value(_s: DeviceState, _p: str, qos: QosConfig, rest: str, _dscp: int | None) -> Value:
    if rest == "pfc.priorities":
        return (lossless_priorities(qos) if qos.pfc else None), qos.src("pfc.priorities", "pfc")
    return _plain_value(_attr(qos, rest)), qos.src(rest.split(".", maxsplit=1)[0])


def _dscp_value(_s: DeviceState, _p: str, qos: QosConfig, rest: str, _dscp: int | None) -> Value:
    dscp = int(rest.split(".", maxsplit=1)[0])
    res = resolve_qos(qos, dscp)
    source = res.sources[0] if res.sources else qos.src(f"dscp_to_tc.{dscp}")
    if res.tc is not None and res.priority is None:
        return Uncomparable("a class with no 802.1p priority"), source  # lossy routed class
    return res.priority, source


def _roce_queue_value(
    _s: DeviceState, _p: str, qos: QosConfig, rest: str, dscp: int | None
) -> Value:
    queue = _roce_queue(qos, dscp)
    ecn = queue.ecn if queue else None
    value = _attr(queue, rest)
    raw = _attr(queue, rest.replace("_bytes", "_raw")) if rest.endswith("_bytes") else None
    if value is None and raw is not None:
        value = Uncomparable(str(raw))  # e.g. '320 segments': cell size unknown, not "missing"
    return value, (ecn.src() if ecn else queue.src() if queue else None)


def _prio_queue_value(_s: DeviceState, _p: str, qos: QosConfig, rest: str, _d: int | None) -> Value:
    prio, _, attr = rest.partition(".")
    queue = _queue_for_priority(qos, int(prio))
    return _plain_value(_attr(queue, attr)), (queue.src(attr) if queue else None)


def _rdma_value(state: DeviceState, port: str, _q: QosConfig, rest: str, _d: int | None) -> Value:
    rdma = state.rdma.get(port)
    return (_attr(rdma, rest), rdma.src(rest)) if rdma else (None, None)


# ---- InfiniBand: `ib.sm.<key>` and `ib.partition.<pkey>.<attr>[.<member>]` ---------------------

_MTU_BYTES = {1: 256, 2: 512, 3: 1024, 4: 2048, 5: 4096}
_RANK = {"limited": 0, "both": 1, "full": 2}


def _ib_value(state: DeviceState, _p: str, _q: QosConfig, rest: str, _d: int | None) -> Value:
    ib = state.infiniband
    kind, _, tail = rest.partition(".")
    if ib is None:
        return None, None
    if kind == "sm":
        return _sm_value(ib, tail)
    if kind == "partition":
        return _partition_value(ib, tail)
    return None, None


def _sm_value(ib: InfinibandState, key: str) -> Value:
    sm = ib.sm
    if sm is None:
        return None, None
    if key == "keys":
        default = [k for k, d in (("m_key", 0), ("sm_key", 1), ("sa_key", 1)) if _default(ib, k, d)]
        shown = f"default: {', '.join(default)}" if default else "non-default"
        return shown, sm.src(*default) if default else sm.src()
    opt = sm.options.get(key)
    if opt is None:
        return None, None
    value: Any = opt.value
    if isinstance(value, str) and value.startswith("0x") and len(value) == 18:
        value = int(value, 16)  # 64-bit keys compare as numbers
    return value, opt.source or sm.src()


def _default(ib: InfinibandState, key: str, default: int) -> bool:
    opt = ib.sm.options[key] if ib.sm else None
    return (
        opt is not None
        and not opt.redacted
        and isinstance(opt.value, str)
        and int(opt.value, 16) == default
    )


def _partition_value(ib: InfinibandState, rest: str) -> Value:
    pkey_text, _, attr = rest.partition(".")
    pkey = int(pkey_text, 16)
    part = next((p for p in ib.partitions or [] if p.pkey == pkey), None)
    if part is None:
        return None, source_at(ib.partitions_file) if ib.partitions_file else None
    what, _, member = attr.partition(".")
    if what == "pkey":
        return f"0x{pkey:04x}", part.src()
    if what == "mtu":
        return _MTU_BYTES.get(part.mtu or 4, part.mtu), part.src("mtu")
    if what in ("ipoib", "sl"):
        return getattr(part, what) or (0 if what == "sl" else False), part.src(what)
    return _membership(part, member, what == "member")


def _membership(part: Partition, member: str, presence: bool) -> Value:
    """A port's membership: listed itself, or covered by ALL / ALL_CAS (host ports are CAs)."""
    covering = {member, "ALL"} | ({"ALL_CAS"} if member.startswith("0x") else set())
    found = [m for m in part.members if m.port in covering]
    if not found:
        return None, part.src()
    best = max(found, key=lambda m: _RANK[m.membership])
    return ("member" if presence else best.membership), best.source


_EXTRACTORS = {
    "mtu": _mtu,
    "qos": _qos_value,
    "dscp": _dscp_value,
    "roce_queue": _roce_queue_value,
    "priority_queue": _prio_queue_value,
    "rdma": _rdma_value,
    "ib": _ib_value,
}


def actual_value(
    state: DeviceState, port: str, key: str, roce_dscp: int | None, qos: QosConfig | None = None
) -> Value:
    """The device's value for a rendered key (see intent/render.py), and where it comes from."""
    head, _, rest = key.partition(".")
    extractor = _EXTRACTORS.get(head)
    if extractor is None:
        return None, None
    return extractor(state, port, qos or effective_qos(state, port), rest, roce_dscp)


def owner_source(
    state: DeviceState, port: str, key: str, qos: QosConfig, roce_dscp: int | None
) -> Source | None:
    """Where a missing setting belongs: the block that would hold it (the RoCE class's
    classification, the QoS profile or policy, the interface, the NIC port), never nowhere."""
    head = key.partition(".")[0]
    found: list[Source | None] = []
    if head == "roce_queue" and roce_dscp is not None:
        found += resolve_qos(qos, roce_dscp).sources
    if head in ("roce_queue", "priority_queue", "qos", "dscp"):
        found += [qos.src("queues", "dscp_to_tc", "pfc")]
    iface = state.interfaces.get(port)
    rdma = state.rdma.get(port)
    found += [iface.src() if iface else None, rdma.src() if rdma else None, state.src()]
    return next((s for s in found if s is not None and s.line), None)


def compare(state: DeviceState, rendered: Rendered, roce_dscp: int | None) -> list[Drift]:
    """Every rendered setting that the device lacks or has differently."""
    drifts: list[Drift] = []
    for obj, settings in rendered.items():
        port = obj.removeprefix("interface ")
        qos = effective_qos(state, port)
        for key, exp in settings.items():
            drifts.extend(_compare_one(state, obj, port, key, exp, roce_dscp, qos))
    return _one_per_missing_partition(drifts)


def _one_per_missing_partition(drifts: list[Drift]) -> list[Drift]:
    """A partition that is not configured at all is one drift (its P_Key), not one per member."""
    absent = {d.key.removesuffix("pkey") for d in drifts if d.missing and d.key.endswith(".pkey")}
    return [
        d for d in drifts if d.key.endswith(".pkey") or not any(d.key.startswith(a) for a in absent)
    ]


def _no_pfc_wanted(state: DeviceState, key: str, exp: Expected) -> bool:
    """Intent wants no lossless priority (a lossy-RoCE profile's `pfc: {priorities: []}`) and
    the switch has no PFC configuration at all: PFC is off by default on every supported switch
    OS, so nothing is missing. A host whose PFC state was not collected stays unknown."""
    return key == "qos.pfc.priorities" and exp.value == [] and not state.is_host


def _compare_one(
    state: DeviceState,
    obj: str,
    port: str,
    key: str,
    exp: Expected,
    roce_dscp: int | None,
    qos: QosConfig,
) -> list[Drift]:
    actual, source = actual_value(state, port, key, roce_dscp, qos)
    if actual is not None and (exp.accepts(actual) or _trust_covers(key, exp, actual)):
        return []
    if actual is None and _no_pfc_wanted(state, key, exp):
        return []
    if actual is None and (source is None or not source.line):
        source = owner_source(state, port, key, qos, roce_dscp) or source
    comparable = not isinstance(actual, Uncomparable)
    path = f"interfaces.{port}.{key}" if not key.startswith("rdma.") else f"rdma.{port}.{key[5:]}"
    if key.startswith("ib."):
        path = f"infiniband.{key[3:]}"
    return [
        Drift(
            obj=obj,
            path=path,
            port=port,
            key=key,
            expected=exp.value,
            actual=actual,
            label=exp.label,
            source=source,
            missing=actual is None,
            explanation=explain(exp.value, actual) if actual is not None else "",
            comparable=comparable,
        )
    ]
