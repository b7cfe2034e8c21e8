"""Shared harness for rule data tables: build a tiny fabric from DeviceStates, run one rule."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fabriclint.engine import drift_findings
from fabriclint.models.finding import Finding
from fabriclint.models.intent import Intent
from fabriclint.models.inventory import Device, Inventory, Link
from fabriclint.models.state import (
    DeviceState,
    EcnConfig,
    Interface,
    PfcConfig,
    PfcWatchdog,
    QosConfig,
    QueueConfig,
    SchedulerMode,
    Trust,
)
from fabriclint.rules.base import Context
from fabriclint.rules.drift import SettingDrift
from fabriclint.rules.internal import Failure
from fabriclint.rules.registry import BY_CODE


@dataclass
class Case:
    """One row of a rule's data table: inputs and exactly the (device, object) pairs expected."""

    id: str
    rule: str
    states: list[DeviceState]
    expect: list[tuple[str | None, str]]
    links: list[tuple[str, str]] = field(default_factory=list)
    intent: dict[str, Any] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    unexpected: dict[str, str] = field(default_factory=dict)
    memo: dict[Any, Any] = field(default_factory=dict)
    unverified: dict[str, list[str]] = field(default_factory=dict)
    inventory: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Extra inventory fields per device (`{"leaf01": {"rail": 0}}`)."""


def run_case(case: Case) -> list[Finding]:
    """Run the case's rule over its states and return the findings."""
    inventory = Inventory(
        name="t",
        devices={
            s.name: Device(
                platform=s.platform, role=s.role or "leaf", **case.inventory.get(s.name, {})
            )
            for s in case.states
        },
        links=[Link(a=a, b=b) for a, b in case.links],
    )
    intent = Intent.model_validate(case.intent) if case.intent is not None else None
    ctx = Context(
        inventory=inventory,
        intent=intent,
        states={s.name: s for s in case.states},
        missing=dict(case.missing),
        unexpected=dict(case.unexpected),
        memo=dict(case.memo),
        unverified=dict(case.unverified),
    )
    rule_cls = BY_CODE[case.rule]
    rule = rule_cls(rule_cls.options_model.model_validate(case.options))
    if isinstance(rule, SettingDrift):  # reported by the engine's drift stage, not by check()
        failures: list[Failure] = []
        findings = drift_findings(ctx, [rule], failures)
        assert not failures, failures
        return findings
    return list(rule.check(ctx))


def found(case: Case) -> list[tuple[str | None, str]]:
    """Sorted (device, object) pairs the case's rule reports."""
    return sorted((f.device, f.object) for f in run_case(case))


# ---- builders: a clean RoCE switch/host by default, tweak what a case needs --------------------

ROCE_INTENT: dict[str, Any] = {
    "profiles": {
        "roce": {
            "trust": "dscp",
            "roce": {"dscp": [26], "priority": 3},
            "cnp": {"dscp": 48, "priority": 6},
            "pfc": {"priorities": [3], "watchdog": {"enabled": True}},
            "ecn": {"min_bytes": 150000, "max_bytes": 1500000, "tolerance_pct": 10},
            "mtu": {"switch_port": 9214, "host": 9000, "roce": 4096},
        }
    },
    "roles": {
        "leaf": {"profile": "roce"},
        "spine": {"profile": "roce"},
        "host": {"profile": "roce"},
    },
}


def roce_qos(pfc_priorities: tuple[int, ...] = (3,), watchdog: bool = True) -> QosConfig:
    """Device-wide QoS of a correct RoCE switch: DSCP 26 -> TC3 lossless+ECN, 48 -> TC6 strict."""
    return QosConfig(
        trust=Trust.DSCP,
        dscp_to_tc={d: d // 8 for d in range(64)} | {26: 3, 48: 6},
        queues={
            3: QueueConfig(
                queue=3,
                scheduler=SchedulerMode.DWRR,
                weight=50,
                ecn=EcnConfig(min_bytes=150000, max_bytes=1500000, probability_pct=100),
            ),
            6: QueueConfig(queue=6, scheduler=SchedulerMode.STRICT),
        },
        pfc=PfcConfig(
            enabled=True,
            priorities=list(pfc_priorities),
            watchdog=PfcWatchdog(enabled=watchdog, detection_ms=200, restoration_ms=400),
        ),
    )


def switch(
    name: str, ports: dict[str, int] | None = None, role: str = "leaf", **qos: Any
) -> DeviceState:
    """An EOS switch whose `ports` (name -> MTU) are routed, up, and inherit a correct RoCE QoS."""
    base = roce_qos()
    for key, value in qos.items():
        setattr(base, key, value)
    interfaces = {
        p: Interface(name=p, mtu=mtu, admin_up=True, oper_up=True, routed=True)
        for p, mtu in (ports or {"Ethernet1": 9214}).items()
    }
    return DeviceState(name=name, platform="eos", role=role, qos=base, interfaces=interfaces)
