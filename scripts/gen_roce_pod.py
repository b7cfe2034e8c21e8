"""Regenerate the example fabric's snapshots: inventories/roce-pod/snapshots/{baseline,broken}.

`baseline` also holds every device's LLDP neighbours, as cabled by the plan (no CAB finding);
`lldp-miscabled` is `baseline` with the LLDP outputs of a pod cabled differently from the plan
(MISCABLING below: one swapped pair, one unplanned cable), written with its own FAULTS.md;
`lldp-rail-crossed` likewise, with one host cable on the leaf of the other rail (RAIL_CROSSED).

`baseline` is the pod exactly as intent.yaml describes it. `broken` is the same pod with the faults
of FAULTS below seeded, each one a realistic mistake that one rule of the catalog must catch on a
named device and object; the table is also written to snapshots/broken/FAULTS.md (the snapshot
reader only reads the files its manifest lists, so the note can live there).

Run from the repository root:  python scripts/gen_roce_pod.py
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make `benchmarks` and `fabriclint` importable
    sys.path.insert(0, str(ROOT))

from benchmarks import examples, roce_pod_bench, roce_pod_l2  # noqa: E402
from benchmarks.examples import Fault, set_fields  # noqa: E402
from benchmarks.fabricgen import Fabric, FabricSpec, build_fabric, snapshot_devices  # noqa: E402
from benchmarks.lldp_outputs import lldp_outputs  # noqa: E402
from fabriclint.snapshot import write_snapshot  # noqa: E402

FABRIC_DIR = ROOT / "inventories" / "roce-pod"
SPEC = FabricSpec(name="roce-pod")


def _port_down(fab: Fabric) -> None:
    fab.hosts["gpu03"].nics[1].link_up = False
    fab.switches["leaf04"].ports["Ethernet1/1"].link_up = False


FAULTS: list[Fault[Fabric]] = [
    Fault(
        "PFC002",
        "leaf01",
        "dscp 26",
        "`qos map dscp 26 to traffic-class 3` became `... traffic-class 1`: RoCE rides"
        " priority 1, which has no PFC",
        lambda f: f.switches["leaf01"].dscp_map.update({26: 1}),
    ),
    Fault(
        "ECN004",
        "leaf02",
        "qos-profile ROCE queue 3",
        "`random-detect drop minimum-threshold 200 kbytes maximum-threshold 1000 kbytes"
        " drop-probability 100` added to the lossless tx-queue 3 of profile ROCE",
        lambda f: set_fields(f.switches["leaf02"].queues[3], wred_drop_kbytes=(200, 1000)),
    ),
    Fault(
        "QOS005",
        "leaf02",
        "qos-profile ROCE-LOSSLESS",
        "spare port Ethernet8/1 prepared with `service-profile ROCE-LOSSLESS`, a profile"
        " that is not defined",
        lambda f: set_fields(f.switches["leaf02"].ports["Ethernet8/1"], profile="ROCE-LOSSLESS"),
    ),
    Fault(
        "ECN002",
        "leaf03",
        "qos-profile ROCE queue 3",
        "ECN thresholds swapped: `minimum-threshold 1500 kbytes maximum-threshold 150 kbytes`",
        lambda f: set_fields(f.switches["leaf03"].queues[3], ecn_kbytes=(1500, 150)),
    ),
    Fault(
        "MTU002",
        "leaf03",
        "interface Ethernet2/1",
        "`mtu 9214` missing on the port to gpu04:ens1np0 (EOS default 1500) while the NIC"
        " runs 9000",
        lambda f: set_fields(f.switches["leaf03"].ports["Ethernet2/1"], mtu=None),
    ),
    Fault(
        "PFC004",
        "leaf04",
        "qos-profile ROCE",
        "`priority-flow-control pause watchdog` removed from profile ROCE",
        lambda f: set_fields(f.switches["leaf04"], pfc_watchdog=False),
    ),
    Fault(
        "FAB004",
        "leaf04",
        "os",
        "leaf04 still runs EOS-4.30.1F; the other leaves run EOS-4.31.2F",
        lambda f: set_fields(f.switches["leaf04"], eos_version="4.30.1F"),
    ),
    Fault(
        "MTU001",
        "spine01",
        "interface Ethernet2/1",
        "`mtu 9000` on the spine end of the leaf02 uplink; leaf02:Ethernet33/1 has 9214",
        lambda f: set_fields(f.switches["spine01"].ports["Ethernet2/1"], mtu=9000),
    ),
    Fault(
        "QOS004",
        "spine01",
        "qos-profile ROCE queue 6",
        "`priority strict` on tx-queue 6 (CNP, DSCP 48) replaced by `no priority`",
        lambda f: set_fields(f.switches["spine01"].queues[6], strict=False),
    ),
    Fault(
        "QOS001",
        "spine02",
        "interface Ethernet3/1",
        "`qos trust cos` on the routed uplink to leaf03 (overrides the profile's trust dscp)",
        lambda f: set_fields(f.switches["spine02"].ports["Ethernet3/1"], trust="cos"),
    ),
    Fault(
        "DRIFT001",
        "spine02",
        "ecn min_bytes",
        "ECN minimum threshold drifted to 300 kbytes (intent 150000 bytes +-5%)",
        lambda f: set_fields(f.switches["spine02"].queues[3], ecn_kbytes=(300, 1500)),
    ),
    Fault(
        "NIC001",
        "gpu01",
        "ens2np0",
        "`mlnx_qos -i ens2np0 --pfc 0,0,0,0,1,0,0,0`: PFC on priority 4, the switch port"
        " has it on 3",
        lambda f: set_fields(f.hosts["gpu01"].nics[1], pfc=[4]),
    ),
    Fault(
        "NIC002",
        "gpu02",
        "ens1np0",
        "DCQCN reaction point off: `/sys/class/net/ens1np0/ecn/roce_rp/enable/3:0`",
        lambda f: set_fields(f.hosts["gpu02"].nics[0], ecn_rp=set()),
    ),
    Fault(
        "MTU003",
        "gpu02",
        "ens2np0",
        "netdev MTU 1500 (reboot lost the 9000 setting), so RoCE active_mtu fell to 1024",
        lambda f: set_fields(f.hosts["gpu02"].nics[1], mtu=1500),
    ),
    Fault(
        "NIC003",
        "gpu03",
        "ens1np0",
        "`/sys/class/net/ens1np0/ecn/roce_np/cnp_dscp:46` (the switches expect CNPs on 48)",
        lambda f: set_fields(f.hosts["gpu03"].nics[0], cnp_dscp=46),
    ),
    Fault(
        "NIC005",
        "gpu03",
        "ens2np0",
        "cable pulled: mlx5_1 PORT_DOWN / DISABLED, ens2np0 NO-CARRIER (and leaf04:Ethernet1/1"
        " notconnect)",
        _port_down,
    ),
    Fault(
        "NIC004",
        "gpu04",
        "ens1np0",
        "`cma_roce_tos -d mlx5_0 -p 1` prints 0: RDMA-CM traffic leaves with DSCP 0, not 26",
        lambda f: set_fields(f.hosts["gpu04"].nics[0], roce_tos=0),
    ),
    Fault(
        "NIC006",
        "gpu04",
        "ens2np0",
        "mlx5_1 firmware 28.38.1002 while every other ConnectX-7 runs 28.39.1002",
        lambda f: set_fields(f.hosts["gpu04"].nics[1], firmware="28.38.1002"),
    ),
]


def baseline() -> Fabric:
    """The pod as intended."""
    return build_fabric(SPEC)


def broken() -> Fabric:
    """The pod with every fault of FAULTS seeded."""
    fab = build_fabric(SPEC)
    for fault in FAULTS:
        fault.apply(fab)
    return fab


def faults_markdown() -> str:
    """FAULTS.md: the seeded faults as a table (tests/test_example_fabric.py reads it)."""
    intro = [
        "Generated by `scripts/gen_roce_pod.py` (do not edit by hand). `broken` is `baseline` plus",
        "these changes; each row is the rule that must report it, on that device and object.",
    ]
    return examples.faults_markdown(intro, FAULTS)


SWAPPED = ("leaf01:Ethernet1/1", "leaf01:Ethernet2/1")
"""lldp-miscabled: the cables of gpu01 NIC0 and gpu02 NIC0 exchanged on leaf01."""
UNPLANNED = ("leaf01:Ethernet31/1", "leaf02:Ethernet31/1")
"""lldp-miscabled: a patch cable between two leaves that the plan does not have."""

MISCABLED_MD = """# Cabling faults in `lldp-miscabled`

Generated by `scripts/gen_roce_pod.py` (do not edit by hand). `lldp-miscabled` is `baseline`
with the LLDP outputs of a pod cabled differently from the plan; each row is the rule that must
report it, on that device and object.

| rule | device | object | change |
|---|---|---|---|
| CAB004 | gpu01 | cables gpu01:ens1np0 - leaf01:Ethernet2/1 and gpu02:ens1np0 - leaf01:Ethernet1/1 | the cables of gpu01 ens1np0 and gpu02 ens1np0 exchanged on leaf01 |
| CAB002 | leaf01 | cable leaf01:Ethernet31/1 - leaf02:Ethernet31/1 | a patch cable leaf01 Ethernet31/1 - leaf02 Ethernet31/1 that the plan does not have |
"""


def miscabled(fab: Fabric) -> list[tuple[str, str]]:
    """The cables of `fab` with SWAPPED exchanged and UNPLANNED added."""
    first, second = SWAPPED
    far = {
        a if b in SWAPPED else b: a if a in SWAPPED else b
        for a, b in fab.links
        if {a, b} & set(SWAPPED)
    }
    by_port = {port: host for host, port in far.items()}
    cables = [(a, b) for a, b in fab.links if not {a, b} & set(SWAPPED)]
    cables += [(by_port[second], first), (by_port[first], second), UNPLANNED]
    return cables


RAIL_CROSSED = ("gpu04:ens2np0", "leaf04:Ethernet2/1", "leaf03:Ethernet3/1")
"""lldp-rail-crossed: gpu04's NIC1 (rail 1) plugged into a free port of leaf03 (rail 0)."""

RAIL_CROSSED_MD = """# Cabling fault in `lldp-rail-crossed`

Generated by `scripts/gen_roce_pod.py` (do not edit by hand). `lldp-rail-crossed` is `baseline`
with the LLDP outputs of a pod in which one host cable is on the leaf of the other rail (the
inventory declares rails: NIC0 rail 0 on leaf01/leaf03, NIC1 rail 1 on leaf02/leaf04); each row
is the rule that must report it, on that device and object.

| rule | device | object | change |
|---|---|---|---|
| CAB003 | gpu04 | cable gpu04:ens2np0 - leaf03:Ethernet3/1 | gpu04 ens2np0 plugged into leaf03 Ethernet3/1 instead of leaf04 Ethernet2/1 |
| CAB005 | gpu04 | cable gpu04:ens2np0 - leaf03:Ethernet3/1 | the same cable: NIC1 (rail 1) on leaf03 (rail 0) |
"""


def rail_crossed(fab: Fabric) -> list[tuple[str, str]]:
    """The cables of `fab` with RAIL_CROSSED's host port moved to the other rail's leaf."""
    port, planned, moved = RAIL_CROSSED
    return [(port, moved) if {a, b} == {port, planned} else (a, b) for a, b in fab.links]


def with_lldp(fab: Fabric, cables: list[tuple[str, str]]) -> dict[str, tuple[str, dict[str, str]]]:
    """The snapshot devices of `fab` plus the LLDP outputs of `cables`."""
    devices = snapshot_devices(fab)
    for name, outputs in lldp_outputs(fab, cables).items():
        devices[name][1].update(outputs)
    return devices


def write(snapshots: Path) -> None:
    """(Re)write the snapshots under `snapshots`: baseline (with LLDP), broken, lldp-miscabled,
    lldp-rail-crossed, svi-mtu-faults (benchmarks/roce_pod_l2.py) and the counter snapshots (bench-*)."""
    fab = baseline()
    examples.write_pair(
        snapshots, with_lldp(fab, fab.links), snapshot_devices(broken()), faults_markdown()
    )
    target = snapshots / "lldp-miscabled"
    if target.exists():
        shutil.rmtree(target)
    write_snapshot(target, with_lldp(fab, miscabled(fab)), source="candidate")
    (target / "FAULTS.md").write_text(MISCABLED_MD, encoding="utf-8")
    target = snapshots / "lldp-rail-crossed"
    if target.exists():
        shutil.rmtree(target)
    write_snapshot(target, with_lldp(fab, rail_crossed(fab)), source="candidate")
    (target / "FAULTS.md").write_text(RAIL_CROSSED_MD, encoding="utf-8")
    roce_pod_l2.write(snapshots, with_lldp(fab, fab.links))
    roce_pod_bench.write(snapshots)


def main() -> int:
    """Entry point."""
    write(FABRIC_DIR / "snapshots")
    print(f"wrote {FABRIC_DIR / 'snapshots'}/baseline and broken ({len(FAULTS)} faults)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
