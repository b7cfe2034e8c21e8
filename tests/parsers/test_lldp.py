"""LLDP neighbour parsers of every platform, on outputs written here in each vendor's documented
shape: the neighbours read (local port spelled as the device spells it, remote system and port,
source line), and bad input that leaves `neighbors` None with a note instead of raising."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from fabriclint import platforms
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState, Interface
from fabriclint.parsers.cumulus.lldp import read_lldp as cumulus_lldp
from fabriclint.parsers.eos.lldp import read_lldp as eos_lldp
from fabriclint.parsers.junos.lldp import read_lldp as junos_lldp
from fabriclint.parsers.kit.lldp import from_lldpctl
from fabriclint.parsers.mlnx_host.lldp import read_lldp as host_lldp
from fabriclint.parsers.nxos.lldp import read_lldp as nxos_lldp
from fabriclint.parsers.sonic.lldp import read_lldp as sonic_lldp

Reader = Callable[[RawDevice, DeviceState], None]

EOS_DETAIL = json.dumps(
    {
        "lldpNeighbors": {
            "Ethernet33/1": {
                "lldpNeighborInfo": [
                    {
                        "systemName": "spine01.pod.example",
                        "neighborInterfaceInfo": {
                            "interfaceIdType": "interfaceName",
                            "interfaceId": '"Ethernet1/1"',
                            "interfaceId_v2": "Ethernet1/1",
                        },
                    }
                ]
            },
            "Ethernet1/1": {
                "lldpNeighborInfo": [
                    {
                        "systemName": "gpu01",
                        "neighborInterfaceInfo": {
                            "interfaceIdType": "macAddress",
                            "interfaceId_v2": "b8:3f:d2:a4:00:10",
                            "interfaceDescription": "ens1np0",
                        },
                    }
                ]
            },
        }
    },
    indent=2,
)

EOS_BRIEF = json.dumps(
    {
        "lldpNeighbors": [
            {"port": "Et5/1", "neighborDevice": "leaf02", "neighborPort": "Ethernet5/1", "ttl": 120}
        ]
    },
    indent=2,
)

NXOS = """Capability codes:
  (R) Router, (B) Bridge, (T) Telephone, (C) DOCSIS Cable Device
Device ID            Local Intf      Hold-time  Capability  Port ID

Chassis id: 001c.7300.0100
Port id: Ethernet1/1
Local Port id: Eth1/49
Port Description: leaf03_Ethernet49/1
System Name: spine01
System Description: Arista Networks EOS

Chassis id: b83f.d2a4.0010
Port id: b83f.d2a4.0010
Local Port id: Eth1/1
Port Description: ens1np0
System Name: gpu05

Total entries displayed: 2
"""

JUNOS = """Local Interface    Parent Interface    Chassis Id          Port info          System Name
et-0/0/48          ae0                 00:1c:73:00:01:00   Ethernet33/1       leaf01
et-0/0/49          -                   00:1c:73:00:02:00   Ethernet33/1       leaf02.example.net
"""

SONIC = """Capability codes: (R) Router, (B) Bridge, (O) Other
LocalPort    RemoteDevice    RemotePortID       Capability    RemotePortDescr
-----------  --------------  -----------------  ------------  -----------------
Ethernet0    spine01         Ethernet3/1        BR            leaf05_Ethernet0
Ethernet8    gpu09           b8:3f:d2:a4:00:90  O             ens1np0
--------------------------------------------------
Total entries displayed:  2
"""

CUMULUS = """Interface  Speed  Type  Remote Host      Remote Port
---------  -----  ----  ---------------  -----------------
eth0       1G     eth   oob-mgmt-switch  swp10
swp1s0     100G   swp   gpu11            b8:3f:d2:a4:01:10
swp51      400G   swp   spine01          swp1
"""

LLDPCTL_ONE = json.dumps(
    {
        "lldp": {
            "interface": {
                "ens1np0": {
                    "via": "LLDP",
                    "chassis": {"leaf01": {"id": {"type": "mac", "value": "00:1c:73:00:02:00"}}},
                    "port": {
                        "id": {"type": "ifname", "value": "Ethernet1/1"},
                        "descr": "gpu01_ens1np0",
                    },
                }
            }
        }
    },
    indent=2,
)

LLDPCTL_MANY = json.dumps(
    {
        "lldp": {
            "interface": [
                {
                    "ens1np0": {
                        "chassis": {"leaf01": {}},
                        "port": {"id": {"type": "ifname", "value": "Ethernet1/1"}},
                    }
                },
                {
                    "ens2np0": {
                        "chassis": {"leaf02": {}},
                        "port": {
                            "id": {"type": "mac", "value": "00:1c:73:00:03:05"},
                            "descr": "Ethernet1/1",
                        },
                    }
                },
            ]
        }
    },
    indent=2,
)


def _state(platform: str, *ports: str) -> DeviceState:
    return DeviceState(
        name="dut", platform=platform, interfaces={p: Interface(name=p) for p in ports}
    )


def _raw(platform: str, text: str) -> RawDevice:
    descriptor = platforms.get(platform)
    assert descriptor is not None and descriptor.lldp is not None
    output = RawOutput(text=text, file=f"dut/{descriptor.lldp}.txt")
    return RawDevice(name="dut", platform=platform, outputs={descriptor.lldp: output})


def _read(reader: Reader, platform: str, text: str, *ports: str) -> DeviceState:
    state = _state(platform, *ports)
    reader(_raw(platform, text), state)
    return state


def _triples(state: DeviceState) -> list[tuple[str, str, str, int | None]]:
    assert state.neighbors is not None
    return [
        (n.local_port, n.remote_system, n.remote_port, n.source.line if n.source else None)
        for n in state.neighbors
    ]


def test_eos_detail_json_reads_each_port_and_the_nic_description() -> None:
    state = _read(eos_lldp, "eos", EOS_DETAIL, "Ethernet1/1", "Ethernet33/1")
    assert _triples(state) == [
        ("Ethernet33/1", "spine01.pod.example", "Ethernet1/1", 3),
        ("Ethernet1/1", "gpu01", "ens1np0", 15),
    ]
    assert "show lldp neighbors detail | json" in state.inputs


def test_eos_brief_json_spells_the_local_port_as_the_device() -> None:
    state = _read(eos_lldp, "eos", EOS_BRIEF, "Ethernet5/1")
    assert _triples(state) == [("Ethernet5/1", "leaf02", "Ethernet5/1", 4)]


def test_nxos_detail_blocks() -> None:
    state = _read(nxos_lldp, "nxos", NXOS, "Ethernet1/49", "Ethernet1/1")
    assert _triples(state) == [
        ("Ethernet1/49", "spine01", "Ethernet1/1", 5),
        ("Ethernet1/1", "gpu05", "b83f.d2a4.0010", 12),
    ]


def test_junos_table() -> None:
    state = _read(junos_lldp, "junos", JUNOS, "et-0/0/48")
    assert _triples(state) == [
        ("et-0/0/48", "leaf01", "Ethernet33/1", 2),
        ("et-0/0/49", "leaf02.example.net", "Ethernet33/1", 3),
    ]


def test_sonic_table_takes_the_description_for_a_mac_port_id() -> None:
    state = _read(sonic_lldp, "sonic", SONIC, "Ethernet0", "Ethernet8")
    assert _triples(state) == [
        ("Ethernet0", "spine01", "Ethernet3/1", 4),
        ("Ethernet8", "gpu09", "ens1np0", 5),
    ]


def test_cumulus_table_with_a_breakout_port() -> None:
    state = _read(cumulus_lldp, "cumulus", CUMULUS, "swp1s0", "swp51")
    assert [t[:3] for t in _triples(state)] == [
        ("eth0", "oob-mgmt-switch", "swp10"),
        ("swp1s0", "gpu11", "b8:3f:d2:a4:01:10"),
        ("swp51", "spine01", "swp1"),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (LLDPCTL_ONE, [("ens1np0", "leaf01", "Ethernet1/1", 4)]),
        (
            LLDPCTL_MANY,
            [("ens1np0", "leaf01", "Ethernet1/1", 5), ("ens2np0", "leaf02", "Ethernet1/1", 18)],
        ),
    ],
    ids=["one-interface-object", "interface-list"],
)
def test_host_lldpctl_json_both_shapes(
    text: str, expected: list[tuple[str, str, str, int]]
) -> None:
    state = _read(host_lldp, "mlnx-host", text, "ens1np0", "ens2np0")
    assert _triples(state) == expected


@pytest.mark.parametrize(
    ("reader", "platform", "text"),
    [
        (eos_lldp, "eos", "% Invalid input"),
        (eos_lldp, "eos", '{"lldpNeighbors": 3}'),
        (nxos_lldp, "nxos", "% Invalid command at '^' marker."),
        (junos_lldp, "junos", "unknown command."),
        (sonic_lldp, "sonic", "-bash: show: command not found"),
        (cumulus_lldp, "cumulus", "{}"),
        (host_lldp, "mlnx-host", "[" * 5000),
    ],
    ids=[
        "eos-error",
        "eos-wrong-json",
        "nxos-error",
        "junos-error",
        "sonic-error",
        "cumulus-json",
        "host-deep",
    ],
)
def test_unreadable_output_is_an_input_problem(reader: Reader, platform: str, text: str) -> None:
    """LLDP output that is there but cannot be read makes the device incomplete (exit 3), never
    a silent coverage gap: no neighbours, and a located unparseable problem."""
    state = _read(reader, platform, text)
    assert state.neighbors is None
    problems = [p for p in state.problems if "LLDP" in p.message]
    assert [p.kind for p in problems] == ["unparseable"]
    assert problems[0].source is not None and problems[0].source.line == 1


def test_no_output_means_not_collected() -> None:
    state = _state("eos")
    eos_lldp(RawDevice(name="dut", platform="eos"), state)
    assert state.neighbors is None and not state.unparsed


def test_lldpctl_without_system_name_keeps_no_system() -> None:
    text = json.dumps(
        {"lldp": {"interface": {"eth0": {"chassis": {"id": {"type": "mac", "value": "x"}}}}}}
    )
    assert [s.system for s in from_lldpctl(text) or []] == [""]


def test_whole_parse_of_the_example_reads_lldp() -> None:
    """The platform parse (not only the LLDP reader) records neighbours of the bundled baseline."""
    from pathlib import Path

    from fabriclint.parsers import get_parser

    root = (
        Path(__file__).resolve().parents[2]
        / "inventories"
        / "roce-pod"
        / "snapshots"
        / "baseline"
        / "leaf01"
    )
    outputs = {
        "show running-config": RawOutput(
            text=(root / "show_running-config.txt").read_text(), file="run.txt"
        ),
        "show lldp neighbors detail | json": RawOutput(
            text=(root / "show_lldp_neighbors_detail_|_json.txt").read_text(), file="lldp.txt"
        ),
    }
    parse = get_parser("eos")
    assert parse is not None
    state = parse(RawDevice(name="leaf01", platform="eos", outputs=outputs))
    assert state.neighbors is not None
    assert {(n.local_port, n.remote_system, n.remote_port) for n in state.neighbors} >= {
        ("Ethernet1/1", "gpu01", "ens1np0"),
        ("Ethernet33/1", "spine01", "Ethernet1/1"),
    }
