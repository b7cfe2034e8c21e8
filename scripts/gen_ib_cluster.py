"""Regenerate the InfiniBand example fabric's snapshots: inventories/ib-cluster/snapshots/{baseline,broken}.

The cluster: two OpenSM nodes (sm01 master, priority 15; sm02 standby, 14) and eight GPU hosts
gpu01-gpu08, each with eight ConnectX-7 NDR HCAs (mlx5_0-mlx5_7, InfiniBand, 400 Gb/s, no IPoIB
netdevs). Tenants gpu01-04 and gpu05-08 each get a partition; a storage partition holds every CA.
`baseline` is what intent.yaml describes; `broken` seeds the faults of FAULTS, one rule each,
also written to snapshots/broken/FAULTS.md; `partition-faults` seeds PARTITION_FAULTS (tenant
isolation undone: IB011, IB012), with its own FAULTS.md.

Run from the repository root:  python scripts/gen_ib_cluster.py
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make `fabriclint` importable
    sys.path.insert(0, str(ROOT))

from benchmarks import examples  # noqa: E402
from benchmarks.examples import Fault  # noqa: E402
from fabriclint.platforms.opensm_keys import KEYS  # noqa: E402
from fabriclint.snapshot import MANIFEST, atomic_write, read_manifest, write_snapshot  # noqa: E402

FABRIC_DIR = ROOT / "inventories" / "ib-cluster"
HOSTS = [f"gpu{i:02d}" for i in range(1, 9)]
HCAS = 8
SM_GUIDS = {"sm01": 0x0002C90300A00001, "sm02": 0x0002C90300A00002}
SM_LIDS = {"sm01": 1, "sm02": 2}
IB_MTU_CODE = {256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5}
SECRETS = {  # example values; a real site keeps them out of git (the collector redacts them)
    "m_key": "0x6a1f00c3b7e29d41",
    "sm_key": "0x3c5e91a0f4d2b877",
    "sa_key": "0x9b04d6e2c1a57f30",
}


@dataclass
class Port:
    """One HCA port."""

    up: bool = True
    gbps_per_lane: float = 100.0
    active_mtu: int = 4096
    firmware: str = "28.39.1002"


@dataclass
class Host:
    """One GPU host."""

    name: str
    index: int
    ports: list[Port] = field(default_factory=lambda: [Port() for _ in range(HCAS)])

    def guid(self, hca: int) -> int:
        """Port GUID (= node GUID) of mlx5_<hca>."""
        return 0x0002C90300B00000 | self.index << 8 | hca

    def lid(self, hca: int) -> int:
        """LID the SM assigned to mlx5_<hca>."""
        return 16 + (self.index - 1) * HCAS + hca


@dataclass
class Sm:
    """One OpenSM node: option overrides over OpenSM's defaults, extra lines, files."""

    name: str
    options: dict[str, str]
    extra: list[str] = field(default_factory=list)
    partitions: list[str] = field(default_factory=list)
    state: int = 3


@dataclass
class Cluster:
    """The whole example fabric."""

    sms: dict[str, Sm]
    hosts: dict[str, Host]


def _guid(value: int) -> str:
    return f"0x{value:016x}"


def _members(hosts: list[Host], membership: str = "full") -> list[str]:
    return [f"{_guid(h.guid(i))}={membership}" for h in hosts for i in range(HCAS)]


def _partitions(hosts: dict[str, Host]) -> list[str]:
    tenant_a = [hosts[n] for n in HOSTS[:4]]
    tenant_b = [hosts[n] for n in HOSTS[4:]]
    return [
        "Default=0x7fff, ipoib, mtu=5: ALL=limited, SELF=full;",
        "tenant-a=0x8001, ipoib, mtu=5, sl=1:",
        *_wrap(_members(tenant_a)),
        "tenant-b=0x8002, ipoib, mtu=5, sl=2:",
        *_wrap(_members(tenant_b)),
        "storage=0x8003, sl=3: ALL_CAS=full, SELF=full;",
    ]


def _wrap(members: list[str]) -> list[str]:
    """Four members a line, continued after commas, closed with `;`."""
    lines = [", ".join(members[i : i + 4]) for i in range(0, len(members), 4)]
    return [f"    {line}{';' if n == len(lines) - 1 else ','}" for n, line in enumerate(lines)]


_QOS = {
    "qos": "TRUE",
    "max_op_vls": "4",
    "qos_max_vls": "8",
    "qos_high_limit": "0",
    "qos_vlarb_high": "0:4",
    "qos_vlarb_low": "0:64,1:64,2:64,3:64,4:64,5:64,6:64,7:64",
    "qos_sl2vl": "0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7",
}


def _sm(name: str, priority: int, hosts: dict[str, Host]) -> Sm:
    options = {
        "guid": _guid(SM_GUIDS[name]),
        "sm_priority": str(priority),
        "routing_engine": "ftree",
        "m_key_protection_level": "2",
        "allow_both_pkeys": "FALSE",
        **SECRETS,
        **_QOS,
    }
    return Sm(name, options, partitions=_partitions(hosts), state=3 if priority == 15 else 2)


def build() -> Cluster:
    """The cluster as intended."""
    hosts = {name: Host(name, i) for i, name in enumerate(HOSTS, 1)}
    sms = {"sm01": _sm("sm01", 15, hosts), "sm02": _sm("sm02", 14, hosts)}
    return Cluster(sms, hosts)


# ---- rendering -----------------------------------------------------------------------------------


def _value(default: object) -> str:
    if isinstance(default, bool):
        return "TRUE" if default else "FALSE"
    return "(null)" if default is None else str(default)


def render_opensm_conf(sm: Sm) -> str:
    """opensm.conf: every key OpenSM knows (as `opensm -c` writes them), with the overrides."""
    lines = [f"# {sm.name}: OpenSM options (generated by scripts/gen_ib_cluster.py)"]
    for key, spec in KEYS.items():
        if spec.repeatable or key == "dimn_ports_file":
            continue
        lines.append(f"{key} {sm.options.get(key, _value(spec.default))}")
    for key, value in sm.options.items():
        if key not in KEYS:
            lines.append(f"{key} {value}")
    return "\n".join([*lines, *sm.extra]) + "\n"


def render_qos_policy() -> str:
    """qos-policy.conf: one SL per tenant partition (simplified qos-ulps policy)."""
    return (
        "# SL per partition; SL2VL and VL arbitration are in opensm.conf\n"
        "qos-ulps\n"
        "    default              : 0\n"
        "    any, pkey 0x8001     : 1  # tenant-a\n"
        "    any, pkey 0x8002     : 2  # tenant-b\n"
        "    any, pkey 0x8003     : 3  # storage\n"
        "end-qos-ulps\n"
    )


def render_sminfo(sm: Sm) -> str:
    """`sminfo -G <own port GUID>`: this node's own SM."""
    names = ("SMINFO_NOTACT", "SMINFO_DISCOVER", "SMINFO_STANDBY", "SMINFO_MASTER")
    return (
        f"sminfo: sm lid {SM_LIDS[sm.name]} sm guid {_guid(SM_GUIDS[sm.name])}, "
        f"activity count {4711 if sm.state == 3 else 0} priority {sm.options['sm_priority']} "
        f"state {sm.state} {names[sm.state]}\n"
    )


def _rate(port: Port) -> str:
    return f"{4 * port.gbps_per_lane:g}" if port.up else "10"


def render_ibstat(host: Host) -> str:
    """`ibstat` of the host's eight CAs."""
    out = []
    for i, port in enumerate(host.ports):
        guid = _guid(host.guid(i))
        state, phys = ("Active", "LinkUp") if port.up else ("Down", "Polling")
        lid, sm_lid = (host.lid(i), SM_LIDS["sm01"]) if port.up else (0, 0)
        out.append(
            f"CA 'mlx5_{i}'\n\tCA type: MT4129\n\tNumber of ports: 1\n"
            f"\tFirmware version: {port.firmware}\n\tHardware version: 0\n"
            f"\tNode GUID: {guid}\n\tSystem image GUID: {guid}\n\tPort 1:\n"
            f"\t\tState: {state}\n\t\tPhysical state: {phys}\n\t\tRate: {_rate(port)}\n"
            f"\t\tBase lid: {lid}\n\t\tLMC: 0\n\t\tSM lid: {sm_lid}\n"
            f"\t\tCapability mask: 0xa751e848\n\t\tPort GUID: {guid}\n\t\tLink layer: InfiniBand\n"
        )
    return "".join(out)


def _colons(value: int) -> str:
    text = f"{value:016x}"
    return ":".join(text[i : i + 4] for i in range(0, 16, 4))


def _devinfo_port(host: Host, i: int, port: Port) -> str:
    if port.up:
        state, phys, speed = "PORT_ACTIVE (4)", "LINK_UP (5)", f"{port.gbps_per_lane:.1f} Gbps"
        lid, sm_lid = host.lid(i), SM_LIDS["sm01"]
    else:
        state, phys, speed, lid, sm_lid = "PORT_DOWN (1)", "POLLING (2)", "2.5 Gbps", 0, 0
    code = {100.0: 128, 50.0: 64, 25.0: 32, 2.5: 1}.get(port.gbps_per_lane if port.up else 2.5, 0)
    mtu = port.active_mtu
    return (
        f"\t\tport:\t1\n\t\t\tstate:\t\t\t{state}\n\t\t\tmax_mtu:\t\t4096 (5)\n"
        f"\t\t\tactive_mtu:\t\t{mtu} ({IB_MTU_CODE[mtu]})\n\t\t\tsm_lid:\t\t\t{sm_lid}\n"
        f"\t\t\tport_lid:\t\t{lid}\n\t\t\tport_lmc:\t\t0x00\n\t\t\tlink_layer:\t\tInfiniBand\n"
        "\t\t\tmax_msg_sz:\t\t0x40000000\n\t\t\tmax_vl_num:\t\t8 (4)\n\t\t\tsm_sl:\t\t\t0\n"
        "\t\t\tpkey_tbl_len:\t\t128\n\t\t\tgid_tbl_len:\t\t8\n\t\t\tsubnet_timeout:\t\t18\n"
        f"\t\t\tactive_width:\t\t4X (2)\n\t\t\tactive_speed:\t\t{speed} ({code})\n"
        f"\t\t\tphys_state:\t\t{phys}\n"
        f"\t\t\tGID[  0]:\t\tfe80:0000:0000:0000:{_colons(host.guid(i))}\n\n"
    )


def render_devinfo(host: Host) -> str:
    """`ibv_devinfo -v` of the host's eight HCAs (rdma-core layout, InfiniBand ports)."""
    out = []
    for i, port in enumerate(host.ports):
        guid = _colons(host.guid(i))
        out.append(
            f"hca_id:\tmlx5_{i}\n\ttransport:\t\t\tInfiniBand (0)\n"
            f"\tfw_ver:\t\t\t\t{port.firmware}\n\tnode_guid:\t\t\t{guid}\n"
            f"\tsys_image_guid:\t\t\t{guid}\n\tvendor_id:\t\t\t0x02c9\n"
            "\tvendor_part_id:\t\t\t4129\n\thw_ver:\t\t\t\t0x0\n"
            "\tboard_id:\t\t\tMT_0000000838\n\tphys_port_cnt:\t\t\t1\n"
            + _devinfo_port(host, i, port)
        )
    return "".join(out)


def snapshot_devices(cluster: Cluster) -> dict[str, tuple[str, dict[str, str]]]:
    """Device name -> (platform, {command: output}) for write_snapshot."""
    out: dict[str, tuple[str, dict[str, str]]] = {}
    for name, sm in cluster.sms.items():
        out[name] = (
            "opensm",
            {
                "opensm.conf": render_opensm_conf(sm),
                "partitions.conf": "\n".join(sm.partitions) + "\n",
                "qos-policy.conf": render_qos_policy(),
                "sminfo": render_sminfo(sm),
            },
        )
    for name, host in cluster.hosts.items():
        outputs = {"ibstat": render_ibstat(host), "ibv_devinfo -v": render_devinfo(host)}
        out[name] = ("mlnx-host", outputs)
    return out


# ---- faults --------------------------------------------------------------------------------------


def _both(change: Callable[[Sm], None]) -> Callable[[Cluster], None]:
    def apply(cluster: Cluster) -> None:
        for sm in cluster.sms.values():
            change(sm)

    return apply


def _firmware(host: str, version: str) -> Callable[[Cluster], None]:
    def apply(cluster: Cluster) -> None:
        for port in cluster.hosts[host].ports:
            port.firmware = version

    return apply


def _sm02_default_qos(cluster: Cluster) -> None:
    del cluster.sms["sm02"].options["qos"]  # the rendered file then says `qos FALSE`


def _storage_self_only(cluster: Cluster) -> None:
    lines = cluster.sms["sm02"].partitions
    lines[-1] = lines[-1].replace("ALL_CAS=full, ", "")


def _typo_membership(c: Cluster) -> None:
    lines = c.sms["sm01"].partitions
    at = next(i for i, line in enumerate(lines) if line.startswith("tenant-b")) + 1
    lines[at] = lines[at].replace("=full", "=fulll", 1)


FAULTS: list[Fault[Cluster]] = [
    Fault("IB001", "sm02", "subnet manager", "standby sm02 raised to `sm_priority 15`, the master's priority", lambda c: c.sms["sm02"].options.update(sm_priority="15")),
    Fault("IB002", "sm02", "opensm.conf routing_engine", "standby sm02 has `routing_engine updn`, the master `ftree` (also DRIFT001)", lambda c: c.sms["sm02"].options.update(routing_engine="updn")),
    Fault("IB003", "sm02", "opensm.conf qos tables", "sm02's opensm.conf was regenerated from the package default: `qos FALSE`, its qos_* tables kept (also IB002 and DRIFT001: qos differs)", _sm02_default_qos),
    Fault("IB004", "sm01", "opensm.conf qos_vlarb_low", "both SMs: `qos_vlarb_low` gains `9:64`, VL 9 with max_op_vls 4 (VL0-7)", _both(lambda sm: sm.options.update(qos_vlarb_low=_QOS["qos_vlarb_low"] + ",9:64"))),
    Fault("IB005", "sm01", "opensm.conf management keys", "both SMs: `m_key`, `sm_key`, `sa_key` back to OpenSM's defaults with tenant partitions (also DRIFT001)", _both(lambda sm: sm.options.update(m_key="0x0000000000000000", sm_key="0x0000000000000001", sa_key="0x0000000000000001"))),
    Fault("IB006", "sm01", "opensm.conf lmc", "`lmc 8` on sm01 (OpenSM resets it to 0)", lambda c: c.sms["sm01"].options.update(lmc="8")),
    Fault("IB007", "sm01", "opensm.conf sweep_intervall", "`sweep_intervall 5` on sm01, a key OpenSM does not know", lambda c: c.sms["sm01"].extra.append("sweep_intervall 5")),
    Fault("IB008", "sm01", "opensm.conf ignore_other_sm", "`ignore_other_sm TRUE` on the master sm01", lambda c: c.sms["sm01"].options.update(ignore_other_sm="TRUE")),
    Fault("IB009", "sm01", "partitions.conf", "sm01's partitions.conf: a tenant-b member `=fulll` (OpenSM makes it limited)", _typo_membership),
    Fault("IB010", "gpu03", "mlx5_5/1", "gpu03 mlx5_5 cable out: port Down / Polling", lambda c: setattr(c.hosts["gpu03"].ports[5], "up", False)),
    Fault("NIC005", "gpu06", "mlx5_2/1", "gpu06 mlx5_2 trained at HDR speed: 200 Gb/s while the other MT_0000000838 run 400", lambda c: setattr(c.hosts["gpu06"].ports[2], "gbps_per_lane", 50.0)),
    Fault("NIC006", "gpu07", "mlx5_0/1", "gpu07 was not upgraded: firmware 28.38.1000 on all eight HCAs", _firmware("gpu07", "28.38.1000")),
    Fault("MTU003", "gpu08", "mlx5_1/1", "gpu08 mlx5_1 active MTU 2048 (also DRIFT001 against intent 4096)", lambda c: setattr(c.hosts["gpu08"].ports[1], "active_mtu", 2048)),
    Fault("DRIFT001", "sm01", "subnet manager sweep_interval", "both SMs: `sweep_interval 30` (intent 10)", _both(lambda sm: sm.options.update(sweep_interval="30"))),
    Fault("DRIFT002", "sm02", "partition storage", "sm02's storage partition lists only `SELF=full`: the CAs (intent ALL_CAS) are not members", _storage_self_only),
]  # fmt: skip


def baseline() -> Cluster:
    """The cluster as intended."""
    return build()


def broken() -> Cluster:
    """The cluster with every fault of FAULTS seeded."""
    cluster = build()
    for fault in FAULTS:
        fault.apply(cluster)
    return cluster


def faults_markdown() -> str:
    """FAULTS.md: the seeded faults as a table (tests/test_ib_cluster.py reads it)."""
    intro = [
        "Generated by `scripts/gen_ib_cluster.py` (do not edit by hand). `broken` is `baseline` plus",
        "these changes; each row is the rule that must report it, on that device and object.",
    ]
    return examples.faults_markdown(intro, FAULTS)


def _open_partitions(cluster: Cluster) -> None:
    """sm01's partitions.conf replaced by a single-tenant template: every partition ALL=full."""
    cluster.sms["sm01"].partitions = [
        "Default=0x7fff, ipoib, mtu=5: ALL=full;",
        "tenant-a=0x8001, ipoib, mtu=5, sl=1: ALL=full;",
        "tenant-b=0x8002, ipoib, mtu=5, sl=2: ALL=full;",
        "storage=0x8003, sl=3: ALL_CAS=full, SELF=full;",
    ]


PARTITION_FAULTS: list[Fault[Cluster]] = [
    Fault("IB011", "sm01", "partitions.conf", "sm01's partitions.conf replaced by a single-tenant template: every partition `ALL=full`, so tenant-a and tenant-b share every partition", _open_partitions),
    Fault("IB012", "sm01", "opensm.conf part_enforce", "both SMs: `part_enforce off` (left from a debugging session): switches stop filtering P_Keys", _both(lambda sm: sm.options.update(part_enforce="off"))),
    Fault("IB012", "sm02", "opensm.conf part_enforce", "the same `part_enforce off` on the standby sm02 (the pair agrees, so no IB002)", lambda c: None),
]  # fmt: skip
"""partition-faults: `baseline` plus these, one rule each (snapshots/partition-faults/FAULTS.md)."""

PARTITION_FAULTS_CREATED = "2026-11-28T12:00:00Z"
"""Older than baseline/broken, so `check` without `--snapshot` still picks those."""


def partition_faults_markdown() -> str:
    """partition-faults/FAULTS.md."""
    intro = [
        "Generated by `scripts/gen_ib_cluster.py` (do not edit by hand). `partition-faults` is",
        "`baseline` plus these changes; each row is the rule that must report it, on that device",
        "and object.",
    ]
    text = examples.faults_markdown(intro, PARTITION_FAULTS)
    return text.replace("`broken`", "`partition-faults`", 1)


def _write_partition_faults(snapshots: Path) -> None:
    cluster = build()
    for fault in PARTITION_FAULTS:
        fault.apply(cluster)
    target = snapshots / "partition-faults"
    if target.exists():
        shutil.rmtree(target)
    write_snapshot(target, snapshot_devices(cluster), source="candidate")
    manifest = read_manifest(target).model_copy(update={"created": PARTITION_FAULTS_CREATED})
    atomic_write(target / MANIFEST, manifest.model_dump_json(indent=2) + "\n")
    (target / "FAULTS.md").write_text(partition_faults_markdown(), encoding="utf-8")


def write(snapshots: Path) -> None:
    """(Re)write the snapshots under `snapshots`: baseline, broken and partition-faults."""
    examples.write_pair(
        snapshots, snapshot_devices(baseline()), snapshot_devices(broken()), faults_markdown()
    )
    _write_partition_faults(snapshots)


def main() -> int:
    """Entry point."""
    write(FABRIC_DIR / "snapshots")
    print(f"wrote {FABRIC_DIR / 'snapshots'}/baseline and broken ({len(FAULTS)} faults)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
