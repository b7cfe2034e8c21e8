"""The console examples of README.md and docs/*.md that show a `fabriclint check` with its
output stay true: each command runs from the repository root as pasted, and every output line
the doc shows is in what it prints (`...` / `…` mark text the doc leaves out)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_CUT = re.compile(r"\s*(?:\.\.\.|…)\s*")


def _examples() -> list[tuple[str, str, list[str]]]:
    """(doc, command, shown output lines) of every `$ fabriclint check` with output shown."""
    found = []
    for doc in DOCS:
        for block in re.findall(r"```console\n(.*?)```", doc.read_text(), re.S):
            command: str | None = None
            shown: list[str] = []
            for line in [*block.splitlines(), "$ "]:
                if line.startswith("$ "):
                    if command and command.startswith("fabriclint check ") and shown:
                        found.append((doc.name, command, shown))
                    command, shown = line[2:].strip(), []
                elif line.strip() and line.strip() not in ("...", "…"):
                    shown.append(line)
    return found


def _in(line: str, printed: list[str]) -> bool:
    """The shown line is a printed line; with cut marks, its pieces are in one, in order."""
    if not _CUT.search(line):
        return line.rstrip() in (out.rstrip() for out in printed)
    parts = [p for p in _CUT.split(line.strip()) if p]
    for out in printed:
        at = 0
        for part in parts:
            at = out.find(part, at)
            if at < 0:
                break
            at += len(part)
        else:
            return True
    return False


EXAMPLES = _examples()


def test_the_docs_have_check_examples_with_output() -> None:
    assert {doc for doc, _, _ in EXAMPLES} >= {"README.md", "cabling.md"}


@pytest.mark.parametrize(("doc", "command", "shown"), EXAMPLES, ids=[e[1] for e in EXAMPLES])
def test_check_example_prints_what_the_doc_shows(
    doc: str, command: str, shown: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    args = shlex.split(command)
    assert args[0] == "fabriclint"
    result = CliRunner().invoke(app, args[1:])
    assert result.exit_code in (0, 1), (doc, command, result.output)
    printed = result.output.splitlines()
    missing = [line for line in shown if not _in(line, printed)]
    assert not missing, (doc, command, missing)


def test_a_shown_line_that_is_not_printed_is_caught() -> None:
    printed = ["leaf01", "  error   PFC002   qos: RoCE DSCP 26 maps to priority 1 in the QoS"]
    assert _in("  error   PFC002   qos: RoCE DSCP 26 maps to priority 1 ...", printed)
    assert not _in("  error   PFC002   qos: RoCE DSCP 26 maps to priority 3 ...", printed)
    assert not _in("leaf02", printed) and _in("leaf01", printed)
