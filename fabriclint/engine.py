"""The check engine: fabric + snapshot -> parsed states -> rules -> report and exit code."""

from __future__ import annotations

import datetime as dt
import difflib
import gc
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path
from typing import Any

from fabriclint import __version__
from fabriclint.loaders.fabric import Fabric, load_fabric
from fabriclint.models.common import Source
from fabriclint.models.finding import SEVERITY_RANK, DeviceSummary, Finding, Report, Summary
from fabriclint.models.inventory import Inventory, Link
from fabriclint.models.policy import Severity
from fabriclint.models.state import DeviceState, InputProblem
from fabriclint.parsers import get_parser
from fabriclint.rules import sup
from fabriclint.rules.base import Context, Rule
from fabriclint.rules.meta import UNVERIFIED
from fabriclint.rules.registry import ALL_RULES, BY_CODE
from fabriclint.rules.sup import NOTES
from fabriclint.selection import Selection
from fabriclint.site_rules import applies, check_site_rule
from fabriclint.snapshot import (
    Snapshot,
    SnapshotError,
    load_configs,
    load_snapshot,
    named_snapshot,
    newest_snapshot,
)
from fabriclint.suppress import apply, inline_comments, read_baseline


class ExitCode(IntEnum):
    """Process exit codes (DESIGN.md)."""

    OK = 0
    FINDINGS = 1
    USAGE = 2
    INCOMPLETE = 3


@dataclass
class CheckOptions:
    """A typed run configuration, built by the CLI (or by tests and benchmarks)."""

    fabric_dir: Path
    snapshot: Path | str | None = None
    configs: Path | None = None
    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    fail_on: Severity | None = None
    progress: Callable[[str], None] | None = None
    baseline: Path | None = None
    """Findings whose fingerprints are in this baseline file are suppressed (only new ones fail)."""
    today: dt.date = field(default_factory=dt.date.today)
    """The date suppression expiry is judged against."""
    changed_since: str | None = None
    """Only check devices whose inputs changed in git since this ref (plus link neighbours)."""


@dataclass
class CheckResult:
    """The report and the exit code it implies."""

    report: Report
    exit_code: ExitCode
    states: dict[str, DeviceState] = field(default_factory=dict)
    fail_on: Severity = "error"
    """The severity threshold that decided the exit code."""


def option_models() -> dict[str, type[Any]]:
    """Rule code -> its Options model (for policy validation)."""
    return {rule.code: rule.options_model for rule in ALL_RULES}


def find_snapshot(fabric: Fabric, opts: CheckOptions) -> Snapshot:
    """Read the snapshot or configs folder the options name (newest snapshot by default)."""
    platforms = {name: dev.platform for name, dev in fabric.inventory.devices.items()}
    if opts.configs is not None:
        return load_configs(Path(opts.configs), platforms, base=Path.cwd())
    if opts.snapshot is not None:
        path = Path(opts.snapshot)
        if not path.is_dir() and (fabric.root / "snapshots" / str(opts.snapshot)).is_dir():
            path = named_snapshot(fabric.root, str(opts.snapshot))
        return load_snapshot(path, base=Path.cwd())
    newest = newest_snapshot(fabric.root / "snapshots")
    if newest is None:
        raise SnapshotError(
            f"{fabric.root / 'snapshots'}: no snapshot found; pass --snapshot or --configs"
        )
    return load_snapshot(newest, base=Path.cwd())


def _parse_one(name: str, raw: Any, platform: str) -> tuple[DeviceState | None, str | None]:
    parser = get_parser(platform)
    if parser is None:
        return None, f"no parser for platform '{platform}' yet"  # unsupported
    try:
        return parser(raw), None
    except Exception as exc:  # a parser bug must make the device incomplete, never crash the run
        state = DeviceState(name=name, platform=platform)
        first = next(iter(raw.outputs.values()), None)
        source = Source(file=first.file) if first else None
        message = f"parser failed: {type(exc).__name__}: {exc}"
        state.problems.append(InputProblem(kind="unparseable", message=message, source=source))
        return state, None


def _annotate(
    state: DeviceState, fabric: Fabric, cables: dict[str, list[tuple[str, str, str]]]
) -> None:
    """Fill role, interface roles and neighbours from the inventory and cabling plan."""
    inv = fabric.inventory
    state.role = inv.devices[state.name].role
    for port, peer_dev, peer_port in cables.get(state.name, []):
        iface = state.interfaces.get(port)
        if iface is None:
            continue
        iface.neighbor = f"{peer_dev}:{peer_port}"
        peer = inv.devices.get(peer_dev)
        iface.role = "host-facing" if peer and peer.platform == "mlnx-host" else "fabric"


def parse_snapshot(fabric: Fabric, snap: Snapshot, opts: CheckOptions) -> Context:
    """Parse every device; devices that cannot be used are recorded as missing."""
    probe = Context(
        inventory=Inventory(name=fabric.inventory.name, devices={}), intent=None, states={}
    )
    states: dict[str, DeviceState] = {}
    only = _changed_devices(fabric, snap, opts)
    for name, device in fabric.inventory.devices.items():
        if opts.progress:
            opts.progress(name)
        if only is not None and name not in only:
            probe.status[name] = "not-checked"  # unchanged since --changed-since
            continue
        state = _load_one(probe, name, device.platform, snap, opts)
        if state is not None:
            states[name] = state
    inventory = canonical_links(fabric.inventory, states)
    ctx = Context(
        inventory=inventory,
        intent=fabric.intent,
        states=states,
        missing=probe.missing,
        status=probe.status,
    )
    ctx.memo[UNVERIFIED] = snap.unverified
    cables: dict[str, list[tuple[str, str, str]]] = {}
    for (dev, port), (peer_dev, peer_port) in inventory.peers().items():
        cables.setdefault(dev, []).append((port, peer_dev, peer_port))
    for state in states.values():
        _annotate(state, fabric, cables)
    for name, loaded in snap.devices.items():
        if name not in fabric.inventory.devices:
            ctx.unexpected[name] = loaded.raw.platform if loaded.raw else "unknown platform"
    return ctx


_PORT = re.compile(r"^([A-Za-z][A-Za-z-]*?)[ -]?([0-9].*)$")


def canonical_port(state: DeviceState, name: str) -> str:
    """The device's own spelling of a cabling-plan port: exact, any case, or abbreviated
    (`Et1`, `ethernet1`, `Eth1/1` for `Ethernet1/1`); unchanged when not unique."""
    if name in state.interfaces:
        return name
    by_lower = {n.lower(): n for n in state.interfaces}
    if name.lower() in by_lower:
        return by_lower[name.lower()]
    wanted = _PORT.match(name)
    if wanted is None:
        return name
    prefix, number = wanted.group(1).lower(), wanted.group(2)
    found = [
        n
        for n in state.interfaces
        if (m := _PORT.match(n)) and m.group(1).lower().startswith(prefix) and m.group(2) == number
    ]
    return found[0] if len(found) == 1 else name


def canonical_links(inventory: Inventory, states: dict[str, DeviceState]) -> Inventory:
    """The inventory with each link end spelled as its device spells the port."""
    links = []
    for link in inventory.links:
        ends = []
        for device, port in link.ends():
            state = states.get(device)
            ends.append(f"{device}:{canonical_port(state, port) if state else port}")
        links.append(Link(a=ends[0], b=ends[1]))
    return inventory.model_copy(update={"links": links})


def _changed_devices(fabric: Fabric, snap: Snapshot, opts: CheckOptions) -> set[str] | None:
    if opts.changed_since is None:
        return None
    from fabriclint.changed import ChangedError, changed_files, select_devices

    inputs = Path(opts.configs) if opts.configs is not None else Path(snap.path)
    try:
        changed = changed_files(opts.changed_since, fabric.root)
    except ChangedError as exc:
        raise UsageError(f"--changed-since: {exc}") from exc
    return select_devices(fabric.inventory, fabric.root, inputs, changed)


def _load_one(
    ctx: Context, name: str, platform: str, snap: Snapshot, opts: CheckOptions
) -> DeviceState | None:
    """Parse one inventory device, or record why it cannot be checked (status + reason)."""
    loaded = snap.devices.get(name)
    if loaded is None:
        if opts.configs is not None and platform == "mlnx-host":
            ctx.status[name] = "not-checked"  # hosts have no rendered config
            return None
        _missing(ctx, name, "missing", "no data in the snapshot")
        return None
    if loaded.raw is None:
        _missing(ctx, name, loaded.status, loaded.error or "no reason given")
        return None
    if opts.configs is None and loaded.raw.platform != platform:
        why = f"the snapshot says platform '{loaded.raw.platform}', the inventory '{platform}'"
        _missing(ctx, name, "platform-mismatch", why)
        return None
    state, reason = _parse_one(name, loaded.raw, platform)
    if state is None:
        _missing(ctx, name, "unsupported", reason or "not parsed")
        return None
    unreadable = any(p.kind == "unparseable" for p in state.problems)
    ctx.status[name] = "unparseable" if unreadable else "ok"
    return state


def _missing(ctx: Context, name: str, status: str, why: str) -> None:
    ctx.status[name] = status
    ctx.missing[name] = f"{status}: {why}"


def _run_rules(
    ctx: Context, fabric: Fabric, selection: Selection, rules: list[type[Rule[Any]]] | None = None
) -> list[Finding]:
    findings: list[Finding] = []
    for rule_cls in ALL_RULES if rules is None else rules:
        if not selection.selected(rule_cls.code):
            continue
        options = rule_cls.options_model.model_validate(
            fabric.policy.options.get(rule_cls.code, {})
        )
        rule: Rule[Any] = rule_cls(options, selection.severity(rule_cls.code, rule_cls.severity))
        findings.extend(rule.check(ctx))
    for site in fabric.policy.site_rules if rules is None else []:
        if not selection.selected(site.code):
            continue
        for state in ctx.states.values():
            if applies(site, state):
                findings.extend(check_site_rule(site, state, state.model_dump(mode="json")))
    return findings


def _keep(finding: Finding, ctx: Context, fabric: Fabric, selection: Selection) -> bool:
    device = finding.device
    role = fabric.inventory.devices[device].role if device in fabric.inventory.devices else None
    return not selection.ignored_on(finding.rule, device, role)


def _summaries(fabric: Fabric, ctx: Context) -> list[DeviceSummary]:
    out = []
    for name, dev in fabric.inventory.devices.items():
        status = ctx.status.get(name, "missing")
        error = ctx.missing.get(name, "").partition(": ")[2] or None
        if status == "unparseable":
            state = ctx.states[name]
            error = "; ".join(p.message for p in state.problems if p.kind == "unparseable")
        elif status == "not-checked":
            error = "outside this check (--changed-since, or no rendered config in --configs)"
        out.append(
            DeviceSummary(
                name=name, platform=dev.platform, role=dev.role, status=status, error=error
            )
        )
    return out


def _sort_key(f: Finding) -> tuple[str, int, str, str, int, str, str]:
    where = (f.source.file, f.source.line or 0) if f.source else ("", 0)
    return (f.device or "", -SEVERITY_RANK[f.severity], f.rule, *where, f.object, f.path)


def build_report(fabric: Fabric, snap: Snapshot, ctx: Context, findings: list[Finding]) -> Report:
    """Assemble the JSON report."""
    devices = _summaries(fabric, ctx)
    complete = all(d.status in ("ok", "not-checked") for d in devices)
    counts = {sev: 0 for sev in ("error", "warning", "info")}
    for f in findings:
        if f.suppressed is None:
            counts[f.severity] += 1
    summary = Summary(
        devices=len(devices),
        complete=complete,
        findings=counts,
        suppressed=sum(1 for f in findings if f.suppressed is not None),
    )
    coverage = {code: sorted(devs) for code, devs in sorted(ctx.skipped.items())}
    return Report(
        fabriclint=__version__,
        fabric=fabric.inventory.name,
        snapshot=snap.path,
        summary=summary,
        devices=devices,
        findings=sorted(findings, key=_sort_key),
        coverage=coverage,
    )


def exit_code_for(report: Report, fail_on: Severity) -> ExitCode:
    """0/1/3 from a finished report (2 is decided before anything is checked)."""
    if not report.summary.complete:
        return ExitCode.INCOMPLETE
    threshold = SEVERITY_RANK[fail_on]
    failing = [
        f
        for f in report.findings
        if f.suppressed is None and SEVERITY_RANK[f.severity] >= threshold
    ]
    return ExitCode.FINDINGS if failing else ExitCode.OK


@contextmanager
def _no_gc_pauses() -> Iterator[None]:
    """Parsing allocates millions of small objects and few cycles: the cyclic collector's
    repeated passes over them cost ~30-50 % of parse time for nothing. It runs again after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def run_check(opts: CheckOptions) -> CheckResult:
    """Run a full offline check. Raises FabricError / SnapshotError for input errors (exit 2)."""
    fabric = load_fabric(opts.fabric_dir, option_models())
    _check_cli_codes(opts, [*BY_CODE, *(r.code for r in fabric.policy.site_rules)])
    snap = find_snapshot(fabric, opts)
    with _no_gc_pauses():
        ctx = parse_snapshot(fabric, snap, opts)
    selection = Selection(
        fabric.policy,
        cli_select=opts.select,
        cli_ignore=opts.ignore,
        cli_extend_select=opts.extend_select,
    )
    findings = [f for f in _run_rules(ctx, fabric, selection) if _keep(f, ctx, fabric, selection)]
    findings += _suppress(findings, ctx, fabric, selection, opts)
    report = build_report(fabric, snap, ctx, findings)
    fail_on: Severity = opts.fail_on or fabric.policy.fail_on or "error"
    return CheckResult(
        report=report, exit_code=exit_code_for(report, fail_on), states=ctx.states, fail_on=fail_on
    )


def _selects(selection: Selection, prefix: str) -> bool:
    return any(code.startswith(prefix) and selection.selected(code) for code in BY_CODE)


def _suppress(
    findings: list[Finding], ctx: Context, fabric: Fabric, selection: Selection, opts: CheckOptions
) -> list[Finding]:
    """Mark suppressed findings in place; return the SUP findings about the suppressions."""
    baseline = read_baseline(opts.baseline) if opts.baseline is not None else None
    policy = [s for s in fabric.policy.suppressions if _selects(selection, s.rule)]
    inline = inline_comments(findings, Path.cwd())
    for file, items in inline.items():
        inline[file] = [i for i in items if any(_selects(selection, c) for c in i.codes)]
    outcome = apply(findings, policy, inline, baseline, opts.today)
    notes: dict[str, list[Finding]] = {}
    for note in outcome.notes:
        notes.setdefault(note.rule, []).append(note)
    ctx.memo[NOTES] = notes
    return _run_rules(ctx, fabric, selection, sup.RULES)


class UsageError(Exception):
    """A command-line value that names nothing (exit 2)."""


def _check_cli_codes(opts: CheckOptions, codes: list[str]) -> None:
    """Unknown codes on the command line are errors: a typo must never select nothing silently."""
    for flag, values in (
        ("--select", opts.select or []),
        ("--extend-select", opts.extend_select),
        ("--ignore", opts.ignore),
    ):
        for code in values:
            if code != "ALL" and not any(c.startswith(code) for c in codes):
                hint = difflib.get_close_matches(code, codes, n=1)
                tip = f"; did you mean '{hint[0]}'?" if hint else ""
                raise UsageError(f"{flag}: unknown rule code '{code}'{tip}")
