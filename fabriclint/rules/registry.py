"""The explicit rule registry: every family's RULES, in catalog order. No import side effects."""

from __future__ import annotations

from typing import Any

from fabriclint.rules import ctr, ecn, fab, ib, internal, meta, mtu, nic, pfc, qos, sup
from fabriclint.rules.base import Rule

ALL_RULES: list[type[Rule[Any]]] = [
    *pfc.RULES,
    *ecn.RULES,
    *qos.RULES,
    *mtu.RULES,
    *nic.RULES,
    *fab.RULES,
    *ib.RULES,
    *ctr.RULES,
    *meta.RULES,
    *sup.RULES,
    *internal.RULES,
]

BY_CODE: dict[str, type[Rule[Any]]] = {rule.code: rule for rule in ALL_RULES}
