"""The redaction tables against the planted-secret corpus, the example fabrics and the docs.

For every planted output: no planted secret is left, the line count is unchanged, every line
without a secret is byte-identical and every line with one carries the marker. Each table rule
removes its own documented example; the example fabrics' snapshots redact to themselves (only
the OpenSM keys, real site secrets, change); docs/collect.md lists exactly the tables' kinds.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from fabriclint.collectors.redact import MARK, redact
from fabriclint.collectors.redaction.base import Rule
from fabriclint.collectors.redaction.tables import GENERIC, TABLES, markdown, rules_for
from tests.collectors.labkit import ROOT
from tests.collectors.redaction_corpus import CORPUS, Planted

_IDS = [f"{p.platform}:{p.key}" for p in CORPUS]


@pytest.mark.parametrize("planted", CORPUS, ids=_IDS)
def test_every_planted_secret_is_redacted(planted: Planted) -> None:
    out = redact(planted.text, planted.platform)
    assert [s for s in planted.secrets if s in out] == []
    before, after = planted.text.split("\n"), out.split("\n")
    assert len(after) == len(before)
    for line, redacted in zip(before, after, strict=True):
        if any(secret in line for secret in planted.secrets):
            assert MARK in redacted, line
        else:
            assert redacted == line


@pytest.mark.parametrize("planted", CORPUS, ids=_IDS)
def test_unknown_platform_gets_every_table(planted: Planted) -> None:
    out = redact(planted.text)
    assert [s for s in planted.secrets if s in out] == []
    assert out.count("\n") == planted.text.count("\n")


def test_corpus_covers_every_platform_and_many_secrets() -> None:
    platforms = {p.platform for p in CORPUS if p.secrets}
    assert platforms == set(TABLES)
    assert sum(len(p.secrets) for p in CORPUS) >= 140


@pytest.mark.parametrize(
    "planted",
    [p for p in CORPUS if p.key.startswith("config_db.json")],
    ids=lambda p: p.key,
)
def test_redacted_json_stays_json(planted: Planted) -> None:
    """A number replaced by the marker becomes a string; keys stay unique."""
    before = json.loads(planted.text)
    after = json.loads(redact(planted.text, planted.platform))
    assert len(after) == len(before)
    passkeys = _values(after, "passkey")
    assert any(isinstance(v, int) for v in _values(before, "passkey"))
    assert len(passkeys) == len(_values(before, "passkey")) and set(passkeys) == {MARK}


def _values(tree: object, key: str) -> list[object]:
    """Every value of `key` anywhere in a JSON tree."""
    if isinstance(tree, dict):
        own = [tree[key]] if key in tree else []
        return own + [v for child in tree.values() for v in _values(child, key)]
    return []


def test_redacted_nvue_yaml_stays_yaml() -> None:
    planted = next(p for p in CORPUS if p.key == "nv config show -o yaml")
    after = yaml.safe_load(redact(planted.text, planted.platform))
    snmp = after[1]["set"]["service"]["snmp-server"]
    assert list(snmp["readonly-community"]) == [f"{MARK}-1"]
    assert snmp["username"]["mon2"] == {"auth-md5": MARK, "encrypt-des": MARK}
    assert after[1]["set"]["qos"] == {"roce": {"enable": True, "mode": "lossless"}}
    flow = next(p for p in CORPUS if p.key == "nv config show -o yaml (flow maps)")
    snmp = yaml.safe_load(redact(flow.text, flow.platform))[0]["set"]["service"]["snmp-server"]
    assert snmp["readonly-community"] == {
        f"{MARK}-1": {"access": {"any": {}}},
        f"{MARK}-2": {"access": {"localhost": {}}},
    }
    assert snmp["listening-address"] == {"all": {}}


RULES = [(name, rule) for name, table in [*TABLES.items(), ("generic", GENERIC)] for rule in table]


@pytest.mark.parametrize(("platform", "rule"), RULES, ids=[f"{p}:{r.kind}" for p, r in RULES])
def test_each_rule_removes_its_documented_example(platform: str, rule: Rule) -> None:
    assert any(word in rule.example.lower() for word in rule.words), "prefilter misses it"
    out = rule.apply(rule.example)
    assert "SECRET" not in out and MARK in out
    assert out.count("\n") == rule.example.count("\n")


def test_each_platform_gets_its_table_then_the_generic_one() -> None:
    for name, table in TABLES.items():
        assert rules_for(name) == [*table, *GENERIC]
    everything = rules_for(None)
    assert all(any(rule is r for r in everything) for t in TABLES.values() for rule in t)


def _snapshot_outputs() -> list[tuple[Path, str, str]]:
    """(file, platform, text) of every output of every example fabric snapshot."""
    found = []
    for manifest in sorted(ROOT.glob("inventories/*/snapshots/*/manifest.json")):
        devices = json.loads(manifest.read_text(encoding="utf-8"))["devices"]
        for name, entry in devices.items():
            for filename in entry.get("files", {}).values():
                path = manifest.parent / name / filename
                found.append((path, entry["platform"], path.read_text(encoding="utf-8")))
    return found


_OPENSM_KEY_LINE = re.compile(r"^(?:m_key|sm_key|sa_key|cc_key) <redacted>$")


def test_example_fabrics_redact_to_themselves() -> None:
    """QoS and every other setting untouched; only the OpenSM keys (real secrets) go."""
    outputs = _snapshot_outputs()
    assert len(outputs) > 200
    changed = []
    for path, platform, text in outputs:
        out = redact(text, platform)
        assert out.count("\n") == text.count("\n"), path
        for line, redacted in zip(text.split("\n"), out.split("\n"), strict=True):
            if line != redacted:
                assert platform == "opensm" and _OPENSM_KEY_LINE.match(redacted), (path, line)
                changed.append(path)
    assert changed, "the ib-cluster OpenSM keys are real secrets and must be redacted"


def test_docs_list_every_kind() -> None:
    """docs/collect.md carries the tables' markdown (regenerate it from tables.markdown())."""
    docs = (ROOT / "docs" / "collect.md").read_text(encoding="utf-8")
    assert markdown() in docs, "docs/collect.md: paste tables.markdown() into Redaction"
