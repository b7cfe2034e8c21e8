"""Scope helpers the PFC, ECN, QOS, NIC and FAB families share.

They answer one question for every rule: *where does the faulty setting live?* A fault in the
device-wide QoS is reported once (object `qos`, or `queue <n>`), a fault in a port's own override on
that port, and a fault in a profile applied to many ports once on the profile, so one mistake never
turns into a cascade of findings from the same rule.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from fabriclint.models.common import Source
from fabriclint.models.finding import Finding
from fabriclint.models.policy import Severity
from fabriclint.models.resolve import (
    Resolution,
    effective_qos,
    lossless_priorities,
    memo_of,
)
from fabriclint.models.state import DeviceState, Interface, QosConfig
from fabriclint.rules.base import Context, OptionsT, Rule


@dataclass(frozen=True)
class Scope:
    """Where a QoS setting lives: device-wide, one port's own override, or a profile on ports."""

    kind: Literal["device", "port", "profile"]
    name: str
    """Port or profile name ('' device-wide)."""
    label: str
    """Finding object (qos, interface Ethernet1, qos-profile ROCE)."""
    prefix: str
    """Model path prefix (qos, interfaces.Ethernet1.qos, profiles.ROCE)."""

    def path(self, suffix: str) -> str:
        """Model path of `suffix` under this scope."""
        return f"{self.prefix}.{suffix}" if suffix else self.prefix

    def obj(self, queue: int | None = None) -> str:
        """Finding object; device-wide queue settings are reported as `queue <n>`."""
        return f"queue {queue}" if self.kind == "device" and queue is not None else self.label


DEVICE = Scope("device", "", "qos", "qos")


_BLOCK_WORDS = ("profile", "policy")


def _port(name: str) -> Scope:
    return Scope("port", name, f"interface {name}", f"interfaces.{name}.qos")


def _profile(kind: str, name: str) -> Scope:
    return Scope("profile", name, f"{kind} {name}", f"profiles.{name}")


def _own_scope(state: DeviceState, iface: Interface) -> Scope:
    """A port's own scope when no line says better: the profile it applies, else the port."""
    name = iface.qos.profile if iface.qos is not None else None
    if not name:
        return _port(iface.name)
    kinds = [d.kind for d in state.definitions if d.name == name]
    return _profile(
        next((k for k in kinds if any(w in k for w in _BLOCK_WORDS)), "qos-profile"), name
    )


def _blocks(state: DeviceState, file: str) -> list[tuple[int, Scope | None]]:
    """(first line, profile scope or None) of the interface and definition blocks of `file`."""
    out: list[tuple[int, Scope | None]] = []
    for iface in state.interfaces.values():
        src = iface.sources.get("")
        if src is not None and src.file == file and src.line:
            out.append((src.line, None))
    for item in state.definitions:
        if item.source is not None and item.source.file == file and item.source.line:
            block = any(w in item.kind for w in _BLOCK_WORDS)
            out.append((item.source.line, _profile(item.kind, item.name) if block else None))
    return sorted(out, key=lambda block: block[0])


def _enclosing(state: DeviceState, source: Source) -> Scope | None:
    """The profile/policy scope whose block holds `source`, None when it is an interface's own
    line or a top-level one. Asked of the state's block table (`DeviceState.blocks`) when its
    parser records one for that file; a family without a table yet falls back to the nearest
    block header above the line (which cannot tell a top-level line after a block from the
    block's own lines, and fits indented CLI only)."""
    table = [b for b in state.blocks if b.file == source.file]
    if not table:
        enclosing = [b for b in _blocks(state, source.file) if b[0] <= (source.line or 0)]
        return enclosing[-1][1] if enclosing else None
    held = [b for b in table if b.holds(source)]
    block = max(held, key=lambda b: b.first, default=None)  # innermost: the latest header
    if block is None or block.path is None or not any(w in block.kind for w in _BLOCK_WORDS):
        return None  # a port's own line, a class-map's, or the device-wide QoS
    return Scope("profile", block.name, f"{block.kind} {block.name}", block.path)


def _sources(qos: QosConfig) -> Iterator[Source]:
    yield from qos.sources.values()
    if qos.pfc is not None:
        yield from qos.pfc.sources.values()
        yield from (qos.pfc.watchdog.sources.values() if qos.pfc.watchdog else ())
    for queue in (qos.queues or {}).values():
        yield from queue.sources.values()
        yield from (queue.ecn.sources.values() if queue.ecn else ())


def _shared(state: DeviceState, iface: Interface, source: Source) -> bool:
    """True when `source` also feeds the device-wide QoS or another port's QoS."""
    others = [i.qos for i in state.interfaces.values() if i is not iface and i.qos is not None]
    return any(source in set(_sources(qos)) for qos in [state.qos, *others])


def locate(state: DeviceState, iface: Interface | None, source: Source | None) -> Scope:
    """Where a setting a port uses is written: in a profile/policy block (by line), in a line the
    device-wide QoS or other ports share (device-wide), else in the port's own lines.
    `iface` None = device-wide."""
    if iface is None:
        return DEVICE
    if source is None or not source.line:
        return _own_scope(state, iface)
    profile = _enclosing(state, source)
    if profile is not None:
        return profile
    if _shared(state, iface, source):
        return DEVICE  # e.g. a global default line baked into every port's settings
    return _port(iface.name)


def owner(
    state: DeviceState, iface: Interface, *fields: str, source: Source | None = None
) -> Scope:
    """Where a port's `fields` (written at `source`) live: DEVICE unless the port overrides one."""
    own = iface.qos
    overrides = own is not None and any(getattr(own, name) is not None for name in fields)
    return locate(state, iface if overrides else None, source)


def names(items: list[str], limit: int = 3) -> str:
    """'a, b, c and 4 more'."""
    if len(items) <= limit:
        return ", ".join(items)
    return f"{', '.join(items[:limit])} and {len(items) - limit} more"


def where(scope: Scope, ports: list[str]) -> str:
    """Where a fault lives, as a message fragment."""
    if scope.kind == "port":
        return f"on {scope.name}"
    users = f" (used by {names(ports)})" if ports else ""
    if scope.kind == "profile":
        return f"in {scope.label}{users}"
    return f"in the device-wide QoS{users}"


def first(*sources: Source | None) -> Source | None:
    """The first known source."""
    return next((s for s in sources if s is not None), None)


def pfc_source(qos: QosConfig) -> Source | None:
    """Most specific source of a QoS's PFC priorities."""
    return first(qos.pfc.src("priorities", "enabled") if qos.pfc else None, qos.sources.get("pfc"))


@dataclass
class Fault:
    """One problem before it becomes a Finding; faults with the same path are merged."""

    scope: Scope
    suffix: str
    """Model path of the setting under the scope (pfc.priorities)."""
    text: str
    """One sentence; '{where}' is replaced by where the setting lives."""
    expected: Any = None
    actual: Any = None
    source: Source | None = None
    queue: int | None = None
    """The queue a per-queue setting belongs to (object `queue <n>` when device-wide)."""
    ports: list[str] = field(default_factory=list)
    """RDMA ports affected (named in the message for shared scopes)."""
    severity: Severity | None = None

    @property
    def path(self) -> str:
        """Full model path."""
        return self.scope.path(self.suffix)


def emit(rule: Rule[Any], device: str, faults: Iterable[Fault]) -> Iterator[Finding]:
    """Merge faults by model path (one finding per setting) and turn them into findings."""
    merged: dict[str, Fault] = {}
    for fault in faults:
        kept = merged.setdefault(fault.path, fault)
        if kept is not fault:
            kept.ports.extend(p for p in fault.ports if p not in kept.ports)
    for fault in merged.values():
        text = fault.text.replace("{where}", where(fault.scope, fault.ports))
        yield rule.finding(
            device,
            fault.scope.obj(fault.queue),
            fault.path,
            text,
            expected=fault.expected,
            actual=fault.actual,
            source=fault.source,
            severity=fault.severity,
        ).scoped(fault.suffix, [fault.scope.name] if fault.scope.kind == "port" else fault.ports)


@dataclass
class Site:
    """One place a QoS field is set (device-wide, or one port's override) and what uses it."""

    state: DeviceState
    iface: Interface | None
    """The overriding port; None for the device-wide setting."""
    qos: QosConfig
    """Effective QoS where the field is set."""
    users: list[QosConfig]
    """Effective QoS of the device and of every port that inherits the field from here."""

    def at(self, source: Source | None) -> Scope:
        """Scope of a fault of this site whose setting is written at `source`."""
        return locate(self.state, self.iface, source)


_Where = tuple[Interface | None, QosConfig, list[QosConfig]]


def sites(state: DeviceState, name: str) -> list[Site]:
    """Device-wide first, then each port that overrides QoS field `name`, in port order.
    Worked out once per state and field (every PFC/ECN/QOS rule asks); the memo keeps no
    reference to the state, so it goes with it (models/resolve.py StateMemo)."""
    memo = memo_of(state)
    ports = memo.ports(state)
    found: list[_Where] | None = memo.extra.get(("sites", name))
    if found is None:
        found = memo.extra[("sites", name)] = _sites(state, ports, name)
    return [Site(state, iface, qos, users) for iface, qos, users in found]


def _sites(state: DeviceState, ports: list[str], name: str) -> list[_Where]:
    device: _Where = (None, state.qos, [state.qos])
    out = [device]
    for iface, own, eff in _overriding(state, ports):
        if getattr(own, name) is None:
            device[2].append(eff)
        else:
            out.append((iface, eff, [eff]))
    return out


def _overriding(
    state: DeviceState, ports: list[str]
) -> list[tuple[Interface, QosConfig, QosConfig]]:
    """(port, its own QoS, its effective QoS) of each port with QoS of its own, in port order;
    once per state (every field's sites start from it)."""
    memo = memo_of(state)
    found: list[tuple[Interface, QosConfig, QosConfig]] | None = memo.extra.get("overriding")
    if found is None:
        found = []
        for port in ports:
            iface = state.interfaces[port]
            if iface.qos is not None:
                found.append((iface, iface.qos, effective_qos(state, port)))
        memo.extra["overriding"] = found
    return found


def pfc_on(qos: QosConfig) -> bool:
    """PFC enabled with at least one priority."""
    return bool(lossless_priorities(qos))


def is_infiniband(state: DeviceState, port: str) -> bool:
    """True for an InfiniBand HCA port (PFC/ECN/DSCP do not apply)."""
    rdma = state.rdma.get(port)
    return rdma is not None and (rdma.link_layer or "").lower() == "infiniband"


def infiniband_only(state: DeviceState) -> bool:
    """A host whose RDMA ports are all InfiniBand (no RoCE to check)."""
    return bool(state.rdma) and all(is_infiniband(state, port) for port in state.rdma)


def roce_ports(ctx: Context, code: str, state: DeviceState) -> list[Interface]:
    """RDMA-carrying Ethernet ports; records a skip for cabled ports missing from the state and
    for NIC ports whose QoS was not collected (those are left out)."""
    if state.is_subnet_manager or infiniband_only(state):
        return []  # RoCE rules do not apply: not a gap in coverage
    cabled = ctx.cabled_ports(state.name)
    ports = [p for p in ctx.rdma_ports(state) if not is_infiniband(state, p.name)]
    known = [p for p in ports if p.qos is not None or not state.is_host]  # NIC QoS collected?
    if not cabled:
        ctx.skip(code, state.name, "cables to it in the cabling plan (inventory.yaml links)")
    elif len(ctx.rdma_ports(state)) < len(cabled):
        ctx.skip(code, state.name, "each cabled port in the device's input (INV001 names them)")
    elif len(known) < len(ports):
        ctx.skip(code, state.name, "`mlnx_qos -i IF` output for each cabled netdev")
    return known


def classified_ports(
    ctx: Context, code: str, state: DeviceState, intent: object | None
) -> list[Interface]:
    """RDMA ports whose DSCP map is known, given the intended class (skips recorded otherwise)."""
    ports = roce_ports(ctx, code, state)
    known = [p for p in ports if ctx.qos(state, p.name).dscp_to_tc is not None]
    if intent is None and ports:
        ctx.skip(
            code, state.name, "the RoCE/CNP class (`roce:`, `cnp:`) in the device's intent profile"
        )
    elif len(known) < len(ports):
        ctx.skip(code, state.name, "the DSCP-to-traffic-class map of each cabled port")
    return known if intent is not None else []


def roce_resolutions(
    ctx: Context, code: str, state: DeviceState
) -> Iterator[tuple[Interface, Resolution]]:
    """Each intended RoCE DSCP resolved on each classified RDMA port (skips recorded as usual)."""
    roce = ctx.roce(state.name)
    ports = classified_ports(ctx, code, state, roce)
    if roce is None:
        return
    for iface in ports:
        for dscp in roce.dscp:
            yield iface, ctx.resolve(state, iface.name, dscp)


def own_configs(state: DeviceState) -> Iterator[tuple[Interface | None, QosConfig]]:
    """The QoS settings as written: device-wide (None), then each port's own override."""
    yield None, state.qos
    for name in memo_of(state).ports(state):
        iface = state.interfaces[name]
        if iface.qos is not None:
            yield iface, iface.qos


def ordered(ctx: Context) -> list[DeviceState]:
    """States in device-name order."""
    return [ctx.states[name] for name in sorted(ctx.states)]


class StrictOptions(BaseModel):
    """Base of rule options: unknown keys are errors; field docstrings document the options."""

    # Built when options are given (the policy's are validated when it loads) or documented:
    # a run with the defaults makes them with `construct` (engine `_instances`).
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, defer_build=True)


class FaultRule(Rule[OptionsT]):
    """A rule that lists faults per device; merging them into findings is shared."""

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in ordered(ctx):
            yield from emit(self, state.name, self.faults(ctx, state))

    @abstractmethod
    def faults(self, ctx: Context, state: DeviceState) -> Iterable[Fault]:
        """Faults of one device."""


# ---- ECN rules ----------------------------------------------------------------------------------
