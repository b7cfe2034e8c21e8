"""Markdown: summary first, grouping by severity then device, collapsing, escaping, size cap."""

from __future__ import annotations

import re

from fabriclint.models.common import Source
from fabriclint.models.finding import DeviceSummary
from fabriclint.reporters import markdown
from tests.reporters.fixtures import empty_report, finding, pod_report, report_for, special_report

_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def table_rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("| ")]


def test_summary_then_sections_in_severity_order() -> None:
    text = markdown.render(pod_report())
    assert text.splitlines()[0] == "## fabriclint: lab-pod: 6 error(s), 2 warning(s), 1 info"
    assert "| 6 | 4 | **NO** | 6 | 2 | 1 | 1 |" in text
    assert "> - `leaf02`: unreachable: timed out after 30 s" in text
    order = [
        text.index(h)
        for h in ("### Errors (6 causes)", "### Warnings (2 causes)", "### Info (1 cause)")
    ]
    assert order == sorted(order) and text.index("Suppressed (1)") > order[-1]
    assert "`snapshots/candidate/gpu01/mlnx_qos_-i_ens1np0.txt:9`" in text


def test_every_table_row_keeps_its_columns() -> None:
    for report in (pod_report(), special_report()):
        for row in table_rows(markdown.render(report)):
            assert len(_UNESCAPED_PIPE.findall(row)) in (4, 5, 6, 8), row


def test_markup_in_messages_is_neutralised() -> None:
    text = markdown.render(special_report())
    assert "<details></summary>" not in text and "&lt;details&gt;" in text
    assert r"\*bold\*" in text and r"\[x\](http" in text and "\x1b" not in text
    assert "## fabriclint: odd\\|fabric &lt;x&gt;" in text
    assert "\r" not in text


def _many(count: int, device: str = "leaf01") -> list:  # type: ignore[type-arg]
    return [
        finding("QOS005", "dangling-reference", "error", device, f"policy-map P{i:03}",
                source=Source(file=f"configs/{device}.cfg", line=i + 1))
        for i in range(count)
    ]  # fmt: skip


def test_long_sections_collapse_short_ones_do_not() -> None:
    devices = [DeviceSummary(name=n, platform="eos", role="leaf", status="ok") for n in ("a", "b")]
    long = markdown.render(report_for(_many(15, "a") + _many(6, "b"), devices))
    assert "<summary><b>a</b> (15 errors)</summary>" in long
    assert "<summary><b>b</b> (6 errors)</summary>" in long
    short = markdown.render(report_for(_many(20, "a"), devices))
    assert "<details>" not in short and "**a** (20 errors)" in short


def test_size_is_capped() -> None:
    text = markdown.render(report_for(_many(markdown.MAX_ROWS + 7), []))
    assert len(table_rows(text)) == markdown.MAX_ROWS + 3  # plus the summary table and a header
    assert "_7 more findings not listed; see the SARIF or JSON report._" in text


def test_long_messages_are_cut_and_the_comment_fits() -> None:
    findings = _many(markdown.MAX_ROWS)
    for f in findings:
        f.message = "x" * 2000
        f.object = "o" * 200
    text = markdown.render(report_for(findings, []))
    assert len(text) <= markdown.MAX_CHARS < 65536
    assert "x" * markdown.MAX_MESSAGE not in text and "x" * (markdown.MAX_MESSAGE - 1) + "…" in text
    assert re.search(r"_\d+ more findings not listed", text)


def test_empty_report() -> None:
    text = markdown.render(empty_report())
    assert (
        "No findings." in text and "###" not in text and "| 1 | 1 | yes | 0 | 0 | 0 | 0 |" in text
    )


def test_consequences_fold_into_their_cause_row() -> None:
    from tests.reporters.test_text import OK, _grouped

    text = markdown.render(report_for(_grouped(), OK))
    assert "### Errors (1 cause)" in text
    rows = [r for r in table_rows(text) if "PFC002" in r]
    assert len(rows) == 1
    assert "+3 consequence(s): DRIFT001 qos, FAB001 qos, gpu01 PFC007" in rows[0]
    assert not [r for r in table_rows(text) if r.startswith("| `DRIFT001`")]


def test_a_warning_cause_of_errors_is_listed_with_the_errors() -> None:
    from tests.reporters.test_text import OK

    cause = finding("PFC001", "pfc-priority-unused", "warning", "leaf01", "interface E1")
    error = finding("PFC007", "pfc-link-asymmetric", "error", "leaf01", "link x")
    error.cause = cause.fingerprint
    text = markdown.render(report_for([cause, error], OK))
    assert "### Errors (1 cause)" in text and "### Warnings" not in text
