"""BENCH rules: nccl-tests results and the NCCL environment judged against the fabric."""

from __future__ import annotations

import pytest

from fabriclint.models.intent import Intent
from fabriclint.models.inventory import Device, Inventory, Link
from fabriclint.models.nccl import NcclRank, NcclResult, NcclRun, NcclSide
from fabriclint.models.state import DeviceState, RdmaPort
from fabriclint.rules.base import Context
from fabriclint.rules.bench import BENCH, BenchRun, _hca_spec
from tests.rules.harness import ROCE_INTENT, Case, found, switch

GIB = 1 << 30
TC_OK = {"NCCL_IB_TC": "104"}


def host(name: str, rate: float = 400.0) -> DeviceState:
    """A host with two RoCE ports (mlx5_0, mlx5_1) at `rate` Gb/s."""
    rdma = {
        f"ens{i + 1}np0": RdmaPort(
            netdev=f"ens{i + 1}np0", hca=f"mlx5_{i}", link_layer="Ethernet", rate_gbps=rate
        )
        for i in range(2)
    }
    return DeviceState(name=name, platform="mlnx-host", role="host", rdma=rdma)


STATES = [
    switch("leaf1", {f"Ethernet{i}": 9214 for i in range(1, 5)}),
    host("gpu01"),
    host("gpu02"),
]
LINKS = [
    ("leaf1:Ethernet1", "gpu01:ens1np0"),
    ("leaf1:Ethernet2", "gpu01:ens2np0"),
    ("leaf1:Ethernet3", "gpu02:ens1np0"),
    ("leaf1:Ethernet4", "gpu02:ens2np0"),
]


def run(
    bw: dict[int, float] | None = None,
    wrong: float = 0,
    oob: int = 0,
    env: dict[str, str] | None = None,
    file: str = "r.json",
) -> NcclRun:
    """A 2-host all_reduce run with bus bandwidth per size (GB/s)."""
    rows = [
        NcclResult(
            size=size,
            out_of_place=NcclSide(bus_bw=value, nwrong=wrong),
            in_place=NcclSide(bus_bw=value - 1, nwrong=0),
        )
        for size, value in (bw or {GIB: 92.0, 2 * GIB: 93.0}).items()
    ]
    ranks = [NcclRank(rank=0, hostname="gpu01"), NcclRank(rank=1, hostname="gpu02.example")]
    return NcclRun(
        file=file, format="json", ranks=ranks, results=rows, out_of_bounds=oob,
        env=TC_OK if env is None else env,
    )  # fmt: skip


def case(
    id: str, rule: str, runs: list[NcclRun], expect: list[tuple[str | None, str]], **kw: object
) -> Case:
    return Case(
        id, rule, list(STATES), expect, links=LINKS, intent=ROCE_INTENT,
        memo={BENCH: BenchRun(runs)}, **kw,  # type: ignore[arg-type]
    )  # fmt: skip


CASES = [
    case("clean", "BENCH001", [run()], []),
    case(
        "wrong-elements",
        "BENCH001",
        [run(wrong=12)],
        [(None, f"results size {GIB}"), (None, f"results size {2 * GIB}")],
    ),
    case("out-of-bounds", "BENCH001", [run(oob=3)], [(None, "results out of bounds")]),
    case("above-floor", "BENCH002", [run()], []),
    # floor: 400 Gb/s / 8 x 2 rails x 80 % = 80 GB/s; 64 MiB is below min_size_bytes
    case(
        "below-floor",
        "BENCH002",
        [run({1 << 26: 5.0, GIB: 61.5, 2 * GIB: 81.0})],
        [(None, f"results size {GIB}")],
    ),
    case(
        "option-floor",
        "BENCH002",
        [run()],
        [(None, f"results size {GIB}"), (None, f"results size {2 * GIB}")],
        options={"floor_gbytes": 95},
    ),
    case("one-rail", "BENCH002", [run({GIB: 41.0})], [], options={"rails": 1}),
    case("steady", "BENCH003", [run(), run({GIB: 91.0, 2 * GIB: 93.0})], []),
    case("single-run", "BENCH003", [run()], []),
    case(
        "spread",
        "BENCH003",
        [run(), run({GIB: 91.0, 2 * GIB: 93.0}), run({GIB: 71.0, 2 * GIB: 92.0})],
        [(None, f"results size {GIB}")],
    ),
    case("tc-right", "BENCH004", [run()], []),
    case("tc-hex", "BENCH004", [run(env={"NCCL_IB_TC": "0x68"})], []),
    case("tc-ecn-bits", "BENCH004", [run(env={"NCCL_IB_TC": "106"})], [(None, "env NCCL_IB_TC")]),
    case("tc-unset", "BENCH004", [run(env={})], [(None, "env NCCL_IB_TC")]),
    case("tc-garbage", "BENCH004", [run(env={"NCCL_IB_TC": "high"})], [(None, "env NCCL_IB_TC")]),
    case("hca-unset", "BENCH005", [run()], []),
    case("hca-prefix", "BENCH005", [run(env={"NCCL_IB_HCA": "mlx5"})], []),
    case("hca-exact-all", "BENCH005", [run(env={"NCCL_IB_HCA": "=mlx5_0:1,mlx5_1:1"})], []),
    case(
        "hca-one-rail",
        "BENCH005",
        [run(env={"NCCL_IB_HCA": "=mlx5_0"})],
        [(None, "env NCCL_IB_HCA gpu01"), (None, "env NCCL_IB_HCA gpu02")],
    ),
    case(
        "hca-exclude-cabled",
        "BENCH005",
        [run(env={"NCCL_IB_HCA": "^mlx5_1"})],
        [(None, "env NCCL_IB_HCA gpu01"), (None, "env NCCL_IB_HCA gpu02")],
    ),
    case(
        "hca-typo",
        "BENCH005",
        [run(env={"NCCL_IB_HCA": "mlx5_0,mlx5_1,mlx4_0"})],
        [(None, "env NCCL_IB_HCA")],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.rule}-{c.id}")
def test_case(case: Case) -> None:
    assert found(case) == sorted(case.expect)


def test_no_environment_is_a_coverage_gap_not_a_pass() -> None:
    from tests.rules.harness import run_case

    text_run = run().model_copy(update={"env": None})
    for rule in ("BENCH004", "BENCH005"):
        c = case("text", rule, [text_run], [])
        assert run_case(c) == []
    # the skip is recorded on the context: check through the rule directly
    from fabriclint.rules.bench import IbTrafficClass

    ctx = bench_context(list(STATES), [text_run])
    assert list(IbTrafficClass(IbTrafficClass.options_model()).check(ctx)) == []
    assert ctx.skipped_on("BENCH004") == {"gpu01", "gpu02"}


def bench_context(states: list[DeviceState], runs: list[NcclRun]) -> Context:
    """A rule context over `states`, cabled as LINKS, with `runs` as the bench run to judge:
    what a BENCH rule's coverage gaps are read from (`Context.skipped_on`)."""
    inv = Inventory(
        name="t",
        devices={s.name: Device(platform=s.platform, role=s.role or "leaf") for s in states},
        links=[Link(a=a, b=b) for a, b in LINKS],
    )
    ctx = Context(inv, Intent.model_validate(ROCE_INTENT), {s.name: s for s in states})
    ctx.memo[BENCH] = BenchRun(runs)
    return ctx


def _bench002_skipped(runs: list[NcclRun]) -> set[str]:
    """The hosts BENCH002 recorded as not judged over `runs`."""
    from fabriclint.rules.bench import BusBandwidthFloor

    ctx = bench_context(list(STATES), runs)
    assert list(BusBandwidthFloor(BusBandwidthFloor.options_model()).check(ctx)) == []
    return ctx.skipped_on("BENCH002")


@pytest.mark.parametrize(
    ("rows", "skipped"),
    [
        ({GIB: 92.0}, set()),  # judged and above the floor: a pass
        ({1 << 26: 5.0, 1 << 29: 6.0}, {"gpu01", "gpu02"}),  # cut short (or -e 512M) before 1 GiB
        ({}, {"gpu01", "gpu02"}),  # an empty results table
    ],
    ids=["judged", "cut-before-min-size", "no-rows"],
)
def test_bench002_without_a_large_size_is_a_gap_not_a_pass(
    rows: dict[int, float], skipped: set[str]
) -> None:
    """A slow run cut before 1 GiB (or with no row at all) was trusted: nothing was judged."""
    one = run(rows) if rows else run().model_copy(update={"results": []})
    assert _bench002_skipped([one]) == skipped


def test_bench002_a_size_without_bus_bandwidth_is_not_judged() -> None:
    """`nan` (or `inf`, read as not shown) at every large size judges nothing."""
    nan = run().model_copy(
        update={"results": [NcclResult(size=GIB, out_of_place=NcclSide(), in_place=None)]}
    )
    assert _bench002_skipped([nan]) == {"gpu01", "gpu02"}


def test_messages_say_what_to_set() -> None:
    from tests.rules.harness import run_case

    (tc,) = run_case(case("m", "BENCH004", [run(env={"NCCL_IB_TC": "106"})], []))
    assert "NCCL_IB_TC=106 is DSCP 26" in tc.message  # ECN bits: still DSCP 26, but not TC 104
    assert "NCCL_IB_TC=104" in tc.message
    (bw,) = run_case(case("m", "BENCH002", [run({GIB: 61.5})], []))
    assert (
        "61.5 GB/s at 1 GiB is below the floor 80 GB/s (400 Gb/s x 2 rail(s) / 8 x 80%)"
        in bw.message
    )


@pytest.mark.parametrize(
    ("value", "spec"),
    [
        ("mlx5", (False, False, ["mlx5"])),
        ("=mlx5_0:1,mlx5_1:1", (False, True, ["mlx5_0", "mlx5_1"])),
        ("^=mlx5_3", (True, True, ["mlx5_3"])),
    ],
)
def test_hca_spec(value: str, spec: tuple[bool, bool, list[str]]) -> None:
    assert _hca_spec(value) == spec
