"""BENCH rules: whether an nccl-tests result can be trusted, and whether NCCL used the fabric
the way the intent configures it.

They judge the runs a `BenchRun` in the context's memo holds (`fabriclint bench judge`, see
docs/bench.md) and yield nothing in a plain `check`. The hosts of a run are the ranks'
hostnames that name inventory hosts (every host of the fabric when none does).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import Field

from fabriclint.models.common import Source, source_at
from fabriclint.models.finding import Finding
from fabriclint.models.state import DeviceState
from fabriclint.rules.base import Context, NoOptions, Rule
from fabriclint.rules.scope import StrictOptions

if TYPE_CHECKING:  # the runs come made (`fabriclint bench judge`): a check never loads the models
    from fabriclint.models.nccl import NcclResult, NcclRun

BENCH = "bench.run"
"""Context memo key of the BenchRun."""

_GIB = 1 << 30


@dataclass
class BenchRun:
    """The nccl-tests runs of one benchmark (several files are repeats of one test)."""

    runs: list[NcclRun] = field(default_factory=list)


def _runs(ctx: Context) -> list[NcclRun]:
    found = ctx.memo.get(BENCH)
    return found.runs if isinstance(found, BenchRun) else []


def _size(size: int) -> str:
    for unit, scale in (("GiB", _GIB), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def run_hosts(ctx: Context, run: NcclRun) -> list[DeviceState]:
    """The inventory hosts the run's ranks ran on (every host when no rank names one)."""
    hosts = {n: s for n, s in sorted(ctx.states.items()) if s.kind == "host"}
    named = sorted({r.hostname.split(".")[0] for r in run.ranks} & set(hosts))
    return [hosts[n] for n in named] if named else list(hosts.values())


def cabled_rdma(ctx: Context, state: DeviceState) -> list[tuple[str, str | None, float | None]]:
    """(netdev, HCA, rate Gb/s) of each RDMA port of `state` the cabling plan names."""
    cabled = set(ctx.cabled_ports(state.name))
    return [(n, p.hca, p.rate_gbps) for n, p in sorted(state.rdma.items()) if n in cabled]


class WrongResults(Rule[Any]):
    """nccl-tests found wrong data: `#wrong` above 0 at a size, or out-of-bounds values.

    Why: a collective that returns wrong data is a broken fabric or GPU, whatever its bandwidth
    says; nccl-tests checks the data of every operation (`-c 1`, the default) and counts wrong
    elements per size and values out of bounds over the run. Such a benchmark is never trusted.

    Failing: the 1 GiB row shows `#wrong` 12 out of place.

    Passing: `#wrong` 0 at every size and `Out of bounds values : 0 OK`.
    """

    code = "BENCH001"
    command = "bench judge"
    name = "wrong-results"
    severity = "error"
    summary = "nccl-tests reported wrong data (#wrong above 0, or out-of-bounds values)"
    options_model = NoOptions

    def check(self, ctx: Context) -> Iterator[Finding]:
        for run in _runs(ctx):
            for row in run.results:
                if row.wrong() > 0:
                    message = f"{run.file}: {row.wrong():g} wrong element(s) at {_size(row.size)}"
                    yield self.finding(
                        None, f"results size {row.size}", "bench.nwrong", message,
                        expected=0, actual=row.wrong(), source=row.source,
                    )  # fmt: skip
            if run.out_of_bounds:
                message = f"{run.file}: {run.out_of_bounds} value(s) out of bounds"
                yield self.finding(
                    None, "results out of bounds", "bench.out_of_bounds", message,
                    expected=0, actual=run.out_of_bounds, source=source_at(run.file),
                )  # fmt: skip


class BusBandwidthFloor(Rule[Any]):
    """Bus bandwidth at a large message size below the floor the hardware allows.

    Why: a fabric that is configured right but delivers a fraction of its line rate (a link
    trained down, a rail unused, traffic in a lossy class retransmitting) makes every result
    measured on it a result about the fault. The floor is line rate x rails x efficiency: the
    lowest cabled RDMA port rate of the run's hosts (Gb/s / 8 = GB/s), times the cabled RDMA ports
    per host, times `efficiency_pct`; only sizes from `min_size_bytes` up are judged (small
    messages are latency-bound). The best of out-of-place and in-place counts. A results file
    with no bus bandwidth at such a size (cut short, `-e` below it, `nan`) is a coverage gap,
    never a pass.
    Options: `efficiency_pct` (default 80), `min_size_bytes` (default 1 GiB), `rails` (default:
    the cabled RDMA ports per host), `floor_gbytes` (a floor in GB/s that replaces the formula).

    Failing: 2 hosts with 2 cabled 400 Gb/s ports each (floor 80 GB/s) and 61.5 GB/s at 1 GiB.

    Passing: 92 GB/s at every size from 1 GiB.
    """

    class Options(StrictOptions):
        """Options of BENCH002."""

        efficiency_pct: float = Field(default=80.0, gt=0, le=100)
        """Share of line rate x rails the bus bandwidth must reach."""
        min_size_bytes: int = Field(default=_GIB, ge=0)
        """Smallest message size judged."""
        rails: int | None = Field(default=None, ge=1)
        """RDMA ports per host (default: the cabled ones)."""
        floor_gbytes: float | None = Field(default=None, gt=0)
        """A floor in GB/s that replaces line rate x rails x efficiency."""

    code = "BENCH002"
    command = "bench judge"
    name = "bus-bandwidth-below-floor"
    severity = "error"
    summary = "Bus bandwidth at large sizes below line rate x rails x efficiency"
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        for run in _runs(ctx):
            floor = self._floor(ctx, run)
            if floor is None:
                continue
            gbytes, how = floor
            judged = self._judged(ctx, run)
            for row, bw in judged:
                if bw < gbytes:
                    message = (
                        f"{run.file}: bus bandwidth {bw:g} GB/s at {_size(row.size)} is below the "
                        f"floor {gbytes:g} GB/s ({how})"
                    )
                    yield self.finding(
                        None, f"results size {row.size}", "bench.bus_bw", message,
                        expected=gbytes, actual=bw, source=row.source,
                    )  # fmt: skip

    def _judged(self, ctx: Context, run: NcclRun) -> list[tuple[NcclResult, float]]:
        """(row, best bus bandwidth) of each size judged; none (a run cut short, run with a
        smaller `-e`, or `nan` at every such size) is recorded as a coverage gap, not a pass."""
        judged = []
        for row in run.results:
            bw = row.best_bus_bw()
            if row.size >= self.options.min_size_bytes and bw is not None:
                judged.append((row, bw))
        if not judged:
            why = (
                f"a bus bandwidth at a size from {_size(self.options.min_size_bytes)} in {run.file}"
            )
            for name in [h.name for h in run_hosts(ctx, run)] or ["(no host)"]:
                ctx.skip(self.code, name, why)
        return judged

    def _floor(self, ctx: Context, run: NcclRun) -> tuple[float, str] | None:
        """(GB/s, how it was computed), or None (recorded as a coverage gap) when unknown."""
        if self.options.floor_gbytes is not None:
            return self.options.floor_gbytes, "floor_gbytes option"
        hosts = run_hosts(ctx, run)
        ports = {h.name: cabled_rdma(ctx, h) for h in hosts}
        rates = [rate for found in ports.values() for _n, _h, rate in found if rate]
        if not hosts or not rates or not all(ports.values()):
            why = "the link rate of the hosts' cabled RDMA ports (ibv_devinfo -v)"
            for name in [h.name for h in hosts] or ["(no host)"]:
                ctx.skip(self.code, name, why)
            return None
        rails = self.options.rails or min(len(found) for found in ports.values())
        eff = self.options.efficiency_pct
        gbytes = round(min(rates) / 8 * rails * eff / 100, 3)
        return gbytes, f"{min(rates):g} Gb/s x {rails} rail(s) / 8 x {eff:g}%"


class RepeatVariation(Rule[Any]):
    """Bus bandwidth that varies between repeats of the same test more than a tolerance.

    Why: two runs of one test on an idle, healthy fabric agree within a few percent; a larger
    spread means something else shared the fabric or a link flapped, and a single number from
    such a series says little. Each size from `min_size_bytes` up present in every repeat is
    compared: (highest - lowest) / highest.
    Options: `max_spread_pct` (default 5), `min_size_bytes` (default 1 GiB).

    Failing: three repeats at 1 GiB give 92, 90 and 71 GB/s (23 % spread).

    Passing: 92, 91 and 92 GB/s.
    """

    class Options(StrictOptions):
        """Options of BENCH003."""

        max_spread_pct: float = Field(default=5.0, ge=0, le=100)
        """Largest spread tolerated between repeats, percent of the highest."""
        min_size_bytes: int = Field(default=_GIB, ge=0)
        """Smallest message size judged."""

    code = "BENCH003"
    command = "bench judge"
    name = "repeat-variation"
    severity = "warning"
    summary = "Bus bandwidth varies between repeats of one test more than max_spread_pct"
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        runs = _runs(ctx)
        if len(runs) < 2:
            return
        by_size: dict[int, list[tuple[float, NcclResult]]] = {}
        for run in runs:
            for row in run.results:
                bw = row.best_bus_bw()
                if bw is not None and row.size >= self.options.min_size_bytes:
                    by_size.setdefault(row.size, []).append((bw, row))
        for size, seen in sorted(by_size.items()):
            if len(seen) < len(runs):
                continue
            values = [bw for bw, _r in seen]
            spread = (max(values) - min(values)) / max(values) * 100 if max(values) else 0.0
            if spread > self.options.max_spread_pct:
                shown = ", ".join(f"{v:g}" for v in values)
                message = (
                    f"bus bandwidth at {_size(size)} varies {spread:.1f}% over {len(runs)} repeats "
                    f"({shown} GB/s; at most {self.options.max_spread_pct:g}%)"
                )
                low = min(seen, key=lambda pair: pair[0])[1]
                yield self.finding(
                    None, f"results size {size}", "bench.spread", message,
                    expected=self.options.max_spread_pct, actual=round(spread, 1), source=low.source,
                )  # fmt: skip


def _env_source(run: NcclRun) -> Source:
    return source_at(run.file)


class IbTrafficClass(Rule[Any]):
    """`NCCL_IB_TC` does not carry the RoCE DSCP the intent configures the fabric for.

    Why: NCCL sets the IP traffic class of its RoCE queue pairs from `NCCL_IB_TC` (0 when
    unset), and the DSCP is its upper six bits (TC = DSCP << 2: DSCP 26 is TC 104). A run whose
    TC the switches do not map to the lossless priority sends its RDMA traffic lossy: PFC never
    protects it, and the benchmark measures drops and retransmissions, not the fabric as built.
    Judged from the environment the nccl-tests `-J` file records (NCCL docs, Environment
    Variables: NCCL_IB_TC).

    Failing: intent RoCE DSCP 26, `NCCL_IB_TC=106` (DSCP 26 with ECN bits set) or unset.

    Passing: `NCCL_IB_TC=104`.
    """

    code = "BENCH004"
    command = "bench judge"
    name = "nccl-ib-tc"
    severity = "error"
    summary = "NCCL_IB_TC does not carry the intent's RoCE DSCP (TC = DSCP << 2)"
    options_model = NoOptions

    def check(self, ctx: Context) -> Iterator[Finding]:
        for run in _runs(ctx):
            hosts = run_hosts(ctx, run)
            dscps = sorted({d for h in hosts if (roce := ctx.roce(h.name)) for d in roce.dscp})
            if run.env is None or not dscps:
                missing = "the run's environment (nccl-tests -J)" if run.env is None else None
                for host in hosts:
                    ctx.skip(self.code, host.name, missing)
                continue
            wanted = [d << 2 for d in dscps]
            value = run.env.get("NCCL_IB_TC")
            message = self._problem(value, dscps, wanted)
            if message is not None:
                yield self.finding(
                    None, "env NCCL_IB_TC", "bench.env.NCCL_IB_TC", f"{run.file}: {message}",
                    expected=wanted, actual=value, source=_env_source(run),
                )  # fmt: skip

    @staticmethod
    def _problem(value: str | None, dscps: list[int], wanted: list[int]) -> str | None:
        want = " or ".join(str(w) for w in wanted)
        intent = f"the intent's RoCE DSCP {', '.join(str(d) for d in dscps)}"
        if value is None:
            return f"NCCL_IB_TC is not set: NCCL sends traffic class 0 (DSCP 0), not {intent} (NCCL_IB_TC={want})"
        try:
            tc = int(value, 0)
        except ValueError:
            return f"NCCL_IB_TC={value!r} is not a number; {intent} needs NCCL_IB_TC={want}"
        if tc in wanted:
            return None
        return f"NCCL_IB_TC={tc} is DSCP {tc >> 2}, not {intent} (NCCL_IB_TC={want})"


def _hca_spec(value: str) -> tuple[bool, bool, list[str]]:
    """(exclude, exact, HCA names) of an NCCL_IB_HCA value: `^` excludes, `=` matches exactly,
    a `:port` suffix is dropped (NCCL docs, Environment Variables: NCCL_IB_HCA)."""
    text = value.strip()
    exclude = text.startswith("^")
    text = text.lstrip("^")
    exact = text.startswith("=")
    names = [item.split(":")[0].strip() for item in text.lstrip("=").split(",")]
    return exclude, exact, [n for n in names if n]


def _matches(hca: str, names: list[str], exact: bool) -> bool:
    return any(hca == n if exact else hca.startswith(n) for n in names)


class IbHca(Rule[Any]):
    """`NCCL_IB_HCA` leaves out a cabled RDMA NIC, or names one no host has cabled.

    Why: NCCL uses only the HCAs `NCCL_IB_HCA` selects (a prefix list, `=` for exact names,
    `^` to exclude). A cabled rail left out halves a host's bandwidth and the benchmark then
    measures a fabric that is not the one being accepted; a name no host has cabled selects
    nothing (a typo) or a NIC off the cabling plan. Unset, NCCL uses every HCA (NCCL docs,
    Environment Variables: NCCL_IB_HCA).

    Failing: gpu01 has mlx5_0 and mlx5_1 cabled and `NCCL_IB_HCA==mlx5_0`.

    Passing: `NCCL_IB_HCA=mlx5` or unset.
    """

    code = "BENCH005"
    command = "bench judge"
    name = "nccl-ib-hca"
    severity = "error"
    summary = "NCCL_IB_HCA leaves out a cabled HCA or names one no host has cabled"
    options_model = NoOptions

    def check(self, ctx: Context) -> Iterator[Finding]:
        for run in _runs(ctx):
            if run.env is None:
                for host in run_hosts(ctx, run):
                    ctx.skip(self.code, host.name, "the run's environment (nccl-tests -J)")
                continue
            value = run.env.get("NCCL_IB_HCA")
            if value is None:
                continue
            for obj, message in self._problems(ctx, run, value):
                yield self.finding(
                    None, obj, "bench.env.NCCL_IB_HCA", f"{run.file}: NCCL_IB_HCA={value}: {message}",
                    actual=value, source=_env_source(run),
                )  # fmt: skip

    def _problems(self, ctx: Context, run: NcclRun, value: str) -> Iterator[tuple[str, str]]:
        exclude, exact, names = _hca_spec(value)
        cabled = {
            h.name: sorted({hca for _n, hca, _r in cabled_rdma(ctx, h) if hca})
            for h in run_hosts(ctx, run)
        }
        everywhere = {hca for found in cabled.values() for hca in found}
        for host, hcas in sorted(cabled.items()):
            left = [h for h in hcas if _matches(h, names, exact) == exclude]
            if left:
                yield f"env NCCL_IB_HCA {host}", f"leaves out cabled {', '.join(left)} on {host}"
        if not exclude:
            unknown = [n for n in names if not any(_matches(h, [n], exact) for h in everywhere)]
            if unknown:
                yield (
                    "env NCCL_IB_HCA",
                    f"names {', '.join(unknown)}, which no host of the run has cabled",
                )


AUTO_GID_SINCE = 22100
"""NCCL 2.21 picks a RoCE v2 GID itself when NCCL_IB_GID_INDEX is unset (release notes:
automatic GID index detection); before, the default index is 0."""


def _gid_index(run: NcclRun) -> tuple[int | None, str]:
    """(GID index NCCL uses, how it was chosen); None when NCCL picks one itself or the value
    is not a number (the text says which)."""
    env = run.env or {}
    value = env.get("NCCL_IB_GID_INDEX")
    if value is None:
        if run.nccl_version is not None and run.nccl_version >= AUTO_GID_SINCE:
            return None, "auto"
        return 0, "NCCL_IB_GID_INDEX unset (index 0 before NCCL 2.21)"
    try:
        index = int(value, 0)
    except ValueError:
        return None, f"NCCL_IB_GID_INDEX={value!r} is not a number"
    return (None, "auto") if index < 0 else (index, f"NCCL_IB_GID_INDEX={index}")


class IbGidIndex(Rule[Any]):
    """`NCCL_IB_GID_INDEX` selects a GID that is not RoCE v2 on a cabled RoCE port.

    Why: NCCL addresses its RoCE queue pairs with the GID at `NCCL_IB_GID_INDEX`; a RoCE v1
    GID (or an index the port does not have) sends RDMA as Ethernet frames with no IP header,
    so the DSCP the switches classify on is never there and the lossless class is never used.
    Judged against each cabled port's GID table (`show_gids`, collected optionally); a host
    without it is a coverage gap. Unset, NCCL 2.21 and later choose a RoCE v2 GID themselves;
    older versions use index 0, which mlx5 gives RoCE v1 (NCCL docs, Environment Variables:
    NCCL_IB_GID_INDEX; MLNX_OFED docs, RoCE: show_gids).

    Failing: `NCCL_IB_GID_INDEX=2` where `show_gids` lists index 2 as v1.

    Passing: `NCCL_IB_GID_INDEX=3`, index 3 v2 on every cabled port of the run's hosts.
    """

    code = "BENCH006"
    command = "bench judge"
    name = "nccl-ib-gid-index"
    severity = "error"
    summary = "NCCL_IB_GID_INDEX does not select a RoCE v2 GID on a cabled RoCE port"
    options_model = NoOptions

    def check(self, ctx: Context) -> Iterator[Finding]:
        for run in _runs(ctx):
            hosts = [h for h in run_hosts(ctx, run) if ctx.roce(h.name) is not None]
            if run.env is None:
                for host in hosts:
                    ctx.skip(self.code, host.name, "the run's environment (nccl-tests -J)")
                continue
            index, how = _gid_index(run)
            if index is None and how != "auto":
                yield self.finding(
                    None, "env NCCL_IB_GID_INDEX", "bench.env.NCCL_IB_GID_INDEX",
                    f"{run.file}: {how}", source=_env_source(run),
                )  # fmt: skip
            if index is None:
                continue
            for host in hosts:
                yield from self._host(ctx, run, host, index, how)

    def _host(
        self, ctx: Context, run: NcclRun, host: DeviceState, index: int, how: str
    ) -> Iterator[Finding]:
        for netdev, hca, _rate in cabled_rdma(ctx, host):
            port = host.rdma[netdev]
            if (port.link_layer or "").lower() == "infiniband":
                continue
            if port.roce_gids is None:
                ctx.skip(self.code, host.name, "the GID table (`show_gids`)")
                continue
            version = port.roce_gids.get(index)
            if version == "v2":
                continue
            v2 = [str(i) for i, v in sorted(port.roce_gids.items()) if v == "v2"]
            shown = f"a RoCE {version} GID" if version else "no GID"
            message = (
                f"{run.file}: {how} selects {shown} on {host.name} {hca or netdev} port "
                f"{port.port}; RoCE v2 GIDs there: {', '.join(v2) or 'none'}"
            )
            yield self.finding(
                host.name, f"rdma {netdev}", "bench.env.NCCL_IB_GID_INDEX", message,
                expected=[int(i) for i in v2], actual=index, source=port.sources.get("roce_gids"),
            )  # fmt: skip


class IbServiceLevel(Rule[Any]):
    """`NCCL_IB_SL` disagrees with the intent's RoCE priority.

    Why: on RoCE the service level NCCL sets with `NCCL_IB_SL` becomes the 802.1p priority of
    its VLAN-tagged frames; a switch trusting PCP then queues the traffic by it. An SL other
    than the intent's RoCE priority sends RDMA to a priority PFC does not protect. Unset, the
    SL is 0 and only the DSCP (`NCCL_IB_TC`, BENCH004) classifies the traffic, so it is not
    judged here (NCCL docs, Environment Variables: NCCL_IB_SL).

    Failing: intent RoCE priority 3, `NCCL_IB_SL=0` set explicitly or `NCCL_IB_SL=5`.

    Passing: `NCCL_IB_SL=3`, or unset.
    """

    code = "BENCH007"
    command = "bench judge"
    name = "nccl-ib-sl"
    severity = "error"
    summary = "NCCL_IB_SL disagrees with the intent's RoCE priority"
    options_model = NoOptions

    def check(self, ctx: Context) -> Iterator[Finding]:
        for run in _runs(ctx):
            hosts = run_hosts(ctx, run)
            if run.env is None:
                for host in hosts:
                    ctx.skip(self.code, host.name, "the run's environment (nccl-tests -J)")
                continue
            value = run.env.get("NCCL_IB_SL")
            priorities = sorted({r.priority for h in hosts if (r := ctx.roce(h.name))})
            if value is None or not priorities:
                continue
            message = self._problem(value, priorities)
            if message is not None:
                yield self.finding(
                    None, "env NCCL_IB_SL", "bench.env.NCCL_IB_SL", f"{run.file}: {message}",
                    expected=priorities, actual=value, source=_env_source(run),
                )  # fmt: skip

    @staticmethod
    def _problem(value: str, priorities: list[int]) -> str | None:
        want = " or ".join(str(p) for p in priorities)
        try:
            sl = int(value, 0)
        except ValueError:
            return f"NCCL_IB_SL={value!r} is not a number; the intent's RoCE priority is {want}"
        if sl in priorities:
            return None
        return f"NCCL_IB_SL={sl} is priority {sl}, not the intent's RoCE priority {want}"


RULES: list[type[Rule[Any]]] = [
    WrongResults,
    BusBandwidthFloor,
    RepeatVariation,
    IbTrafficClass,
    IbHca,
    IbGidIndex,
    IbServiceLevel,
]
