"""Render intent into the expected settings of one device, keyed by object identity.

Only what the profile declares is rendered, so drift never compares undeclared settings.
Keys are model paths; values carry an optional tolerance for numeric thresholds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
            return abs(actual - self.value) <= allowed
        return False


# object name -> {attribute path below the object -> Expected}
Rendered = dict[str, dict[str, Expected]]


def _switch_port(profile: Profile) -> dict[str, Expected]:
    out: dict[str, Expected] = {}
    if profile.mtu and profile.mtu.switch_port:
        out["mtu"] = Expected(profile.mtu.switch_port, label="MTU")
    out.update(_common_port(profile))
    if profile.pfc and profile.pfc.watchdog:
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


def render(profile: Profile, state: DeviceState, ports: list[str]) -> Rendered:
    """Expected settings of each RDMA-carrying port of `state` under `profile`."""
    per_port = _host_port(profile) if state.is_host else _switch_port(profile)
    if not per_port:
        return {}
    return {f"interface {port}": dict(per_port) for port in ports}
