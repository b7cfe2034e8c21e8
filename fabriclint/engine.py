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
from fabriclint.causes import link_causes
from fabriclint.loaders.fabric import Fabric, display_path, load_fabric
from fabriclint.models.common import Source
from fabriclint.models.compact import share_annotated_fields_sets, share_fields_sets
from fabriclint.models.finding import SEVERITY_RANK, DeviceSummary, Finding, Gap, Report, Summary
from fabriclint.models.inventory import Inventory, Link
from fabriclint.models.policy import Severity
from fabriclint.models.state import DeviceState, InputProblem
from fabriclint.parsers import get_parser
from fabriclint.rules import sup
from fabriclint.rules.base import Context, Rule
from fabriclint.rules.internal import Failure, InternalError
from fabriclint.rules.meta import UNVERIFIED
from fabriclint.rules.registry import ALL_RULES, BY_CODE
from fabriclint.rules.sup import NOTES
from fabriclint.selection import Selection
from fabriclint.site_rules import applies, check_site_rule
from fabriclint.snapshot import (
    CONFIG_COMMAND,
    Snapshot,
    SnapshotError,
    load_configs,
    load_snapshot,
    named_snapshot,
    newest_snapshot,
)
from fabriclint.suppress import apply, inline_comments, read_baseline

FAILURES = "engine.failures"
"""Context memo key of the failures contained while reading and annotating devices."""


class ExitCode(IntEnum):
    """Process exit codes (docs/architecture.md)."""

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
    rules: list[type[Rule[Any]]] | None = None
    """The rule classes to run (default: the whole catalog); tests inject failing ones."""
    files: list[Path] | None = None
    """Only the devices these files belong to, plus link neighbours (pre-commit passes the
    staged files); a fabric YAML or manifest among them checks everything."""
    limit: list[str] | None = None
    """`--limit` terms: only the devices they select are checked; the others are reported as
    not checked (see collectors/limit.py for the syntax)."""


@dataclass
class CheckResult:
    """The report and the exit code it implies."""

    report: Report
    exit_code: ExitCode
    states: dict[str, DeviceState] = field(default_factory=dict)
    fail_on: Severity = "error"
    """The severity threshold that decided the exit code."""
    failures: list[Failure] = field(default_factory=list)
    """Exceptions contained during the run (each is an INTERNAL001 finding; exit 3)."""

    def contain(self, failure: Failure) -> None:
        """Record a failure found after the report was built (a reporter): incomplete, exit 3."""
        self.failures.append(failure)
        self.report = with_failures(self.report, [failure])
        self.exit_code = ExitCode.INCOMPLETE


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
    for link in fabric.inventory.links:
        for device, _port in link.ends():
            probe.cabled_count[device] = probe.cabled_count.get(device, 0) + 1
    states = _read_devices(probe, fabric, snap, opts)
    inventory = canonical_links(fabric.inventory, states)
    ctx = Context(
        inventory=inventory,
        intent=fabric.intent,
        states=states,
        missing=probe.missing,
        status=probe.status,
        outside=probe.outside,
        partial=probe.partial,
        memo={FAILURES: probe.memo.get(FAILURES, [])},
        locate_link_end=_link_locator(fabric),
    )
    ctx.memo[UNVERIFIED] = snap.unverified
    _annotate_all(ctx, fabric)
    share_annotated_fields_sets(ctx.states.values())  # no state changes from here (memory)
    for name, loaded in snap.devices.items():
        if name not in fabric.inventory.devices:
            ctx.unexpected[name] = loaded.raw.platform if loaded.raw else "unknown platform"
    return ctx


def _link_locator(fabric: Fabric) -> Callable[[int, str], Source | None] | None:
    doc = fabric.docs.get("inventory")
    if doc is None:
        return None
    file = display_path(fabric.root / "inventory.yaml")

    def locate(index: int, side: str) -> Source | None:
        return Source(file=file, line=doc.where(("links", index, side), value=True)[0])

    return locate


def _annotate_all(ctx: Context, fabric: Fabric) -> None:
    """Annotate every parsed state; a device whose annotation fails is left unchecked."""
    cables: dict[str, list[tuple[str, str, str]]] = {}
    for (dev, port), (peer_dev, peer_port) in ctx.inventory.peers().items():
        cables.setdefault(dev, []).append((port, peer_dev, peer_port))
    for name, state in list(ctx.states.items()):
        try:
            _annotate(state, fabric, cables)
        except Exception as exc:
            ctx.memo[FAILURES].append(Failure.of("annotating from the inventory", exc, name))
            del ctx.states[name]
            _missing(ctx, name, "internal-error", f"{type(exc).__name__}: {exc}")


def _read_devices(
    probe: Context, fabric: Fabric, snap: Snapshot, opts: CheckOptions
) -> dict[str, DeviceState]:
    """Parse each inventory device; record on `probe` why a device cannot be used."""
    states: dict[str, DeviceState] = {}
    only = _changed_devices(fabric, snap, opts)
    limited = _limited(fabric, opts.limit)
    for name, device in fabric.inventory.devices.items():
        if opts.progress:
            opts.progress(name)
        if only is not None and name not in only:
            why = (
                "not among the files named"
                if opts.files is not None
                else "unchanged since --changed-since"
            )
            _outside(probe, name, f"{why} (nor a cable neighbour of one)", partial=True)
            continue
        if limited is not None and name not in limited:
            _outside(probe, name, "not selected by --limit", partial=True)
            continue
        try:
            state = _load_one(probe, name, device.platform, snap, opts)
        except Exception as exc:  # a bug outside the parser proper: this device is unchecked
            probe.memo.setdefault(FAILURES, []).append(Failure.of("reading the device", exc, name))
            _missing(probe, name, "internal-error", f"{type(exc).__name__}: {exc}")
            continue
        if state is not None:
            states[name] = state
    return states


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


def _limited(fabric: Fabric, limit: list[str] | None) -> set[str] | None:
    """The devices `--limit` selects (None: all)."""
    if not limit:
        return None
    from fabriclint.collectors.limit import LimitError, select

    try:
        return set(select(fabric.inventory.devices, limit))
    except LimitError as exc:
        raise UsageError(str(exc)) from exc


def _changed_devices(fabric: Fabric, snap: Snapshot, opts: CheckOptions) -> set[str] | None:
    if opts.changed_since is None and opts.files is None:
        return None
    from fabriclint.changed import ChangedError, changed_files, select_devices

    inputs = Path(opts.configs) if opts.configs is not None else Path(snap.path)
    if opts.files is not None:  # named on the command line (pre-commit), not asked of git
        return select_devices(
            fabric.inventory, fabric.root, inputs, {f.resolve() for f in opts.files}
        )
    assert opts.changed_since is not None
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
            _outside(ctx, name, "hosts have no rendered config (--configs)")
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
    _require_ports(state, loaded.raw, ctx.cabled_count.get(name, 0))
    _drop_text(loaded.raw)
    share_fields_sets([state])
    unreadable = any(p.kind == "unparseable" for p in state.problems)
    ctx.status[name] = "unparseable" if unreadable else "ok"
    return state


def _drop_text(raw: Any) -> None:
    """Forget a parsed device's raw text: from here on only its file names are read (inline
    suppressions re-read their files), and on a large fabric the texts weigh ~100 MB."""
    for output in raw.outputs.values():
        output.text = ""


def _require_ports(state: DeviceState, raw: Any, cabled: int) -> None:
    """A cabled switch whose input defines no interface at all is the wrong input (a partial
    file, another device's), not a clean switch: an input problem, so the run is incomplete."""
    if cabled == 0 or state.is_host or state.infiniband is not None or state.interfaces:
        return
    if any(p.kind == "unparseable" for p in state.problems):
        return
    main = raw.outputs.get(CONFIG_COMMAND.get(raw.platform, "")) or next(
        iter(raw.outputs.values()), None
    )
    message = (
        f"no interface is defined in this input, but the cabling plan names {cabled} port(s) "
        f"of {state.name}: is it the device's whole configuration?"
    )
    source = Source(file=main.file, line=1) if main else None
    state.problems.append(InputProblem(kind="unparseable", message=message, source=source))


def _outside(ctx: Context, name: str, why: str, partial: bool = False) -> None:
    ctx.status[name] = "not-checked"
    ctx.outside[name] = why
    if partial:  # left out by a selection (not a host in --configs): a partial run
        ctx.partial.add(name)


def _missing(ctx: Context, name: str, status: str, why: str) -> None:
    ctx.status[name] = status
    ctx.missing[name] = f"{status}: {why}"


def _run_rules(
    ctx: Context,
    fabric: Fabric,
    selection: Selection,
    failures: list[Failure],
    rules: list[type[Rule[Any]]] | None = None,
) -> list[Finding]:
    """Run the selected rules; an exception inside one is contained (INTERNAL001) and the
    findings it yielded before failing are kept, so the other rules still report."""
    findings: list[Finding] = []
    _partial_gaps(ctx)
    for rule_cls in ALL_RULES if rules is None else rules:
        if not selection.selected(rule_cls.code):
            continue
        if ctx.partial and rule_cls.code in _MAJORITY_RULES:
            continue  # a majority over the devices checked is not the fabric's (_partial_gaps)
        options = rule_cls.options_model.model_validate(
            fabric.policy.options.get(rule_cls.code, {})
        )
        rule: Rule[Any] = rule_cls(options, selection.severity(rule_cls.code, rule_cls.severity))
        try:
            for finding in rule.check(ctx):
                findings.append(finding)
        except Exception as exc:  # a rule bug: incomplete (exit 3), never a crash or a pass
            failures.append(Failure.of(f"rule {rule_cls.code}", exc))
    if rules is None:
        findings += _run_site_rules(ctx, fabric, selection, failures)
    return findings


_MAJORITY_RULES = ("FAB001", "FAB002", "FAB003", "FAB004")
_LINK_RULES = ("PFC007", "MTU001", "MTU002", "NIC001")


def _partial_gaps(ctx: Context) -> None:
    """A run that leaves devices out (--limit, FILES, --changed-since) cannot vote on fabric
    consistency, nor compare a cable whose far end it did not read: say so (coverage)."""
    if not ctx.partial:
        return
    left_out = (
        f"the devices left out of this run ({len(ctx.partial)}: --limit, FILES or --changed-since)"
    )
    for name in ctx.states:
        for code in _MAJORITY_RULES:
            ctx.skip(code, name, f"a majority over the whole fabric, including {left_out}")
    for (device, _port), (peer, _peer_port) in ctx.inventory.peers().items():
        if device in ctx.states and peer in ctx.partial:
            for code in _LINK_RULES:
                ctx.skip(code, device, f"the far end of its cables to {left_out}")


def _run_site_rules(
    ctx: Context, fabric: Fabric, selection: Selection, failures: list[Failure]
) -> list[Finding]:
    findings: list[Finding] = []
    for site in fabric.policy.site_rules:
        if not selection.selected(site.code):
            continue
        for state in ctx.states.values():
            try:
                if applies(site, state):
                    findings.extend(check_site_rule(site, state, state.model_dump(mode="json")))
            except Exception as exc:  # e.g. a schema jsonschema cannot evaluate
                failures.append(Failure.of(f"site rule {site.code}", exc, state.name))
    return findings


def with_failures(report: Report, failures: list[Failure]) -> Report:
    """The report with each failure as an INTERNAL001 finding, marked incomplete."""
    if not failures:
        return report
    extra = [InternalError.report(f) for f in failures]
    counts = dict(report.summary.findings)
    counts["error"] = counts.get("error", 0) + len(extra)
    summary = report.summary.model_copy(update={"complete": False, "findings": counts})
    return report.model_copy(
        update={
            "summary": summary,
            "findings": sorted([*report.findings, *extra], key=_sort_key),
            "internal_errors": [
                *report.internal_errors,
                *(f"{f.where}: {f.error}" for f in failures),
            ],
        }
    )


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
            error = ctx.outside.get(name, "outside this check")
        out.append(
            DeviceSummary(
                name=name, platform=dev.platform, role=dev.role, status=status, error=error
            )
        )
    return out


def _sort_key(f: Finding) -> tuple[str, int, str, str, int, str, str]:
    where = (f.source.file, f.source.line or 0) if f.source else ("", 0)
    return (f.device or "", -SEVERITY_RANK[f.severity], f.rule, *where, f.object, f.path)


def _device_file(snap: Snapshot, device: str | None) -> Source | None:
    """The device's own main input (its configuration when it has one, else its first output)."""
    loaded = snap.devices.get(device or "")
    if loaded is None or loaded.raw is None or not loaded.raw.outputs:
        return None
    outputs = loaded.raw.outputs
    main = outputs.get(CONFIG_COMMAND.get(loaded.raw.platform, "")) or next(iter(outputs.values()))
    return Source(file=main.file)


def _locate(findings: list[Finding], snap: Snapshot) -> None:
    """A device finding with no source points at that device's own input, never at nothing
    (SARIF would otherwise anchor it to inventory.yaml, far from the PR line that caused it)."""
    for finding in findings:
        if finding.source is None and finding.device is not None:
            finding.source = _device_file(snap, finding.device)


def build_report(fabric: Fabric, snap: Snapshot, ctx: Context, findings: list[Finding]) -> Report:
    """Assemble the JSON report."""
    _locate(findings, snap)
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
    coverage = [
        Gap(rule=code, missing=missing, devices=sorted(devices))
        for code, gaps in sorted(ctx.skipped.items())
        for missing, devices in sorted(gaps.items())
    ]
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
def gc_paused() -> Iterator[None]:
    """Parsing allocates millions of small objects and few cycles: the cyclic collector's
    repeated passes over them cost ~30-50 % of parse time for nothing. It runs again after.
    The CLI keeps it off from parsing through the rendered reports (a 100-switch check leaves
    ~160 unreachable objects among ~430k: nothing to reclaim); nested uses are harmless."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def run_check(opts: CheckOptions) -> CheckResult:
    """Run a full offline check. Raises FabricError / SnapshotError for input errors (exit 2);
    an exception inside fabriclint past that point is contained: INTERNAL001, exit 3."""
    fabric = load_fabric(opts.fabric_dir, option_models())
    _check_cli_codes(opts, [*BY_CODE, *(r.code for r in fabric.policy.site_rules)])
    snap = find_snapshot(fabric, opts)
    with gc_paused():
        ctx = parse_snapshot(fabric, snap, opts)
    selection = Selection(
        fabric.policy,
        cli_select=opts.select,
        cli_ignore=opts.ignore,
        cli_extend_select=opts.extend_select,
    )
    baseline = read_baseline(opts.baseline) if opts.baseline is not None else None  # exit 2
    failures: list[Failure] = list(ctx.memo[FAILURES])
    found = _run_rules(ctx, fabric, selection, failures, opts.rules)
    findings = [f for f in found if _keep(f, ctx, fabric, selection)]
    try:
        findings += _suppress(findings, ctx, fabric, selection, (opts, baseline), failures)
    except Exception as exc:  # suppression failed: report everything unsuppressed, incomplete
        failures.append(Failure.of("suppression", exc))
        for finding in findings:
            finding.suppressed = None
    try:
        link_causes(findings)
    except Exception as exc:  # grouping is a view: the findings stand without it
        failures.append(Failure.of("root-cause grouping", exc))
    _add_fixes(findings, ctx, failures)
    report = with_failures(_report_or_minimal(fabric, snap, ctx, findings, failures), failures)
    fail_on: Severity = opts.fail_on or fabric.policy.fail_on or "error"
    return CheckResult(
        report=report,
        exit_code=exit_code_for(report, fail_on),
        states=ctx.states,
        fail_on=fail_on,
        failures=failures,
    )


def _add_fixes(findings: list[Finding], ctx: Context, failures: list[Failure]) -> None:
    """Fix-it hints in the vendor's syntax (fixes.py); a failure leaves the findings without."""
    from fabriclint.fixes import hint

    failed: set[str] = set()
    for finding in findings:
        device = finding.device
        try:
            finding.fix = hint(finding, ctx.states.get(device or ""), ctx.profile(device or ""))
        except Exception as exc:  # one failure per rule is enough to report; the rest go on
            if finding.rule not in failed:
                failed.add(finding.rule)
                failures.append(Failure.of(f"fix hint for {finding.rule}", exc, device))


def _report_or_minimal(
    fabric: Fabric, snap: Snapshot, ctx: Context, findings: list[Finding], failures: list[Failure]
) -> Report:
    """The report; if building it fails, one that still carries every finding (incomplete)."""
    try:
        return build_report(fabric, snap, ctx, findings)
    except Exception as exc:
        failures.append(Failure.of("building the report", exc))
        devices = [
            DeviceSummary(
                name=n, platform=d.platform, role=d.role, status=ctx.status.get(n, "missing")
            )
            for n, d in fabric.inventory.devices.items()
        ]
        counts = {sev: sum(1 for f in findings if f.severity == sev) for sev in SEVERITY_RANK}
        summary = Summary(devices=len(devices), complete=False, findings=counts, suppressed=0)
        return Report(
            fabriclint=__version__,
            fabric=fabric.inventory.name,
            snapshot=snap.path,
            summary=summary,
            devices=devices,
            findings=findings,
        )


def _selects(selection: Selection, prefix: str) -> bool:
    return any(code.startswith(prefix) and selection.selected(code) for code in BY_CODE)


def _suppress(
    findings: list[Finding],
    ctx: Context,
    fabric: Fabric,
    selection: Selection,
    given: tuple[CheckOptions, set[str] | None],
    failures: list[Failure],
) -> list[Finding]:
    """Mark suppressed findings in place; return the SUP findings about the suppressions."""
    opts, baseline = given
    policy = [s for s in fabric.policy.suppressions if _selects(selection, s.rule)]
    inline = inline_comments(findings, Path.cwd())
    for file, items in inline.items():
        inline[file] = [i for i in items if any(_selects(selection, c) for c in i.codes)]
    outcome = apply(findings, policy, inline, baseline, opts.today)
    _locate_policy_notes(outcome.notes, policy, fabric)
    notes: dict[str, list[Finding]] = {}
    for note in outcome.notes:
        notes.setdefault(note.rule, []).append(note)
    ctx.memo[NOTES] = notes
    return _run_rules(ctx, fabric, selection, failures, sup.RULES)


def _locate_policy_notes(notes: list[Finding], policy: list[Any], fabric: Fabric) -> None:
    """SUP001/SUP002 on a policy suppression point at its line in policy.yaml."""
    doc = fabric.docs.get("policy")
    raw = doc.data.get("suppressions") if doc is not None and isinstance(doc.data, dict) else None
    if doc is None or not isinstance(raw, list):
        return
    file = display_path(fabric.root / "policy.yaml")
    for note in notes:
        index = note.path.removeprefix("suppressions.")
        if note.source is not None or not index.isdigit() or int(index) >= len(policy):
            continue
        wanted = policy[int(index)]
        for position, entry in enumerate(raw):
            same = isinstance(entry, dict) and entry.get("rule") == wanted.rule
            if same and entry.get("device", "*") == wanted.device:
                note.source = Source(file=file, line=doc.where(("suppressions", position))[0])
                break


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
