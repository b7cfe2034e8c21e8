"""Render inventories/ib-rail-pod: ib-cluster's subnet managers and GPU hosts with the eight
rail leaf switches they are cabled to, the cabling plan, and `ibnetdiscover` on sm01.

The hosts' and SMs' other outputs are ib-cluster's `baseline`, copied once; this script
writes what is new: inventory.yaml (with the switches, `managed_by: sm01`, rails and 66
links) and, for each snapshot, each SM node's `ibnetdiscover` output (the ports' GUIDs and LIDs read
from the hosts' `ibstat`), then the snapshot manifest's entry and checksum for it.

    python scripts/gen_ib_rail_pod.py          # rewrite; tests/test_ib_rail_pod.py checks it
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FABRIC_DIR = ROOT / "inventories" / "ib-rail-pod"
HOSTS = [f"gpu{i:02d}" for i in range(1, 9)]
RAILS = 8
SMS = {"sm01": (0x0002C90300A00001, 1), "sm02": (0x0002C90300A00002, 2)}
"""SM node -> (HCA GUID, LID), as ib-cluster's opensm.conf and sminfo give them."""
SM_PORT = 33
"""The leaf port each SM's HCA is on (sm01 on ibleaf01, sm02 on ibleaf02)."""
MISCABLED = ("gpu03", 5, "ibleaf05", 9)
"""In `broken`: gpu03's mlx5_5 (rail 5) is plugged into port 9 of ibleaf05 (rail 4)."""


@dataclass(frozen=True)
class Ca:
    """One HCA as ibnetdiscover shows it."""

    host: str
    hca: str
    guid: int
    lid: int


def leaf(rail: int) -> str:
    """The leaf switch of a rail (rail 0 is ibleaf01)."""
    return f"ibleaf{rail + 1:02d}"


def leaf_guid(rail: int) -> int:
    return 0xFC6A1C0300A0B001 + rail


def leaf_lid(rail: int) -> int:
    return 101 + rail


def plan() -> list[tuple[str, str, str, str]]:
    """(host, HCA port, leaf, leaf port) of every planned cable: HCA i of host n on port n of
    the rail-i leaf, each SM's HCA on port 33 of ibleaf01/ibleaf02."""
    cables = [
        (host, f"mlx5_{rail}/1", leaf(rail), str(n))
        for n, host in enumerate(HOSTS, 1)
        for rail in range(RAILS)
    ]
    cables += [(sm, "mlx5_0/1", leaf(i), str(SM_PORT)) for i, sm in enumerate(SMS)]
    return cables


def read_cas(snapshot: Path) -> dict[tuple[str, str], Ca]:
    """(host, HCA) -> Ca, from each host's `ibstat` in the snapshot; the SMs' from SMS."""
    found: dict[tuple[str, str], Ca] = {}
    for host in HOSTS:
        text = (snapshot / host / "ibstat.txt").read_text(encoding="utf-8")
        for block in re.split(r"(?m)^CA '", text)[1:]:
            hca = block.split("'", 1)[0]
            guid = int(re.search(r"Port GUID: (0x[0-9a-f]+)", block)[1], 16)  # type: ignore[index]
            lid = int(re.search(r"Base lid: (\d+)", block)[1])  # type: ignore[index]
            found[(host, hca)] = Ca(host, hca, guid, lid)
    for sm, (guid, lid) in SMS.items():
        found[(sm, "mlx5_0")] = Ca(sm, "mlx5_0", guid, lid)
    return found


def _switch_name(rail: int) -> str:
    return f"MF0;{leaf(rail)}:MQM9790/U1"


def render_ibnetdiscover(cas: dict[tuple[str, str], Ca], miscabled: bool, sm: str) -> str:
    """`ibnetdiscover` on SM node `sm`: a block per leaf switch, then a block per CA."""
    cables = plan()
    if miscabled:
        host, rail, to_leaf, to_port = MISCABLED
        cables = [
            (h, p, to_leaf, str(to_port)) if (h, p) == (host, f"mlx5_{rail}/1") else (h, p, s, sp)
            for h, p, s, sp in cables
        ]
    rails = {leaf(r): r for r in range(RAILS)}
    lines = [
        "#",
        "# Topology file: generated on Sun Nov 29 20:01:04 2026",
        "#",
        f"# Initiated from node {SMS[sm][0]:016x} port {SMS[sm][0]:016x}",
        "",
    ]
    for name, rail in rails.items():
        guid = leaf_guid(rail)
        lines += [
            "vendid=0x2c9",
            "devid=0xd2f2",
            f"sysimgguid=0x{guid:016x}",
            f"switchguid=0x{guid:016x}({guid:x})",
            f'Switch\t65 "S-{guid:016x}"\t\t# "{_switch_name(rail)}" enhanced port 0 '
            f"lid {leaf_lid(rail)} lmc 0",
        ]
        ports = sorted(((int(sp), h, p) for h, p, s, sp in cables if s == name))
        for port, host, hca_port in ports:
            ca = cas[(host, hca_port.split("/")[0])]
            lines.append(
                f'[{port}]\t"H-{ca.guid:016x}"[1]({ca.guid:x}) \t\t# "{ca.host} {ca.hca}" '
                f"lid {ca.lid} 4xNDR"
            )
        lines.append("")
    for host, hca_port, switch, leaf_port in sorted(cables, key=lambda c: (c[0], c[1])):
        ca = cas[(host, hca_port.split("/")[0])]
        rail = rails[switch]
        lines += [
            "vendid=0x2c9",
            "devid=0x1021",
            f"sysimgguid=0x{ca.guid:016x}",
            f"caguid=0x{ca.guid:016x}",
            f'Ca\t1 "H-{ca.guid:016x}"\t\t# "{ca.host} {ca.hca}"',
            f'[1]({ca.guid:x}) \t"S-{leaf_guid(rail):016x}"[{leaf_port}]\t\t# lid {ca.lid} lmc 0 '
            f'"{_switch_name(rail)}" lid {leaf_lid(rail)} 4xNDR',
            "",
        ]
    return "\n".join(lines)


def _devices() -> list[str]:
    """The devices of ib-cluster (the same names, addresses and credentials)."""
    creds = "{username_env: FABRICLINT_HOST_USER, ssh_key: ~/.ssh/fabriclint_ed25519}"
    out = [
        f"  {sm}: {{platform: opensm, role: sm, host: 198.51.100.{10 + i}, credentials: {creds}}}"
        for i, sm in enumerate(SMS)
    ]
    rails = ", ".join(f"mlx5_{r}/1: {r}" for r in range(RAILS))
    for i, host in enumerate(HOSTS):
        tenant = "tenant-a" if i < 4 else "tenant-b"
        out += [
            f"  {host}:",
            "    platform: mlnx-host",
            "    role: gpu",
            f"    host: 198.51.100.{20 + i}",
            f"    credentials: {creds}",
            f"    tags: [h100, {tenant}]",
            f"    rails: {{{rails}}}",
        ]
    out += [
        f"  {leaf(r)}: {{platform: ib-switch, role: ib-leaf, rail: {r}, managed_by: sm01}}"
        for r in range(RAILS)
    ]
    return out


def render_inventory() -> str:
    """inventory.yaml: the SMs, the hosts with their rails, the leaves and the cabling plan."""
    header = [
        "# yaml-language-server: $schema=../../schemas/inventory.json",
        "#",
        "# ib-rail-pod: ib-cluster's two OpenSM nodes and eight GPU hosts (8 ConnectX-7 NDR HCAs",
        "# each) with the rail-optimized leaf layer they are cabled to: HCA i of every host on the",
        "# leaf of rail i (ibleaf01 = rail 0 ... ibleaf08 = rail 7), host n on leaf port n, the SMs",
        "# on port 33 of ibleaf01/ibleaf02. The leaves are unmanaged Quantum-2 switches run by the",
        "# subnet manager (`managed_by: sm01`): fabriclint never logs into them; sm01's",
        "# `ibnetdiscover` shows every link of the subnet, which the CAB rules compare with `links`.",
        "# Management addresses are documentation addresses (RFC 5737); nothing here is contacted.",
        "#",
        "#   fabriclint check inventories/ib-rail-pod --snapshot baseline    # clean: exit 0",
        "#   fabriclint check inventories/ib-rail-pod --snapshot broken      # one cable on the wrong leaf: exit 1",
        "#",
        "# Rendered by scripts/gen_ib_rail_pod.py (tests/test_ib_rail_pod.py checks that).",
        "name: ib-rail-pod",
        "",
        "devices:",
    ]
    links = [f'  - {{a: "{h}:{p}", b: "{s}:{sp}"}}' for h, p, s, sp in plan()]
    return "\n".join([*header, *_devices(), "", "links:", *links]) + "\n"


def write_ibnetdiscover(snapshot: Path, miscabled: bool) -> None:
    """Each SM node's ibnetdiscover output (both see the whole subnet), and its manifest entry
    and checksum."""
    manifest_path = snapshot / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    cas = read_cas(snapshot)
    for sm in SMS:
        text = render_ibnetdiscover(cas, miscabled, sm)
        (snapshot / sm / "ibnetdiscover.txt").write_text(text, encoding="utf-8")
        entry = manifest["devices"][sm]
        entry["files"]["ibnetdiscover"] = "ibnetdiscover.txt"
        entry["sha256"]["ibnetdiscover.txt"] = hashlib.sha256(text.encode()).hexdigest()
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def faults_markdown() -> str:
    """FAULTS.md of `broken`: the one cable plugged elsewhere, and the rules that report it."""
    host, rail, to_leaf, to_port = MISCABLED
    obj = f"cable {host}:mlx5_{rail}/1 - {to_leaf}:{to_port}"
    change = (
        f"{host} mlx5_{rail} (rail {rail}) plugged into {to_leaf} port {to_port} (rail "
        f"{int(to_leaf[-2:]) - 1}) instead of {leaf(rail)} port {int(host[-2:])}"
    )
    return (
        "# Cabling fault in `broken`\n\n"
        "Generated by `scripts/gen_ib_rail_pod.py` (do not edit by hand). `broken` is `baseline`\n"
        "with the subnet managers' `ibnetdiscover` of a subnet in which one cable is plugged into\n"
        "the wrong leaf; each row is the rule that must report it, on that device and object.\n\n"
        "| rule | device | object | change |\n"
        "|---|---|---|---|\n"
        f"| CAB003 | {host} | {obj} | {change} |\n"
        f"| CAB005 | {host} | {obj} | the same cable crosses rails |\n"
    )


def main() -> int:
    (FABRIC_DIR / "inventory.yaml").write_text(render_inventory(), encoding="utf-8")
    write_ibnetdiscover(FABRIC_DIR / "snapshots" / "baseline", miscabled=False)
    write_ibnetdiscover(FABRIC_DIR / "snapshots" / "broken", miscabled=True)
    (FABRIC_DIR / "snapshots" / "broken" / "FAULTS.md").write_text(
        faults_markdown(), encoding="utf-8"
    )
    print(f"wrote {FABRIC_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
