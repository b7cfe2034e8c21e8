"""Data table for the SUP rules (the engine computes the notes; the rules report them)."""

from __future__ import annotations

import pytest

from fabriclint.models.common import Source
from fabriclint.models.finding import Finding
from fabriclint.rules.sup import NOTES
from tests.rules.harness import Case, found, run_case, switch


def note(code: str) -> dict[str, dict[str, list[Finding]]]:
    finding = Finding(
        rule=code,
        name="x",
        severity="info",
        device=None,
        object="suppression",
        path=f"inline.a.{code}",
        message="m",
        source=Source(file="a", line=1),
    )
    return {NOTES: {code: [finding]}}


FIRES: list[tuple[str | None, str]] = [(None, "suppression")]
CASES: list[Case] = [
    Case(f"{code}-{kind}", code, [switch("leaf01")], expect, memo=memo)
    for code in ("SUP001", "SUP002", "SUP003")
    for kind, expect, memo in (("fires", FIRES, note(code)), ("clean", [], {}))
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case) -> None:
    assert found(case) == sorted(case.expect)


def test_note_takes_the_rule_severity() -> None:
    (finding,) = run_case(CASES[4])  # SUP003 fires
    assert finding.severity == "error"
