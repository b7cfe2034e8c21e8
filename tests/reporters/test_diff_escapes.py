"""`fabriclint diff` shows device text (interface names, values, finding messages) that a
switch or a PR wrote: a terminal escape or a bidi override in it is spelled out in the text
view and replaced in the Markdown view, never passed on raw (the check's reports do the same,
tests/reporters/test_terminal_escapes.py)."""

from __future__ import annotations

import re

import pytest

from fabriclint.diff import Change, DiffReport
from fabriclint.reporters import diff
from tests.reporters.fixtures import finding, src
from tests.reporters.test_terminal_escapes import HOSTILE

_RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _report(text: str) -> DiffReport:
    change = Change(
        device="leaf01",
        objects=[f"interface Ethernet1/1{text}"],
        setting=f"description {text}",
        before=None,
        after=f"after {text}",
        rules=["MTU001"],
    )
    found = finding(
        "MTU001", "mtu-mismatch", "error", "leaf01", f"interface E{text}",
        message=f"msg {text}", source=src("leaf01", "cfg", 3),
    )  # fmt: skip
    return DiffReport(
        before="a", after="b", changes=[change], introduced=[found], resolved=[found], checked=True
    )


@pytest.mark.parametrize(("raw", "shown"), HOSTILE, ids=range(len(HOSTILE)))
def test_diff_text_spells_out_control_characters(raw: str, shown: str) -> None:
    out = diff.render(_report(raw), "text")
    assert _RAW.search(out.replace("\n", "")) is None, out
    assert f"interface Ethernet1/1{shown}: description {shown}: (none) -> after {shown}" in out
    assert f"interface E{shown}: msg {shown}" in out


@pytest.mark.parametrize(("raw", "shown"), HOSTILE, ids=range(len(HOSTILE)))
def test_diff_markdown_has_no_control_characters(raw: str, shown: str) -> None:
    out = diff.render(_report(raw), "markdown")
    assert _RAW.search(out.replace("\n", "")) is None, out
    assert out.count("\N{REPLACEMENT CHARACTER}") >= 5  # the object, setting, value, 2 findings


def test_diff_markdown_escapes_html_and_cell_breaks() -> None:
    out = diff.render(_report("<img src=x>|x"), "markdown")
    assert "<img" not in out and "&lt;img src=x&gt;\\|x" in out
