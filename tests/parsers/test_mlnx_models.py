"""NIC model identity: ibstat, ibv_devinfo and firmware name one family; families never mix."""

from __future__ import annotations

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState
from fabriclint.parsers.mlnx_host import parse
from fabriclint.parsers.mlnx_host.nic_models import family
from tests.rules.harness import Case, run_case

IP_LINK = (
    "3: ens1np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT\n"
    "    link/ether 94:6d:ae:cd:e7:2c brd ff:ff:ff:ff:ff:ff promiscuity 0\n"
)


def ibstat(ca_type: str, firmware: str) -> str:
    """`ibstat` of one RoCE HCA, as the tool prints it."""
    return (
        f"CA 'mlx5_0'\n\tCA type: {ca_type}\n\tNumber of ports: 1\n"
        f"\tFirmware version: {firmware}\n\tHardware version: 0\n"
        "\tNode GUID: 0xa088c20300e3142a\n\tSystem image GUID: 0xa088c20300e3142a\n"
        "\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 400\n"
        "\t\tBase lid: 0\n\t\tLMC: 0\n\t\tSM lid: 0\n\t\tCapability mask: 0x00010000\n"
        "\t\tPort GUID: 0xa288c2fffee3142a\n\t\tLink layer: Ethernet\n"
    )


def devinfo(part: str, board: str, firmware: str) -> str:
    """`ibv_devinfo -v` of one RoCE HCA, in the tool's tab layout."""
    return (
        f"hca_id:\tmlx5_0\n\ttransport:\t\t\tInfiniBand (0)\n\tfw_ver:\t\t\t\t{firmware}\n"
        f"\tvendor_id:\t\t\t0x02c9\n\tvendor_part_id:\t\t\t{part}\n"
        f"\thw_ver:\t\t\t\t0x0\n\tboard_id:\t\t\t{board}\n\tphys_port_cnt:\t\t\t1\n"
        "\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tactive_mtu:\t\t4096 (5)\n"
        "\t\t\tlink_layer:\t\tEthernet\n\t\t\tactive_width:\t\t4X (2)\n"
        "\t\t\tactive_speed:\t\t100.0 Gbps (128)\n\t\t\tphys_state:\t\tLINK_UP (5)\n"
    )


def gpu(name: str, tool: str, text: str) -> DeviceState:
    """A host whose HCA facts come from `tool` (ibstat or ibv_devinfo -v)."""
    texts = {"ibdev2netdev": "mlx5_0 port 1 ==> ens1np0 (Up)\n", "ip -d link show": IP_LINK}
    texts[tool] = text
    outputs = {cmd: RawOutput(text=t, file=cmd.replace(" ", "_")) for cmd, t in texts.items()}
    state = parse(RawDevice(name=name, platform="mlnx-host", outputs=outputs))
    state.role = "host"
    return state


def nic006(*hosts: DeviceState) -> list[str]:
    """Devices NIC006 reports, with every host's ens1np0 cabled to a leaf port."""
    links = [(f"{h.name}:ens1np0", f"leaf:Ethernet{i}") for i, h in enumerate(hosts, 1)]
    return sorted(f.device or "" for f in run_case(Case("x", "NIC006", list(hosts), [], links)))


CX7_IBSTAT = ("ibstat", ibstat("MT4129", "28.39.1002"))


def cx7_devinfo(firmware: str) -> tuple[str, str]:
    return "ibv_devinfo -v", devinfo("4129", "MT_0000000838", firmware)


def test_ibstat_and_devinfo_name_the_same_connectx7() -> None:
    a, b = gpu("gpu01", *CX7_IBSTAT), gpu("gpu02", *cx7_devinfo("28.39.1002"))
    assert a.rdma["ens1np0"].model == b.rdma["ens1np0"].model == "ConnectX-7"
    assert a.rdma["ens1np0"].sources["model"].file == "ibstat"


def test_nic006_compares_ibstat_and_devinfo_hosts_as_one_model() -> None:
    hosts = (
        gpu("gpu01", *CX7_IBSTAT),
        gpu("gpu02", *cx7_devinfo("28.39.1002")),
        gpu("gpu03", *cx7_devinfo("28.38.1000")),
    )
    assert nic006(*hosts) == ["gpu03"]  # 2 of 3 ConnectX-7s run 28.39.1002


def test_nic006_never_compares_connectx6dx_with_connectx7() -> None:
    cx6dx = gpu("gpu02", "ibv_devinfo -v", devinfo("4125", "MT_0000000359", "22.39.1002"))
    cx6dx_ibstat = gpu("gpu03", "ibstat", ibstat("MT4125", "22.39.1002"))
    assert cx6dx.rdma["ens1np0"].model == cx6dx_ibstat.rdma["ens1np0"].model == "ConnectX-6 Dx"
    assert nic006(gpu("gpu01", *CX7_IBSTAT), cx6dx, cx6dx_ibstat) == []


@pytest.mark.parametrize(
    ("model", "firmware", "expected"),
    [
        ("MT4129", None, "ConnectX-7"),
        ("4129", "28.39.1002", "ConnectX-7"),
        ("0x1021", None, "ConnectX-7"),
        ("ConnectX-7", None, "ConnectX-7"),
        ("MT4125", None, "ConnectX-6 Dx"),
        ("MT_0000000838", "28.39.1002", "ConnectX-7"),  # a PSID: placed by the firmware major
        ("MT_0000000359", "22.39.1002", "ConnectX-6 Dx"),
        ("MT_0000000838", None, "MT_0000000838"),  # nothing to place it by: kept as printed
        (None, "32.38.3056", "BlueField-3"),
        (None, None, None),
        ("MT9999", "99.1.1", "MT9999"),
    ],
)
def test_family_table(model: str | None, firmware: str | None, expected: str | None) -> None:
    assert family(model, firmware) == expected
