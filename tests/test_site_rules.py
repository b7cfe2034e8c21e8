"""Site rules: JSON Schema over normalized state, reported like built-in findings."""

from __future__ import annotations

import pytest

from fabriclint import site_rules
from fabriclint.models.common import Source
from fabriclint.models.policy import SiteRule
from fabriclint.models.state import DeviceState, Interface
from fabriclint.site_rules import applies, check_site_rule

RULE = SiteRule.model_validate(
    {
        "code": "SITE001",
        "name": "leaf-host-port-mtu",
        "message": "host-facing leaf ports must have MTU 9214",
        "select": {"roles": ["leaf"], "devices": ["leaf0*"]},
        "schema": {
            "properties": {
                "interfaces": {
                    "additionalProperties": {
                        "if": {"properties": {"role": {"const": "host-facing"}}},
                        "then": {"properties": {"mtu": {"const": 9214}}},
                    }
                }
            }
        },
    }
)


def _leaf(mtu: int) -> DeviceState:
    bad = Interface(name="Ethernet1", mtu=mtu, role="host-facing")
    bad.mark("mtu", Source(file="leaf01/show_running-config.txt", line=42))
    fabric = Interface(name="Ethernet49", mtu=1500, role="fabric")
    return DeviceState(
        name="leaf01",
        platform="eos",
        role="leaf",
        interfaces={"Ethernet1": bad, "Ethernet49": fabric},
    )


def test_violation_is_located() -> None:
    state = _leaf(1500)
    (finding,) = check_site_rule(RULE, state, state.model_dump(mode="json"))
    assert finding.rule == "SITE001" and finding.severity == "error"
    assert finding.object == "interface Ethernet1"
    assert finding.path == "interfaces.Ethernet1.mtu"
    assert finding.actual == 1500
    assert finding.source == Source(file="leaf01/show_running-config.txt", line=42)
    assert "host-facing leaf ports must have MTU 9214" in finding.message


def test_compliant_device_passes() -> None:
    state = _leaf(9214)
    assert list(check_site_rule(RULE, state, state.model_dump(mode="json"))) == []


def test_selector() -> None:
    assert applies(RULE, _leaf(1500))
    spine = DeviceState(name="spine01", platform="eos", role="spine")
    assert not applies(RULE, spine)
    other = DeviceState(name="leaf11x", platform="eos", role="leaf")
    assert applies(RULE, other.model_copy(update={"name": "leaf05"}))
    assert not applies(RULE, DeviceState(name="edge01", platform="eos", role="leaf"))


def _pattern_rule(schema: dict[str, object]) -> SiteRule:
    return SiteRule.model_validate(
        {"code": "SITE002", "name": "names", "message": "names", "schema": schema}
    )


def _named(model: str) -> DeviceState:
    return DeviceState(name="leaf01", platform="eos", role="leaf", facts={"model": model})


@pytest.mark.parametrize(
    ("schema", "model", "violations"),
    [
        ({"properties": {"facts": {"properties": {"model": {"pattern": "^DCS-"}}}}}, "DCS-7060", 0),
        (
            {"properties": {"facts": {"properties": {"model": {"pattern": "^DCS-"}}}}},
            "N9K-C9364",
            1,
        ),
        (
            {"properties": {"facts": {"patternProperties": {"^mod": {"maxLength": 3}}}}},
            "DCS-7060",
            1,
        ),
        ({"properties": {"facts": {"patternProperties": {"^x": {"maxLength": 3}}}}}, "DCS-70", 0),
    ],
)
def test_patterns_still_match_as_json_schema_says(
    schema: dict[str, object], model: str, violations: int
) -> None:
    state = _named(model)
    found = list(check_site_rule(_pattern_rule(schema), state, state.model_dump(mode="json")))
    assert len(found) == violations


@pytest.mark.parametrize(
    "schema",
    [
        {"properties": {"facts": {"additionalProperties": {"pattern": "^(a|a)*$"}}}},
        {"properties": {"facts": {"patternProperties": {"^(a|aa)+$": {"type": "string"}}}}},
    ],
)
def test_a_backtracking_pattern_from_an_untrusted_policy_cannot_hang_the_run(
    schema: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`^(a|a)*$` on 40 a's and a b runs for hours in `re`; here the rule gives up in time."""
    monkeypatch.setattr(site_rules, "PATTERN_SECONDS", 0.3)
    value = "a" * 40 + "b"
    state = DeviceState(name="leaf01", platform="eos", role="leaf", facts={value: value})
    with pytest.raises(site_rules.PatternTooSlow, match="catastrophic backtracking"):
        list(check_site_rule(_pattern_rule(schema), state, state.model_dump(mode="json")))
