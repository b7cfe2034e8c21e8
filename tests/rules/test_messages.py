"""No finding message prints a missing value as the text `None` ("priority None", "queue None")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fabriclint.engine import CheckOptions, run_check

ROOT = Path(__file__).resolve().parents[2]
BROKEN = sorted(p / "snapshots" / "broken" for p in (ROOT / "inventories").iterdir())


@pytest.mark.parametrize("snapshot", BROKEN, ids=lambda p: p.parts[-3])
def test_no_message_prints_none(snapshot: Path) -> None:
    report = run_check(CheckOptions(fabric_dir=snapshot.parents[1], snapshot=snapshot)).report
    assert report.findings
    assert [f.message for f in report.findings if re.search(r"\bNone\b", f.message)] == []
