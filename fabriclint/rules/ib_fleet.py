"""Helpers the InfiniBand rules (and NIC005/NIC006/MTU003) share: SM nodes, the master, IB ports.

An InfiniBand fabric's switches are usually not in the inventory (no IB switch platform), so IB
host ports are rarely in the cabling plan. The IB ports fabriclint checks on a host are the
ports the intent lists (`infiniband.hca.ports`), else every port whose link layer is InfiniBand.
"""

from __future__ import annotations

from fabriclint.models.common import Source
from fabriclint.models.ib import HcaIntent, InfinibandState, SmConfig, SmInfo
from fabriclint.models.state import DeviceState, RdmaPort
from fabriclint.rules.base import Context
from fabriclint.rules.scope import ordered

IB_FABRIC: frozenset[str] = frozenset({"subnet-manager"})
"""The IB rules' `kinds`: fabriclint knows an InfiniBand fabric by its subnet manager node (its
switches are rarely in the inventory), so a fabric without one gives them nothing to judge."""

IB_HOST = "infiniband-host"
"""The kind engine.fabric_kinds adds for a fabric whose intent declares `infiniband`: its hosts'
HCA ports are InfiniBand even where the subnet manager runs on a switch the inventory lacks."""

IB_HCA: frozenset[str] = IB_FABRIC | {IB_HOST}
"""The `kinds` of the rules that judge hosts' HCA ports, not the subnet manager."""


def infiniband(state: DeviceState) -> InfinibandState:
    """The InfiniBand facts of an SM node returned by sm_nodes (always present there)."""
    assert state.infiniband is not None, f"{state.name} has no InfiniBand facts"
    return state.infiniband


def conf_object(key: str) -> str:
    """Finding object of an opensm.conf key."""
    return f"opensm.conf {key}"


def is_ib(port: RdmaPort) -> bool:
    """True for an InfiniBand HCA port."""
    return (port.link_layer or "").lower() == "infiniband"


def sm_config(state: DeviceState) -> SmConfig | None:
    """The opensm.conf of an SM node (None for other devices)."""
    ib = state.infiniband
    return ib.sm if ib is not None and state.is_subnet_manager else None


def sm_nodes(ctx: Context) -> list[DeviceState]:
    """SM nodes whose opensm.conf was read, by name."""
    return [s for s in ordered(ctx) if sm_config(s) is not None]


def active_sms(ctx: Context) -> list[DeviceState]:
    """SM nodes that take part in SM election (sm_inactive is not TRUE)."""
    return [s for s in sm_nodes(ctx) if not conf(s).flag("sm_inactive")]


def conf(state: DeviceState) -> SmConfig:
    """The opensm.conf of an SM node returned by sm_nodes/active_sms."""
    found = sm_config(state)
    assert found is not None, f"{state.name} is not an SM node"
    return found


def priority(state: DeviceState) -> int:
    """The sm_priority OpenSM uses on an SM node."""
    return conf(state).number("sm_priority")


def own_guid(state: DeviceState) -> str | None:
    """The port GUID the SM binds to, when opensm.conf sets one (0 = first active port)."""
    value = conf(state).value("guid")
    return value if isinstance(value, str) and int(value, 16) else None


def observations(ctx: Context) -> list[tuple[DeviceState, SmInfo]]:
    """Every `sminfo` answer, with the SM node that asked."""
    return [(s, info) for s in sm_nodes(ctx) if s.infiniband for info in s.infiniband.sminfo]


def node_of(ctx: Context, guid: str) -> DeviceState | None:
    """The SM node whose opensm.conf binds to port `guid`."""
    return next((s for s in sm_nodes(ctx) if own_guid(s) == guid), None)


def master(ctx: Context) -> DeviceState | None:
    """The master SM node: the one sminfo shows as MASTER, else the unique top priority."""
    masters = {info.guid for _, info in observations(ctx) if info.is_master}
    if len(masters) == 1:
        found = node_of(ctx, next(iter(masters)))
        if found is not None:
            return found
    sms = active_sms(ctx)
    if not sms:
        return None
    top = max(priority(s) for s in sms)
    tied = [s for s in sms if priority(s) == top]
    return tied[0] if len(tied) == 1 else None


def reference_sm(ctx: Context) -> DeviceState | None:
    """The master, or (when it cannot be told) the first SM node of the highest priority."""
    found = master(ctx)
    if found is not None:
        return found
    sms = active_sms(ctx) or sm_nodes(ctx)
    return max(sms, key=lambda s: (priority(s), [-ord(c) for c in s.name])) if sms else None


def option_source(state: DeviceState, *keys: str) -> Source | None:
    """Line of the first written key among `keys` on an SM node, else its opensm.conf."""
    return conf(state).src(*keys)


# ---- hosts ---------------------------------------------------------------------------------------


def hca_intent(ctx: Context, device: str) -> HcaIntent | None:
    """The `infiniband.hca` section intended for a host."""
    profile = ctx.profile(device)
    ib = profile.infiniband if profile is not None else None
    return ib.hca if ib is not None else None


def ib_ports(ctx: Context, state: DeviceState) -> list[RdmaPort]:
    """The InfiniBand ports checked on a host: those the intent lists (when present), else all."""
    wanted = hca_intent(ctx, state.name)
    if wanted is not None and wanted.ports is not None:
        return [state.rdma[name] for name in wanted.ports if name in state.rdma]
    return [port for _, port in sorted(state.rdma.items()) if is_ib(port)]


def uncabled_ib_ports(ctx: Context, state: DeviceState) -> list[RdmaPort]:
    """IB ports of a host that are not in the cabling plan (cabled ones come from host_nics)."""
    cabled = set(ctx.cabled_ports(state.name))
    return [port for port in ib_ports(ctx, state) if port.netdev not in cabled]


def below_intended_rate(ctx: Context, device: str, port: RdmaPort) -> bool:
    """True when an IB port runs below the rate the intent expects (IB010 reports it)."""
    wanted = hca_intent(ctx, device)
    if wanted is None or wanted.rate_gbps is None or port.rate_gbps is None:
        return False
    return is_ib(port) and port.rate_gbps < wanted.rate_gbps
