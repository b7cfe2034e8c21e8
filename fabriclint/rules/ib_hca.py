"""IB009 (partitions.conf) and IB010 (HCA port links)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fabriclint.models.finding import Finding
from fabriclint.models.ib import HcaIntent
from fabriclint.models.state import DeviceState, RdmaPort
from fabriclint.rules.base import Context, NoOptions, Rule
from fabriclint.rules.helpers import hosts
from fabriclint.rules.ib_fleet import IB_FABRIC, IB_HCA, hca_intent, ib_ports, sm_nodes
from fabriclint.rules.nic import port_is_down

# ---- IB009 ---------------------------------------------------------------------------------------


class PartitionConfigInvalid(Rule[NoOptions]):
    """partitions.conf has a line OpenSM rejects, or a word it reads differently than written.

    OpenSM never refuses the file: it skips the rest of a line it cannot parse (a P_Key that is
    not a number, a GUID with a typo, a definition without `:`), silently makes a port with an
    unknown membership word (`=fulll`) a limited member, creates an IPoIB group with `mtu=4096`
    (the IBTA code for 4096 is 5) that nobody can join, and ignores unknown flags. `both`
    membership without `allow_both_pkeys TRUE` is full only. Errors: the partition is not what
    the file says; warnings: a word OpenSM ignores.

    Options: none.

    Fails: `tenant-a=0x8001, ipoib, mtu=4096: 0x0002c903000010a0=full;`

    Passes: `tenant-a=0x8001, ipoib, mtu=5: 0x0002c903000010a0=full;`
    """

    code = "IB009"
    kinds = IB_FABRIC
    name = "partition-config-invalid"
    severity = "error"
    summary = "partitions.conf does not parse, or a member keyword/pkey/mtu is invalid"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in sm_nodes(ctx):
            ib = state.infiniband
            for issue in ib.partition_issues if ib is not None else []:
                line = issue.source.line if issue.source and issue.source.line else 0
                yield self.finding(
                    state.name,
                    f"partitions.conf line {line}",
                    f"infiniband.partitions.{issue.text}",
                    issue.message,
                    actual=issue.text,
                    source=issue.source,
                    severity="warning" if issue.severity == "warning" else None,
                )


# ---- IB010 ---------------------------------------------------------------------------------------


def _lanes(width: str | None) -> int | None:
    digits = (width or "").rstrip("Xx")
    return int(digits) if digits.isdigit() else None


class HcaLinkDegraded(Rule[NoOptions]):
    """An InfiniBand HCA port is not Active/LinkUp, or runs below the rate or width intended.

    A GPU whose HCA port is down, stuck in Initialize/Armed (link trained but no SM activated it)
    or trained at a lower rate or width drags every collective it takes part in down. Checked on
    the IB ports of each host: those `infiniband.hca.ports` lists (a listed port that is absent is
    reported), else every port whose link layer is InfiniBand. Rate and width are compared with
    `infiniband.hca.rate_gbps` / `width` when the intent declares them (NIC005 compares rates
    with the other ports of the same model). A host whose port state is unknown is skipped.

    Options: none.

    Fails: ibstat `State: Initializing / Physical state: LinkUp`, or `Rate: 200` with intent
    rate_gbps 400.

    Passes: `State: Active`, `Physical state: LinkUp`, `Rate: 400`.
    """

    code = "IB010"
    kinds = IB_HCA
    name = "hca-link-degraded"
    severity = "error"
    summary = "an HCA port is not Active/LinkUp, or its rate/width is below expected"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in hosts(ctx):
            wanted = hca_intent(ctx, state.name)
            for name in (wanted.ports or []) if wanted else []:
                if name not in state.rdma:
                    yield self._absent(state, name)
            for port in ib_ports(ctx, state):
                yield from self._port(ctx, state, port, wanted)

    def _absent(self, state: DeviceState, name: str) -> Finding:
        return self.finding(
            state.name,
            f"interface {name}",
            f"rdma.{name}",
            f"{name} is in the intent's HCA ports but {state.name} does not show it",
            expected="present",
            actual=None,
            source=None,
        )

    def _port(
        self, ctx: Context, state: DeviceState, port: RdmaPort, wanted: HcaIntent | None
    ) -> Iterator[Finding]:
        if port.state is None or port.phys_state is None:
            ctx.skip(self.code, state.name)
            return
        down = port_is_down(port)
        if down:
            shown = f"state {port.state}, physical state {port.phys_state}"
            key = next(iter(down))
            yield self._degraded(state, port, key, f"is not up ({shown})", "Active / LinkUp", down)
            return
        if wanted is not None:
            yield from self._speed(state, port, wanted)

    def _speed(self, state: DeviceState, port: RdmaPort, wanted: HcaIntent) -> Iterator[Finding]:
        rate, lanes = port.rate_gbps, _lanes(port.width)
        if wanted.rate_gbps is not None and rate is not None and rate < wanted.rate_gbps:
            text = f"runs at {rate:g} Gb/s, below the intended {wanted.rate_gbps:g} Gb/s"
            yield self._degraded(state, port, "rate_gbps", text, wanted.rate_gbps, rate)
        wanted_lanes = _lanes(wanted.width)
        if wanted_lanes is not None and lanes is not None and lanes < wanted_lanes:
            text = f"trained at width {port.width}, below the intended {wanted.width}"
            yield self._degraded(state, port, "width", text, wanted.width, port.width)

    def _degraded(
        self,
        state: DeviceState,
        port: RdmaPort,
        key: str,
        text: str,
        expected: object,
        actual: object,
    ) -> Finding:
        return self.finding(
            state.name,
            f"interface {port.netdev}",
            f"rdma.{port.netdev}.{key}",
            f"{port.netdev} ({port.hca or '?'} port {port.port}) {text}",
            expected=expected,
            actual=actual,
            source=port.src(key),
        )


RULES: list[type[Rule[Any]]] = [
    PartitionConfigInvalid,
    HcaLinkDegraded,
]
