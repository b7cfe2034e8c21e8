"""FAB rules (fabric-wide consistency) and the fleet helpers the NIC and MTU rules share.

A fabric-wide rule compares one setting across devices. The value most devices have is the
reference; the devices that differ are reported, once each, naming the reference and how many
devices have it on every port compared (a device whose own ports differ is never counted as
having the reference). When the most common values tie there is no reference, and every device
of the split is reported with how the devices are split; a rule that asks for a `quorum`
(FAB002, FAB003) reports nothing then, nor when fewer devices than the quorum are compared: a
1-vs-1 split does not say which side is right.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from fabriclint.models.common import Source
from fabriclint.models.finding import Finding
from fabriclint.models.resolve import Resolution, lossless_priorities, resolve_qos
from fabriclint.models.state import (
    DeviceState,
    EcnConfig,
    Interface,
    PfcConfig,
    QueueConfig,
    RdmaPort,
)
from fabriclint.rules.base import Context, NoOptions, Rule
from fabriclint.rules.scope import (
    first,
    infiniband_only,
    is_infiniband,
    names,
    ordered,
    owner,
    pfc_source,
    roce_ports,
)

# ---- fleet helpers ------------------------------------------------------------------------------


def hosts(ctx: Context) -> list[DeviceState]:
    """Hosts (servers with NICs), by name."""
    return [state for state in ordered(ctx) if state.is_host]


def is_switch(state: DeviceState) -> bool:
    """True for a switch (not a host, not an InfiniBand subnet-manager node)."""
    return state.kind == "switch"


def host_nics(ctx: Context, state: DeviceState, code: str, *, roce: bool = False) -> list[RdmaPort]:
    """RDMA ports of a host that are in the cabling plan (only RoCE ones when `roce`).

    Records a skip of `code` when a cabled netdev has no RDMA facts.
    """
    cabled = ctx.cabled_ports(state.name)
    ports = [state.rdma[name] for name in cabled if name in state.rdma]
    if len(ports) < len(cabled):
        ctx.skip(
            code, state.name, "RDMA facts (`ibdev2netdev`, `ibv_devinfo -v`) of each cabled netdev"
        )
    return [port for port in ports if not (roce and is_infiniband(state, port.netdev))]


@dataclass(frozen=True)
class Setting:
    """One setting as compared across devices: two settings are equal when their text is."""

    text: str
    path: str = field(compare=False)
    source: Source | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return self.text


Reader = Callable[[Interface], Setting | None]
"""Reads one setting in force on a port; None when the inputs do not show it."""


@dataclass(frozen=True)
class Consensus:
    """How devices split over one setting, and the devices that differ from the majority."""

    ranked: list[tuple[Setting, int]]
    """Each distinct setting and how many devices have it (somewhere), most common first."""
    voters: int
    """Devices compared."""
    outliers: dict[str, dict[str, Setting]]
    """Device -> the scopes (ports, netdevs) where it differs from the majority; with no
    majority (a tie), every device and scope."""
    sizes: dict[str, int]
    """Device -> how many scopes were compared."""
    reference: Setting | None
    """The majority setting (or, on a tie, the tied setting intent declares); None otherwise."""
    uniform: int = 0
    """Devices that have the reference on every scope compared."""

    @property
    def value(self) -> Setting | None:
        """The reference setting; None when the most common settings tie and intent is silent."""
        return self.reference

    def summary(self, peers: str) -> str:
        """'3 of 4 leaf switches have X', or 'leaf switches are split: 1 with X vs 1 with Y'."""
        if self.value is not None and self.uniform == self.ranked[0][1]:
            return f"{self.uniform} of {self.voters} {peers} have {self.value}"
        if self.value is not None:  # some device has the reference on only some of its ports
            return f"{self.uniform} of {self.voters} {peers} have {self.value} on every port"
        split = [f"{count} with {setting}" for setting, count in self.ranked[:3]]
        more = f" vs {len(self.ranked) - 3} other values" if len(self.ranked) > 3 else ""
        return f"{peers} are split: " + " vs ".join(split) + more

    def describe(self, device: str) -> str:
        """What `device` has: '4', or '4 on Ethernet1, Ethernet2 and 5 on Ethernet3'."""
        by_value: dict[str, list[str]] = {}
        for scope, setting in self.outliers[device].items():
            by_value.setdefault(setting.text, []).append(scope)
        if len(by_value) == 1 and len(self.outliers[device]) == self.sizes[device]:
            return next(iter(by_value))
        return " and ".join(f"{text} on {names(scopes)}" for text, scopes in by_value.items())


def _reference(
    ranked: list[tuple[Setting, int]], voters: int, preferred: str | None
) -> Setting | None:
    """The setting more than half the devices have; else the one intent declares; else none."""
    if ranked[0][1] * 2 > voters:
        return ranked[0][0]
    return next((s for s, _ in ranked if s.text == preferred), None)


def consensus(
    values: Mapping[str, Mapping[str, Setting]], preferred: str | None = None, quorum: int = 0
) -> Consensus | None:
    """Each device votes once for each distinct setting it has; a strict majority is the reference.

    On a tie for most common, the tied setting intent declares (`preferred`) is the reference;
    when intent is silent there is none and every device is an outlier: the rule cannot tell
    which side is right, so it shows both. With a `quorum`, fewer devices than that, or a tie
    without a reference, give no consensus (None): nothing to report.
    """
    counts: Counter[Setting] = Counter()
    for scoped in values.values():
        counts.update(dict.fromkeys(scoped.values(), 1))  # one vote per distinct setting
    if not counts or len(values) < quorum:
        return None
    ranked = counts.most_common()
    reference = _reference(ranked, len(values), preferred)
    if reference is None and quorum:
        return None
    outliers = {
        device: {scope: s for scope, s in scoped.items() if reference is None or s != reference}
        for device, scoped in values.items()
    }
    return Consensus(
        ranked=ranked,
        voters=len(values),
        outliers={device: scoped for device, scoped in outliers.items() if scoped},
        sizes={device: len(scoped) for device, scoped in values.items()},
        reference=reference,
        uniform=sum(1 for scoped in values.values() if set(scoped.values()) == {reference}),
    )


class Issue(NamedTuple):
    """One way a device differs from the rest: a message fragment and the first setting concerned."""

    text: str
    scope: str
    setting: Setting
    expected: str | None


def gather(
    issues: dict[str, list[Issue]],
    values: Mapping[str, Mapping[str, Setting]],
    what: str,
    peers: str,
    preferred: str | None = None,
    quorum: int = 0,
) -> None:
    """Add to `issues` how each device differs from the consensus of `values`."""
    agreed = consensus(values, preferred, quorum)
    if agreed is None:
        return
    expected = agreed.value.text if agreed.value else None
    for device, differing in agreed.outliers.items():
        scope, setting = next(iter(differing.items()))
        text = f"{what} {agreed.describe(device)} ({agreed.summary(peers)})"
        issues.setdefault(device, []).append(Issue(text, scope, setting, expected))


def report(
    rule: Rule[Any], issues: Mapping[str, list[Issue]], obj: str, lead: str
) -> Iterator[Finding]:
    """One finding per device, its issues joined; path and source of its first issue.

    `obj` may name the scope of the first issue: 'interface {scope}'.
    """
    for device in sorted(issues):
        found = issues[device]
        head = found[0]
        yield rule.finding(
            device,
            obj.format(scope=head.scope),
            head.setting.path,
            f"{device} {lead} " + "; ".join(issue.text for issue in found),
            expected=head.expected,
            actual=head.setting.text,
            source=head.setting.source,
        )


def per_port(ctx: Context, code: str, state: DeviceState, read: Reader) -> dict[str, Setting]:
    """`read` on each RoCE port of the cabling plan; records a skip where it gives nothing.

    Only ports are read: a port's effective QoS includes the device-wide settings it inherits,
    and device-wide settings no RDMA port uses (EOS's global PFC off under per-port profiles)
    say nothing about the RDMA path.
    """
    out: dict[str, Setting] = {}
    for iface in roce_ports(ctx, code, state):
        got = read(iface)
        if got is None:
            ctx.skip(code, state.name)
        else:
            out[iface.name] = got
    return out


def switches_by_role(ctx: Context) -> dict[str, list[DeviceState]]:
    """Switches grouped by inventory role and platform: one template per group. (Versions,
    watchdog timers and scheduler forms legitimately differ between vendors of one role.)"""
    groups: dict[str, list[DeviceState]] = {}
    platforms = {s.platform for s in ctx.states.values() if is_switch(s)}
    for state in ordered(ctx):
        inv = ctx.inventory.devices.get(state.name)
        role = inv.role if inv else state.role
        if is_switch(state) and role is not None:
            label = f"{role} ({state.platform})" if len(platforms) > 1 else role
            groups.setdefault(label, []).append(state)
    return groups


def _prios(priorities: list[int]) -> str:
    return ", ".join(map(str, priorities)) if priorities else "none"


QUORUM = 3
"""Fewest devices FAB002/FAB003 compare: with two, a difference has no majority side."""


# ---- FAB001 -------------------------------------------------------------------------------------


class DscpMapInconsistent(Rule[NoOptions]):
    """Devices on the RDMA path map the RoCE or CNP DSCP to different priorities.

    The 802.1p priority is the currency between devices: if a leaf puts DSCP 26 in priority 3
    and a spine puts it in priority 4, PFC pauses the wrong priority on one hop and RoCE drops.
    Each RoCE DSCP and the CNP DSCP (from the device's intent profile) is resolved on every
    RoCE-carrying port of the cabling plan, switch ports and host NICs alike, with the port's
    effective QoS (device-wide settings included where the port inherits them). The priority
    most devices use for a DSCP is the reference; each device that maps the DSCP to something
    else on any port is reported once, listing every DSCP it gets wrong. When devices are
    split evenly, all of them are reported.

    Skipped (coverage): a device whose profile declares no RoCE or no CNP class (for that
    class), with no cabled port in its state, or with a port that does not resolve the DSCP.

    Options: none.

    Fails (leaf02 puts DSCP 26 in priority 4, leaf01 and gpu01 in priority 3):
        leaf02: qos map dscp 26 to traffic-class 4

    Passes: every device resolves DSCP 26 to priority 3 and DSCP 48 to priority 6.
    """

    code = "FAB001"
    name = "dscp-map-inconsistent"
    severity = "error"
    summary = "devices on the RDMA path map the RoCE or CNP DSCP to different priorities"

    def check(self, ctx: Context) -> Iterator[Finding]:
        per_dscp: dict[tuple[str, int], dict[str, dict[str, Setting]]] = {}
        for state in ordered(ctx):
            for klass, dscp in self._dscps(ctx, state.name):
                found = per_port(ctx, self.code, state, self._reader(ctx, state, dscp))
                if found:
                    per_dscp.setdefault((klass, dscp), {})[state.name] = found
        issues: dict[str, list[Issue]] = {}
        for (klass, dscp), values in per_dscp.items():
            intended = self._intended(ctx, klass, sorted(values))
            what = f"{klass} DSCP {dscp} to priority"
            gather(issues, values, what, "devices on the RDMA path", intended)
        yield from report(self, issues, "qos", "maps")

    @staticmethod
    def _intended(ctx: Context, klass: str, devices: list[str]) -> str | None:
        """The priority intent declares for the class (breaks a tie in the device's favour)."""
        for device in devices:
            found = ctx.roce(device) if klass == "RoCE" else ctx.cnp(device)
            if found is not None:
                return str(found.priority)
        return None

    def _dscps(self, ctx: Context, device: str) -> list[tuple[str, int]]:
        """('RoCE', dscp) and ('CNP', dscp) pairs the device's intent declares."""
        roce, cnp = ctx.roce(device), ctx.cnp(device)
        state = ctx.states.get(device)
        ib_only = state is not None and (state.is_subnet_manager or infiniband_only(state))
        if (roce is None or cnp is None) and not ib_only:
            ctx.skip(self.code, device)
        pairs = [("RoCE", dscp) for dscp in (roce.dscp if roce else [])]
        return pairs + ([("CNP", cnp.dscp)] if cnp else [])

    @staticmethod
    def _reader(ctx: Context, state: DeviceState, dscp: int) -> Reader:
        def read(iface: Interface) -> Setting | None:
            qos = ctx.qos(state, iface.name)
            priority = resolve_qos(qos, dscp).priority
            if priority is None:
                return None
            path = owner(state, iface, "dscp_to_tc").path(f"dscp_to_tc.{dscp}")
            return Setting(str(priority), path, qos.src(f"dscp_to_tc.{dscp}"))

        return read


# ---- FAB002 -------------------------------------------------------------------------------------


class LosslessSetInconsistent(Rule[NoOptions]):
    """Devices on the RDMA path disagree on which priorities are lossless.

    A priority is lossless end to end only if every hop pauses it: a host NIC with PFC on 3 and 4
    behind switches that protect only 3 sends pause frames the fabric ignores, and buffers
    sized for one lossless class overflow with two. The PFC priority set in force is read on
    each RoCE-carrying port of the cabling plan (switch ports and host NICs); the set most
    devices use is the reference, and each device with another set on any port is reported
    once. With fewer than three devices, or an even split, nothing is reported (neither side
    is a majority).

    A switch with no PFC configuration has no lossless priority. Skipped (coverage): a host
    whose NIC shows no PFC state (mlnx_qos not collected), a device with no cabled port in its
    state.

    Options: none.

    Fails (gpu02's NIC has PFC on 3 and 4, every other device on 3):
        gpu02: mlnx_qos -i ens1np0 --pfc 0,0,0,1,1,0,0,0

    Passes: every RDMA port of every device has PFC on priority 3 only.
    """

    code = "FAB002"
    name = "lossless-set-inconsistent"
    severity = "error"
    summary = "devices on the RDMA path disagree on which priorities are lossless"

    def check(self, ctx: Context) -> Iterator[Finding]:
        values: dict[str, dict[str, Setting]] = {}
        for state in ordered(ctx):
            found = per_port(ctx, self.code, state, self._reader(ctx, state))
            if found:
                values[state.name] = found
        issues: dict[str, list[Issue]] = {}
        gather(issues, values, "lossless priorities:", "devices on the RDMA path", quorum=QUORUM)
        yield from report(self, issues, "qos", "has")

    @staticmethod
    def _reader(ctx: Context, state: DeviceState) -> Reader:
        def read(iface: Interface) -> Setting | None:
            qos = ctx.qos(state, iface.name)
            if qos.pfc is None and state.is_host:
                return None  # the NIC's PFC state was not collected
            path = owner(state, iface, "pfc").path("pfc.priorities")
            return Setting(_prios(lossless_priorities(qos)), path, pfc_source(qos))

        return read


# ---- FAB003 -------------------------------------------------------------------------------------

Aspect = Literal["ecn", "scheduler", "watchdog"]


def _ecn_text(ecn: EcnConfig | None) -> str:
    if ecn is None or not ecn.enabled:
        return "no ECN marking"
    low = f"{ecn.min_bytes} B" if ecn.min_bytes is not None else ecn.min_raw or "?"
    high = f"{ecn.max_bytes} B" if ecn.max_bytes is not None else ecn.max_raw or "?"
    prob = f" at {ecn.probability_pct:g}%" if ecn.probability_pct is not None else ""
    return f"ECN {low} to {high}{prob}"


def _queue_text(klass: str, res: Resolution) -> str:
    if res.queue is None:
        return f"{klass} unclassified"  # the DSCP is in no map: no queue to describe
    conf: QueueConfig | None = res.scheduler
    mode = conf.scheduler.value if conf and conf.scheduler else "with no scheduler set"
    weight = f" weight {conf.weight:g}" if conf and conf.weight is not None else ""
    return f"{klass} queue {res.queue} {mode}{weight}"


def _queue_path(state: DeviceState, iface: Interface, res: Resolution, leaf: str) -> str:
    """Model path of the queue `res` lands in (its DSCP map entry when it lands in none)."""
    if res.queue is None:
        return owner(state, iface, "dscp_to_tc").path(f"dscp_to_tc.{res.dscp}")
    return owner(state, iface, "queues").path(f"queues.{res.queue}.{leaf}")


def _watchdog_text(pfc: PfcConfig | None) -> str:
    dog = pfc.watchdog if pfc else None
    if dog is None or not dog.enabled:
        return "watchdog off"
    parts = ["watchdog on"]
    if dog.detection_ms is not None:
        parts.append(f"detection {dog.detection_ms:g} ms")
    if dog.restoration_ms is not None:
        parts.append(f"restoration {dog.restoration_ms:g} ms")
    if dog.action:
        parts.append(f"action {dog.action}")
    return ", ".join(parts)


def _ecn_setting(ctx: Context, state: DeviceState, iface: Interface, dscp: int) -> Setting:
    """ECN marking of the queue `dscp` lands in."""
    res = ctx.resolve(state, iface.name, dscp)
    path = _queue_path(state, iface, res, "ecn")
    queue = res.scheduler
    source = first(res.ecn.src() if res.ecn else None, queue.src() if queue else None)
    return Setting(_ecn_text(res.ecn), path, source)


def _scheduler_setting(
    ctx: Context, state: DeviceState, iface: Interface, dscps: tuple[int, int]
) -> Setting:
    """Scheduling of the RoCE and CNP queues (`dscps` = RoCE DSCP, CNP DSCP)."""
    roce, cnp = (ctx.resolve(state, iface.name, dscp) for dscp in dscps)
    text = f"{_queue_text('RoCE', roce)}, {_queue_text('CNP', cnp)}"
    path = _queue_path(state, iface, roce, "scheduler")
    return Setting(text, path, roce.scheduler.src() if roce.scheduler else None)


def _watchdog_setting(ctx: Context, state: DeviceState, iface: Interface) -> Setting:
    """The PFC watchdog in force."""
    qos = ctx.qos(state, iface.name)
    dog = qos.pfc.watchdog if qos.pfc else None
    path = owner(state, iface, "pfc").path("pfc.watchdog")
    return Setting(
        _watchdog_text(qos.pfc), path, first(dog.src() if dog else None, pfc_source(qos))
    )


class RoleConfigDivergent(Rule["RoleConfigDivergent.Options"]):
    """Switches of one role differ in ECN, scheduling or PFC watchdog settings.

    Switches of one role are built from one template; one that differs is usually a half-applied
    change or a hand edit, and it behaves differently under congestion from its siblings.
    Compared per role (inventory), on each cabled port with the port's effective QoS:

    - `ecn`: ECN marking of the queue the RoCE DSCP (first DSCP of the intent's RoCE class)
      lands in: on/off, thresholds, probability;
    - `scheduler`: scheduler mode and weight of the RoCE and CNP queues;
    - `watchdog`: PFC watchdog on/off, detection and restoration times, action.

    The value most switches of the role have is the reference; each switch that differs is
    reported once, listing every aspect it differs in. A role of two switches, or one split
    evenly, is not reported (neither side is a majority); a switch whose own ports differ is
    not counted as having the reference. `ecn` needs the RoCE class and `scheduler` the RoCE and CNP classes in the
    device's intent profile; without them, or without a cabled port in its state, the switch
    is skipped (coverage).

    Options:
        aspects: which of ecn, scheduler, watchdog to compare (default: all three).

    Fails (leaf03's PFC watchdog is off, leaf01/leaf02 have it on):
        leaf03: no priority-flow-control pause watchdog

    Passes: all leaf switches mark ECN on queue 3 at 150000-1500000 B, schedule queue 3 DWRR 50
    and queue 6 strict, and run the watchdog at 200/400 ms.
    """

    class Options(BaseModel):
        """Options of FAB003."""

        model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

        aspects: list[Aspect] = ["ecn", "scheduler", "watchdog"]
        """Which settings to compare across a role."""

    code = "FAB003"
    name = "role-config-divergent"
    severity = "warning"
    summary = "switches of one role differ in ECN, scheduler or PFC watchdog settings"
    options_model = Options

    _WHAT: Mapping[Aspect, str] = {
        "ecn": "RoCE queue marking:",
        "scheduler": "scheduling:",
        "watchdog": "PFC",
    }

    def check(self, ctx: Context) -> Iterator[Finding]:
        issues: dict[str, list[Issue]] = {}
        for role, members in switches_by_role(ctx).items():
            for aspect in self.options.aspects:
                values = {s.name: self._settings(ctx, s, aspect) for s in members}
                found = {device: scopes for device, scopes in values.items() if scopes}
                gather(issues, found, self._WHAT[aspect], f"{role} switches", quorum=QUORUM)
        yield from report(self, issues, "qos", "has")

    def _settings(self, ctx: Context, state: DeviceState, aspect: Aspect) -> dict[str, Setting]:
        read = self._reader(ctx, state, aspect)
        if read is None:
            ctx.skip(self.code, state.name)
            return {}
        return per_port(ctx, self.code, state, read)

    @staticmethod
    def _reader(ctx: Context, state: DeviceState, aspect: Aspect) -> Reader | None:
        """How to read `aspect` on a port of `state`; None when intent lacks the class it needs."""
        roce, cnp = ctx.roce(state.name), ctx.cnp(state.name)
        if aspect == "watchdog":
            return lambda iface: _watchdog_setting(ctx, state, iface)
        if roce is None:
            return None
        if aspect == "ecn":
            return lambda iface: _ecn_setting(ctx, state, iface, roce.dscp[0])
        if cnp is None:
            return None
        return lambda iface: _scheduler_setting(ctx, state, iface, (roce.dscp[0], cnp.dscp))


# ---- FAB004 -------------------------------------------------------------------------------------


class OsVersionSkew(Rule[NoOptions]):
    """Switches of one role run different OS versions.

    QoS defaults, buffer carving and PFC watchdog behaviour change between releases, so two
    leaves with the same configuration but different versions need not behave alike; a skew is
    usually an upgrade that stopped half-way. The version most switches of a role (inventory)
    run is the reference; each switch on another version is reported once (with an even split,
    every switch of the role). Hosts are not compared. A switch whose inputs show no version is
    skipped (coverage).

    Options: none.

    Fails (leaf03 still runs 4.30.1F, leaf01 and leaf02 run 4.31.2F).

    Passes: every leaf runs 4.31.2F.
    """

    code = "FAB004"
    name = "os-version-skew"
    severity = "warning"
    summary = "switches of one role run different OS versions"

    def check(self, ctx: Context) -> Iterator[Finding]:
        issues: dict[str, list[Issue]] = {}
        for role, members in switches_by_role(ctx).items():
            values: dict[str, dict[str, Setting]] = {}
            for state in members:
                if state.os_version is None:
                    ctx.skip(self.code, state.name)
                    continue
                setting = Setting(state.os_version, "os_version", state.src("os_version"))
                values[state.name] = {"device": setting}
            gather(issues, values, "OS version", f"{role} switches")
        yield from report(self, issues, "device", "runs")


RULES: list[type[Rule[Any]]] = [
    DscpMapInconsistent,
    LosslessSetInconsistent,
    RoleConfigDivergent,
    OsVersionSkew,
]
