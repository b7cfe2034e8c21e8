"""Regenerate the multivendor example's snapshots: inventories/multivendor-pod/snapshots/{baseline,broken,buffer-faults,remark-faults}.

The pod: two Juniper QFX spines; four leaves, one per vendor (Arista EOS, Cisco NX-OS, SONiC,
NVIDIA Cumulus); four GPU servers with two ConnectX-7 ports each (gpu01/gpu02 on leaf01 and
leaf02, gpu03/gpu04 on leaf03 and leaf04). Every cable is a routed /31 with an IP MTU of 9170.
`baseline` is the pod as intent.yaml describes it; `broken` seeds the faults of FAULTS below,
each a realistic mistake on one platform (or across a link between two vendors) that one rule
must report on a named device and object. The table is also written to snapshots/broken/FAULTS.md.
`buffer-faults` is `baseline` with the SONiC leaf's buffer and WRED tables edited (BUFFER_FAULTS:
a PFC priority in a PG without headroom, an egress profile on an ingress PG, a step ECN ramp, an
unbound RoCE WRED profile that does not mark), with its own FAULTS.md listing every finding.
`remark-faults` is `baseline` plus REMARK_FAULTS (RoCE re-marked on egress, other traffic in the
RoCE class), each a change of the rendered outputs, listed in snapshots/remark-faults/FAULTS.md.

Run from the repository root:  python scripts/gen_multivendor_pod.py
"""

from __future__ import annotations

import ipaddress
import json
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make `benchmarks` and `fabriclint` importable
    sys.path.insert(0, str(ROOT))

from benchmarks import examples  # noqa: E402
from benchmarks.examples import Fault, set_fields  # noqa: E402
from benchmarks.fabricgen import Host, Nic, Port, host_outputs  # noqa: E402
from benchmarks.vendorgen import (  # noqa: E402
    CONFIG_DB,
    IP_MTU,
    Cable,
    CumulusSwitch,
    EosSwitch,
    JunosSwitch,
    Neighbor,
    NxosSwitch,
    SonicSwitch,
    cumulus_outputs,
    eos_outputs,
    junos_outputs,
    nxos_outputs,
    sonic_outputs,
)
from fabriclint.snapshot import write_snapshot  # noqa: E402

FABRIC_DIR = ROOT / "inventories" / "multivendor-pod"

SPINE_ASN = 65100
SPINES = ("spine01", "spine02")
SPINE_PORTS = ("et-0/0/0", "et-0/0/1", "et-0/0/2", "et-0/0/3")
"""Spine port of leaf01..leaf04."""
LEAVES: dict[str, tuple[str, tuple[str, str], tuple[str, str]]] = {
    # leaf: (platform, (port to spine01, port to spine02), (ports of its two hosts))
    "leaf01": ("eos", ("Ethernet33/1", "Ethernet34/1"), ("Ethernet1/1", "Ethernet2/1")),
    "leaf02": ("nxos", ("Ethernet1/33", "Ethernet1/34"), ("Ethernet1/1", "Ethernet1/2")),
    "leaf03": ("sonic", ("Ethernet240", "Ethernet248"), ("Ethernet0", "Ethernet8")),
    "leaf04": ("cumulus", ("swp31", "swp32"), ("swp1", "swp2")),
}
HOSTS = {"gpu01": ("leaf01", "leaf02"), "gpu02": ("leaf01", "leaf02")}
HOSTS |= {"gpu03": ("leaf03", "leaf04"), "gpu04": ("leaf03", "leaf04")}
"""Host: (leaf of NIC0 ens1np0, leaf of NIC1 ens2np0)."""

Switch = JunosSwitch | EosSwitch | NxosSwitch | SonicSwitch | CumulusSwitch
S = TypeVar("S", JunosSwitch, EosSwitch, NxosSwitch, SonicSwitch, CumulusSwitch)


@dataclass
class Pod:
    """The laid-out pod: switches by name, hosts by name, the cabling plan."""

    switches: dict[str, Switch]
    hosts: dict[str, Host]
    links: list[tuple[str, str]]
    """Cables as ('device:port', 'device:port'), leaf or host end first."""


def _address(base: str, offset: int) -> str:
    return str(ipaddress.ip_address(base) + offset)


def _mgmt(index: int) -> str:
    return _address("192.0.2.10", index)


def _loopback(index: int) -> str:
    return _address("10.254.0.1", index)


def _spine(name: str, index: int) -> JunosSwitch:
    return JunosSwitch(name, "spine", _mgmt(index), _loopback(index), SPINE_ASN)


def _leaf(name: str, platform: str, index: int) -> Switch:
    mgmt, loopback, asn = _mgmt(index), _loopback(index), SPINE_ASN + index - 1
    if platform == "eos":
        sw = EosSwitch(name, "leaf", index, "DCS-7060X5-64S", "4.32.2F", mgmt, loopback, asn)
        for n in range(1, 65):
            port = f"Ethernet{n}/1"
            sw.ports[port] = Port(port, "UNUSED", mtu=None, shutdown=True, link_up=False)
        return sw
    kinds: dict[str, type[NxosSwitch | SonicSwitch | CumulusSwitch]] = {
        "nxos": NxosSwitch,
        "sonic": SonicSwitch,
        "cumulus": CumulusSwitch,
    }
    return kinds[platform](name, "leaf", mgmt, loopback, asn)


def _cable(pod: Pod, end: tuple[str, str], peer: tuple[str, str], address: str) -> None:
    """Cable `end` of a switch to `peer`, giving `end` the address `address`/31."""
    sw = pod.switches[end[0]]
    peer_text = f"{peer[0]}:{peer[1]}"
    if isinstance(sw, EosSwitch):
        description = peer_text.replace(":", "_")
        sw.ports[end[1]] = Port(end[1], description, f"{address}/31", mtu=IP_MTU)
    else:
        sw.cables[end[1]] = Cable(end[1], peer_text, f"{address}/31")


def _peer(pod: Pod, device: str, address: str, peer: str) -> None:
    sw, asn = pod.switches[device], pod.switches[peer].asn
    if isinstance(sw, EosSwitch):
        sw.bgp_neighbors.append((address, asn, peer))
    else:
        sw.neighbors.append(Neighbor(address, asn, peer))


def build_pod() -> Pod:
    """The pod as intended."""
    switches: dict[str, Switch] = {name: _spine(name, i) for i, name in enumerate(SPINES)}
    for i, (name, (platform, _, _)) in enumerate(LEAVES.items(), start=len(SPINES)):
        switches[name] = _leaf(name, platform, i)
    pod = Pod(switches=switches, hosts={}, links=[])
    for li, (leaf, (_, uplinks, _)) in enumerate(LEAVES.items()):
        for si, spine in enumerate(SPINES):
            spine_ip, leaf_ip = (_address("10.0.0.0", 2 * (2 * li + si) + k) for k in (0, 1))
            a, b = (leaf, uplinks[si]), (spine, SPINE_PORTS[li])
            _cable(pod, a, b, leaf_ip)
            _cable(pod, b, a, spine_ip)
            _peer(pod, leaf, spine_ip, spine)
            _peer(pod, spine, leaf_ip, leaf)
            pod.links.append((f"{leaf}:{a[1]}", f"{spine}:{b[1]}"))
    _attach_hosts(pod)
    return pod


def _attach_hosts(pod: Pod) -> None:
    slot = {leaf: 0 for leaf in LEAVES}
    index = len(SPINES) + len(LEAVES)
    for hi, (name, leaves) in enumerate(HOSTS.items()):
        host = Host(name=name, index=hi, mgmt_address=_address("192.0.2.10", index + hi))
        for nic_no, leaf in enumerate(leaves):
            port = LEAVES[leaf][2][slot[leaf]]
            slot[leaf] += 1
            leaf_ip, host_ip = (_address("172.16.0.0", 2 * (2 * hi + nic_no) + k) for k in (0, 1))
            netdev = f"ens{nic_no + 1}np0"
            _cable(pod, (leaf, port), (name, netdev), leaf_ip)
            host.nics.append(
                Nic(
                    netdev=netdev,
                    hca=f"mlx5_{nic_no}",
                    slot=nic_no + 1,
                    pci_bus=(0x1A, 0x40)[nic_no],
                    mac=0xB83FD2A50000 + (hi << 4) + nic_no,
                    address=host_ip,
                )
            )
            pod.links.append((f"{name}:{netdev}", f"{leaf}:{port}"))
        pod.hosts[name] = host


def switch_outputs(sw: Switch) -> tuple[str, dict[str, str]]:
    """(platform, {command: output}) of one switch."""
    if isinstance(sw, JunosSwitch):
        return "junos", junos_outputs(sw)
    if isinstance(sw, EosSwitch):
        return "eos", eos_outputs(sw)
    if isinstance(sw, NxosSwitch):
        return "nxos", nxos_outputs(sw)
    if isinstance(sw, SonicSwitch):
        return "sonic", sonic_outputs(sw)
    return "cumulus", cumulus_outputs(sw)


def snapshot_devices(pod: Pod) -> dict[str, tuple[str, dict[str, str]]]:
    """{device: (platform, {command: output})}, ready for fabriclint.snapshot.write_snapshot."""
    devices = {name: switch_outputs(sw) for name, sw in pod.switches.items()}
    devices |= {name: ("mlnx-host", host_outputs(host)) for name, host in pod.hosts.items()}
    return devices


# ---- seeded faults --------------------------------------------------------------------------------


def _get(pod: Pod, name: str, kind: type[S]) -> S:
    """Switch `name` of `pod`, which must be of platform class `kind`."""
    sw = pod.switches[name]
    assert isinstance(sw, kind), f"{name} is a {type(sw).__name__}"
    return sw


def _nic(pod: Pod, host: str, netdev: str) -> Nic:
    return next(n for n in pod.hosts[host].nics if n.netdev == netdev)


FAULTS: list[Fault[Pod]] = [
    Fault(
        "PFC002",
        "spine01",
        "pfc priorities",
        "Junos: `pfc;` deleted under `input dscp code-point 011010` of congestion-notification"
        "-profile roce-cnp: the no-loss code point (RoCE) never pauses on any et-* port",
        lambda p: set_fields(_get(p, "spine01", JunosSwitch), roce_pfc=False),
    ),
    Fault(
        "ECN004",
        "spine02",
        "queue 3",
        "Junos: `explicit-congestion-notification` removed from scheduler s-roce, so its"
        " drop-profile dp-roce drops RoCE packets on lossless queue 3 instead of marking them",
        lambda p: set_fields(_get(p, "spine02", JunosSwitch), roce_ecn=False),
    ),
    Fault(
        "PFC002",
        "leaf01",
        "dscp 26",
        "EOS: `qos map dscp 26 to traffic-class 4` (copied from a design with RoCE on queue 4):"
        " RoCE rides priority 4, which has no PFC",
        lambda p: _get(p, "leaf01", EosSwitch).dscp_map.update({26: 4}),
    ),
    Fault(
        "PFC006",
        "leaf02",
        "pfc priorities",
        "NX-OS: `pause pfc-cos 3` missing from `class type network-qos c-8q-nq3` of ROCE-NQ, so"
        " the `priority-flow-control mode on` ports run PFC on no CoS",
        lambda p: set_fields(_get(p, "leaf02", NxosSwitch), pause_pfc_cos=False),
    ),
    Fault(
        "ECN004",
        "leaf03",
        "queue 3",
        'SONiC: WRED_PROFILE ROCE_LOSSLESS `"ecn": "ecn_none"`, so the green WRED curve of'
        " lossless queue 3 drops RoCE packets instead of marking them",
        lambda p: set_fields(_get(p, "leaf03", SonicSwitch), wred_ecn="ecn_none"),
    ),
    Fault(
        "ECN002",
        "leaf04",
        "queue 3",
        "Cumulus: congestion-control default-global traffic-class 0,3 thresholds swapped"
        " (`min-threshold 1500000`, `max-threshold 150000`), as `nv show qos roce` shows",
        lambda p: set_fields(_get(p, "leaf04", CumulusSwitch), ecn_bytes=(1500000, 150000)),
    ),
    Fault(
        "QOS001",
        "gpu03",
        "interface ens1np0",
        "ConnectX: `mlnx_qos -i ens1np0 --trust pcp` (a reimaged host lost its DSCP trust):"
        " RoCE is classified by a VLAN priority the routed port never carries",
        lambda p: set_fields(_nic(p, "gpu03", "ens1np0"), trust="pcp"),
    ),
    Fault(
        "PFC007",
        "leaf03",
        "interface Ethernet248",
        'SONiC-Junos link: `"pfc_enable": "3,4"` in PORT_QOS_MAP of Ethernet248 (the SONiC template'
        " default) on the uplink to spine02:et-0/0/2, whose CNP pauses priority 3 only",
        lambda p: _get(p, "leaf03", SonicSwitch).pfc_enable.update({"Ethernet248": "3,4"}),
    ),
    Fault(
        "MTU001",
        "leaf04",
        "interface swp31",
        "Cumulus-Junos link: `link mtu 9216` (the Cumulus jumbo default) on swp31 while"
        " spine01:et-0/0/3 has `family inet mtu 9170`",
        lambda p: set_fields(_get(p, "leaf04", CumulusSwitch).cables["swp31"], mtu=9216),
    ),
]


# ---- the re-marking snapshot: RoCE re-marked on egress, other traffic in the RoCE class -----------

Outputs = dict[str, tuple[str, dict[str, str]]]
"""{device: (platform, {command: output})}, as snapshot_devices gives it."""

REMARK = "remark-faults"
"""The snapshot `baseline` plus REMARK_FAULTS (QOS010 and QOS011 on an example)."""


def _edit(device: str, command: str, old: str, new: str) -> Callable[[Outputs], None]:
    """A change of one device output: its first `old` becomes `new` (which must be there)."""

    def apply(outputs: Outputs) -> None:
        text = outputs[device][1][command]
        assert old in text, f"{device} {command}: {old!r} not found"
        outputs[device][1][command] = text.replace(old, new, 1)

    return apply


REMARK_FAULTS: list[Fault[Outputs]] = [
    Fault(
        "QOS010",
        "leaf01",
        "qos",
        "EOS: `qos rewrite dscp` turned on for DSCP-based telemetry with no `qos map traffic-class"
        " 3 to dscp` entry, so the default TC -> DSCP map re-marks RoCE 26 to 24 on the way out",
        _edit(
            "leaf01",
            "show running-config",
            "qos map dscp 26 to traffic-class 3\n",
            "qos rewrite dscp\nqos map dscp 26 to traffic-class 3\n",
        ),
    ),
    Fault(
        "QOS011",
        "leaf03",
        "qos",
        'SONiC: `"10": "3"` in DSCP_TO_TC_MAP|ROCE (storage on AF11 moved "next to RoCE"), so'
        " DSCP 10 shares lossless traffic class 3 with RoCE",
        _edit("leaf03", "config_db.json", '"10": "0"', '"10": "3"'),
    ),
]


def remark() -> Outputs:
    """The outputs of the baseline pod with every fault of REMARK_FAULTS applied."""
    outputs = snapshot_devices(build_pod())
    for fault in REMARK_FAULTS:
        fault.apply(outputs)
    return outputs


def remark_markdown() -> str:
    """remark-faults/FAULTS.md (tests/test_remark_example.py reads it)."""
    lines = [
        f"# Faults seeded in `{REMARK}`",
        "",
        "Generated by `scripts/gen_multivendor_pod.py` (do not edit by hand). `remark-faults` is",
        "`baseline` plus these changes; each row is the rule that must report it, on that device",
        "and object, and the snapshot gives no other finding.",
        *examples.HEADER,
    ]
    lines += [f"| {f.rule} | {f.device} | {f.object} | {f.change} |" for f in REMARK_FAULTS]
    return "\n".join(lines) + "\n"


def baseline() -> Pod:
    """The pod as intended."""
    return build_pod()


def broken() -> Pod:
    """The pod with every fault of FAULTS seeded."""
    pod = build_pod()
    for fault in FAULTS:
        fault.apply(pod)
    return pod


# ---- buffer-faults: edits of the SONiC leaf's config_db ------------------------------------------

Db = dict[str, Any]
BUFFER_LEAF = "leaf03"


def _drop_pg(db: Db) -> None:
    del db["BUFFER_PG"]["Ethernet240|3"]


def _egress_profile_on_pg(db: Db) -> None:
    db["BUFFER_PROFILE"]["egress_lossless_profile"] = {"pool": "egress_lossless_pool", "size": "0"}
    db["BUFFER_PG"]["Ethernet8|3"] = {"profile": "egress_lossless_profile"}


def _step_ramp(db: Db) -> None:
    db["WRED_PROFILE"]["ROCE_LOSSLESS"]["green_max_threshold"] = "160000"


def _unbound_no_ecn(db: Db) -> None:
    db["WRED_PROFILE"]["ROCE_LOSSLESS_V1"] = {
        "ecn": "ecn_none",
        "green_drop_probability": "100",
        "green_max_threshold": "1500000",
        "green_min_threshold": "150000",
        "wred_green_enable": "true",
    }


def _same(_db: Db) -> None:
    """A finding the change of the row above also causes (nothing more to edit)."""


BUFFER_FAULTS: list[Fault[Db]] = [
    Fault(
        "BUF001",
        BUFFER_LEAF,
        "interface Ethernet240",
        "SONiC: the BUFFER_PG entry of Ethernet240 PG 3 is missing (the uplink was added after"
        " the buffer template was rendered): PFC priority 3 maps (TC_TO_PRIORITY_GROUP_MAP ROCE)"
        " to PG 3, which reserves no headroom on Ethernet240",
        _drop_pg,
    ),
    Fault(
        "BUF002",
        BUFFER_LEAF,
        "interface Ethernet8",
        "SONiC: the BUFFER_PG entry of Ethernet8 PG 3 names `egress_lossless_profile` (pool"
        " egress_lossless_pool, type egress) instead of pg_lossless_400000_5m_profile",
        _egress_profile_on_pg,
    ),
    Fault(
        "QOS008",
        BUFFER_LEAF,
        "interface Ethernet8",
        "the same change: egress_lossless_profile reserves 0 B, so lossless PG 3 of Ethernet8"
        " has no headroom",
        _same,
    ),
    Fault(
        "ECN006",
        BUFFER_LEAF,
        "queue 3",
        'SONiC: WRED_PROFILE ROCE_LOSSLESS `"green_max_threshold": "160000"` (copied from a'
        " shallow-buffer design): the ramp from 150000 B is 10000 B wide, step marking at 100 %",
        _step_ramp,
    ),
    Fault(
        "DRIFT001",
        BUFFER_LEAF,
        "qos",
        "the same change: the maximum ECN threshold differs from intent's 1500000",
        _same,
    ),
    Fault(
        "ECN007",
        BUFFER_LEAF,
        "WRED_PROFILE ROCE_LOSSLESS_V1",
        "SONiC: WRED_PROFILE ROCE_LOSSLESS_V1 (left from an earlier design, bound to no queue)"
        ' has `"ecn": "ecn_none"`: it WRED-drops whatever queue it is bound to next',
        _unbound_no_ecn,
    ),
    Fault(
        "QOS006",
        BUFFER_LEAF,
        "WRED_PROFILE ROCE_LOSSLESS_V1",
        "the same change: ROCE_LOSSLESS_V1 is defined but applied nowhere",
        _same,
    ),
]


def buffer_faults() -> dict[str, tuple[str, dict[str, str]]]:
    """The baseline pod's devices, with BUFFER_FAULTS applied to the SONiC leaf's config_db."""
    devices = snapshot_devices(baseline())
    platform, outputs = devices[BUFFER_LEAF]
    db: Db = json.loads(outputs[CONFIG_DB])
    for fault in BUFFER_FAULTS:
        fault.apply(db)
    text = json.dumps(db, indent=4, sort_keys=True) + "\n"
    devices[BUFFER_LEAF] = (platform, {**outputs, CONFIG_DB: text})
    return devices


def buffer_faults_markdown() -> str:
    """buffer-faults/FAULTS.md: every finding the snapshot gives (tests/test_buffer_faults.py)."""
    intro = [
        "Generated by `scripts/gen_multivendor_pod.py` (do not edit by hand). `buffer-faults` is",
        "`baseline` with these changes to leaf03 (SONiC) only; each row is a finding it must give,",
        "on that device and object, and the snapshot gives no other finding.",
    ]
    return examples.faults_markdown(intro, BUFFER_FAULTS).replace("`broken`", "`buffer-faults`", 1)


def faults_markdown() -> str:
    """FAULTS.md: the seeded faults as a table (tests/test_multivendor_pod.py reads it)."""
    intro = [
        "Generated by `scripts/gen_multivendor_pod.py` (do not edit by hand). `broken` is",
        "`baseline` plus these changes; each row is the rule that must report it, on that device",
        "and object. A link fault may be reported at either end of its cable.",
    ]
    return examples.faults_markdown(intro, FAULTS)


def write(snapshots: Path) -> None:
    """(Re)write the three snapshots under `snapshots`."""
    examples.write_pair(
        snapshots, snapshot_devices(baseline()), snapshot_devices(broken()), faults_markdown()
    )
    target = snapshots / "buffer-faults"
    if target.exists():
        shutil.rmtree(target)
    write_snapshot(target, buffer_faults(), source="candidate")
    (target / "FAULTS.md").write_text(buffer_faults_markdown(), encoding="utf-8")
    target = snapshots / REMARK
    if target.exists():
        shutil.rmtree(target)
    write_snapshot(target, dict(remark()), source="candidate")
    (target / "FAULTS.md").write_text(remark_markdown(), encoding="utf-8")


def main() -> int:
    """Entry point."""
    write(FABRIC_DIR / "snapshots")
    print(
        f"wrote {FABRIC_DIR / 'snapshots'}/baseline, broken ({len(FAULTS)} faults) and"
        f" buffer-faults ({len(BUFFER_FAULTS)} findings), {REMARK} ({len(REMARK_FAULTS)} faults)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
