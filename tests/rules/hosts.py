"""Builders for ConnectX hosts in rule data tables, small state tweaks, and a skip probe."""

from __future__ import annotations

import copy
from typing import Any
from unittest import mock

from fabriclint.models.state import (
    DeviceState,
    Interface,
    PfcConfig,
    QosConfig,
    RdmaPort,
    Trust,
)
from fabriclint.rules.base import Context
from tests.rules import harness
from tests.rules.harness import ROCE_INTENT, Case, run_case


def roce_intent(**sections: Any) -> dict[str, Any]:
    """ROCE_INTENT with sections of its profile replaced (None removes a section)."""
    intent = copy.deepcopy(ROCE_INTENT)
    profile = intent["profiles"]["roce"]
    for key, value in sections.items():
        if value is None:
            profile.pop(key, None)
        else:
            profile[key] = value
    return intent


def nic_qos(pfc: tuple[int, ...] | None = (3,)) -> QosConfig:
    """QoS of a correct RoCE NIC (mlnx_qos): trust DSCP, default dscp2prio, PFC on `pfc`."""
    return QosConfig(
        trust=Trust.DSCP,
        dscp_to_tc={d: d // 8 for d in range(64)},
        pfc=PfcConfig(enabled=True, priorities=list(pfc)) if pfc is not None else None,
    )


def nic(netdev: str, **fields: Any) -> RdmaPort:
    """A healthy ConnectX-7 RoCE port with DCQCN on priority 3; `fields` override."""
    values: dict[str, Any] = {
        "netdev": netdev,
        "hca": "mlx5_0",
        "link_layer": "Ethernet",
        "state": "PORT_ACTIVE",
        "phys_state": "LINK_UP",
        "rate_gbps": 400.0,
        "width": "4X",
        "active_mtu": 4096,
        "model": "MT4129",
        "firmware": "28.39.1002",
        "driver": "24.10-1.1.4",
        "roce_tos": 106,
        "cnp_dscp": 48,
        "cnp_priority": 6,
        "ecn_np": {p: p == 3 for p in range(8)},
        "ecn_rp": {p: p == 3 for p in range(8)},
    }
    return RdmaPort.model_validate(values | fields)


def host(
    name: str = "gpu01",
    netdevs: tuple[str, ...] = ("ens1np0",),
    mtu: int | None = 9000,
    role: str = "host",
    pfc: tuple[int, ...] | None = (3,),
    **nic_fields: Any,
) -> DeviceState:
    """A correct RoCE host: each netdev up at `mtu`, NIC QoS per netdev, RDMA facts per netdev."""
    interfaces = {
        n: Interface(name=n, mtu=mtu, admin_up=True, oper_up=True, qos=nic_qos(pfc))
        for n in netdevs
    }
    rdma = {n: nic(n, **nic_fields) for n in netdevs}
    return DeviceState(name=name, platform="mlnx-host", role=role, interfaces=interfaces, rdma=rdma)


def with_nic(state: DeviceState, netdev: str, **fields: Any) -> DeviceState:
    """`state` with fields of its RDMA port `netdev` replaced."""
    for key, value in fields.items():
        setattr(state.rdma[netdev], key, value)
    return state


def without_nic(state: DeviceState, netdev: str) -> DeviceState:
    """`state` with no RDMA facts for `netdev` (as when ibv_devinfo was not collected)."""
    del state.rdma[netdev]
    return state


def with_port(state: DeviceState, port: str, **fields: Any) -> DeviceState:
    """`state` with fields of its interface `port` replaced (an interface is added if missing)."""
    iface = state.interfaces.setdefault(port, Interface(name=port))
    for key, value in fields.items():
        setattr(iface, key, value)
    return state


def with_state(state: DeviceState, **fields: Any) -> DeviceState:
    """`state` with device fields (os_version, role, ...) replaced."""
    for key, value in fields.items():
        setattr(state, key, value)
    return state


def skipped(case: Case) -> set[str]:
    """Devices the case's rule recorded as not evaluated (ctx.skip), running it through run_case."""
    contexts: list[Context] = []

    class Probe(Context):
        def __post_init__(self) -> None:
            super().__post_init__()
            contexts.append(self)

    with mock.patch.object(harness, "Context", Probe):
        run_case(case)
    return contexts[0].skipped_on(case.rule)
