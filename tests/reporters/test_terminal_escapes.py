"""Device output and names are untrusted: a terminal escape, another C0/C1 control character
or a bidi override in a finding or a device name is shown spelled out (`\\x1b`, `\\u202e`) by the
text report (plain and color) and the GitHub annotations, never sent to the terminal raw."""

from __future__ import annotations

import re

import pytest

from fabriclint.models.finding import DeviceSummary, Report
from fabriclint.reporters import github, markdown
from fabriclint.reporters.text import TextOptions, render, render_rich, statistics
from tests.reporters.fixtures import finding, report_for, src

HOSTILE = [
    ("\x1b[2J\x1b]0;pwned\x1b\\", r"\x1b[2J\x1b]0;pwned\x1b" "\\"),  # clear, window title
    ("a\x00b\x1fc\x7fd", r"a\x00b\x1fc\x7fd"),
    ("C1 \x9b31m csi", r"C1 \x9b31m csi"),
    ("abc\u202edcba", r"abc\u202edcba"),
    ("\u2066iso\u2069 \u202aembed\u202c", r"\u2066iso\u2069 \u202aembed\u202c"),
]
# What may reach a terminal: the report's own color escapes only (ESC [ ... m), tabs, newlines.
_RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_OWN_COLOR = re.compile(r"\x1b\[[0-9;]*m")


def _report(text: str) -> Report:
    one = finding(
        "PFC002", "rdma-priority-not-lossless", "error", f"leaf{text}", f"qos {text}",
        message=f"msg {text}", fix=f"fix {text}", source=src("leaf01", "cfg", 3),
    )  # fmt: skip
    ok = [DeviceSummary(name=f"leaf{text}", platform="eos", role="leaf", status="ok")]
    bad = DeviceSummary(
        name=f"spine{text}", platform="eos", role="spine", status="unparseable", error=text
    )
    return report_for([one], [*ok, bad], fabric="pod")


@pytest.mark.parametrize(("raw", "shown"), HOSTILE, ids=range(len(HOSTILE)))
def test_text_report_shows_control_characters_spelled_out(raw: str, shown: str) -> None:
    report = _report(raw)
    plain = render(report)
    colored = _OWN_COLOR.sub("", render_rich(report, TextOptions(color=True)))
    for out in (plain, colored, statistics(report)):
        assert _RAW.search(out.replace("\t", "").replace("\n", "")) is None, out
        assert f"msg {shown}" in out or f"qos {shown}" in out
    for piece in (
        f"leaf{shown}",
        f"qos {shown}: msg {shown}",
        f"fix: fix {shown}",
        f"spine{shown}",
    ):
        assert piece in plain and piece in colored


@pytest.mark.parametrize(("raw", "shown"), HOSTILE, ids=range(len(HOSTILE)))
def test_github_annotations_show_control_characters_spelled_out(raw: str, shown: str) -> None:
    out = github.render(_report(raw))
    assert _RAW.search(out.replace("\n", "")) is None, out
    assert f"leaf{shown} qos {shown}: msg {shown}" in out
    assert f"spine{shown} was not checked" in out


def test_plain_text_still_drops_what_rich_drops_and_keeps_the_rest() -> None:
    """Bell, backspace, VT, FF and CR were dropped before (as rich drops them): still are."""
    report = _report("a\rb\x07c\x08d\x0be\x0cf")
    assert "qos abcdef: msg abcdef" in render(report)
    assert render(report) == render_rich(report, TextOptions())


def test_markdown_replaces_c1_controls_and_bidi_overrides_too() -> None:
    """A PR comment is not a terminal, but a bidi override there still reorders what a
    reviewer reads: like C0 controls, C1 controls and overrides become U+FFFD."""
    out = markdown.render(_report("a\u202eb\u2067c\x9bd\x1be"))
    assert _RAW.search(out.replace("\n", "")) is None
    assert "qos a\ufffdb\ufffdc\ufffdd\ufffde" in out
