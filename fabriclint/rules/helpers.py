"""Helpers the rule families share: the fleet (hosts, switches, a host's cabled NICs), settings
compared across devices, the consensus of a fleet over one setting, and findings per device.

A fabric-wide comparison takes the value most devices have as the reference; the devices that
differ are reported, once each, naming the reference and how many devices have it on every port
compared. When the most common values tie there is no reference (see `consensus`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from fabriclint.models.common import Source
from fabriclint.models.finding import Finding
from fabriclint.models.state import DeviceState, Interface, RdmaPort
from fabriclint.rules.base import Context, Rule
from fabriclint.rules.scope import is_infiniband, names, ordered, roce_ports


def hosts(ctx: Context) -> list[DeviceState]:
    """Hosts (servers with NICs), by name."""
    return [state for state in ordered(ctx) if state.is_host]


def switches(ctx: Context) -> list[DeviceState]:
    """Switches, by name."""
    return [state for state in ordered(ctx) if state.kind == "switch"]


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
