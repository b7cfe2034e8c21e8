"""Rule lifecycle: deprecated rules are marked, removed codes stay reserved and are never reused."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.models.finding import Finding
from fabriclint.registry import Registry, UnknownName
from fabriclint.ruledocs import render_markdown
from fabriclint.rules import registry
from fabriclint.rules.base import Context, NoOptions, Rule
from fabriclint.rules.registry import ALL_RULES, BY_CODE, REMOVED, RULES

ROCE_POD = Path(__file__).resolve().parents[2] / "inventories" / "roce-pod"


class Retired(Rule[NoOptions]):
    """A rule that was once shipped; here only to be refused by the registry when reused."""

    code = "PFC990"
    name = "retired-check"
    severity = "warning"
    summary = "a retired check"

    def check(self, ctx: Context) -> Iterator[Finding]:
        yield from ()


class Old(Retired):
    """A deprecated rule: it still runs, and every view of the catalog says what replaces it."""

    code = "PFC991"
    name = "old-check"
    deprecated = "use PFC002, which covers it"


def test_a_removed_code_can_never_be_registered_again() -> None:
    with pytest.raises(ValueError, match=r"rule 'PFC990' is reserved .*never reused"):
        Registry("rule", [(Retired.code, Retired)], reserved={"PFC990": "removed in 0.9"})


def test_a_removed_code_is_named_as_removed_not_unknown() -> None:
    rules = Registry("rule", [(Old.code, Old)], reserved={"PFC990": "removed in 0.9: merged"})
    with pytest.raises(UnknownName, match=r"rule 'PFC990' was removed: removed in 0\.9: merged"):
        rules["PFC990"]
    with pytest.raises(UnknownName, match="unknown rule 'PFC999': choose one of PFC991"):
        rules["PFC999"]


def test_a_name_is_registered_once() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        Registry("rule", [(Old.code, Old), (Old.code, Retired)])


def test_the_shipped_registry_keeps_every_rule_in_order() -> None:
    assert list(RULES) == ALL_RULES and list(RULES.names) == list(BY_CODE)
    assert not set(REMOVED) & set(BY_CODE)
    assert all(rule.deprecated is None or rule.deprecated.strip() for rule in ALL_RULES)


def test_deprecated_rule_is_marked_in_the_docs() -> None:
    text = render_markdown([Old])
    assert "| PFC991 | old-check | warning | a retired check (deprecated) |" in text
    assert "**Deprecated**: use PFC002, which covers it" in text
    assert "Deprecated" not in render_markdown([Retired])


def test_selecting_a_removed_code_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(REMOVED, "PFC990", "removed in 0.9: merged into PFC002")
    result = CliRunner().invoke(
        app, ["check", str(ROCE_POD), "--snapshot", "baseline", "--select", "PFC990"]
    )
    assert result.exit_code == 2
    assert "rule 'PFC990' was removed (removed in 0.9: merged into PFC002)" in result.output


def test_explain_says_a_code_was_removed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.REMOVED, "PFC990", "removed in 0.9: merged into PFC002")
    result = CliRunner().invoke(app, ["rules", "explain", "pfc990"])
    assert result.exit_code == 2
    assert "rule 'PFC990' was removed: removed in 0.9: merged into PFC002" in result.output


POLICY_NAMING_OLD_CODES = """\
extends: [default]
select: [ALL, PFC990]
ignore: [PFC999]
per_device_ignores: {"leaf*": [PFC990]}
severity: {PFC990: error}
options:
  PFC990: {max_lossless: 1}
suppressions:
  - {rule: PFC990, device: leaf01, reason: old}
"""


@pytest.mark.parametrize("command", ["validate", "check"])
def test_a_policy_naming_a_removed_code_says_removed_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """A removed code in policy.yaml is named as removed, with its version and reason, at each
    place it is written (file:line:column), and a code that never was a rule as unknown: exit 2."""
    monkeypatch.setitem(REMOVED, "PFC990", "removed in 0.9: merged into PFC002")
    for name in ("inventory.yaml", "intent.yaml"):
        (tmp_path / name).write_text((ROCE_POD / name).read_text())
    (tmp_path / "policy.yaml").write_text(POLICY_NAMING_OLD_CODES)
    argv = [command, str(tmp_path)]
    if command == "check":
        argv += ["--snapshot", str(ROCE_POD / "snapshots" / "baseline")]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 2, result.output
    removed = "rule 'PFC990' was removed (removed in 0.9: merged into PFC002)"
    for where in ("2:15", "4:32", "5:12", "7:3", "9:6"):
        assert f"policy.yaml:{where}: {removed}" in result.output, (where, result.output)
    assert "policy.yaml:3:10: unknown rule code 'PFC999'" in result.output
    assert "unknown rule code 'PFC990'" not in result.output
    assert "options for unknown rule 'PFC990'" not in result.output
    assert "Traceback" not in result.output


def test_a_site_rule_cannot_take_a_removed_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(REMOVED, "PFC990", "removed in 0.9: merged into PFC002")
    for name in ("inventory.yaml", "intent.yaml"):
        (tmp_path / name).write_text((ROCE_POD / name).read_text())
    (tmp_path / "policy.yaml").write_text(
        "site_rules:\n"
        "  - code: PFC990\n"
        "    name: old-code\n"
        "    message: reuses a removed code\n"
        "    schema: {type: object}\n"
    )
    result = CliRunner().invoke(app, ["validate", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert (
        "policy.yaml:2:5: site rule 'PFC990' was removed (removed in 0.9: merged into "
        "PFC002): codes are never reused" in result.output
    ), result.output
