"""FAB rules (fabric-wide consistency); the fleet helpers they share with other families are in
rules/helpers.py.

A fabric-wide rule compares one setting across devices. The value most devices have is the
reference; the devices that differ are reported, once each, naming the reference and how many
devices have it on every port compared (a device whose own ports differ is never counted as
having the reference). When the most common values tie there is no reference, and every device
of the split is reported with how the devices are split; a rule that asks for a `quorum`
(FAB002, FAB003) reports nothing then, nor when fewer devices than the quorum are compared: a
1-vs-1 split does not say which side is right.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from fabriclint.models.finding import Finding
from fabriclint.models.resolve import Resolution, lossless_priorities, resolve_qos
from fabriclint.models.state import (
    DeviceState,
    EcnConfig,
    Interface,
    PfcConfig,
    QueueConfig,
)
from fabriclint.rules.base import Context, NoOptions, Rule
from fabriclint.rules.helpers import (
    Issue,
    Reader,
    Setting,
    gather,
    per_port,
    report,
    switches_by_role,
)
from fabriclint.rules.scope import (
    first,
    infiniband_only,
    ordered,
    owner,
    pfc_source,
)


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

        model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, defer_build=True)

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
