"""The rule registry: well-formed, documented, unique, and every rule covered by a data table."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from fabriclint.rules.registry import ALL_RULES, BY_CODE
from tests.rules.harness import Case

CATALOG = Path(__file__).resolve().parents[3] / "shared" / "RULES.md"


def _all_cases() -> list[Case]:
    cases: list[Case] = []
    for path in sorted(Path(__file__).parent.glob("test_*.py")):
        module = importlib.import_module(f"tests.rules.{path.stem}")
        cases.extend(getattr(module, "CASES", []))
    return cases


def test_codes_unique_and_well_formed() -> None:
    codes = [r.code for r in ALL_RULES]
    assert len(codes) == len(set(codes))
    names = [r.name for r in ALL_RULES]
    assert len(names) == len(set(names))
    for rule in ALL_RULES:
        assert re.fullmatch(r"[A-Z]+[0-9]{3}", rule.code), rule.code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name), rule.name
        assert rule.severity in ("error", "warning", "info")
        assert rule.__doc__ and len(rule.__doc__.strip()) > 40, f"{rule.code} needs a docstring"
        assert rule.summary


def test_options_forbid_unknown_keys() -> None:
    for rule in ALL_RULES:
        with pytest.raises(ValueError):
            rule.options_model.model_validate({"surely_not_an_option": 1})


def test_every_rule_has_firing_and_clean_cases() -> None:
    cases = _all_cases()
    firing = {c.rule for c in cases if c.expect}
    clean = {c.rule for c in cases if not c.expect}
    # Made by the engine's suppression and report stages, not computed from states: the SUP
    # notes are tested in tests/rules/test_sup.py, INTERNAL001 in tests/test_containment.py.
    engine_made = {r.code for r in ALL_RULES if r.stage in ("suppress", "report")}
    missing = [
        code
        for code in BY_CODE
        if code not in engine_made and (code not in firing or code not in clean)
    ]
    assert not missing, f"rules without a firing and a clean data-table case: {missing}"


@pytest.mark.skipif(not CATALOG.is_file(), reason="../shared/RULES.md not present")
def test_names_and_severities_match_the_catalog() -> None:
    rows = re.findall(
        r"^\| ([A-Z]+[0-9]{3}) \| ([a-z0-9-]+) \| (error|warning|info) \|",
        CATALOG.read_text(),
        re.M,
    )
    catalog = {code: (name, sev) for code, name, sev in rows}
    for rule in ALL_RULES:
        if rule.code in catalog:
            assert (rule.name, rule.severity) == catalog[rule.code], rule.code
