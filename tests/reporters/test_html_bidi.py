"""The HTML report shows bidi overrides and C1 controls in device text as U+FFFD, as the text
and Markdown reports spell them out: a right-to-left override in a config name reorders what
a reviewer reads in the page (CVE-2021-42574)."""

from __future__ import annotations

import pytest

from fabriclint.models.finding import DeviceSummary
from fabriclint.reporters import html as page
from tests.reporters.fixtures import finding, report_for


@pytest.mark.parametrize("char", ["\u202e", "\u2066", "\u2069", "\x9b", "\x85", "\x1b"])
def test_bidi_overrides_and_controls_in_device_text_do_not_reach_the_page(char: str) -> None:
    name = f"policy-map ROCE{char}EVIL"
    devices = [DeviceSummary(name="leaf01", platform="eos", role="leaf", status="ok")]
    findings = [
        finding("QOS005", "dangling-reference", "error", "leaf01", name, message=f"{name} x")
    ]
    text = page.render(report_for(findings, devices), [])
    assert char not in text
    assert "policy-map ROCE\N{REPLACEMENT CHARACTER}EVIL" in text
