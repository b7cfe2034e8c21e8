"""Run a semantic diff: parse (and, with a fabric, check) both sides, compare, render."""

from __future__ import annotations

from pathlib import Path

from fabriclint.diff import DiffReport, compare_states, finding_delta, mark
from fabriclint.engine import CheckOptions, CheckResult, ExitCode, run_check
from fabriclint.models.finding import SEVERITY_RANK
from fabriclint.models.intent import Intent
from fabriclint.models.state import DeviceState
from fabriclint.parsers import get_parser
from fabriclint.snapshot import load_snapshot


class DiffInputError(Exception):
    """The two sides cannot be compared (exit 2)."""


def dscps_of(intent: Intent | None) -> list[int]:
    """The DSCPs intent names (RoCE and CNP): the ones whose resolution matters per port."""
    found: set[int] = set()
    for profile in intent.profiles.values() if intent else []:
        found.update(profile.roce.dscp if profile.roce else [])
        found.update([profile.cnp.dscp] if profile.cnp else [])
    return sorted(found)


def _parse_only(path: Path) -> dict[str, DeviceState]:
    """Without a fabric: parse each ok device of a snapshot with its manifest platform."""
    snap = load_snapshot(path, base=Path.cwd())
    states = {}
    for name, loaded in snap.devices.items():
        parser = get_parser(loaded.raw.platform) if loaded.raw else None
        if loaded.raw is not None and parser is not None:
            states[name] = parser(loaded.raw)
    return states


def _check(root: Path, side: Path, configs: bool) -> CheckResult:
    if configs:
        return run_check(CheckOptions(fabric_dir=root, configs=side))
    return run_check(CheckOptions(fabric_dir=root, snapshot=side))


def build(before: Path, after: Path, root: Path | None, configs: bool) -> tuple[DiffReport, int]:
    """The diff report and its exit code."""
    for side in (before, after):
        if not side.is_dir():
            raise DiffInputError(f"{side}: folder not found")
    if root is None:
        changes = compare_states(_parse_only(before), _parse_only(after), [26, 48])
        return DiffReport(before=str(before), after=str(after), changes=changes), 0
    old, new = _check(root, before, configs), _check(root, after, configs)
    dscps = dscps_of(new.fabric.intent)  # the fabric as the check loaded it
    changes = compare_states(old.states, new.states, dscps)
    delta = finding_delta(old.report.findings, new.report.findings)
    introduced = delta.introduced
    mark(changes, introduced)
    report = DiffReport(
        before=str(before),
        after=str(after),
        changes=changes,
        introduced=introduced,
        resolved=delta.resolved,
        moved=delta.moved,
        checked=True,
    )
    if not (old.report.summary.complete and new.report.summary.complete):
        return report, int(ExitCode.INCOMPLETE)
    failing = [f for f in introduced if SEVERITY_RANK[f.severity] >= SEVERITY_RANK[new.fail_on]]
    return report, int(ExitCode.FINDINGS if failing else ExitCode.OK)


def run_diff(
    before: Path, after: Path, root: Path | None, configs: bool, fmt: str
) -> tuple[str, int]:
    """Rendered diff and exit code."""
    from fabriclint.reporters.diff import render

    report, code = build(before, after, root, configs)
    return render(report, fmt), code
