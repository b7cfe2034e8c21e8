"""The text report without color is joined without rich, byte for byte what rich prints.

Every example snapshot under inventories/, the reporter tests' own reports and generated
hostile text (control characters, tabs, wide characters, markup-like words) are rendered both
ways, in each verbosity; with color on, rich's output less its escape codes is the same text.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fabriclint.engine import CheckOptions, run_check
from fabriclint.models.finding import DeviceSummary, Report
from fabriclint.reporters.text import TextOptions, render, render_rich
from tests.reporters.fixtures import finding, pod_report, report_for, src

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOTS = sorted(p for p in ROOT.glob("inventories/*/snapshots/*") if p.is_dir())
OPTIONS = [
    TextOptions(),
    TextOptions(quiet=True),
    TextOptions(show_suppressed=True),
    TextOptions(quiet=True, fail_on="warning"),
]
_ESCAPES = re.compile(r"\x1b\[[0-9;]*m")


def _same_both_ways(report: Report) -> None:
    for opts in OPTIONS:
        plain = render(report, options=opts)
        assert plain == render_rich(report, opts)
        colored = render_rich(report, TextOptions(**{**vars(opts), "color": True}))
        if "\x1b" not in plain:  # an escape in the report's own text would be stripped too
            assert _ESCAPES.sub("", colored) == plain


@pytest.fixture(scope="module")
def reports() -> dict[str, Report]:
    """Each example snapshot's report, checked as a user types it (from the repository root)."""
    out: dict[str, Report] = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)
        for snap in SNAPSHOTS:
            fabric = snap.parents[1].relative_to(ROOT)
            out[f"{fabric}/{snap.name}"] = run_check(
                CheckOptions(fabric_dir=fabric, snapshot=snap.name)
            ).report
    return out


def test_every_example_snapshot_renders_the_same(reports: dict[str, Report]) -> None:
    assert len(reports) == len(SNAPSHOTS) >= 15
    for report in reports.values():
        _same_both_ways(report)
    broken = reports["inventories/roce-pod/broken"]
    assert "\x1b[1;31merror" in render_rich(broken, TextOptions(color=True))  # color is rich's


def test_the_reporter_tests_reports_render_the_same() -> None:
    _same_both_ways(pod_report())
    ok = [DeviceSummary(name="leaf01", platform="eos", role="leaf", status="ok")]
    _same_both_ways(report_for([], ok))


_TEXT = st.lists(
    st.one_of(
        st.sampled_from(["\r", "\x07", "\x08", "\x0b", "\x0c", "\x1b[31m", "\t", "\n", " "]),
        st.sampled_from(["[bold]", ":smile:", "漢字", "e\u0301", "\u200b", "[/]", "\x00"]),
        st.characters(codec="utf-8"),
    ),
    max_size=12,
).map("".join)


@settings(max_examples=150, deadline=None)
@given(message=_TEXT, obj=_TEXT, fix=_TEXT, device=_TEXT, suppressed=st.one_of(st.none(), _TEXT))
def test_hostile_text_renders_the_same(
    message: str, obj: str, fix: str, device: str, suppressed: str | None
) -> None:
    one = finding(
        "PFC002", "rdma-priority-not-lossless", "error", device or None, obj or "qos",
        message=message, fix=fix or None, suppressed=suppressed, source=src("leaf01", "cfg", 3),
    )  # fmt: skip
    ok = [DeviceSummary(name=device or "leaf01", platform="eos", role="leaf", status="ok")]
    _same_both_ways(report_for([one], ok, fabric=obj or "pod"))


def test_control_characters_are_dropped_as_rich_drops_them() -> None:
    one = finding(
        "MTU001", "mtu-mismatch", "warning", "leaf01", "interface Et1", message="a\rb\x07c"
    )
    ok = [DeviceSummary(name="leaf01", platform="eos", role="leaf", status="ok")]
    assert "  warning MTU001   interface Et1: abc\n" in render(report_for([one], ok))
