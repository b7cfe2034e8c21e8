"""Compare a device's actual settings with its rendered intent, object by object.

Plain equality (with tolerance) decides; deepdiff is only handed the values that differ, to
explain how they differ (DESIGN.md: deepdiff of whole trees is far too slow at fabric scale).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fabriclint.intent.render import Expected, Rendered
from fabriclint.models.common import Source
from fabriclint.models.resolve import effective_qos, lossless_priorities, resolve_qos
from fabriclint.models.state import DeviceState, QosConfig, QueueConfig


@dataclass(frozen=True)
class Drift:
    """One intended setting that is missing or different on a device."""

    obj: str
    path: str
    expected: Any
    actual: Any
    label: str
    source: Source | None
    missing: bool
    explanation: str = ""


def _queue_for_priority(qos: QosConfig, priority: int) -> QueueConfig | None:
    to_prio = qos.tc_to_priority or {}
    tcs = [tc for tc in range(8) if to_prio.get(tc, tc) == priority]
    for tc in tcs:
        queue = (qos.tc_to_queue or {}).get(tc, tc)
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


def actual_value(
    state: DeviceState, port: str, key: str, roce_dscp: int | None
) -> tuple[Any, Source | None]:
    """The device's value for a rendered key, and where it comes from."""
    iface = state.interfaces.get(port)
    qos = effective_qos(state, port)
    head, _, rest = key.partition(".")
    if key == "mtu":
        return (iface.mtu, iface.src("mtu")) if iface else (None, None)
    if key == "qos.pfc.priorities":
        return (lossless_priorities(qos) if qos.pfc else None), qos.src("pfc.priorities", "pfc")
    if head == "qos":
        value = _attr(qos, rest)
        return (value.value if hasattr(value, "value") else value), qos.src(rest.split(".")[0])
    if head == "dscp":
        dscp = int(rest.split(".")[0])
        res = resolve_qos(qos, dscp)
        return res.priority, (res.sources[0] if res.sources else qos.src(f"dscp_to_tc.{dscp}"))
    if head == "roce_queue":
        queue = _roce_queue(qos, roce_dscp)
        value = _attr(queue, rest)
        ecn = queue.ecn if queue else None
        return value, (ecn.src() if ecn else queue.src() if queue else None)
    if head == "priority_queue":
        prio, _, attr = rest.partition(".")
        queue = _queue_for_priority(qos, int(prio))
        value = _attr(queue, attr)
        return (value.value if hasattr(value, "value") else value), (queue.src(attr) if queue else None)
    if head == "rdma":
        rdma = state.rdma.get(port)
        return (_attr(rdma, rest), rdma.src(rest)) if rdma else (None, None)
    return None, None


def _explain(expected: Any, actual: Any) -> str:
    if not isinstance(expected, list | dict) or not isinstance(actual, list | dict):
        return ""
    from deepdiff import DeepDiff  # heavy import, only when something differs

    diff = DeepDiff(expected, actual, ignore_order=True)
    added = [v for k, v in diff.get("iterable_item_added", {}).items()]
    removed = [v for k, v in diff.get("iterable_item_removed", {}).items()]
    parts = []
    if added:
        parts.append(f"added {sorted(added)}")
    if removed:
        parts.append(f"removed {sorted(removed)}")
    return ", ".join(parts)


def compare(state: DeviceState, rendered: Rendered, roce_dscp: int | None) -> list[Drift]:
    """Every rendered setting that the device lacks or has differently."""
    drifts: list[Drift] = []
    for obj, settings in rendered.items():
        port = obj.removeprefix("interface ")
        for key, exp in settings.items():
            drifts.extend(_compare_one(state, obj, port, key, exp, roce_dscp))
    return drifts


def _compare_one(
    state: DeviceState, obj: str, port: str, key: str, exp: Expected, roce_dscp: int | None
) -> list[Drift]:
    actual, source = actual_value(state, port, key, roce_dscp)
    if actual is not None and exp.accepts(actual):
        return []
    path = f"interfaces.{port}.{key}" if not key.startswith("rdma.") else f"rdma.{port}.{key[5:]}"
    return [
        Drift(
            obj=obj,
            path=path,
            expected=exp.value,
            actual=actual,
            label=exp.label,
            source=source,
            missing=actual is None,
            explanation=_explain(exp.value, actual) if actual is not None else "",
        )
    ]
