"""The check engine: a fabric and a snapshot in, a report and an exit code out, as explicit stages.

    load -> read -> parse -> annotate -> rules -> drift -> suppress -> report

Each stage is a function over a typed record (docs/architecture.md, "Data flow"):

- **load** (`load`): the fabric folder, the snapshot or configs folder, the selection, the
  baseline and the device choices -> `Loaded`. Every input or usage error is raised here
  (exit 2); no later stage raises.
- **read** (`read`): which inventory devices have input to parse, and why each other one is not
  checked -> `Readout` (the raw inputs, and a `Ledger` of statuses).
- **parse** (`parse`): each raw device -> its DeviceState -> `Parsed`.
- **annotate** (`annotate`): roles, neighbours and the cabling plan spelled as each device spells
  its ports -> `Annotated` (the rules' `Context`).
- **rules** (`rules`): the catalog's rules and the policy's site rules -> findings.
- **drift** (`drift`): each device against the settings its intent profile declares -> DRIFT001
  and DRIFT002 findings (one comparison per device serves both).
- **suppress** (`suppress`): policy, inline and baseline suppressions marked in place -> the SUP
  findings about the suppressions themselves.
- **report** (`report`): root causes, fix hints, the Report and its exit code -> `CheckResult`.

Every stage after load contains its exceptions: each becomes a `Failure` (an INTERNAL001
finding naming the part that failed), the rest of the report is still produced, and the exit
code is 3.
"""

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
from typing import TYPE_CHECKING, Any

from fabriclint import __version__, platforms
from fabriclint.causes import link_causes
from fabriclint.drift.compare import Drift, compare
from fabriclint.intent.render import render
from fabriclint.loaders.fabric import Fabric, display_path, inventory_path, load_fabric
from fabriclint.models.common import Source, construct
from fabriclint.models.compact import share_annotated_fields_sets, share_fields_sets
from fabriclint.models.finding import SEVERITY_RANK, DeviceSummary, Finding, Gap, Report, Summary
from fabriclint.models.inventory import Inventory, Link
from fabriclint.models.policy import Severity
from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState, InputProblem
from fabriclint.parsers import get_parser
from fabriclint.rules import sup
from fabriclint.rules.base import Context, Rule
from fabriclint.rules.drift import NO_PROFILE, SettingDrift
from fabriclint.rules.internal import Failure, InternalError
from fabriclint.rules.registry import ALL_RULES, BY_CODE, REMOVED
from fabriclint.selection import Selection
from fabriclint.site_rules import applies, check_site_rule
from fabriclint.snapshot import (
    LoadedDevice,
    Snapshot,
    SnapshotError,
    load_configs,
    load_snapshot,
    main_config_key,
    named_snapshot,
    newest_snapshot,
    read_all,
    read_device,
)
from fabriclint.suppress import apply, inline_comments, read_baseline

if TYPE_CHECKING:
    from fabriclint.reporters import Cable


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
    jobs: int | None = None
    """Processes that parse the devices (`--jobs`): None chooses (fabriclint/jobs.py), 1 parses
    in this process."""


@dataclass
class CheckResult:
    """The report and the exit code it implies, with what the run loaded and parsed."""

    report: Report
    exit_code: ExitCode
    fabric: Fabric
    """The fabric as loaded (callers such as nightly and diff reuse it: no second YAML read)."""
    states: dict[str, DeviceState] = field(default_factory=dict)
    fail_on: Severity = "error"
    """The severity threshold that decided the exit code."""
    failures: list[Failure] = field(default_factory=list)
    """Exceptions contained during the run (each is an INTERNAL001 finding; exit 3)."""
    context: Context | None = None
    """What the rules saw (the HTML map reads its cables: `fabric_cables`)."""

    def contain(self, failure: Failure) -> None:
        """Record a failure found after the report was built (a reporter): incomplete, exit 3."""
        self.failures.append(failure)
        self.report = with_failures(self.report, [failure])
        self.exit_code = ExitCode.INCOMPLETE


def option_models() -> dict[str, type[Any]]:
    """Rule code -> its Options model (for policy validation)."""
    return {rule.code: rule.options_model for rule in ALL_RULES}


class UsageError(Exception):
    """A command-line value that names nothing (exit 2)."""


# ---- stage 1: load ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """A filter on the inventory devices a run checks (FILES, --changed-since, --limit)."""

    names: set[str]
    """The devices it keeps."""
    why: str
    """Why a device it does not keep is not checked (the report's `error` of that device)."""


@dataclass
class Loaded:
    """Stage 1's record: everything read from the fabric folder and the command line."""

    opts: CheckOptions
    fabric: Fabric
    snapshot: Snapshot
    choices: list[Choice]
    """Device filters, in the order they are applied (the first that leaves a device out says why)."""
    selection: Selection
    baseline: set[str] | None
    """Accepted fingerprints (`--baseline`), None without one."""
    fail_on: Severity


def load(opts: CheckOptions) -> Loaded:
    """Stage 1 (load): read the fabric, the snapshot, the baseline and the choices of devices and
    rules. Raises FabricError / SnapshotError / BaselineError / UsageError (exit 2): an input
    problem stops the run before anything is checked."""
    fabric = load_fabric(opts.fabric_dir, option_models())
    _check_cli_codes(opts, [*BY_CODE, *(r.code for r in fabric.policy.site_rules)])
    snap = find_snapshot(fabric, opts, lazy=True)
    selection = Selection(
        fabric.policy,
        cli_select=opts.select,
        cli_ignore=opts.ignore,
        cli_extend_select=opts.extend_select,
    )
    require_rules(fabric, selection, opts)
    return Loaded(
        opts=opts,
        fabric=fabric,
        snapshot=snap,
        choices=device_choices(fabric, snap, opts),
        selection=selection,
        baseline=read_baseline(opts.baseline) if opts.baseline is not None else None,
        fail_on=opts.fail_on or fabric.policy.fail_on or "error",
    )


_CHECKED_STAGES = ("rules", "drift")
"""The stages whose rules judge the devices (SUP judges suppressions, INTERNAL001 fabriclint)."""


def require_rules(fabric: Fabric, selection: Selection, opts: CheckOptions) -> None:
    """A selection that leaves no rule to judge this fabric is a usage error, never a clean
    run: `ignore: [ALL]`, `select: []`, `--select BENCH` (rules `check` feeds nothing), or only
    rules for device kinds the fabric lacks (`--select IB` on RoCE) would check nothing."""
    if opts.rules is None and any(selection.selected(s.code) for s in fabric.policy.site_rules):
        return
    chosen = [
        rule
        for rule in (ALL_RULES if opts.rules is None else opts.rules)
        if rule.stage in _CHECKED_STAGES and selection.selected(rule.code)
    ]
    runnable = [rule for rule in chosen if rule.command is None]
    kinds = fabric_kinds(fabric)
    if any(rule.kinds is None or rule.kinds & kinds for rule in runnable):
        return
    origin = selection_origin(fabric, opts)
    if not chosen:
        raise UsageError(f"{origin}: the rule selection leaves no rule to run: nothing to check")
    if not runnable:
        commands = " and ".join(sorted({f"`fabriclint {r.command}`" for r in chosen}))
        raise UsageError(
            f"{origin}: the rules selected judge only {commands} runs: nothing to check"
        )
    from fabriclint.rules.ib_fleet import IB_HOST

    wanted = {k for r in runnable for k in r.kinds or ()}
    devices = ", ".join(sorted(wanted - {IB_HOST}))
    hosts = " or the hosts of an intent profile declaring `infiniband`" if IB_HOST in wanted else ""
    raise UsageError(
        f"{origin}: the rules selected judge only {devices} devices{hosts} and "
        f"{fabric.inventory.name} has none (its kinds: {', '.join(sorted(kinds)) or 'none'}): "
        "nothing to check"
    )


def fabric_kinds(fabric: Fabric) -> set[str]:
    """The device kinds a rule's `kinds` is matched with: the inventory's platforms' kinds, and
    IB_HOST where an intent profile declares `infiniband` (HCA rules judge its hosts without an SM node)."""
    from fabriclint.rules.ib_fleet import IB_HOST

    kinds: set[str] = {platforms.kind_of(d.platform) for d in fabric.inventory.devices.values()}
    profiles = fabric.intent.profiles.values() if fabric.intent is not None else ()
    if any(profile.infiniband is not None for profile in profiles):
        kinds.add(IB_HOST)
    return kinds


def selection_origin(fabric: Fabric, opts: CheckOptions) -> str:
    """Where the rule selection came from: the command-line options that decide it, else the
    policy file and the line of its `select` (or `ignore`) key."""
    given = [
        ("--select", opts.select),
        ("--extend-select", opts.extend_select),
        ("--ignore", opts.ignore),
    ]
    flags = [f"{flag} {','.join(codes) or '(none)'}" for flag, codes in given if codes]
    if opts.select == []:
        flags.insert(0, "--select (none)")
    if opts.select is not None:
        return " ".join(flags)
    doc = fabric.docs.get("policy")
    file = display_path(fabric.root / "policy.yaml")
    data = doc.data if doc is not None and isinstance(doc.data, dict) else {}
    key = next((k for k in ("select", "ignore", "extend_select") if k in data), None)
    if doc is None or key is None:  # the policy says nothing of the selection: the CLI does
        return " ".join(flags) or file
    return " ".join([f"{file}:{doc.where((key,))[0]}", *flags])


def find_snapshot(fabric: Fabric, opts: CheckOptions, lazy: bool = False) -> Snapshot:
    """Read the snapshot or configs folder the options name (newest snapshot by default).
    `lazy`: a snapshot's device files are read as the parse stage reaches each device
    (`snapshot.load_snapshot`); the stages from annotate on see every device read."""
    platforms = {name: dev.platform for name, dev in fabric.inventory.devices.items()}
    if opts.configs is not None:
        return load_configs(Path(opts.configs), platforms, base=Path.cwd())
    if opts.snapshot is not None:
        path = Path(opts.snapshot)
        if not path.is_dir() and (fabric.root / "snapshots" / str(opts.snapshot)).is_dir():
            path = named_snapshot(fabric.root, str(opts.snapshot))
        return load_snapshot(path, base=Path.cwd(), lazy=lazy)
    newest = newest_snapshot(fabric.root / "snapshots")
    if newest is None:
        raise SnapshotError(
            f"{fabric.root / 'snapshots'}: no snapshot found (no folder with a manifest.json); "
            f"collect one with `fabriclint collect {fabric.root}` (or check --live), or pass "
            "--snapshot NAME|PATH, or --configs DIR for a folder of rendered configs"
        )
    return load_snapshot(newest, base=Path.cwd(), lazy=lazy)


def device_choices(fabric: Fabric, snap: Snapshot, opts: CheckOptions) -> list[Choice]:
    """The device filters the options ask for (UsageError for a bad --limit or git ref)."""
    choices = []
    only = _changed_devices(fabric, snap, opts)
    if only is not None:
        why = (
            "not among the files named"
            if opts.files is not None
            else "unchanged since --changed-since"
        )
        choices.append(Choice(only, f"{why} (nor a cable neighbour of one)"))
    limited = _limited(fabric, opts.limit)
    if limited is not None:
        choices.append(Choice(limited, "not selected by --limit"))
    return choices


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


def _check_cli_codes(opts: CheckOptions, codes: list[str]) -> None:
    """Unknown codes on the command line are errors: a typo must never select nothing silently."""
    for flag, values in (
        ("--select", opts.select or []),
        ("--extend-select", opts.extend_select),
        ("--ignore", opts.ignore),
    ):
        for code in values:
            if code in REMOVED:
                raise UsageError(f"{flag}: rule '{code}' was removed ({REMOVED[code]})")
            if code != "ALL" and not any(c.startswith(code) for c in codes):
                hint = difflib.get_close_matches(code, codes, n=1)
                tip = f"; did you mean '{hint[0]}'?" if hint else ""
                raise UsageError(f"{flag}: unknown rule code '{code}'{tip}")


# ---- stage 2: read ------------------------------------------------------------------------------


@dataclass
class Ledger:
    """Why each inventory device is, or is not, checked: kept by read, parse and annotate, then
    handed to the rules' Context and the report."""

    status: dict[str, str] = field(default_factory=dict)
    """Device -> status word (ok, unparseable, missing, unreachable, not-checked, ...)."""
    missing: dict[str, str] = field(default_factory=dict)
    """Devices with no usable data -> 'status: why' (DRIFT003)."""
    outside: dict[str, str] = field(default_factory=dict)
    """Devices deliberately left out of this check -> why (status not-checked)."""
    partial: set[str] = field(default_factory=set)
    """Devices a choice left out (--limit, FILES, --changed-since): the run is partial."""
    cabled_count: dict[str, int] = field(default_factory=dict)
    """Device -> how many link ends the cabling plan gives it."""
    failures: list[Failure] = field(default_factory=list)
    """Exceptions contained while reading, parsing and annotating devices."""

    def leave_out(self, name: str, why: str, partial: bool = False) -> None:
        """`name` is deliberately not checked (a choice left it out when `partial`)."""
        self.status[name] = "not-checked"
        self.outside[name] = why
        if partial:  # left out by a choice (not a host in --configs): a partial run
            self.partial.add(name)

    def lose(self, name: str, status: str, why: str) -> None:
        """`name` should have been checked but cannot be (DRIFT003, the run is incomplete)."""
        self.status[name] = status
        self.missing[name] = f"{status}: {why}"

    def fail(self, name: str, part: str, exc: Exception) -> None:
        """A bug in fabriclint's `part` while handling `name`: contained (INTERNAL001), and the
        device is unchecked (the run is incomplete)."""
        self.failures.append(Failure.of(part, exc, name))
        self.lose(name, "internal-error", f"{type(exc).__name__}: {exc}")


@dataclass
class DeviceInput:
    """One device's raw input, and the inventory platform whose parser reads it."""

    platform: str
    raw: RawDevice
    loaded: LoadedDevice | None = None
    """The snapshot's entry when its files are still to be read (a lazily loaded snapshot)."""


@dataclass
class Readout:
    """Stage 2's record: the devices to parse (in inventory order) and the ledger so far."""

    inputs: dict[str, DeviceInput]
    ledger: Ledger


def read(fabric: Fabric, snap: Snapshot, opts: CheckOptions, choices: list[Choice]) -> Readout:
    """Stage 2 (read): each inventory device's raw input, or why it has none usable (missing,
    a collection status, a platform mismatch, left out by a choice)."""
    ledger = Ledger()
    for link in fabric.inventory.links:
        for end, _port in link.ends():
            ledger.cabled_count[end] = ledger.cabled_count.get(end, 0) + 1
    inputs: dict[str, DeviceInput] = {}
    for name, device in fabric.inventory.devices.items():
        left_out = next((c.why for c in choices if name not in c.names), None)
        if left_out is not None:
            ledger.leave_out(name, left_out, partial=True)
            continue
        if device.managed_by is not None:
            ledger.leave_out(name, _managed(device.managed_by))
            continue
        try:
            found = _read_one(ledger, name, device.platform, snap, opts)
        except Exception as exc:  # a bug outside the parser proper: this device is unchecked
            ledger.fail(name, "reading the device", exc)
            continue
        if found is not None:
            inputs[name] = found
    return Readout(inputs, ledger)


def _managed(manager: str) -> str:
    """Why a device another one runs (an InfiniBand switch) is not checked itself."""
    return (
        f"run by {manager}: not logged into; its cables are judged from {manager}'s ibnetdiscover"
    )


def _read_one(
    ledger: Ledger, name: str, platform: str, snap: Snapshot, opts: CheckOptions
) -> DeviceInput | None:
    """One inventory device's input, or None with why it cannot be checked in the ledger."""
    loaded = snap.devices.get(name)
    if loaded is None:
        if opts.configs is not None and platforms.kind_of(platform) == "host":
            ledger.leave_out(name, "hosts have no rendered config (--configs)")
            return None
        ledger.lose(name, "missing", "no data in the snapshot")
        return None
    if loaded.raw is None:
        ledger.lose(name, loaded.status, loaded.error or "no reason given")
        return None
    if opts.configs is None and loaded.raw.platform != platform:
        why = f"the snapshot says platform '{loaded.raw.platform}', the inventory '{platform}'"
        ledger.lose(name, "platform-mismatch", why)
        return None
    return DeviceInput(platform, loaded.raw, loaded if loaded.unread else None)


# ---- stage 3: parse -----------------------------------------------------------------------------


@dataclass
class Parsed:
    """Stage 3's record: the state of every device that has one, and the ledger so far."""

    states: dict[str, DeviceState]
    ledger: Ledger


def parse(readout: Readout, opts: CheckOptions) -> Parsed:
    """Stage 3 (parse): each device's input through its platform's parser. A parser that fails
    leaves the device unparseable (PARSE003, exit 3); a platform without a parser, unsupported."""
    from fabriclint.jobs import choose_jobs  # small: the pool's own imports wait for a pool

    ledger = readout.ledger
    jobs = choose_jobs(opts.jobs, len(readout.inputs))
    if jobs > 1:
        from fabriclint.jobs import parse_in_workers

        return Parsed(parse_in_workers(readout, jobs, opts.progress), ledger)
    states: dict[str, DeviceState] = {}
    for name, found in readout.inputs.items():
        if opts.progress:
            opts.progress(name)
        state = parse_input(ledger, name, found)
        if state is not None:
            states[name] = state
    return Parsed(states, ledger)


def parse_input(ledger: Ledger, name: str, found: DeviceInput) -> DeviceState | None:
    """One device through its parser, its status in the ledger; a bug outside the parser proper
    is contained (INTERNAL001) and leaves the device unchecked (None)."""
    try:
        return _parse_device(ledger, name, found)
    except Exception as exc:
        ledger.fail(name, "reading the device", exc)
        return None


def _parse_device(ledger: Ledger, name: str, found: DeviceInput) -> DeviceState | None:
    """One device's state with its status in the ledger (None: no parser for its platform, or
    files that turn out unreadable when a lazily loaded device is read)."""
    if found.loaded is not None:
        read_device(found.loaded)
        if found.loaded.raw is None:
            ledger.lose(name, found.loaded.status, found.loaded.error or "no reason given")
            return None
        found.raw = found.loaded.raw
    state, reason = _parse_one(found.raw, found.platform)
    if state is None:
        ledger.lose(name, "unsupported", reason or "not parsed")
        return None
    _require_ports(state, found.raw, ledger.cabled_count.get(name, 0))
    _drop_text(found.raw)
    share_fields_sets([state])
    unreadable = any(p.kind == "unparseable" for p in state.problems)
    ledger.status[name] = "unparseable" if unreadable else "ok"
    return state


def _parse_one(raw: Any, platform: str) -> tuple[DeviceState | None, str | None]:
    parser = get_parser(platform)
    if parser is None:
        return None, f"no parser for platform '{platform}' yet"  # unsupported
    return parser(raw), None  # a parser never raises (parsers/kit/internal.never_raises)


def _drop_text(raw: Any) -> None:
    """Forget a parsed device's raw text (on a large fabric the texts weigh ~100 MB): from here
    on only file names are read, except by inline suppression, so an output that holds a
    `fabriclint:` comment keeps its text for the suppress stage."""
    for output in raw.outputs.values():
        if "fabriclint:" not in output.text:
            output.text = ""


def _require_ports(state: DeviceState, raw: Any, cabled: int) -> None:
    """A cabled switch whose input defines no interface at all is the wrong input (a partial
    file, another device's), not a clean switch: an input problem, so the run is incomplete."""
    if cabled == 0 or state.is_host or state.infiniband is not None or state.interfaces:
        return
    if any(p.kind == "unparseable" for p in state.problems):
        return
    main = raw.outputs.get(main_config_key(raw.platform) or "") or next(
        iter(raw.outputs.values()), None
    )
    message = (
        f"no interface is defined in this input, but the cabling plan names {cabled} port(s) "
        f"of {state.name}: is it the device's whole configuration?"
    )
    source = Source(file=main.file, line=1) if main else None
    state.problems.append(InputProblem(kind="unparseable", message=message, source=source))


# ---- stage 4: annotate --------------------------------------------------------------------------


@dataclass
class Annotated:
    """Stage 4's record: what the rules see, and the failures contained up to here."""

    ctx: Context
    failures: list[Failure]


def annotate(fabric: Fabric, snap: Snapshot, parsed: Parsed) -> Annotated:
    """Stage 4 (annotate): spell the cabling plan as each device spells its ports, fill roles,
    interface roles and neighbours from it, and build the rules' Context. A device whose
    annotation fails is left unchecked (INTERNAL001)."""
    read_all(snap)  # what nothing parsed (left out, not in the inventory): as an eager load
    ledger, states = parsed.ledger, dict(parsed.states)
    inventory = canonical_links(fabric.inventory, states)
    cables: dict[str, list[tuple[str, str, str]]] = {}
    for (dev, port), (peer_dev, peer_port) in inventory.peers().items():
        cables.setdefault(dev, []).append((port, peer_dev, peer_port))
    for name, state in list(states.items()):
        try:
            _annotate(state, fabric, cables)
        except Exception as exc:
            del states[name]
            ledger.fail(name, "annotating from the inventory", exc)
    share_annotated_fields_sets(states.values())  # no state changes from here (memory)
    ctx = Context(
        inventory=inventory,
        intent=fabric.intent,
        states=states,
        missing=ledger.missing,
        status=ledger.status,
        outside=ledger.outside,
        partial=ledger.partial,
        cabled_count=ledger.cabled_count,
        unverified=snap.unverified,
        locate_link_end=_link_locator(fabric),
    )
    for name, loaded in snap.devices.items():
        if name not in fabric.inventory.devices:
            ctx.unexpected[name] = loaded.raw.platform if loaded.raw else "unknown platform"
    return Annotated(ctx, list(ledger.failures))


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
        iface.role = (
            "host-facing" if peer and platforms.kind_of(peer.platform) == "host" else "fabric"
        )


def _link_locator(fabric: Fabric) -> Callable[[int, str], Source | None] | None:
    doc = fabric.docs.get("inventory")
    if doc is None:
        return None
    file = display_path(inventory_path(fabric.root))

    def locate(index: int, side: str) -> Source | None:
        return Source(file=file, line=doc.where(("links", index, side), value=True)[0])

    return locate


def parse_snapshot(fabric: Fabric, snap: Snapshot, opts: CheckOptions) -> Context:
    """Stages 2-4 without rules (nightly parses the previous night with it): the Context of
    every device the options choose; devices that cannot be used are recorded as missing."""
    readout = read(fabric, snap, opts, device_choices(fabric, snap, opts))
    return annotate(fabric, snap, parse(readout, opts)).ctx


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


# ---- stage 5: rules -----------------------------------------------------------------------------

_MAJORITY_RULES = ("FAB001", "FAB002", "FAB003", "FAB004")
_LINK_RULES = ("PFC007", "MTU001", "MTU002", "NIC001")


def rules(loaded: Loaded, ctx: Context, failures: list[Failure]) -> list[Finding]:
    """Stage 5 (rules): run the selected rules of the rules stage, then the policy's site rules.
    An exception inside one is contained (INTERNAL001) and the findings it yielded before
    failing are kept, so the other rules still report."""
    findings: list[Finding] = []
    _partial_gaps(ctx)
    for rule in _instances(loaded, "rules"):
        if ctx.partial and rule.code in _MAJORITY_RULES:
            continue  # a majority over the devices checked is not the fabric's (_partial_gaps)
        try:
            for finding in rule.check(ctx):
                findings.append(finding)
        except Exception as exc:  # a rule bug: incomplete (exit 3), never a crash or a pass
            failures.append(Failure.of(f"rule {rule.code}", exc))
    if loaded.opts.rules is None:
        findings += _run_site_rules(ctx, loaded.fabric, loaded.selection, failures)
    return findings


def _instances(
    loaded: Loaded, stage: str, classes: list[type[Rule[Any]]] | None = None
) -> list[Rule[Any]]:
    """The selected rules of one stage among `classes` (by default the whole catalog, or the
    rule classes the options inject), each with its policy options and severity."""
    chosen = classes or (ALL_RULES if loaded.opts.rules is None else loaded.opts.rules)
    out: list[Rule[Any]] = []
    for rule_cls in chosen:
        if rule_cls.stage != stage or not loaded.selection.selected(rule_cls.code):
            continue
        given = loaded.fabric.policy.options.get(rule_cls.code)
        model = rule_cls.options_model
        # The defaults need no validation (nor the class's validator built: most are deferred).
        options = model.model_validate(given) if given else construct(model)
        severity = loaded.selection.severity(rule_cls.code, rule_cls.severity)
        out.append(rule_cls(options, severity))
    return out


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


def _keep(finding: Finding, ctx: Context, fabric: Fabric, selection: Selection) -> bool:
    device = finding.device
    role = fabric.inventory.devices[device].role if device in fabric.inventory.devices else None
    return not selection.ignored_on(finding.rule, device, role)


# ---- stage 6: drift -----------------------------------------------------------------------------


def drift(loaded: Loaded, ctx: Context, failures: list[Failure]) -> list[Finding]:
    """Stage 6 (drift): compare each checked device with the settings its intent profile
    declares and report the differences (DRIFT001) and the absences (DRIFT002)."""
    reporters = [r for r in _instances(loaded, "drift") if isinstance(r, SettingDrift)]
    return drift_findings(ctx, reporters, failures) if reporters else []


def drift_findings(
    ctx: Context, reporters: list[SettingDrift], failures: list[Failure]
) -> list[Finding]:
    """The drift stage over a Context: one comparison per device serves every reporter. A
    device no profile applies to is a coverage gap; a comparison that fails is contained for
    that device (INTERNAL001)."""
    compared: dict[str, list[Drift]] = {}
    for state in ctx.states.values():
        try:
            found = device_drift(ctx, state)
        except Exception as exc:  # a comparison bug: this device's drift is unknown, exit 3
            failures.append(Failure.of("drift comparison", exc, state.name))
            continue
        if found is None:
            for rule in reporters:
                ctx.skip(rule.code, state.name, NO_PROFILE)
            continue
        compared[state.name] = found
    findings: list[Finding] = []
    for rule in reporters:  # rule by rule, then device by device
        for device, drifts in compared.items():
            findings.extend(rule.report(ctx, device, drifts))
    return findings


def device_drift(ctx: Context, state: DeviceState) -> list[Drift] | None:
    """Every setting `state`'s intent profile declares that the device lacks or has
    differently (None when no profile applies to the device)."""
    profile = ctx.profile(state.name)
    if profile is None:
        return None
    ports = [p.name for p in ctx.rdma_ports(state)]
    roce_dscp = profile.roce.dscp[0] if profile.roce else None
    return compare(state, render(profile, state, ports, ctx.states), roce_dscp)


# ---- stage 7: suppress --------------------------------------------------------------------------


def suppress(
    loaded: Loaded, ctx: Context, findings: list[Finding], failures: list[Failure]
) -> list[Finding]:
    """Stage 7 (suppress): mark the findings policy, inline comments or the baseline accept
    (in place, never dropped) and return the SUP findings about the suppressions themselves.
    Inline comments are read from the texts the run already holds. If suppression fails, every
    finding is reported unsuppressed and the run is incomplete."""
    try:
        policy = [
            s for s in loaded.fabric.policy.suppressions if _selects(loaded.selection, s.rule)
        ]
        inline = inline_comments(findings, read_texts(loaded.fabric, loaded.snapshot))
        for file, items in inline.items():
            inline[file] = [i for i in items if any(_selects(loaded.selection, c) for c in i.codes)]
        outcome = apply(findings, policy, inline, loaded.baseline, loaded.opts.today)
        _locate_policy_notes(outcome.notes, policy, loaded.fabric)
        return [
            rule.report(note)
            for rule in _instances(loaded, "suppress", sup.RULES)
            if isinstance(rule, sup.SuppressionRule)
            for note in outcome.notes
            if note.rule == rule.code
        ]
    except Exception as exc:  # suppression failed: report everything unsuppressed, incomplete
        failures.append(Failure.of("suppression", exc))
        for finding in findings:
            finding.suppressed = None
        return []


def read_texts(fabric: Fabric, snap: Snapshot) -> dict[str, str]:
    """Every text the run read, by the file name findings give it: the devices' outputs and
    the fabric's YAML files."""
    texts = {
        output.file: output.text
        for device in snap.devices.values()
        if device.raw is not None
        for output in device.raw.outputs.values()
    }
    for name, doc in fabric.docs.items():
        texts.setdefault(display_path(fabric.root / f"{name}.yaml"), doc.text)
        texts.setdefault(doc.file, doc.text)
    return texts


def _selects(selection: Selection, prefix: str) -> bool:
    return any(code.startswith(prefix) and selection.selected(code) for code in BY_CODE)


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


# ---- stage 8: report ----------------------------------------------------------------------------


def report(
    loaded: Loaded, ctx: Context, findings: list[Finding], failures: list[Failure]
) -> CheckResult:
    """Stage 8 (report): link root causes, add fix hints, build the report (every failure an
    INTERNAL001 finding) and decide the exit code."""
    try:
        link_causes(findings)
    except Exception as exc:  # grouping is a view: the findings stand without it
        failures.append(Failure.of("root-cause grouping", exc))
    _add_fixes(findings, ctx, failures)
    built = _report_or_minimal(loaded.fabric, loaded.snapshot, ctx, findings, failures)
    final = with_failures(built, failures)
    return CheckResult(
        report=final,
        exit_code=exit_code_for(final, loaded.fail_on),
        fabric=loaded.fabric,
        states=ctx.states,
        fail_on=loaded.fail_on,
        failures=failures,
        context=ctx,
    )


def fabric_cables(ctx: Context) -> list[Cable]:
    """The cables the run judged, for the HTML map: the plan's links as each device spells its
    ports, then the cables LLDP shows that the plan lacks (the CAB rules' comparison, memoized
    in the context: nothing is parsed again)."""
    from fabriclint.reporters import Cable
    from fabriclint.rules.cab import cabling, key

    cables = [Cable(*link.ends()) for link in ctx.inventory.links]
    observed = cabling(ctx).observed
    if observed:
        planned = {frozenset((key(c.a), key(c.b))) for c in cables}
        cables += [Cable(*o.ends, seen="lldp") for p, o in observed.items() if p not in planned]
    return cables


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
    main = outputs.get(main_config_key(loaded.raw.platform) or "") or next(iter(outputs.values()))
    return Source(file=main.file)


def _locate(findings: list[Finding], snap: Snapshot) -> None:
    """A device finding with no source points at that device's own input, never at nothing
    (SARIF would otherwise anchor it to inventory.yaml, far from the PR line that caused it)."""
    for finding in findings:
        if finding.source is None and finding.device is not None:
            finding.source = _device_file(snap, finding.device)


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


# ---- the whole run ------------------------------------------------------------------------------


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
    """Run a full offline check, stage by stage. Raises FabricError / SnapshotError (exit 2)
    for input errors; an exception inside fabriclint past loading is contained: INTERNAL001,
    exit 3."""
    loaded = load(opts)
    with gc_paused():
        readout = read(loaded.fabric, loaded.snapshot, opts, loaded.choices)
        annotated = annotate(loaded.fabric, loaded.snapshot, parse(readout, opts))
    ctx, failures = annotated.ctx, annotated.failures
    found = rules(loaded, ctx, failures) + drift(loaded, ctx, failures)
    findings = [f for f in found if _keep(f, ctx, loaded.fabric, loaded.selection)]
    findings += suppress(loaded, ctx, findings, failures)
    return report(loaded, ctx, findings, failures)
