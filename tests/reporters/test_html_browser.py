"""The HTML check report of roce-pod's `broken` snapshot in a real headless Chromium: one map
node per device, the cables with an MTU or PFC finding drawn as errors, a real mouse click on a
device filtering the findings table, and a screenshot (kept in FABRICLINT_SCREENSHOTS when set,
to look at). The `counters` page draws the same cables as the check's, LLDP-only ones too."""

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


def _fabriclint(*args: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from fabriclint.cli import main; sys.argv[0] = 'fabriclint'; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT, check=False
    )


def _drawn(browser: Browser, page: Path) -> dict[str, str]:
    """The map's lines as Chromium laid them out: the cables each names -> its class; only
    lines with a length on screen count."""
    browser.open(page)
    edges = browser.js(
        "[].filter.call(document.querySelectorAll('#map .edge'), e => "
        "e.querySelector('.wire').getTotalLength() > 10).map(e => "
        "[e.getAttribute('class'), e.querySelector('title').textContent])"
    )
    return {title.split(": ")[1]: cls for cls, title in edges}


def test_the_counters_map_draws_the_cables_only_lldp_shows(tmp_path: Path) -> None:
    """Counters judged with lldp-miscabled's configuration: its LLDP-only cables (a swapped
    pair, an unplanned leaf-leaf link) are on the map as on the check's, CTR008 on its cable."""
    check, counters = tmp_path / "check.html", tmp_path / "counters.html"
    done = _fabriclint(
        "check", "inventories/roce-pod", "-s", "lldp-miscabled", "-f", "html", "-o", str(check)
    )
    assert done.returncode == 1, done.stderr
    done = _fabriclint(
        "counters", "inventories/roce-pod", "bench-before", "bench-after",
        "--config", "lldp-miscabled", "-f", "html", "-o", str(counters),
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    with Browser(tmp_path / "profile") as browser:
        in_check = _drawn(browser, check)
        in_counters = _drawn(browser, counters)
    assert sorted(in_counters) == sorted(in_check)
    lldp = sorted(c for names in in_counters for c in names.split("; ") if "(LLDP only)" in c)
    assert lldp == [
        "gpu01:ens1np0 - leaf01:Ethernet2/1 (LLDP only)",
        "gpu02:ens1np0 - leaf01:Ethernet1/1 (LLDP only)",
        "leaf01:Ethernet31/1 - leaf02:Ethernet31/1 (LLDP only)",
    ]
    assert in_counters["leaf01:Ethernet31/1 - leaf02:Ethernet31/1 (LLDP only)"] == "edge c-ok"
    swapped = "gpu01:ens1np0 - leaf01:Ethernet1/1; gpu01:ens1np0 - leaf01:Ethernet2/1 (LLDP only)"
    assert in_counters[swapped] != "edge c-ok"  # CTR008 on gpu01's port


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
