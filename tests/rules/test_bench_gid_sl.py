"""BENCH006 (NCCL_IB_GID_INDEX against the GID table) and BENCH007 (NCCL_IB_SL against the
intent's RoCE priority), and the `show_gids` output read onto the host's RDMA ports."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState
from fabriclint.parsers.mlnx_host import parse
from fabriclint.platforms.mlnx_host import SHOW_GIDS
from fabriclint.rules.bench import BENCH, BenchRun, IbGidIndex
from fabriclint.snapshot import load_snapshot
from tests.rules.harness import ROCE_INTENT, Case, found, switch
from tests.rules.test_bench import LINKS, TC_OK, bench_context, host, run

BASELINE = (
    Path(__file__).resolve().parents[2] / "inventories" / "roce-pod" / "snapshots" / "baseline"
)

# gpu01 of roce-pod as MLNX_OFED's show_gids prints it: per port a link-local pair (v1, v2)
# and an IPv4-mapped pair (v1, v2); written after the MLNX_OFED "RoCE" documentation.
SHOW_GIDS_TEXT = """\
DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV
---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---
mlx5_0\t1\t0\tfe80:0000:0000:0000:966d:aeff:fe12:3456\t\t\tv1\tens1np0
mlx5_0\t1\t1\tfe80:0000:0000:0000:966d:aeff:fe12:3456\t\t\tv2\tens1np0
mlx5_0\t1\t2\t0000:0000:0000:0000:0000:ffff:0a00:0001\t10.0.0.1  \tv1\tens1np0
mlx5_0\t1\t3\t0000:0000:0000:0000:0000:ffff:0a00:0001\t10.0.0.1  \tv2\tens1np0
mlx5_1\t1\t0\tfe80:0000:0000:0000:966d:aeff:fe12:3457\t\t\tv1\tens2np0
mlx5_1\t1\t1\tfe80:0000:0000:0000:966d:aeff:fe12:3457\t\t\tv2\tens2np0
mlx5_1\t1\t2\t0000:0000:0000:0000:0000:ffff:0a00:0101\t10.0.1.1  \tv1\tens2np0
mlx5_1\t1\t3\t0000:0000:0000:0000:0000:ffff:0a00:0101\t10.0.1.1  \tv2\tens2np0
n_gids_found=8
"""
TABLE = {0: "v1", 1: "v2", 2: "v1", 3: "v2"}


def test_show_gids_is_read_onto_each_port() -> None:
    base = load_snapshot(BASELINE).devices["gpu01"].raw
    assert base is not None
    outputs = {**base.outputs, SHOW_GIDS: RawOutput(text=SHOW_GIDS_TEXT, file="gpu01/gids.txt")}
    state = parse(RawDevice(name="gpu01", platform="mlnx-host", outputs=outputs))
    assert {n: p.roce_gids for n, p in state.rdma.items()} == {
        "ens1np0": TABLE,
        "ens2np0": TABLE,
    }
    assert state.rdma["ens2np0"].sources["roce_gids"].line == 7
    assert state.unparsed == []
    without = parse(base)
    assert all(p.roce_gids is None for p in without.rdma.values())


def gid_host(name: str, table: dict[int, str] | None = TABLE) -> DeviceState:
    state = host(name)
    for port in state.rdma.values():
        port.roce_gids = None if table is None else dict(table)
    return state


def cases() -> list[Case]:
    states = [switch("leaf1", {f"Ethernet{i}": 9214 for i in range(1, 5)})]
    states += [gid_host("gpu01"), gid_host("gpu02")]

    def c(id: str, rule: str, env: dict[str, str], expect: list[tuple[str | None, str]],
          version: int | None = None, hosts: list[DeviceState] | None = None) -> Case:  # fmt: skip
        r = run(env={**TC_OK, **env}).model_copy(update={"nccl_version": version})
        return Case(
            id, rule, hosts or list(states), expect, links=LINKS, intent=ROCE_INTENT,
            memo={BENCH: BenchRun([r])},
        )  # fmt: skip

    every: list[tuple[str | None, str]] = [
        (h, f"rdma ens{i}np0") for h in ("gpu01", "gpu02") for i in (1, 2)
    ]
    v1_on_gpu02 = [states[0], gid_host("gpu01"), gid_host("gpu02", {3: "v1"})]
    return [
        c("v2-index", "BENCH006", {"NCCL_IB_GID_INDEX": "3"}, []),
        c("v1-index", "BENCH006", {"NCCL_IB_GID_INDEX": "2"}, every),
        c("no-such-index", "BENCH006", {"NCCL_IB_GID_INDEX": "7"}, every),
        c(
            "one-host-v1",
            "BENCH006",
            {"NCCL_IB_GID_INDEX": "3"},
            every[2:],
            hosts=v1_on_gpu02,
        ),
        c("unset-old-nccl", "BENCH006", {}, every, version=21805),
        c("unset-auto", "BENCH006", {}, [], version=22105),
        c("minus-one-auto", "BENCH006", {"NCCL_IB_GID_INDEX": "-1"}, []),
        c(
            "not-a-number",
            "BENCH006",
            {"NCCL_IB_GID_INDEX": "three"},
            [(None, "env NCCL_IB_GID_INDEX")],
        ),
        c("sl-unset", "BENCH007", {}, []),
        c("sl-priority", "BENCH007", {"NCCL_IB_SL": "3"}, []),
        c("sl-other", "BENCH007", {"NCCL_IB_SL": "5"}, [(None, "env NCCL_IB_SL")]),
        c("sl-zero", "BENCH007", {"NCCL_IB_SL": "0"}, [(None, "env NCCL_IB_SL")]),
        c("sl-junk", "BENCH007", {"NCCL_IB_SL": "high"}, [(None, "env NCCL_IB_SL")]),
    ]


CASES = cases()


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.rule}-{c.id}")
def test_case(case: Case) -> None:
    assert found(case) == sorted(case.expect)


def test_no_gid_table_is_a_coverage_gap_not_a_pass() -> None:
    states = [switch("leaf1", {f"Ethernet{i}": 9214 for i in range(1, 5)})]
    states += [gid_host("gpu01", None), gid_host("gpu02", None)]
    ctx = bench_context(states, [run(env={**TC_OK, "NCCL_IB_GID_INDEX": "3"})])
    assert list(IbGidIndex(IbGidIndex.options_model()).check(ctx)) == []
    assert ctx.skipped_on("BENCH006") == {"gpu01", "gpu02"}


def test_the_message_names_the_v2_indexes() -> None:
    states = [switch("leaf1", {f"Ethernet{i}": 9214 for i in range(1, 5)}), gid_host("gpu01")]
    ctx = bench_context(states, [run(env={**TC_OK, "NCCL_IB_GID_INDEX": "0"})])
    first = next(iter(IbGidIndex(IbGidIndex.options_model()).check(ctx)))
    assert first.message == (
        "r.json: NCCL_IB_GID_INDEX=0 selects a RoCE v1 GID on gpu01 mlx5_0 port 1; "
        "RoCE v2 GIDs there: 1, 3"
    )
