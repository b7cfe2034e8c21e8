"""Render intent into the expected settings of one device, keyed by object identity.

Only what the profile declares is rendered, so drift never compares undeclared settings. The
RoCE mode (`roce.mode`) is judged by the rules (PFC002 lossless, PFC009/ECN005 lossy); drift
renders `pfc.priorities` as declared (`[]` for lossy RoCE, met by a switch without PFC) and no
watchdog expectation where a lossy profile leaves nothing lossless.
Keys are model paths; values carry an optional tolerance for numeric thresholds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fabriclint.models.ib import IbIntent, PartitionIntent, SmIntent
from fabriclint.models.intent import Profile
from fabriclint.models.state import DeviceState


@dataclass(frozen=True)
class Expected:
    """One intended setting."""

    value: Any
    tolerance_pct: float = 0.0
    tolerance_bytes: int = 0
    label: str = ""
    """Human name of the setting (RoCE DSCP 26 priority, PFC priorities, ...)."""

    def accepts(self, actual: Any) -> bool:
        """Whether `actual` satisfies this expectation (within tolerance for numbers)."""
        if actual == self.value:
            return True
        if isinstance(self.value, int | float) and isinstance(actual, int | float):
            allowed = max(abs(self.value) * self.tolerance_pct / 100, self.tolerance_bytes)
            try:
                return abs(actual - self.value) <= allowed
            except OverflowError:  # an int no float can hold (10**400) is no match for a float
                return False
        return False


# object name -> {attribute path below the object -> Expected}
Rendered = dict[str, dict[str, Expected]]


def _switch_port(profile: Profile) -> dict[str, Expected]:
    out: dict[str, Expected] = {}
    if profile.mtu and profile.mtu.switch_port:
        out["mtu"] = Expected(profile.mtu.switch_port, label="MTU")
    out.update(_common_port(profile))
    if profile.pfc and profile.pfc.watchdog and _pauses(profile):
        wd = profile.pfc.watchdog
        out["qos.pfc.watchdog.enabled"] = Expected(wd.enabled, label="PFC watchdog")
        if wd.detection_ms is not None:
            out["qos.pfc.watchdog.detection_ms"] = Expected(
                wd.detection_ms, label="watchdog detection (ms)"
            )
        if wd.restoration_ms is not None:
            out["qos.pfc.watchdog.restoration_ms"] = Expected(
                wd.restoration_ms, label="watchdog restoration (ms)"
            )
    if profile.ecn and profile.roce:
        ecn = profile.ecn
        pct, abs_bytes = ecn.tolerance_pct, ecn.tolerance_bytes
        out["roce_queue.ecn.min_bytes"] = Expected(
            ecn.min_bytes,
            label="ECN minimum threshold",
            tolerance_pct=pct,
            tolerance_bytes=abs_bytes,
        )
        out["roce_queue.ecn.max_bytes"] = Expected(
            ecn.max_bytes,
            label="ECN maximum threshold",
            tolerance_pct=pct,
            tolerance_bytes=abs_bytes,
        )
        if ecn.probability_pct is not None:
            out["roce_queue.ecn.probability_pct"] = Expected(
                ecn.probability_pct, label="ECN mark probability"
            )
    for prio, queue in (profile.scheduler or {}).items():
        out[f"priority_queue.{prio}.scheduler"] = Expected(
            queue.mode, label=f"scheduler of priority {prio}"
        )
        if queue.weight is not None:
            out[f"priority_queue.{prio}.weight"] = Expected(
                queue.weight, label=f"weight of priority {prio}"
            )
    return out


def _pauses(profile: Profile) -> bool:
    """Whether the profile has any lossless priority to watch. A lossy-RoCE profile
    (`roce.mode: lossy`) with `pfc: {priorities: []}` has none, so its switches run no PFC and
    no watchdog, and a watchdog expectation would only report the watchdog's absence."""
    return not profile.lossy or bool(profile.pfc and profile.pfc.priorities)


def _common_port(profile: Profile) -> dict[str, Expected]:
    out: dict[str, Expected] = {}
    if profile.trust:
        out["qos.trust"] = Expected(profile.trust, label="trust")
    if profile.pfc:
        out["qos.pfc.priorities"] = Expected(sorted(profile.pfc.priorities), label="PFC priorities")
    if profile.roce:
        for dscp in profile.roce.dscp:
            out[f"dscp.{dscp}.priority"] = Expected(
                profile.roce.priority, label=f"priority of RoCE DSCP {dscp}"
            )
    if profile.cnp:
        out[f"dscp.{profile.cnp.dscp}.priority"] = Expected(
            profile.cnp.priority, label=f"priority of CNP DSCP {profile.cnp.dscp}"
        )
    return out


def _host_port(profile: Profile) -> dict[str, Expected]:
    out = _common_port(profile)
    if profile.mtu and profile.mtu.host:
        out["mtu"] = Expected(profile.mtu.host, label="host MTU")
    if profile.mtu and profile.mtu.roce:
        out["rdma.active_mtu"] = Expected(profile.mtu.roce, label="RoCE active MTU")
    return out


def render(
    profile: Profile,
    state: DeviceState,
    ports: list[str],
    states: Mapping[str, DeviceState] | None = None,
) -> Rendered:
    """Expected settings of each RDMA-carrying port of `state` under `profile`, plus its
    InfiniBand objects (`states`, the fabric's parsed devices, resolves host names that
    partition members name into port GUIDs; without it such members are not compared)."""
    per_port = _host_port(profile) if state.is_host else _switch_port(profile)
    out = {f"interface {port}": dict(per_port) for port in ports} if per_port else {}
    if profile.infiniband is not None:
        out.update(_infiniband(profile.infiniband, state, states or {}))
    return out


# ---- InfiniBand (keys `ib.sm.<key>`, `ib.partition.<pkey>.<attr>`, `rdma.<attr>` of HCA ports) ---

_SM_FIELDS = ("routing_engine", "lmc", "sm_priority", "qos", "max_op_vls", "sweep_interval")
_SM_FIELDS_TOO = ("m_key_protection_level",)


def _infiniband(ib: IbIntent, state: DeviceState, states: Mapping[str, DeviceState]) -> Rendered:
    out: Rendered = {}
    if state.is_subnet_manager:
        if ib.sm is not None:
            out["subnet manager"] = _sm(ib.sm)
        for name, part in (ib.partitions or {}).items():
            out[f"partition {name}"] = _partition(part, states)
    elif state.is_host and ib.hca is not None:
        wanted = {}
        if ib.hca.active_mtu is not None:
            wanted["rdma.active_mtu"] = Expected(ib.hca.active_mtu, label="HCA active MTU")
        if ib.hca.firmware is not None:
            wanted["rdma.firmware"] = Expected(ib.hca.firmware, label="HCA firmware")
        for port in _ib_ports(state, ib.hca.ports):
            out[f"interface {port}"] = dict(wanted)
    return {obj: settings for obj, settings in out.items() if settings}


def _ib_ports(state: DeviceState, listed: list[str] | None) -> list[str]:
    """The host's IB ports to compare: the listed ones it has (IB010 reports absent ones)."""
    if listed is not None:
        return [port for port in listed if port in state.rdma]
    return [
        k for k, p in sorted(state.rdma.items()) if (p.link_layer or "").lower() == "infiniband"
    ]


def _number(value: Any) -> Any:
    """'0x10' or '16' -> 16 (opensm.conf numbers may be written in hex); other values unchanged."""
    if isinstance(value, str):
        try:
            return int(value, 0)
        except ValueError:
            return value
    return value


def _sm(sm: SmIntent) -> dict[str, Expected]:
    out: dict[str, Expected] = {}
    for key in (*_SM_FIELDS, *_SM_FIELDS_TOO):
        value = getattr(sm, key)
        if value is not None:
            out[f"ib.sm.{key}"] = Expected(value, label=f"opensm {key}")
    if sm.keys is not None:
        out["ib.sm.keys"] = Expected(sm.keys, label="opensm m_key/sm_key/sa_key")
    for key, value in sm.options.items():
        out[f"ib.sm.{key}"] = Expected(_number(value), label=f"opensm {key}")
    return out


def _partition(part: PartitionIntent, states: Mapping[str, DeviceState]) -> dict[str, Expected]:
    pkey = f"0x{part.pkey & 0x7FFF:04x}"
    base = f"ib.partition.{pkey}"
    out = {f"{base}.pkey": Expected(pkey, label="P_Key")}
    for attr, label in (("ipoib", "IPoIB"), ("mtu", "IPoIB MTU"), ("sl", "SL")):
        value = getattr(part, attr)
        if value is not None:
            out[f"{base}.{attr}"] = Expected(value, label=label)
    for member, shown in _members(part.members, states):
        if part.membership is not None:
            key, value = f"{base}.membership.{member}", part.membership
        else:
            key, value = f"{base}.member.{member}", "member"
        out[key] = Expected(value, label=f"membership of {shown}")
    return out


_KEYWORDS = ("ALL", "ALL_CAS", "ALL_SWITCHES", "ALL_ROUTERS", "SELF")


def _members(names: list[str], states: Mapping[str, DeviceState]) -> list[tuple[str, str]]:
    """(port GUID or keyword, label): host names become the GUIDs of their InfiniBand ports."""
    out: list[tuple[str, str]] = []
    for name in names:
        if name in _KEYWORDS:
            out.append((name, name))
        elif name.lower().startswith("0x"):
            out.append((f"0x{int(name, 16):016x}", name))
        elif name in states and states[name].infiniband is not None:
            ports = states[name].infiniband.hca_ports  # type: ignore[union-attr]
            out += [(p.port_guid, f"{name} {k}") for k, p in sorted(ports.items()) if p.port_guid]
    return out
