"""The HTML report in a real headless Chromium (Debian's `chromium`): the page loads from a
file with no network, its script runs on the inline data, the heat-map and the trend render
with the counts of report.json, and a screenshot is taken."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.nightly.conftest import nightly

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium absent (apt-get install chromium; .ci/run does)"
)


class _Dom(HTMLParser):
    """The attributes of the elements the test counts."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[dict[str, str]] = []
        self.bars: list[dict[str, str]] = []
        self.body: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if tag == "td" and "cell" in found.get("class", "").split():
            self.cells.append(found)
        elif tag == "rect" and "data-run" in found:
            self.bars.append(found)
        elif tag == "body":
            self.body = found


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        "--window-size=1400,1600",
    ]
    return subprocess.run(
        [CHROMIUM, *flags, *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_report_renders_in_chromium(fabric: Path, tmp_path: Path) -> None:
    for snap in ("baseline", "broken", "broken"):
        nightly(fabric, "--snapshot", snap)
    page = (fabric / "reports" / "latest" / "index.html").resolve()
    doc = json.loads((page.parent / "report.json").read_text())
    dumped = _chromium(tmp_path, "--dump-dom", page.as_uri())
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    dom = _Dom()
    dom.feed(dumped.stdout)
    assert dom.body.get("data-js-open") == str(doc["summary"]["open"])  # the inline script ran
    expected = Counter(
        severity
        for group in doc["heatmap"]["roles"]
        for device in group["devices"]
        for severity in device["cells"].values()
    )
    shown = Counter(c["data-severity"] for c in dom.cells if c["data-severity"] != "none")
    assert shown == expected and expected["error"] > 0
    devices = sum(len(g["devices"]) for g in doc["heatmap"]["roles"])
    assert len(dom.cells) == devices * len(doc["heatmap"]["families"])
    per_run: dict[str, dict[str, int]] = {}
    for bar in dom.bars:
        per_run.setdefault(bar["data-run"], {})[bar["data-severity"]] = int(bar["data-count"])
    assert per_run == {
        str(t["run"]): {s: t[s] for s in ("error", "warning", "info")} for t in doc["trend"]
    }
    assert [sum(v.values()) for v in per_run.values()] == [
        0,
        doc["summary"]["open"],
        doc["summary"]["open"],
    ]
    shot = tmp_path / "report.png"
    taken = _chromium(tmp_path, f"--screenshot={shot}", page.as_uri())
    assert taken.returncode == 0 and shot.is_file(), taken.stderr[-2000:]
    header = shot.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", header[16:24]) == (1400, 1600)
    assert shot.stat().st_size > 20_000  # a blank page compresses to a few kB
