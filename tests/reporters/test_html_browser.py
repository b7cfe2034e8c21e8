"""The HTML check report of roce-pod's `broken` snapshot in a real headless Chromium: one map
node per device, the cables with an MTU or PFC finding drawn as errors, a real mouse click on a
device filtering the findings table, and a screenshot (kept in FABRICLINT_SCREENSHOTS when set,
to look at)."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reporters.browser import CHROMIUM, Browser
from tests.reporters.test_html import EVIL, _hostile

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium absent (apt-get install chromium; .ci/run does)"
)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    folder = tmp_path_factory.mktemp("html")
    out, js = folder / "report.html", folder / "report.json"
    code = "import sys; from fabriclint.cli import main; sys.argv[0] = 'fabriclint'; main()"
    done = subprocess.run(
        [sys.executable, "-c", code, "check", "inventories/roce-pod", "--snapshot", "broken",
         "-f", "html", "-o", str(out), "-f", "json", "-o", str(js)],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    return out, json.loads(js.read_text())


def test_the_map_and_the_filter_in_chromium(
    pages: tuple[Path, dict[str, object]], tmp_path: Path
) -> None:
    page, report = pages
    devices = report["devices"]
    assert isinstance(devices, list)
    with Browser(tmp_path / "profile") as browser:
        browser.open(page)
        total = browser.js("document.querySelectorAll('tr.finding').length")
        assert browser.js("document.body.getAttribute('data-shown')") == str(total)  # script ran
        titles = browser.js(
            "[].map.call(document.querySelectorAll('#map .node title'), t => t.textContent)"
        )
        assert sorted(t.split(" ")[0] for t in titles) == sorted(d["name"] for d in devices)
        edges = browser.js(
            "[].map.call(document.querySelectorAll('#map .edge'), e => "
            "[e.getAttribute('class'), e.querySelector('title').textContent])"
        )
        coloured = {title.split(": ")[1]: cls for cls, title in edges}
        assert coloured["leaf02:Ethernet33/1 - spine01:Ethernet2/1"] == "edge c-error"  # MTU001
        assert coloured["gpu01:ens2np0 - leaf02:Ethernet1/1"] == "edge c-error"  # PFC007, NIC001
        assert coloured["gpu01:ens1np0 - leaf01:Ethernet1/1"] == "edge c-ok"
        stroke = browser.js(
            "getComputedStyle(document.querySelector('#map .edge.c-error .wire')).stroke"
        )
        assert stroke == "rgb(198, 40, 40)"  # the style was allowed by the page's policy
        _click_filters(browser, total)
        shot = tmp_path / "report.png"
        browser.screenshot(shot)
    header = shot.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", header[16:24])
    assert 1300 <= width <= 1400 and height > 1000 and shot.stat().st_size > 50_000  # scrollbar
    keep = os.environ.get("FABRICLINT_SCREENSHOTS")
    if keep:
        shutil.copy(shot, Path(keep) / "check-report.png")


def test_a_hostile_page_runs_no_script_of_its_data(tmp_path: Path) -> None:
    text, _ = _hostile()
    page = tmp_path / "hostile.html"
    page.write_text(text)
    with Browser(tmp_path / "profile") as browser:
        browser.open(page)
        browser.click("#map .node rect")
        assert browser.events("Page.javascriptDialogOpening") == []  # no alert(1) nor alert(2)
        assert browser.js("document.querySelectorAll('img, script').length") == 1  # ours
        assert browser.js("document.querySelector('h1').textContent") == f"fabriclint: {EVIL}"
        assert browser.js("document.body.getAttribute('data-shown')") is not None


def _click_filters(browser: Browser, total: int) -> None:
    """A click on leaf02 leaves only rows that involve leaf02; a second click shows all again;
    a click on a cable leaves the rows of its findings."""
    browser.click("#map .node[data-devs] rect")  # warm-up target: the first device
    browser.click("#map .node[data-devs] rect")
    leaf02 = browser.js(
        "[].filter.call(document.querySelectorAll('#f-dev option'), o => o.textContent == "
        "'leaf02')[0].value"
    )
    browser.click(f'#map .node[data-devs="{leaf02}"] rect')
    shown = browser.js(
        "[].filter.call(document.querySelectorAll('tr.finding'), r => r.offsetParent !== null)"
        ".map(r => r.getAttribute('data-devs').split(' '))"
    )
    assert 0 < len(shown) < total and all(leaf02 in devs for devs in shown)
    assert browser.js("document.getElementById('f-map').textContent").startswith("map: leaf02")
    browser.click(f'#map .node[data-devs="{leaf02}"] rect')
    assert browser.js("document.body.getAttribute('data-shown')") == str(total)
    browser.click("#map .edge.c-error .hit")
    rules = browser.js(
        "[].filter.call(document.querySelectorAll('tr.finding'), r => r.offsetParent !== null)"
        ".map(r => r.querySelector('code').textContent)"
    )
    assert rules and len(rules) < total
    assert " cable: " in browser.js("document.getElementById('f-map').textContent")
