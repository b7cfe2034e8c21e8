"""A finding is resolved only when tonight's check evaluated its rule on its device: a rule
left out by --limit (a majority over the whole fabric), an output the rule needs gone missing,
or a rule that failed internally carries the finding (still open), never resolves it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fabriclint.history.record import Night, record
from fabriclint.history.store import open_store
from fabriclint.models.finding import DeviceSummary, Finding
from fabriclint.rules.base import Context
from fabriclint.rules.fab import DscpMapInconsistent
from tests.nightly.conftest import nightly


def _status(doc: dict[str, object], rule: str, device: str | None) -> set[str]:
    findings = doc["findings"]
    assert isinstance(findings, list)
    return {f["status"] for f in findings if f["rule"] == rule and f["device"] == device}


def test_a_majority_rule_left_out_by_limit_resolves_nothing(fabric: Path) -> None:
    code, night1, _ = nightly(fabric, "-s", "broken")
    assert code == 1 and _status(night1, "FAB001", "leaf01") == {"new"}
    code, night2, err = nightly(fabric, "-s", "broken", "--limit", "leaf01")
    assert code == 0, err
    assert night2["summary"]["resolved"] == 0 and night2["resolved"] == []
    assert _status(night2, "FAB001", "leaf01") == {"carried"}
    assert night2["summary"]["open"] == night1["summary"]["open"]
    code, night3, _ = nightly(fabric, "-s", "baseline")  # fixed, and judged on every device
    assert code == 0 and night3["summary"]["resolved"] == night1["summary"]["open"]


def test_a_rule_that_failed_internally_resolves_nothing(
    fabric: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, night1, _ = nightly(fabric, "-s", "broken")
    assert code == 1 and _status(night1, "FAB001", "leaf01") == {"new"}

    def crash(self: DscpMapInconsistent, ctx: Context) -> Iterator[object]:
        raise TypeError("a map value it did not expect")
        yield

    monkeypatch.setattr(DscpMapInconsistent, "check", crash)
    code, night2, err = nightly(fabric, "-s", "broken")
    assert code == 3, err  # incomplete: fabriclint failed internally
    assert night2["resolved"] == []
    assert _status(night2, "FAB001", "leaf01") == {"carried"}
    assert _status(night2, "INTERNAL001", None) == {"new"}
    others = [f for f in night1["findings"] if f["rule"] != "FAB001"]
    assert others and all(_status(night2, f["rule"], f["device"]) == {"persisting"} for f in others)


def _night(run: int, statuses: dict[str, str], findings: list[Finding]) -> Night:
    """Statuses as the check gives them; a device not-checked was left out by --limit."""
    return Night(
        partial="not-checked" in statuses.values(),
        fabric="pod",
        started_at=f"2026-12-0{run}T02:00:00Z",
        snapshot=f"night{run}",
        snapshot_path=f"snapshots/night{run}",
        complete=all(s in ("ok", "not-checked") for s in statuses.values()),
        exit_code=0,
        devices=[
            DeviceSummary(name=n, platform="eos", role="leaf", status=s)
            for n, s in statuses.items()
        ],
        findings=findings,
        check_seconds=1.0,
    )


def test_a_fabric_wide_finding_is_not_resolved_by_a_limited_night(tmp_path: Path) -> None:
    """A --limit night is `complete` (the devices left out were left out on purpose), but it
    did not read the whole fabric: a fabric-wide finding it does not see is carried."""
    wide = Finding(
        rule="FAB009",
        name="fabric-wide",
        severity="error",
        device=None,
        object="fabric",
        path="fabric.x",
        message="something about the whole fabric",
        fingerprint="f" * 64,
    )
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    try:
        nights = [
            _night(1, {"leaf01": "ok", "leaf02": "ok"}, [wide]),
            _night(2, {"leaf01": "ok", "leaf02": "not-checked"}, []),
            _night(3, {"leaf01": "ok", "leaf02": "ok"}, []),
        ]
        done = []
        for night in nights:
            with store.transaction() as conn:
                done.append(record(conn, night, lambda previous, new: {}))
    finally:
        store.dispose()
    assert [e.status for e in done[1].entries] == ["carried"]
    assert [e.status for e in done[2].entries] == ["resolved"]


def test_a_rule_the_policy_deselects_resolves_nothing(fabric: Path) -> None:
    """A rule the policy no longer selects (`ignore:`), or ignores on one device
    (`per_device_ignores`), was not evaluated tonight: its findings are carried, not reported
    as resolved (the fault is still there; the night could not see it)."""
    code, night1, _ = nightly(fabric, "-s", "broken")
    assert code == 1 and _status(night1, "FAB001", "leaf01") == {"new"}
    carried = [f for f in night1["findings"] if f["rule"] == "FAB001"]
    on_spine = [f for f in night1["findings"] if f["device"] == "spine01"]
    assert carried and on_spine
    policy = fabric / "policy.yaml"
    policy.write_text(
        policy.read_text() + "ignore: [FAB001]\nper_device_ignores:\n  spine01: [ALL]\n"
    )
    code, night2, err = nightly(fabric, "-s", "broken")
    assert night2["resolved"] == [] and night2["summary"]["resolved"] == 0, err
    assert all(_status(night2, f["rule"], f["device"]) == {"carried"} for f in carried)
    assert all(_status(night2, f["rule"], f["device"]) == {"carried"} for f in on_spine)
    policy.write_text(policy.read_text().split("ignore: [FAB001]")[0])  # selected again
    code, night3, _ = nightly(fabric, "-s", "baseline")  # fixed, and judged again
    assert code == 0 and night3["summary"]["resolved"] == night1["summary"]["open"]
