"""Golden tests: every format renders each hand-made report to exactly its file in golden/<case>/.

Regenerate after a deliberate change with
FABRICLINT_UPDATE_GOLDEN=1 pytest tests/reporters/test_golden.py, and review the diff by hand.
SARIF is rendered against a small fixed rule catalog (STUB_RULES) so that editing a rule's
docstring does not churn the golden files; test_sarif.py checks the real catalog.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fabriclint.reporters import FORMATS, get_reporter, sarif
from tests.reporters.fixtures import CASES

GOLDEN = Path(__file__).parent / "golden"
EXTENSION = {
    "json": ".json",
    "jsonl": ".jsonl",
    "sarif": ".sarif",
    "junit": ".xml",
    "markdown": ".md",
    "gitlab": ".json",
    "html": ".html",
}


class _Rule:
    code = ""
    name = ""
    severity = "error"
    summary = ""


def _stub(code: str, name: str, severity: str, summary: str, doc: str) -> type[_Rule]:
    attrs = {"code": code, "name": name, "severity": severity, "summary": summary, "__doc__": doc}
    return type(code, (_Rule,), attrs)


STUB_RULES = [
    _stub("PFC001", "pfc-priority-unused", "warning", "PFC on a priority no class maps to",
          "PFC is enabled on a priority nothing maps to.\n\n    Why: it wastes headroom."),
    _stub("PFC002", "rdma-priority-not-lossless", "error", "RoCE priority has no PFC",
          "The priority RoCE maps to has no PFC.\n\n    Failing::\n\n        qos map dscp 26 to traffic-class 1"),
    _stub("ECN001", "lossless-queue-without-ecn", "error", "lossless queue without ECN",
          "A lossless queue carrying RoCE has no ECN marking."),
    _stub("QOS004", "cnp-not-prioritized", "warning", "CNP not in a strict queue", "CNP lands low."),
    _stub("QOS005", "dangling-reference", "error", "referenced, never defined", "Dangling."),
    _stub("QOS006", "unused-definition", "info", "defined, applied nowhere", "A QoS map is unused."),
    _stub("MTU001", "link-mtu-mismatch", "error", "link ends differ in MTU",
          "The two switch ports of a cable have different MTUs (no finding uses this rule)."),
    _stub("FAB003", "role-config-divergent", "warning", "a role's switches differ", "Divergent."),
    _stub("DRIFT002", "setting-missing", "error", "intent setting absent", "Absent on the device."),
    _stub("DRIFT003", "device-missing", "error", "no data for a device", "Not in the snapshot."),
    _stub("INV001", "intent-invalid", "error", "intent inconsistent", "Intent names nothing."),
]  # fmt: skip


def golden_file(case: str, fmt: str) -> Path:
    return GOLDEN / case / f"{fmt}{EXTENSION.get(fmt, '.txt')}"


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_golden(case: str, fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sarif, "ALL_RULES", STUB_RULES)
    actual = get_reporter(fmt)(CASES[case]())
    path = golden_file(case, fmt)
    if os.environ.get("FABRICLINT_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8", newline="")
    assert path.is_file(), f"{path} missing: run with FABRICLINT_UPDATE_GOLDEN=1 and review it"
    with path.open(encoding="utf-8", newline="") as handle:  # keep \r: escaping is under test
        assert actual == handle.read()


@pytest.mark.parametrize("fmt", FORMATS)
def test_rendering_is_deterministic(fmt: str) -> None:
    render = get_reporter(fmt)
    assert render(CASES["pod"]()) == render(CASES["pod"]())


def test_no_stray_golden_files() -> None:
    expected = {golden_file(case, fmt) for case in CASES for fmt in FORMATS}
    assert set(GOLDEN.glob("*/*")) <= expected
