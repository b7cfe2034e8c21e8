"""`fabriclint counters FABRIC BEFORE AFTER`: judge the counters of a benchmark interval.

Reads both snapshots' counter outputs (parsers/<platform>/counters.py), the configuration of the AFTER
snapshot (or `--config`) for what is lossless, computes deltas and rates over the interval
between the two manifests' `created` times (or `--interval`), runs the CTR rules and builds the
same Report `check` does, so every reporter and exit code applies: 0 clean, 1 findings, 2 input
error, 3 incomplete (a device whose counters are missing or unreadable on a side, or whose
counters went backwards: CTR009).
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fabriclint import __version__
from fabriclint.commands import COUNTER_COMMANDS, is_counter_key
from fabriclint.engine import (
    CheckOptions,
    CheckResult,
    UsageError,
    exit_code_for,
    option_models,
    parse_snapshot,
    with_failures,
)
from fabriclint.loaders.fabric import Fabric, load_fabric
from fabriclint.models.counters import DeviceCounters
from fabriclint.models.finding import SEVERITY_RANK, DeviceSummary, Finding, Gap, Report, Summary
from fabriclint.models.policy import Severity
from fabriclint.models.raw import RawDevice
from fabriclint.parsers.counters import get_counter_parser, parse_counters
from fabriclint.rules import ctr
from fabriclint.rules.base import Context, Rule
from fabriclint.rules.ctr_data import COUNTERS, CounterRun
from fabriclint.rules.internal import Failure
from fabriclint.selection import Selection
from fabriclint.snapshot import (
    LoadedDevice,
    Snapshot,
    SnapshotError,
    load_snapshot,
    named_snapshot,
    read_manifest,
)


@dataclass
class CounterOptions:
    """A typed `fabriclint counters` run (built by the CLI, or by tests)."""

    fabric_dir: Path
    before: Path | str
    after: Path | str
    config: Path | str | None = None
    """Snapshot whose configuration says what is lossless (default: AFTER)."""
    interval_s: float | None = None
    """Seconds between the two readings (default: between the manifests' `created` times)."""
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    fail_on: Severity | None = None


@dataclass
class Side:
    """One snapshot's counters: per device its counters, or why there are none."""

    snapshot: Snapshot
    created: dt.datetime | None
    counters: dict[str, DeviceCounters] = field(default_factory=dict)
    status: dict[str, tuple[str, str | None]] = field(default_factory=dict)


def _path(fabric: Fabric, side: Path | str) -> Path:
    """A snapshot folder, or a name under FABRIC/snapshots/."""
    path = Path(side)
    if not path.is_dir() and (fabric.root / "snapshots" / str(side)).is_dir():
        return named_snapshot(fabric.root, str(side))
    return path


def _created(root: Path) -> dt.datetime | None:
    try:
        text = read_manifest(root).created
        return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (SnapshotError, ValueError):
        return None


def _read_side(fabric: Fabric, path: Path) -> Side:
    """Both the raw snapshot and every inventory device's counters (or its status)."""
    side = Side(snapshot=load_snapshot(path, base=Path.cwd()), created=_created(path))
    for name, device in fabric.inventory.devices.items():
        loaded = side.snapshot.devices.get(name)
        found = _device_counters(loaded, device.platform)
        if isinstance(found, DeviceCounters):
            side.counters[name] = found
            side.status[name] = _counter_status(found)
        else:
            side.status[name] = found
    return side


def _device_counters(
    loaded: LoadedDevice | None, platform: str
) -> DeviceCounters | tuple[str, str | None]:
    if loaded is None:
        return "missing", "no data in the snapshot"
    if loaded.raw is None:
        return loaded.status, loaded.error
    if loaded.raw.platform != platform:
        return (
            "platform-mismatch",
            f"the snapshot says '{loaded.raw.platform}', the inventory '{platform}'",
        )
    if get_counter_parser(platform) is None:
        return "unsupported", f"no counter parser for platform '{platform}' yet"
    found = parse_counters(loaded.raw)
    assert found is not None
    return found


def _readable(side: Side) -> dict[str, DeviceCounters]:
    """The counters of the devices read whole on this side: a device with an output that could
    not be parsed is reported not checked once, not as every counter of that output having
    disappeared (CTR009, one finding per counter: over a thousand for one cut-off JSON)."""
    return {n: c for n, c in side.counters.items() if side.status[n][0] == "ok"}


def _counter_status(found: DeviceCounters) -> tuple[str, str | None]:
    if found.problems:
        return "unparseable", "; ".join(f"{p.source}: {p.message}" for p in found.problems[:3])
    if not found.inputs:
        return "missing-counters", "no counter output in this snapshot (collect --counters)"
    return "ok", None


def _interval(opts: CounterOptions, before: Side, after: Side) -> float:
    if opts.interval_s is not None:
        if not math.isfinite(opts.interval_s) or opts.interval_s <= 0:  # inf, nan: no rate
            raise UsageError("--interval must be a positive number of seconds")
        return opts.interval_s
    if before.created is None or after.created is None:
        raise UsageError("a manifest has no readable `created` time: pass --interval SECONDS")
    seconds = (after.created - before.created).total_seconds()
    if seconds <= 0:
        raise UsageError(
            f"AFTER ({after.snapshot.path}, {after.created:%Y-%m-%dT%H:%M:%SZ}) is not newer than "
            f"BEFORE ({before.snapshot.path}, {before.created:%Y-%m-%dT%H:%M:%SZ}): swap them or pass --interval"
        )
    return seconds


def _config_only(snap: Snapshot) -> Snapshot:
    """The snapshot without its counter outputs; a device with nothing else left out."""
    devices: dict[str, LoadedDevice] = {}
    for name, loaded in snap.devices.items():
        raw = loaded.raw
        if raw is None:
            devices[name] = loaded
            continue
        outputs = {k: v for k, v in raw.outputs.items() if not is_counter_key(raw.platform, k)}
        if outputs:
            kept = RawDevice(name=raw.name, platform=raw.platform, outputs=outputs)
            devices[name] = LoadedDevice(raw=kept, status="ok")
    return snap.model_copy(update={"devices": devices})


def _has_configuration(snap: Snapshot) -> bool:
    """True when some device of `snap` has an output that is neither a counter nor a port map:
    a `collect --counters` snapshot has none, and judging by it would skip the rules that need
    the configuration on every device (CTR001, CTR003, CTR004) with only a coverage line."""
    for device in snap.devices.values():
        raw = device.raw
        if raw is None:
            continue
        plan = COUNTER_COMMANDS.get(raw.platform)
        maps = plan.maps if plan is not None else frozenset()
        if any(k not in maps and not is_counter_key(raw.platform, k) for k in raw.outputs):
            return True
    return False


def _config_context(fabric: Fabric, snap: Snapshot) -> Context:
    """Parsed configuration of the devices that have one; an unreadable one is left out (the
    rules that need it say so in the coverage)."""
    ctx = parse_snapshot(fabric, _config_only(snap), CheckOptions(fabric_dir=fabric.root))
    for name in list(ctx.states):
        if ctx.status.get(name) != "ok":
            del ctx.states[name]
    return ctx


def _run_rules(
    ctx: Context, fabric: Fabric, selection: Selection, failures: list[Failure]
) -> list[Finding]:
    findings: list[Finding] = []
    for rule_cls in ctr.RULES:
        if not selection.selected(rule_cls.code):
            continue
        options = rule_cls.options_model.model_validate(
            fabric.policy.options.get(rule_cls.code, {})
        )
        rule: Rule[Any] = rule_cls(options, selection.severity(rule_cls.code, rule_cls.severity))
        try:
            findings.extend(rule.check(ctx))
        except Exception as exc:  # a rule bug: incomplete (exit 3), never a crash or a pass
            failures.append(Failure.of(f"rule {rule_cls.code}", exc))
    roles = {n: d.role for n, d in fabric.inventory.devices.items()}
    return [
        f for f in findings if not selection.ignored_on(f.rule, f.device, roles.get(f.device or ""))
    ]


def _suppress(findings: list[Finding], fabric: Fabric, failures: list[Failure]) -> None:
    """The policy's CTR suppressions (`suppressions:` in policy.yaml), marked in place; the
    findings about suppressions themselves (SUP) belong to `check`, which sees them all."""
    from fabriclint.suppress import apply

    wanted = [s for s in fabric.policy.suppressions if s.rule.startswith("CTR")]
    if not wanted:
        return
    try:
        apply(findings, wanted, {}, None, dt.date.today())
    except Exception as exc:  # report everything unsuppressed, incomplete
        failures.append(Failure.of("suppression", exc))
        for finding in findings:
            finding.suppressed = None


def _summaries(fabric: Fabric, before: Side, after: Side, run: CounterRun) -> list[DeviceSummary]:
    out = []
    for name, dev in fabric.inventory.devices.items():
        status, error = "ok", None
        for label, side in (("BEFORE", before), ("AFTER", after)):
            got, why = side.status.get(name, ("missing", None))
            if got != "ok" and status == "ok":
                status, error = got, f"{label} {side.snapshot.path}: {why or got}"
        if status == "ok" and name in run.untrusted:
            status, error = "untrusted-interval", "counters went backwards or disappeared (CTR009)"
        out.append(
            DeviceSummary(
                name=name, platform=dev.platform, role=dev.role, status=status, error=error
            )
        )
    return out


def _report(
    fabric: Fabric, sides: tuple[Side, Side], ctx: Context, findings: list[Finding], run: CounterRun
) -> Report:
    before, after = sides
    devices = _summaries(fabric, before, after, run)
    active = [f for f in findings if f.suppressed is None]
    counts = {sev: sum(1 for f in active if f.severity == sev) for sev in SEVERITY_RANK}
    summary = Summary(
        devices=len(devices),
        complete=all(d.status == "ok" for d in devices),
        findings={sev: counts[sev] for sev in ("error", "warning", "info")},
        suppressed=len(findings) - len(active),
    )
    coverage = [
        Gap(rule=code, missing=missing, devices=sorted(names))
        for code, gaps in sorted(ctx.skipped.items())
        for missing, names in sorted(gaps.items())
    ]
    ordered = sorted(
        findings, key=lambda f: (f.device or "", -SEVERITY_RANK[f.severity], f.rule, f.object)
    )
    return Report(
        fabriclint=__version__,
        fabric=fabric.inventory.name,
        snapshot=f"{before.snapshot.path} -> {after.snapshot.path}",
        summary=summary,
        devices=devices,
        findings=ordered,
        coverage=coverage,
    )


def run_counters(opts: CounterOptions) -> CheckResult:
    """Run the CTR rules over an interval. Raises FabricError / SnapshotError / UsageError for
    input errors (exit 2); a failure inside fabriclint past that is INTERNAL001, exit 3."""
    fabric = load_fabric(opts.fabric_dir, option_models())
    before = _read_side(fabric, _path(fabric, opts.before))
    after = _read_side(fabric, _path(fabric, opts.after))
    interval = _interval(opts, before, after)
    config = (
        after.snapshot
        if opts.config is None
        else load_snapshot(_path(fabric, opts.config), base=Path.cwd())
    )
    if not _has_configuration(config):  # before parsing: nothing to parse it with
        raise UsageError(
            f"{config.path}: no device configuration to say what is lossless (a `collect "
            "--counters` snapshot holds only counters): name a snapshot that has it with --config"
        )
    ctx = _config_context(fabric, config)
    run = CounterRun(before=_readable(before), after=_readable(after), interval_s=interval)
    ctx.memo[COUNTERS] = run
    selection = Selection(fabric.policy, cli_select=opts.select, cli_ignore=opts.ignore)
    if not any(selection.selected(rule.code) for rule in ctr.RULES):
        raise UsageError(
            "no CTR rule is selected (policy.yaml `select`, --select, --ignore): nothing to judge"
        )
    failures: list[Failure] = []
    findings = _run_rules(ctx, fabric, selection, failures)
    _suppress(findings, fabric, failures)
    report = with_failures(_report(fabric, (before, after), ctx, findings, run), failures)
    fail_on: Severity = opts.fail_on or fabric.policy.fail_on or "error"
    return CheckResult(
        report=report,
        exit_code=exit_code_for(report, fail_on),
        fabric=fabric,
        fail_on=fail_on,
        failures=failures,
        context=ctx,  # the configuration's LLDP: the HTML map draws its cables as check does
    )
