"""The bench verdict's Markdown and HTML with hostile text in the reasons (they quote device
output) and in results file names: no markup, no broken table, no control character."""

from __future__ import annotations

import re

from fabriclint import benchreport
from fabriclint.benchrun import Verdict

HOSTILE = "a|b </li><img src=x onerror=alert(1)> [l](http://e) \x1b[31m \u202eevil\nnext"


def _verdict() -> Verdict:
    row = {"file": f"results/{HOSTILE}", "size": 1 << 30, "out_of_place": 9.0, "in_place": 9.0}
    return Verdict(
        reasons=[f"config: leaf01 QOS005 policy-map {HOSTILE}"],
        incomplete=[f"results: {HOSTILE}"],
        bandwidth=[{**row, "wrong": 0.0}],
        command={"argv": ["all_reduce_perf", "`|`"], "exit_status": 0},
    )


def test_markdown_keeps_its_tables_and_shows_no_markup() -> None:
    text = benchreport.to_markdown(_verdict())
    assert "<img" not in text and "&lt;img" in text
    assert "[l](http" not in text and "\\[l\\](http" in text  # no link
    assert "\x1b" not in text and "\u202e" not in text
    rows = [line for line in text.splitlines() if line.startswith("| results/")]
    assert len(rows) == 1 and len(re.findall(r"(?<!\\)\|", rows[0])) == 6  # 5 columns
    reasons = text.split("## Reasons")[1].split("##")[0]
    assert len([line for line in reasons.splitlines() if line.startswith("- ")]) == 1


def test_html_shows_no_control_character_or_bidi_override() -> None:
    text = benchreport.to_html(_verdict())
    assert "<img" not in text and "\x1b" not in text and "\u202e" not in text
    assert "\N{REPLACEMENT CHARACTER}evil" in text
