"""The explicit rule registry: every family's RULES, in catalog order. No import side effects.

Lifecycle (the shape of ruff's): a rule is stable, or *deprecated* (`Rule.deprecated` says why
and what replaces it; it still runs and is marked in the catalog and docs), or *removed*: its
class is deleted and its code moves to `REMOVED`, where it stays for good. A removed code is
reserved: the registry refuses a rule that reuses it, and naming it on the command line is a
usage error that says it was removed, so a code in an old baseline or suppression never comes
to mean another check."""

from __future__ import annotations

from typing import Any

from fabriclint.registry import Registry
from fabriclint.rules import (
    bench,
    buf,
    cab,
    ctr,
    drift,
    ecn,
    fab,
    ib,
    ib_hca,
    ib_part,
    ib_qos,
    ib_sm,
    internal,
    meta,
    mtu,
    nic,
    nic_switch,
    pfc,
    qos,
    qos_class,
    removed,
    sup,
)
from fabriclint.rules.base import Rule

ALL_RULES: list[type[Rule[Any]]] = [
    *pfc.RULES,
    *ecn.RULES,
    *qos.RULES,
    *buf.RULES,
    *qos_class.RULES,
    *mtu.RULES,
    *nic.RULES,
    *nic_switch.RULES,
    *fab.RULES,
    *ib.RULES,
    *ib_qos.RULES,
    *ib_sm.RULES,
    *ib_hca.RULES,
    *ib_part.RULES,
    *cab.RULES,
    *ctr.RULES,
    *bench.RULES,
    *meta.INPUT_RULES,
    *drift.RULES,
    *meta.INVENTORY_RULES,
    *sup.RULES,
    *internal.RULES,
]


REMOVED: dict[str, str] = removed.REMOVED
"""Codes of removed rules -> why (`removed in 0.9: merged into PFC002`). Never shrinks; kept in
rules/removed.py, which the policy loader reads without importing every family."""

RULES: Registry[type[Rule[Any]]] = Registry(
    "rule", ((rule.code, rule) for rule in ALL_RULES), reserved=REMOVED
)
"""The same registry shape as platforms and report formats; refuses a reused removed code."""

BY_CODE: dict[str, type[Rule[Any]]] = {rule.code: rule for rule in RULES}
