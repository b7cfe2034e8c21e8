"""The nightly page shows device text through the HTML reporter's filter: control characters
and bidi overrides (U+202A-202E, U+2066-2069) become U+FFFD, never reach the page as such."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.nightly.conftest import nightly

HOSTILE = "leaf\u202eexe.txt\u2066 timed\x07 out\x1b[2J after\u2069 30 s <b>x</b>"
RAW = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"]


def _unreachable_with(fabric: Path, device: str, error: str) -> None:
    """A copy of broken where `device`'s collection failed with the error text `error`."""
    snap = fabric / "snapshots" / "hostile"
    shutil.copytree(fabric / "snapshots" / "broken", snap)
    manifest = json.loads((snap / "manifest.json").read_text())
    manifest["devices"][device].update(status="timeout", error=error, files={}, sha256={})
    (snap / "manifest.json").write_text(json.dumps(manifest))
    shutil.rmtree(snap / device)


@pytest.mark.parametrize("bad", [*RAW, "\x00", "\x07", "\x1b", "\x7f", "\x85"])
def test_control_and_bidi_characters_never_reach_the_page(fabric: Path, bad: str) -> None:
    _unreachable_with(fabric, "leaf01", HOSTILE + bad)
    code, _, _ = nightly(fabric, "--snapshot", "hostile")
    assert code == 3
    page = (fabric / "reports" / "latest" / "index.html").read_text(encoding="utf-8")
    assert bad not in page
    assert all(char not in page for char in [*RAW, "\x07", "\x1b"])
    assert "leaf\N{REPLACEMENT CHARACTER}exe.txt" in page  # shown, defused
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
