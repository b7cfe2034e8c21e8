"""Ruff-style selection: most specific selector wins, ignore wins ties, the CLI beats the file."""

from __future__ import annotations

import pytest

from fabriclint.models.policy import Policy
from fabriclint.selection import Selection


@pytest.mark.parametrize(
    ("policy", "cli_select", "cli_ignore", "code", "expected"),
    [
        ({}, None, [], "PFC002", True),
        ({"select": ["PFC"]}, None, [], "ECN001", False),
        ({"select": ["PFC"]}, None, [], "PFC002", True),
        ({"select": ["ALL"], "ignore": ["PFC"]}, None, [], "PFC002", False),
        ({"select": ["PFC002"], "ignore": ["PFC"]}, None, [], "PFC002", True),
        ({"select": ["PFC"], "ignore": ["PFC"]}, None, [], "PFC001", False),
        ({"select": ["PFC"], "extend_select": ["ECN001"]}, None, [], "ECN001", True),
        ({"select": ["ALL"]}, ["ECN"], [], "PFC002", False),
        ({"select": ["ALL"]}, ["ECN"], [], "ECN002", True),
        ({"select": ["ALL"]}, None, ["ECN002"], "ECN002", False),
        ({"select": ["ALL"], "ignore": ["ECN"]}, ["ECN"], [], "ECN001", True),
        ({"select": ["ALL"]}, ["ALL"], ["FAB"], "FAB004", False),
    ],
)
def test_selected(
    policy: dict[str, object],
    cli_select: list[str] | None,
    cli_ignore: list[str],
    code: str,
    expected: bool,
) -> None:
    sel = Selection(Policy.model_validate(policy), cli_select=cli_select, cli_ignore=cli_ignore)
    assert sel.selected(code) is expected


def test_per_device_and_role_ignores() -> None:
    policy = Policy(per_device_ignores={"leaf0*": ["PFC001"]}, per_role_ignores={"spine": ["FAB"]})
    sel = Selection(policy)
    assert sel.ignored_on("PFC001", "leaf01", "leaf")
    assert not sel.ignored_on("PFC001", "leaf11", "leaf")
    assert not sel.ignored_on("PFC002", "leaf01", "leaf")
    assert sel.ignored_on("FAB004", "spine01", "spine")
    assert not sel.ignored_on("FAB004", "leaf01", "leaf")
    assert not sel.ignored_on("PFC001", None, None)


def test_severity_override_most_specific_wins() -> None:
    sel = Selection(Policy.model_validate({"severity": {"PFC": "info", "PFC004": "warning"}}))
    assert sel.severity("PFC004", "error") == "warning"
    assert sel.severity("PFC002", "error") == "info"
    assert sel.severity("ECN001", "error") == "error"
