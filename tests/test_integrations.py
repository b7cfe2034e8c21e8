"""The pre-commit hooks file and the CI docs stay consistent with the CLI."""

from __future__ import annotations

import re
from pathlib import Path

from ruamel.yaml import YAML
from typer.testing import CliRunner

from fabriclint.cli.app import app

ROOT = Path(__file__).resolve().parents[1]


def test_pre_commit_hooks_name_real_commands() -> None:
    hooks = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"] for h in hooks} == {"fabriclint-validate", "fabriclint-check"}
    for hook in hooks:
        command = hook["entry"].split()[1]
        result = CliRunner().invoke(app, [command, "--help"])
        assert result.exit_code == 0, hook
        re.compile(hook["files"])
        # validate reads the whole fabric; check gets the staged files to narrow itself
        assert hook["pass_filenames"] is (hook["id"] == "fabriclint-check")


def test_ci_doc_flags_exist() -> None:
    doc = (ROOT / "docs" / "ci.md").read_text()
    help_text = CliRunner().invoke(app, ["check", "--help"], terminal_width=200).output
    for flag in sorted(set(re.findall(r"(--[a-z][a-z-]+)", doc))):
        if flag in ("--fetch-depth", "--no-deps", "--pfc"):  # git, pip and mlnx_qos flags
            continue
        owner = {"--fabric": "diff", "--debug": "fabriclint"}.get(flag, "check")
        command = [] if owner == "fabriclint" else [owner]
        text = (
            help_text
            if owner == "check"
            else CliRunner().invoke(app, [*command, "--help"], terminal_width=200).output
        )
        assert flag in text, f"docs/ci.md mentions {flag}, which `fabriclint {owner}` does not have"
