"""`ibnetdiscover` on an OpenSM node: every link of the subnet as a neighbour with the node its
port belongs to, named as the host parser and the plan name ports (`mlx5_0/1`, switch port
numbers), the node's own HCA ports as interfaces, unreadable output as an input problem."""

from __future__ import annotations

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState
from fabriclint.parsers.opensm import input_role, parse
from fabriclint.parsers.opensm.topology import system_and_prefix

# A two-switch subnet written after ibnetdiscover(8)'s topology-file format: a Quantum-2 leaf
# (NodeDescription `MF0;<name>:<model>/U1`) with two hosts, the SM node's HCA and an uplink to a
# spine whose description is a plain name; CA port lines carry the port GUID, switch lines not.
TOPOLOGY = """\
#
# Topology file: generated on Mon Nov 30 08:12:44 2026
#
# Initiated from node 0002c90300a00001 port 0002c90300a00001

vendid=0x2c9
devid=0xd2f2
sysimgguid=0xfc6a1c0300a0b001
switchguid=0xfc6a1c0300a0b001(fc6a1c0300a0b001)
Switch\t65 "S-fc6a1c0300a0b001"\t\t# "MF0;ibleaf01:MQM9790/U1" enhanced port 0 lid 101 lmc 0
[1]\t"H-0002c90300b00100"[1](2c90300b00100) \t\t# "node01 mlx5_0" lid 16 4xNDR
[2]\t"H-0002c90300b00200"[1](2c90300b00200) \t\t# "node02 mlx5_0" lid 24 4xNDR
[33]\t"H-0002c90300a00001"[1](2c90300a00001) \t\t# "sm01 mlx5_0" lid 1 4xNDR
[64]\t"S-fc6a1c0300a0c001"[7]\t\t# "ibspine01" lid 120 4xNDR

vendid=0x2c9
devid=0xd2f2
sysimgguid=0xfc6a1c0300a0c001
switchguid=0xfc6a1c0300a0c001(fc6a1c0300a0c001)
Switch\t65 "S-fc6a1c0300a0c001"\t\t# "ibspine01" enhanced port 0 lid 120 lmc 0
[7]\t"S-fc6a1c0300a0b001"[64]\t\t# "MF0;ibleaf01:MQM9790/U1" lid 101 4xNDR

vendid=0x2c9
devid=0x1021
sysimgguid=0x2c90300b00100
caguid=0x2c90300b00100
Ca\t1 "H-0002c90300b00100"\t\t# "node01 mlx5_0"
[1](2c90300b00100) \t"S-fc6a1c0300a0b001"[1]\t\t# lid 16 lmc 0 "MF0;ibleaf01:MQM9790/U1" lid 101 4xNDR

vendid=0x2c9
devid=0x1021
sysimgguid=0x2c90300a00001
caguid=0x2c90300a00001
Ca\t1 "H-0002c90300a00001"\t\t# "sm01 mlx5_0"
[1](2c90300a00001) \t"S-fc6a1c0300a0b001"[33]\t\t# lid 1 lmc 0 "MF0;ibleaf01:MQM9790/U1" lid 101 4xNDR
"""


def sm(topology: str) -> DeviceState:
    outputs = {
        "opensm.conf": RawOutput(text="", file="sm01/opensm.conf.txt"),
        "ibnetdiscover": RawOutput(text=topology, file="sm01/ibnetdiscover.txt"),
    }
    return parse(RawDevice(name="sm01", platform="opensm", outputs=outputs))


def links(state: DeviceState) -> set[tuple[str | None, str, str, str, int | None]]:
    return {
        (
            n.local_system,
            n.local_port,
            n.remote_system,
            n.remote_port,
            n.source.line if n.source else None,
        )
        for n in state.neighbors or []
    }


@pytest.mark.parametrize(
    ("kind", "description", "expected"),
    [
        ("S", "MF0;ibleaf01:MQM9790/U1", ("ibleaf01", "")),
        ("S", "ibspine01", ("ibspine01", "")),
        ("S", "Quantum Mellanox Technologies", ("Quantum", "")),
        ("H", "node01 mlx5_0", ("node01", "mlx5_0/")),
        ("H", "node01 HCA-1", ("node01", "HCA-1/")),
        ("H", "node01", ("node01", "")),
        ("R", "gw01 mlx5_2", ("gw01", "mlx5_2/")),
    ],
)
def test_node_descriptions_name_device_and_port(
    kind: str, description: str, expected: tuple[str, str]
) -> None:
    assert system_and_prefix(kind, description) == expected


def test_every_port_line_is_a_located_sighting() -> None:
    state = sm(TOPOLOGY)
    assert not [p for p in state.problems if p.kind == "unparseable"]
    assert links(state) == {
        ("ibleaf01", "1", "node01", "mlx5_0/1", 11),
        ("ibleaf01", "2", "node02", "mlx5_0/1", 12),
        ("ibleaf01", "33", "sm01", "mlx5_0/1", 13),
        ("ibleaf01", "64", "ibspine01", "7", 14),
        ("ibspine01", "7", "ibleaf01", "64", 21),
        ("node01", "mlx5_0/1", "ibleaf01", "1", 28),
        ("sm01", "mlx5_0/1", "ibleaf01", "33", 35),
    }
    assert all(
        n.source and n.source.file == "sm01/ibnetdiscover.txt" for n in state.neighbors or []
    )
    assert "ibnetdiscover" in state.inputs


def test_the_nodes_own_hca_port_becomes_an_interface() -> None:
    state = sm(TOPOLOGY)
    assert list(state.interfaces) == ["mlx5_0/1"]
    assert state.interfaces["mlx5_0/1"].oper_up is True


def test_a_peer_without_its_own_block_is_named_from_the_port_line() -> None:
    # only the leaf's block: node02 has no CA block of its own, its name comes from the comment
    leaf_only = TOPOLOGY.split(
        "\nvendid=0x2c9\ndevid=0xd2f2\nsysimgguid=0xfc6a1c0300a0c001", maxsplit=1
    )[0]
    found = links(sm(leaf_only))
    assert ("ibleaf01", "2", "node02", "mlx5_0/1", 12) in found


# the spine's block again (as a concatenated or re-run discovery gives), under another name
# and with another cable: the second block of one GUID must not add or rename anything
REPEATED = """
vendid=0x2c9
devid=0xd2f2
sysimgguid=0xfc6a1c0300a0c001
switchguid=0xfc6a1c0300a0c001(fc6a1c0300a0c001)
Switch\t65 "S-FC6A1C0300A0C001"\t\t# "ibspine09" enhanced port 0 lid 120 lmc 0
[9]\t"S-fc6a1c0300a0b001"[63]\t\t# "MF0;ibleaf01:MQM9790/U1" lid 101 4xNDR
"""


@pytest.mark.parametrize(
    ("where", "first", "second"),
    [("appended", 20, 41), ("inserted", 20, 27)],
)
def test_a_repeated_node_block_is_a_located_problem_and_the_first_is_kept(
    where: str, first: int, second: int
) -> None:
    blocks = TOPOLOGY.split("\nvendid=0x2c9\ndevid=0x1021\nsysimgguid=0x2c90300b00100", 1)
    if where == "appended":
        text = TOPOLOGY + REPEATED
    else:  # right after the spine's own block
        text = (
            blocks[0]
            + REPEATED
            + "\nvendid=0x2c9\ndevid=0x1021\nsysimgguid=0x2c90300b00100"
            + blocks[1]
        )
    lines = text.splitlines()
    assert "ibspine09" in lines[second - 1] and "ibspine01" in lines[first - 1]
    state = sm(text)
    problems = [p for p in state.problems if p.kind == "duplicate-key"]
    assert len(problems) == 1, state.problems
    assert f"lines {first} and {second}" in problems[0].message
    assert "S-FC6A1C0300A0C001" in problems[0].message and "first" in problems[0].message
    assert problems[0].source is not None and problems[0].source.line == second
    assert problems[0].source.file == "sm01/ibnetdiscover.txt"
    assert not [p for p in state.problems if p.kind == "unparseable"]
    seen = {(a, p, b, q) for a, p, b, q, _ in links(state)}
    assert seen == {(a, p, b, q) for a, p, b, q, _ in links(sm(TOPOLOGY))}, "the first is kept"


@pytest.mark.parametrize(
    ("text", "neighbours", "unreadable"),
    [
        ("", [], False),  # ran and showed nothing
        ("ibwarn: [3412] mad_rpc_open_port: can't open UMAD port ((null):0)\n", None, True),
        ('[1]\t"S-fc6a1c0300a0b001"[1]\n', None, True),  # cut off before any node block
    ],
)
def test_empty_and_unreadable_outputs(
    text: str, neighbours: list[object] | None, unreadable: bool
) -> None:
    state = sm(text)
    assert state.neighbors == neighbours
    problems = [p for p in state.problems if p.kind == "unparseable"]
    assert bool(problems) is unreadable
    if unreadable:
        assert problems[0].source is not None
        assert problems[0].source.file == "sm01/ibnetdiscover.txt"


def test_the_snapshot_key_is_recognised() -> None:
    assert input_role("ibnetdiscover") == "ibnetdiscover"
    assert input_role("cat /etc/opensm/opensm.conf") == "opensm.conf"


def test_lldp_neighbours_serialize_without_the_subnet_field() -> None:
    from fabriclint.models.state import LldpNeighbor

    own = LldpNeighbor(local_port="Ethernet1/1", remote_system="gpu01", remote_port="ens1np0")
    scan = LldpNeighbor(
        local_system="node01", local_port="mlx5_0/1", remote_system="l", remote_port="1"
    )
    assert "local_system" not in own.model_dump()
    assert scan.model_dump()["local_system"] == "node01"
    assert LldpNeighbor.model_validate(scan.model_dump()) == scan
