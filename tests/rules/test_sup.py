"""The SUP rules: suppress.py finds the notes, each SUP rule reports its own at its severity."""

from __future__ import annotations

import datetime as dt

import pytest

from fabriclint.models.common import Source
from fabriclint.models.finding import Finding
from fabriclint.models.policy import Suppression
from fabriclint.rules.base import NoOptions
from fabriclint.rules.registry import BY_CODE
from fabriclint.rules.sup import RULES, SuppressionRule
from fabriclint.suppress import Inline, apply
from tests.rules.harness import Case, found, switch

TODAY = dt.date(2026, 6, 1)


def _finding(rule: str, line: int) -> Finding:
    return Finding(
        rule=rule,
        name="x",
        severity="error",
        device="leaf01",
        object="qos",
        path=f"qos.{rule}",
        message="m",
        source=Source(file="a.txt", line=line),
    )


def _inline(codes: list[str], reason: str, line: int, until: dt.date | None = None) -> Inline:
    return Inline(codes, reason, until, Source(file="a.txt", line=line))


def test_apply_returns_each_kind_of_note_directly() -> None:
    findings = [_finding("PFC002", 10), _finding("ECN002", 20)]
    policy = [
        Suppression(rule="PFC002", device="leaf01", reason="lab"),
        Suppression(rule="MTU001", device="leaf09", reason="gone"),
        Suppression(rule="ECN002", device="*", reason="old", expires=dt.date(2026, 1, 1)),
    ]
    inline = {
        "a.txt": [
            _inline(["QOS001"], "nothing there", 3),
            _inline(["ECN002"], "", 20),
            _inline(["PFC002"], "window", 9, until=dt.date(2026, 12, 31)),
        ]
    }
    outcome = apply(findings, policy, inline, None, TODAY)
    assert [f.suppressed for f in findings] == ["lab", None]
    notes = sorted((n.rule, n.path) for n in outcome.notes)
    assert notes == [
        ("SUP001", "inline.a.txt.PFC002"),  # the policy suppression took PFC002 first
        ("SUP001", "inline.a.txt.QOS001"),
        ("SUP001", "suppressions.1"),
        ("SUP002", "suppressions.2"),
        ("SUP003", "inline.a.txt.ECN002"),
    ]


@pytest.mark.parametrize("rule_cls", RULES, ids=[r.code for r in RULES])
def test_report_gives_a_note_its_rule_and_configured_severity(
    rule_cls: type[SuppressionRule],
) -> None:
    note = _finding(rule_cls.code, 1).model_copy(update={"severity": "info"})
    for severity in ("error", "warning"):
        rule = rule_cls(NoOptions(), severity)
        reported = rule.report(note)
        assert (reported.rule, reported.severity) == (rule_cls.code, severity)
    assert BY_CODE[rule_cls.code].stage == "suppress"


def test_sup_rules_evaluate_nothing_through_check() -> None:
    for code in ("SUP001", "SUP002", "SUP003"):
        assert found(Case(code, code, [switch("leaf01")], [])) == []
