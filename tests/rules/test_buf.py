"""Data table for the buffer rules (BUF001-BUF003), on model states and on the SONiC fixture."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fabriclint.models.state import BufferConfig, DeviceState, PgBuffer
from tests.rules.harness import Case, found
from tests.rules.sonic_fixture import FIXTURE, dropping, leaf07, setting
from tests.rules.test_pfc import leaf, run

LOSSLESS = PgBuffer(
    profile="pg_lossless", pool="in", pool_type="ingress", headroom_bytes=58_368, xoff_bytes=38_912
)
LOSSY = PgBuffer(profile="pg_lossy", pool="in", pool_type="ingress", headroom_bytes=1_518)
EGRESS_Q = PgBuffer(profile="q_lossless", pool="out", pool_type="egress", pool_bytes=60_000_000)


def pg(base: PgBuffer, **fields: Any) -> PgBuffer:
    """`base` with `fields` changed."""
    return base.model_copy(update=fields)


def buffered(
    pgs: dict[int, PgBuffer],
    queues: dict[int, PgBuffer] | None = None,
    tc_to_pg: dict[int, int] | None = None,
    **qos: Any,
) -> DeviceState:
    """leaf01 (PFC on 3) with priority groups `pgs`, queue buffers and a TC -> PG map."""
    to_pg = {tc: 0 for tc in range(8)} | {3: 3} if tc_to_pg is None else tc_to_pg
    config = BufferConfig(
        lossless_pool_bytes=20_000_000, priority_groups=pgs, queue_buffers=queues or {}
    )
    return leaf(buffers=config, tc_to_pg=to_pg, **qos)


CLEAN = {0: LOSSY, 3: LOSSLESS}

CASES: list[Case] = [
    # BUF001 pfc-priority-without-headroom
    Case("buf001-clean", "BUF001", [buffered(CLEAN)], []),
    Case(
        "buf001-tc-to-lossy-pg",
        "BUF001",
        [buffered(CLEAN, tc_to_pg={tc: 0 for tc in range(8)})],
        [("leaf01", "qos")],
    ),
    Case("buf001-pg-missing", "BUF001", [buffered({0: LOSSY})], [("leaf01", "qos")]),
    Case("buf001-lossy-profile", "BUF001", [buffered({0: LOSSY, 3: LOSSY})], [("leaf01", "qos")]),
    Case(
        "buf001-zero-headroom-is-qos008s",
        "BUF001",
        [buffered({0: LOSSY, 3: pg(LOSSY, headroom_bytes=0)})],
        [],
    ),
    Case("buf001-dynamic-pg", "BUF001", [buffered({0: LOSSY, 3: PgBuffer(profile="NULL")})], []),
    Case("buf001-profiles-unnamed", "BUF001", [buffered({0: PgBuffer(headroom_bytes=1)})], []),
    Case("buf001-no-tc-to-pg", "BUF001", [buffered({0: LOSSY}, tc_to_pg={})], []),
    Case("buf001-no-pfc", "BUF001", [buffered({0: LOSSY}, pfc=None)], []),
    # BUF002 buffer-profile-direction
    Case("buf002-clean", "BUF002", [buffered(CLEAN, {3: EGRESS_Q})], []),
    Case(
        "buf002-egress-on-pg",
        "BUF002",
        [buffered({0: LOSSY, 3: pg(EGRESS_Q, xoff_bytes=1)})],
        [("leaf01", "qos")],
    ),
    Case(
        "buf002-ingress-on-queue",
        "BUF002",
        [buffered(CLEAN, {3: LOSSLESS})],
        [("leaf01", "qos")],
    ),
    Case("buf002-type-unknown", "BUF002", [buffered(CLEAN, {3: pg(EGRESS_Q, pool_type=None)})], []),
    # BUF003 lossless-pool-empty
    Case("buf003-clean", "BUF003", [buffered(CLEAN, {3: EGRESS_Q})], []),
    Case(
        "buf003-egress-pool-zero",
        "BUF003",
        [buffered(CLEAN, {3: pg(EGRESS_Q, pool_bytes=0)})],
        [("leaf01", "qos")],
    ),
    Case(
        "buf003-lossy-queue-pool-zero",
        "BUF003",
        [buffered(CLEAN, {0: pg(EGRESS_Q, pool_bytes=0)})],
        [],
    ),
    Case(
        "buf003-pg-pool-zero",
        "BUF003",
        [buffered({0: LOSSY, 3: pg(LOSSLESS, pool_bytes=0)})],
        [("leaf01", "qos")],
    ),
    Case(
        "buf003-lossy-pg-pool-zero",
        "BUF003",
        [buffered({0: pg(LOSSY, pool_bytes=0), 3: LOSSLESS})],
        [],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_rule(case: Case) -> None:
    assert found(case) == sorted(case.expect)


# ---- the SONiC fixture: parsed, then judged ----------------------------------------------------

BUF = ("BUF001", "BUF002", "BUF003", "QOS008")


def findings_of(state: DeviceState) -> list[tuple[str, str, str]]:
    """(rule, object, path) of every BUF (and QOS008) finding on `state`."""
    out = [(f.rule, f.object, f.path) for c in BUF for f in run(Case(c, c, [state], []))[0]]
    return sorted(out)


def test_fixture_is_clean_and_modeled() -> None:
    state = leaf07()
    assert findings_of(state) == []
    buffers = state.interfaces["Ethernet4"].qos.buffers  # type: ignore[union-attr]
    assert buffers is not None
    three = buffers.priority_groups[3]
    assert (three.profile, three.pool, three.pool_type, three.xoff_bytes) == (
        "pg_lossless_100000_5m_profile",
        "ingress_lossless_pool",
        "ingress",
        38912,
    )
    queue = buffers.queue_buffers[3]
    assert (queue.profile, queue.pool_type, queue.pool_bytes) == (
        "egress_lossless_profile",
        "egress",
        60817392,
    )


def test_fixture_tc_mapped_to_lossy_pg() -> None:
    to_pg0 = setting("TC_TO_PRIORITY_GROUP_MAP", "AI_FABRIC", **{"3": "0"})
    # PG 0's lossy profile reserves 0 B: QOS008 already says the PG has no headroom.
    assert {rule for rule, _, _ in findings_of(leaf07(to_pg0))} == {"QOS008"}
    # A lossy profile that reserves a frame (Broadcom style) but has no xoff is BUF001's.
    reserved = setting("BUFFER_PROFILE", "ingress_lossy_profile", size="1518")
    assert findings_of(leaf07(to_pg0, reserved)) == [
        ("BUF001", f"interface {p}", f"interfaces.{p}.qos.buffers.priority_groups.0")
        for p in ("Ethernet0", "Ethernet4")
    ]
    finding = run(Case("l", "BUF001", [leaf07(to_pg0, reserved)], []))[0][0]
    assert "PFC priority 3 (traffic class 3) maps to priority group 0" in finding.message
    assert "ingress_lossy_profile has no XOFF threshold" in finding.message


def test_fixture_pg_entry_missing() -> None:
    state = leaf07(
        setting("TC_TO_PRIORITY_GROUP_MAP", "AI_FABRIC", **{"3": "4"}),
    )
    findings = run(Case("m", "BUF001", [state], []))[0]
    # BUFFER_PG entries are per port: each port lacks its own PG 4 entry.
    assert [f.path for f in findings] == [
        f"interfaces.{p}.qos.buffers.priority_groups.4" for p in ("Ethernet0", "Ethernet4")
    ]
    finding = findings[0]
    assert "priority group 4" in finding.message and "no buffer entry" in finding.message
    assert finding.source is not None and finding.source.line is not None


def test_fixture_egress_profile_on_ingress_pg() -> None:
    state = leaf07(setting("BUFFER_PG", "Ethernet0,Ethernet4|3", profile="egress_lossless_profile"))
    # BUFFER_PG entries are per port: one finding on each port the entry names (as QOS008).
    assert [f for f in findings_of(state) if f[0] == "BUF002"] == [
        ("BUF002", f"interface {p}", f"interfaces.{p}.qos.buffers.priority_groups.3")
        for p in ("Ethernet0", "Ethernet4")
    ]
    finding = run(Case("d", "BUF002", [state], []))[0][0]
    assert "egress_lossless_pool is an egress pool" in finding.message
    assert finding.source is not None
    assert finding.source.line == _line('"pool": "egress_lossless_pool"')


def test_fixture_ingress_profile_on_egress_queue() -> None:
    state = leaf07(
        setting("BUFFER_QUEUE", "Ethernet0,Ethernet4|3", profile="ingress_lossy_profile")
    )
    assert findings_of(state) == [
        ("BUF002", f"interface {p}", f"interfaces.{p}.qos.buffers.queue_buffers.3")
        for p in ("Ethernet0", "Ethernet4")
    ]


def test_fixture_egress_lossless_pool_zero() -> None:
    state = leaf07(setting("BUFFER_POOL", "egress_lossless_pool", size="0"))
    assert findings_of(state) == [
        ("BUF003", f"interface {p}", f"interfaces.{p}.qos.buffers.queue_buffers.3.pool_bytes")
        for p in ("Ethernet0", "Ethernet4")
    ]


def test_fixture_ingress_lossless_pool_zero_is_qos008s_alone() -> None:
    state = leaf07(setting("BUFFER_POOL", "ingress_lossless_pool", size="0"))
    assert {rule for rule, _, _ in findings_of(state)} == {"QOS008"}


def test_fixture_without_buffer_tables() -> None:
    state = leaf07(dropping("BUFFER_PG", "Ethernet0,Ethernet4|3"))
    assert {rule for rule, _, _ in findings_of(state)} == {"BUF001"}


def _line(needle: str) -> int:
    """The fixture line holding `needle`, as `leaf07` writes the text the parser numbers."""
    text = json.dumps(json.loads(FIXTURE.read_text()), indent=4)
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)
