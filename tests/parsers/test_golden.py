"""Golden tests: every tests/parsers/golden/<platform>/<case>/ parses to its expected.json.

A case folder holds inputs.json ({"command": "file name"}), the raw files, and expected.json
(the DeviceState as JSON). Regenerate after a deliberate change with
FABRICLINT_UPDATE_GOLDEN=1 pytest tests/parsers/test_golden.py, and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.parsers import SUPPORTED_PLATFORMS, get_parser

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p for p in GOLDEN.glob("*/*") if (p / "inputs.json").is_file())


def load_case(case: Path) -> RawDevice:
    """The RawDevice a golden case describes (file names relative to the case folder)."""
    inputs = json.loads((case / "inputs.json").read_text())
    outputs = {
        cmd: RawOutput(text=(case / name).read_text(), file=name) for cmd, name in inputs.items()
    }
    return RawDevice(name=case.name, platform=case.parent.name, outputs=outputs)


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.name}" for c in CASES])
def test_golden(case: Path) -> None:
    raw = load_case(case)
    parser = get_parser(raw.platform)
    assert parser is not None, f"no parser for {raw.platform}"
    actual = parser(raw).model_dump(mode="json")
    expected_file = case / "expected.json"
    if os.environ.get("FABRICLINT_UPDATE_GOLDEN"):
        expected_file.write_text(json.dumps(actual, indent=2, sort_keys=True) + "\n")
    expected = json.loads(expected_file.read_text())
    assert actual == expected


@pytest.mark.parametrize("platform", SUPPORTED_PLATFORMS)
def test_every_parser_has_a_golden_case(platform: str) -> None:
    assert any(c.parent.name == platform for c in CASES), f"{platform} has no golden case"
