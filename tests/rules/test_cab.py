"""Data table for the CAB rules: the cabling plan against the LLDP neighbours devices report."""

from __future__ import annotations

from typing import Any

import pytest

from fabriclint.models.common import Source
from fabriclint.models.inventory import Device, Inventory, Link
from fabriclint.models.state import DeviceState, LldpNeighbor
from fabriclint.rules.base import Context, NoOptions
from fabriclint.rules.cab import PlanOnlyCable
from tests.rules.harness import Case, found, run_case, switch
from tests.rules.hosts import host

PLAN = [
    ("gpu01:ens1np0", "leaf01:Ethernet1/1"),
    ("gpu02:ens1np0", "leaf01:Ethernet2/1"),
]


def seeing(state: DeviceState, *seen: tuple[str, str, str]) -> DeviceState:
    """`state` with LLDP neighbours (local port, remote system, remote port)."""
    neighbours = [
        LldpNeighbor(
            local_port=local,
            remote_system=system,
            remote_port=port,
            source=Source(file=f"{state.name}/lldp.txt", line=i + 1),
        )
        for i, (local, system, port) in enumerate(seen)
    ]
    return state.model_copy(update={"neighbors": neighbours})


def leaf(*seen: tuple[str, str, str]) -> DeviceState:
    return seeing(
        switch("leaf01", {"Ethernet1/1": 9214, "Ethernet2/1": 9214, "Ethernet5/1": 9214}), *seen
    )


def gpu(name: str, *seen: tuple[str, str, str]) -> DeviceState:
    return seeing(host(name).model_copy(update={"role": "host"}), *seen)


CLEAN_LEAF = leaf(("Ethernet1/1", "gpu01", "ens1np0"), ("Ethernet2/1", "gpu02", "ens1np0"))
CLEAN = [
    CLEAN_LEAF,
    gpu("gpu01", ("ens1np0", "leaf01", "Ethernet1/1")),
    gpu("gpu02", ("ens1np0", "leaf01", "Ethernet2/1")),
]
SWAPPED_LEAF = leaf(("Ethernet1/1", "gpu02", "ens1np0"), ("Ethernet2/1", "gpu01", "ens1np0"))
SWAP_OBJ = "cables gpu01:ens1np0 - leaf01:Ethernet2/1 and gpu02:ens1np0 - leaf01:Ethernet1/1"

CASES: list[Case] = [
    # ---- CAB001 plan-only-cable
    Case("cab001-clean", "CAB001", CLEAN, [], links=PLAN),
    Case(
        "cab001-not-seen-by-either-end",
        "CAB001",
        [
            leaf(("Ethernet1/1", "gpu01", "ens1np0")),
            gpu("gpu01", ("ens1np0", "leaf01", "Ethernet1/1")),
            gpu("gpu02"),
        ],
        [("gpu02", "cable gpu02:ens1np0 - leaf01:Ethernet2/1")],
        links=PLAN,
    ),
    Case(
        "cab001-one-end-with-lldp-is-enough",
        "CAB001",
        [leaf(("Ethernet1/1", "gpu01", "ens1np0")), host("gpu01"), host("gpu02")],
        [("leaf01", "cable gpu02:ens1np0 - leaf01:Ethernet2/1")],
        links=PLAN,
    ),
    Case(
        "cab001-no-lldp-anywhere-is-not-judged",
        "CAB001",
        [switch("leaf01", {"Ethernet1/1": 9214}), host("gpu01")],
        [],
        links=PLAN[:1],
    ),
    Case(
        "cab001-swap-is-not-plan-only",
        "CAB001",
        [SWAPPED_LEAF, host("gpu01"), host("gpu02")],
        [],
        links=PLAN,
    ),
    # ---- CAB002 unplanned-cable
    Case("cab002-clean", "CAB002", CLEAN, [], links=PLAN),
    Case(
        "cab002-unplanned-both-ends",
        "CAB002",
        [
            leaf(("Ethernet5/1", "spine01.example.net", "Ethernet9/1")),
            seeing(
                switch("spine01", {"Ethernet9/1": 9214}, role="spine"),
                ("Ethernet9/1", "leaf01", "Et5/1"),
            ),
        ],
        [("leaf01", "cable leaf01:Ethernet5/1 - spine01:Ethernet9/1")],
        links=PLAN,
    ),
    Case(
        "cab002-wrong-port-is-not-unplanned",
        "CAB002",
        [leaf(("Ethernet5/1", "gpu01", "ens1np0")), host("gpu01")],
        [],
        links=PLAN,
    ),
    # ---- CAB003 wrong-port-cable
    Case("cab003-clean", "CAB003", CLEAN, [], links=PLAN),
    Case(
        "cab003-wrong-leaf-port",
        "CAB003",
        [
            leaf(("Ethernet5/1", "gpu01", "ens1np0")),
            gpu("gpu01", ("ens1np0", "leaf01", "Ethernet5/1")),
        ],
        [("gpu01", "cable gpu01:ens1np0 - leaf01:Ethernet5/1")],
        links=PLAN,
    ),
    Case(
        "cab003-wrong-device",
        "CAB003",
        [leaf(("Ethernet1/1", "gpu07", "ens1np0")), host("gpu01")],
        [("leaf01", "cable gpu07:ens1np0 - leaf01:Ethernet1/1")],
        links=PLAN,
    ),
    Case(
        "cab003-abbreviated-and-fqdn-names-match",
        "CAB003",
        [
            leaf(("Et1/1", "GPU01.example.net", "ens1np0"), ("Ethernet2/1", "gpu02", "ens1np0")),
            host("gpu01"),
            host("gpu02"),
        ],
        [],
        links=PLAN,
    ),
    Case(
        "cab003-mac-port-id-matches-by-device",
        "CAB003",
        [
            leaf(
                ("Ethernet1/1", "gpu01", "b8:3f:d2:a4:00:10"), ("Ethernet2/1", "gpu02", "ens1np0")
            ),
            host("gpu01"),
            host("gpu02"),
        ],
        [],
        links=PLAN,
    ),
    Case(
        "cab003-swap-is-cab004s",
        "CAB003",
        [SWAPPED_LEAF, host("gpu01"), host("gpu02")],
        [],
        links=PLAN,
    ),
    # ---- CAB004 swapped-cables
    Case("cab004-clean", "CAB004", CLEAN, [], links=PLAN),
    Case(
        "cab004-swapped-once",
        "CAB004",
        [SWAPPED_LEAF, host("gpu01"), host("gpu02")],
        [("leaf01", SWAP_OBJ)],
        links=PLAN,
    ),
    Case(
        "cab004-seen-from-both-ends-still-once",
        "CAB004",
        [
            SWAPPED_LEAF,
            gpu("gpu01", ("ens1np0", "leaf01", "Ethernet2/1")),
            gpu("gpu02", ("ens1np0", "leaf01", "Ethernet1/1")),
        ],
        [
            (
                "gpu01",
                SWAP_OBJ,
            )
        ],
        links=PLAN,
    ),
]


def _leaf(name: str, *seen: tuple[str, str, str]) -> DeviceState:
    return seeing(switch(name, {"Ethernet1/1": 9214}), *seen)


RAIL_PLAN = [("gpu01:ens1np0", "leaf01:Ethernet1/1"), ("gpu01:ens2np0", "leaf02:Ethernet1/1")]
RAILS: dict[str, dict[str, Any]] = {
    "leaf01": {"rail": 0},
    "leaf02": {"rail": 1},
    "gpu01": {"rails": {"ens1np0": 0, "ens2np0": 1}},
}
RAIL_CASES = [
    Case(
        "cab005-on-rail",
        "CAB005",
        [
            _leaf("leaf01", ("Ethernet1/1", "gpu01", "ens1np0")),
            _leaf("leaf02", ("Ethernet1/1", "gpu01", "ens2np0")),
            host("gpu01"),
        ],
        [],
        links=RAIL_PLAN,
        inventory=RAILS,
    ),
    Case(
        "cab005-nics-swapped-across-rails",
        "CAB005",
        [
            _leaf("leaf01", ("Ethernet1/1", "gpu01", "ens2np0")),
            _leaf("leaf02", ("Ethernet1/1", "gpu01", "ens1np0")),
            host("gpu01"),
        ],
        [
            ("gpu01", "cable gpu01:ens1np0 - leaf02:Ethernet1/1"),
            ("gpu01", "cable gpu01:ens2np0 - leaf01:Ethernet1/1"),
        ],
        links=RAIL_PLAN,
        inventory=RAILS,
    ),
    Case(
        "cab005-plan-crosses-rails-without-lldp",
        "CAB005",
        [_leaf("leaf01"), _leaf("leaf02"), host("gpu01")],
        [("gpu01", "cable gpu01:ens2np0 - leaf01:Ethernet1/1")],
        links=[("gpu01:ens2np0", "leaf01:Ethernet1/1")],
        inventory=RAILS,
    ),
    Case(
        "cab005-leaf-to-leaf-cable-is-no-rail-crossing",
        "CAB005",
        [
            _leaf(
                "leaf01",
                ("Ethernet1/1", "gpu01", "ens1np0"),
                ("Ethernet31/1", "leaf02", "Ethernet31/1"),
            ),
            _leaf(
                "leaf02",
                ("Ethernet1/1", "gpu01", "ens2np0"),
                ("Ethernet31/1", "leaf01", "Ethernet31/1"),
            ),
            host("gpu01"),
        ],
        [],
        links=RAIL_PLAN,
        inventory=RAILS,
    ),
    Case(
        "cab005-no-rails-declared",
        "CAB005",
        [SWAPPED_LEAF, host("gpu01"), host("gpu02")],
        [],
        links=PLAN,
    ),
]

CASES += RAIL_CASES


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_cab_rules(case: Case) -> None:
    assert found(case) == sorted(case.expect)


def test_swap_finding_names_all_ends_and_sources() -> None:
    """Both observed cables, the plan's ends and each LLDP line are in the message."""
    case = CASES[[c.id for c in CASES].index("cab004-seen-from-both-ends-still-once")]
    (finding,) = run_case(case)
    for text in ("gpu01/lldp.txt:1", "leaf01/lldp.txt:1", "leaf01/lldp.txt:2", "gpu02/lldp.txt:1"):
        assert text in finding.message
    assert "the plan cables" in finding.message
    assert finding.source == Source(file="gpu01/lldp.txt", line=1)


def test_no_lldp_output_is_a_coverage_gap_not_a_pass() -> None:
    """A cabled device without LLDP output gets no finding and is named in the coverage."""

    states = [leaf(("Ethernet1/1", "gpu01", "ens1np0")), host("gpu01"), host("gpu02")]
    inventory = Inventory(
        name="t",
        devices={s.name: Device(platform=s.platform, role="leaf") for s in states},
        links=[Link(a=a, b=b) for a, b in PLAN],
    )
    ctx = Context(inventory=inventory, intent=None, states={s.name: s for s in states})
    list(PlanOnlyCable(NoOptions()).check(ctx))
    (missing,) = ctx.skipped["CAB001"]
    assert "lldpctl -f json" in missing
    assert ctx.skipped["CAB001"][missing] == {"gpu01", "gpu02"}


@pytest.mark.parametrize("case", RAIL_CASES, ids=[c.id for c in RAIL_CASES])
def test_cab005_rail_crossing(case: Case) -> None:
    assert found(case) == sorted(case.expect)
    for finding in run_case(case):
        assert "rail 0" in finding.message and "rail 1" in finding.message
