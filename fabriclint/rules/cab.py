"""CAB rules: the cabling plan (inventory.yaml `links`) against what the devices see over LLDP
(and, on InfiniBand, what a subnet manager's `ibnetdiscover` shows of the whole subnet).

Every device whose LLDP neighbour output was collected (`DeviceState.neighbors`, from the
command its platform descriptor names in `Platform.lldp`) reports, per port, the system and port
at the other end. The sightings of both ends of one physical cable are merged into one observed
cable, and each observed cable is compared with the plan: it matches, it is unplanned (CAB002),
it is a swapped pair with another observed cable (CAB004), or it reaches the wrong port or
device (CAB003). A planned cable no end of which appears in any sighting, while one of its
devices has LLDP output, is plan-only (CAB001). Ports and systems are compared by key
(models/ports.py: `Et1/1` = `Ethernet1/1`, `leaf01.example.net` = `leaf01`); a neighbour that
sends a MAC as its port ID (a NIC) is matched by device only. A device without LLDP output gets
no CAB finding: a coverage gap names the command to collect. An `ibnetdiscover` neighbour names
the node its port belongs to (`local_system`): that node counts as seen, like a device with
LLDP output.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field

from fabriclint import platforms
from fabriclint.models.common import Source
from fabriclint.models.finding import Finding
from fabriclint.models.ports import is_mac, port_key, system_key
from fabriclint.rules.base import Context, NoOptions, Rule

End = tuple[str, str]
"""(device, port) as written: the plan's spelling, or the LLDP output's."""
Key = tuple[str, str]
"""(device, port key): an end as compared."""


@dataclass(frozen=True)
class Sighting:
    """One end's LLDP report: on `local` it sees `remote`, read at `source`."""

    local: End
    remote: End
    source: Source | None


@dataclass
class Observed:
    """One physical cable as LLDP shows it: its two ends and the sightings of it."""

    ends: tuple[End, End]
    sightings: list[Sighting] = field(default_factory=list)


@dataclass
class Cabling:
    """The plan and the observed cables of one run, by key (computed once, shared by CAB rules)."""

    plan: dict[Key, End]
    """Each planned end -> the end the plan puts at the other side of its cable."""
    spelled: dict[Key, End]
    """Each planned end as the plan writes it."""
    observed: dict[frozenset[Key], Observed]
    """Observed cables by their two end keys."""
    lldp: set[str]
    """Devices whose LLDP output was read."""

    def seen_ends(self) -> set[Key]:
        """Every end some observed cable has."""
        return {key for pair in self.observed for key in pair}


def key(end: End) -> Key:
    """The comparison key of an end."""
    return end[0], port_key(end[1])


def cabling(ctx: Context) -> Cabling:
    """The shared comparison (memoized in the context)."""
    found = ctx.memo.get("cabling")
    if not isinstance(found, Cabling):
        found = ctx.memo["cabling"] = _build(ctx)
    return found


def _build(ctx: Context) -> Cabling:
    plan: dict[Key, End] = {}
    spelled: dict[Key, End] = {}
    if all(state.neighbors is None for state in ctx.states.values()):
        return Cabling(plan, spelled, {}, set())  # nothing to compare: no port key computed
    for link in ctx.inventory.links:
        a, b = link.ends()
        plan[key(a)], plan[key(b)] = b, a
        spelled[key(a)], spelled[key(b)] = a, b
    names = {system_key(name): name for name in ctx.inventory.devices}
    result = Cabling(plan, spelled, {}, set())
    for state in ctx.states.values():
        if state.neighbors is None:
            continue
        result.lldp.add(state.name)
        for n in state.neighbors:
            owner = state.name
            if n.local_system is not None:  # a subnet scan: the port is another node's
                owner = names.get(system_key(n.local_system), n.local_system)
                result.lldp.add(owner)
            local = (owner, n.local_port)
            remote = _remote(
                plan, local, names.get(system_key(n.remote_system), n.remote_system), n.remote_port
            )
            _add(result, Sighting(local, remote, n.source))
    return result


def _remote(plan: dict[Key, End], local: End, device: str, port: str) -> End:
    """The remote end of a sighting; a MAC (or no) port ID names no port, so the plan's port is
    taken when the plan puts this device there (the NIC is matched by device only)."""
    planned = plan.get(key(local))
    if (not port or is_mac(port)) and planned is not None and planned[0] == device:
        return planned
    return device, port


def _add(result: Cabling, sighting: Sighting) -> None:
    pair = frozenset((key(sighting.local), key(sighting.remote)))
    cable = result.observed.get(pair)
    if cable is None:
        ends = sorted((sighting.local, sighting.remote))  # one spelling, whichever end saw it first
        cable = result.observed[pair] = Observed((ends[0], ends[1]))
    if any((s.local, s.remote) == (sighting.local, sighting.remote) for s in cable.sightings):
        return  # the same port seen again (two subnet managers' ibnetdiscover): the first counts
    cable.sightings.append(sighting)


def _end(end: End) -> str:
    return f"{end[0]}:{end[1]}"


def _seen(cable: Observed) -> str:
    """Where each end's sighting came from: `leaf01 sees gpu02:ens1np0 on Ethernet1/1 (file:line)`."""
    parts = [
        f"{s.local[0]} sees {_end(s.remote)} on {s.local[1]}"
        + (f" ({s.source})" if s.source else "")
        for s in cable.sightings
    ]
    return "; ".join(parts)


def _how(cable: Observed) -> str:
    """What showed the cable: LLDP, or (InfiniBand) a subnet manager's `ibnetdiscover`."""
    files = {s.source.file for s in cable.sightings if s.source is not None}
    ib = bool(files) and all("ibnetdiscover" in f for f in files)
    return "ibnetdiscover" if ib else "LLDP"


def _planned(ctx: Context, end: End) -> str:
    """`the plan cables leaf01:Ethernet1/1 to gpu01:ens1np0 (inventory.yaml:85)`, or `unplanned`."""
    c = cabling(ctx)
    peer = c.plan.get(key(end))
    if peer is None:
        return f"the plan has no cable on {_end(end)}"
    written = c.spelled[key(end)]
    where = ctx.link_source(*written)
    return f"the plan cables {_end(written)} to {_end(peer)}" + (f" ({where})" if where else "")


def _classify(c: Cabling, pair: frozenset[Key], cable: Observed) -> str:
    """match, unplanned, swapped or wrong."""
    x, y = (key(e) for e in cable.ends)
    if c.plan.get(x) is not None and key(c.plan[x]) == y:
        return "match"
    if x not in c.plan and y not in c.plan:
        return "unplanned"
    return "swapped" if _swap_partner(c, pair, cable) is not None else "wrong"


def _swap_partner(c: Cabling, pair: frozenset[Key], cable: Observed) -> frozenset[Key] | None:
    """The other observed cable that, its far ends exchanged with this one's, gives two planned
    cables: the two cables were plugged into each other's ports."""
    x, y = (key(e) for e in cable.ends)
    px, py = c.plan.get(x), c.plan.get(y)
    if px is None or py is None:
        return None
    other = frozenset((key(px), key(py)))
    return other if other != pair and other in c.observed else None


def _skip_without_lldp(ctx: Context, code: str) -> None:
    """Coverage: every cabled device whose LLDP output was not read (and whose ports no
    subnet manager's ibnetdiscover showed)."""
    covered = cabling(ctx).lldp
    for name, state in ctx.states.items():
        if state.neighbors is None and name not in covered and ctx.cabled_ports(name):
            descriptor = platforms.get(state.platform)
            command = descriptor.lldp if descriptor is not None else None
            missing = (
                f"`{command}` output (LLDP neighbours)" if command else "LLDP neighbour output"
            )
            ctx.skip(code, name, missing)


class _CableRule(Rule[NoOptions]):
    """What the CAB rules share: the comparison, the coverage, the wording of both ends."""

    kind: str = ""

    def check(self, ctx: Context) -> Iterator[Finding]:
        _skip_without_lldp(ctx, self.code)
        c = cabling(ctx)
        for pair, cable in sorted(c.observed.items(), key=lambda item: sorted(item[0])):
            if _classify(c, pair, cable) == self.kind:
                found = self.judge(ctx, c, pair, cable)
                if found is not None:
                    yield found

    @abstractmethod
    def judge(
        self, ctx: Context, c: Cabling, pair: frozenset[Key], cable: Observed
    ) -> Finding | None:
        """The finding of one observed cable of this rule's kind (each CAB rule says its own)."""

    def cable_finding(
        self, cable: Observed, obj: str, message: str, expected: object = None
    ) -> Finding:
        first = min(cable.sightings, key=lambda s: (s.local[0], s.local[1]))
        return self.finding(
            first.local[0],
            obj,
            f"cabling.{first.local[1]}",
            message,
            expected=expected,
            actual=[_end(e) for e in cable.ends],
            source=first.source,
        )


# ---- CAB001 -------------------------------------------------------------------------------------


class PlanOnlyCable(Rule[NoOptions]):
    """A cable of the plan that neither end sees over LLDP.

    The plan says the two ports are cabled, but no LLDP neighbour is reported on either port
    (and no other device reports one of them as its neighbour), while at least one of the two
    devices' LLDP output was read: the cable is missing, unplugged, or the link is down. Every
    per-link rule (PFC007, MTU001, NIC001) then judged a cable that carries no traffic. The
    finding is attached to the first end of the plan with LLDP output, at its plan line. A
    cable both of whose devices have no LLDP output is not judged (coverage).

    Options: none.

    Fails:
        plan: gpu01:ens1np0 - leaf01:Ethernet1/1;  leaf01 `show lldp neighbors`: nothing on Ethernet1/1

    Passes: leaf01 sees gpu01 (ens1np0) on Ethernet1/1.
    """

    code = "CAB001"
    name = "plan-only-cable"
    severity = "error"
    summary = "a planned cable that neither end sees over LLDP"

    def check(self, ctx: Context) -> Iterator[Finding]:
        _skip_without_lldp(ctx, self.code)
        c = cabling(ctx)
        seen = c.seen_ends()
        for link in ctx.inventory.links:
            a, b = link.ends()
            with_lldp = [e for e in (a, b) if e[0] in c.lldp]
            if not with_lldp or key(a) in seen or key(b) in seen:
                continue
            end = with_lldp[0]
            other = b if end == a else a
            yield self.finding(
                end[0],
                f"cable {_end(a)} - {_end(b)}",
                f"cabling.{end[1]}",
                f"{_planned(ctx, end)}, but no LLDP neighbour is seen on {_end(end)}"
                + (
                    f" nor on {_end(other)}"
                    if other[0] in c.lldp
                    else f" ({other[0]} has no LLDP output)"
                ),
                expected=_end(other),
                source=ctx.link_source(*end),
            )


# ---- CAB002 -------------------------------------------------------------------------------------


class UnplannedCable(_CableRule):
    """A cable LLDP shows between two ports the plan does not cable.

    Neither end of the observed cable is in the cabling plan: a cable someone added (a test
    patch, a forgotten peer link) that no per-link rule checks, so its PFC, MTU and NIC
    settings are never compared. Add it to the plan or remove it. The finding names both ends
    and the LLDP line of each end that sees the other.

    Options: none.

    Fails:
        leaf01 sees leaf02:Ethernet30/1 on Ethernet30/1; no cable of the plan uses either port

    Passes: every observed cable is in the plan.
    """

    code = "CAB002"
    name = "unplanned-cable"
    severity = "warning"
    summary = "a cable seen over LLDP between ports the plan does not cable"
    kind = "unplanned"

    def judge(
        self, ctx: Context, c: Cabling, pair: frozenset[Key], cable: Observed
    ) -> Finding | None:
        a, b = cable.ends
        return self.cable_finding(
            cable,
            f"cable {_end(a)} - {_end(b)}",
            f"unplanned cable {_end(a)} - {_end(b)}: {_seen(cable)}; the plan has no cable on either port",
        )


# ---- CAB003 -------------------------------------------------------------------------------------


class WrongPortCable(_CableRule):
    """A port reaches another port or device than the plan says.

    LLDP shows a cable one end of which the plan puts elsewhere: the cable went to the wrong
    port, the wrong device, or the plan is wrong. Every cross-device rule then compared the
    ends the plan names, not the ones traffic flows between. A pair of cables plugged into each
    other's ports is CAB004's. The finding names both observed ends, what the plan says of
    each, and the LLDP lines.

    Options: none.

    Fails:
        plan: gpu01:ens1np0 - leaf01:Ethernet1/1;  leaf01 sees gpu01:ens1np0 on Ethernet5/1

    Passes: leaf01 sees gpu01:ens1np0 on Ethernet1/1.
    """

    code = "CAB003"
    name = "wrong-port-cable"
    severity = "error"
    summary = "a cable that reaches another port or device than the plan says"
    kind = "wrong"

    def judge(
        self, ctx: Context, c: Cabling, pair: frozenset[Key], cable: Observed
    ) -> Finding | None:
        a, b = cable.ends
        plans = "; ".join(_planned(ctx, e) for e in (a, b))
        return self.cable_finding(
            cable,
            f"cable {_end(a)} - {_end(b)}",
            f"{_seen(cable)}; {plans}",
            expected=[_end(p) for e in (a, b) if (p := c.plan.get(key(e))) is not None],
        )


# ---- CAB004 -------------------------------------------------------------------------------------


class SwappedCables(_CableRule):
    """Two cables are plugged into each other's ports.

    Exchanging one end between two observed cables gives two cables of the plan: the classic
    swap (NIC0 and NIC1 of a host, or two hosts' cables on a leaf). Each per-link rule judged
    the wrong pair of ports, and on a GPU host traffic of one rail leaves on the other. The
    finding (one per swapped pair) names the four ends, the plan lines and the LLDP lines.

    Options: none.

    Fails:
        plan: gpu01:ens1np0 - leaf01:Ethernet1/1, gpu02:ens1np0 - leaf01:Ethernet2/1;
        leaf01 sees gpu02:ens1np0 on Ethernet1/1 and gpu01:ens1np0 on Ethernet2/1

    Passes: each leaf port sees the host port the plan names.
    """

    code = "CAB004"
    name = "swapped-cables"
    severity = "error"
    summary = "two cables plugged into each other's ports"
    kind = "swapped"

    def judge(
        self, ctx: Context, c: Cabling, pair: frozenset[Key], cable: Observed
    ) -> Finding | None:
        partner = _swap_partner(c, pair, cable)
        if partner is None or sorted(partner) < sorted(pair):
            return None  # reported once, from the pair's first cable
        other = c.observed[partner]
        a, b = cable.ends
        plans = "; ".join(_planned(ctx, e) for e in (a, b))
        return self.cable_finding(
            cable,
            f"cables {_end(a)} - {_end(b)} and {' - '.join(_end(e) for e in other.ends)}",
            f"swapped cables: {_seen(cable)}; {_seen(other)}; {plans}",
            expected=[_end(p) for e in (a, b) if (p := c.plan.get(key(e))) is not None],
        )


# ---- CAB005 -------------------------------------------------------------------------------------


def _rail(ctx: Context, end: End) -> int | None:
    """The rail of an end: the port's own (`rails` of a host), else its device's (`rail`)."""
    device = ctx.inventory.devices.get(end[0])
    if device is None:
        return None
    by_port = {port_key(p): r for p, r in device.rails.items()}
    return by_port.get(port_key(end[1]), device.rail)


def _is_host(ctx: Context, device: str) -> bool:
    known = ctx.inventory.devices.get(device)
    return known is not None and platforms.kind_of(known.platform) == "host"


class RailCrossingCable(Rule[NoOptions]):
    """A host port is cabled to the leaf of another rail.

    In a rail-optimized GPU fabric NIC i of every host goes to the leaf of rail i, so that GPU
    i of all hosts talk through one switch hop; a cable to another rail's leaf sends that
    traffic over the spines (or, with rail-only designs, nowhere). Judged where the inventory
    declares rails (a leaf's `rail`, a host's `rails` per port): on every cable LLDP (or an
    InfiniBand subnet manager's `ibnetdiscover`) shows, and on the plan's cables (a plan that
    crosses rails is wrong too), once per cable, when exactly one end is a host (a leaf-to-leaf
    patch crosses no rail). The finding names both ends, their rails and where each fact came
    from.

    Options: none.

    Fails:
        gpu01 rails {ens1np0: 0}; leaf02 rail 1; leaf02 sees gpu01:ens1np0 on Ethernet1/1

    Passes: gpu01:ens1np0 (rail 0) on leaf01 (rail 0).
    """

    code = "CAB005"
    name = "rail-crossing-cable"
    severity = "error"
    summary = "a host port cabled to the leaf of another rail"

    def check(self, ctx: Context) -> Iterator[Finding]:
        if not any(d.rail is not None or d.rails for d in ctx.inventory.devices.values()):
            return  # no rails declared: nothing to judge (a large fabric pays nothing)
        c = cabling(ctx)
        done: set[frozenset[Key]] = set()
        for pair, cable in sorted(c.observed.items(), key=lambda item: sorted(item[0])):
            done.add(pair)
            found = self._crossing(
                ctx,
                cable.ends,
                f"seen over {_how(cable)}: {_seen(cable)}",
                cable.sightings[0].source,
            )
            if found is not None:
                yield found
        for link in ctx.inventory.links:
            a, b = link.ends()
            if frozenset((key(a), key(b))) not in done:
                found = self._crossing(ctx, (a, b), _planned(ctx, a), ctx.link_source(*a))
                if found is not None:
                    yield found

    def _crossing(
        self, ctx: Context, ends: tuple[End, End], facts: str, source: Source | None
    ) -> Finding | None:
        if sum(_is_host(ctx, e[0]) for e in ends) != 1:
            return None  # a rail is a host-to-leaf notion: a leaf-to-leaf or spine cable is none
        rails = [_rail(ctx, e) for e in ends]
        if None in rails or rails[0] == rails[1]:
            return None
        a, b = ends
        return self.finding(
            a[0],
            f"cable {_end(a)} - {_end(b)}",
            f"cabling.{a[1]}",
            f"{_end(a)} is on rail {rails[0]} but {_end(b)} is on rail {rails[1]} ({facts}; rails from "
            f"inventory.yaml)",
            expected=rails[0],
            actual=rails[1],
            source=source,
        )


RULES: list[type[Rule[NoOptions]]] = [
    PlanOnlyCable,
    UnplannedCable,
    WrongPortCable,
    SwappedCables,
    RailCrossingCable,
]
