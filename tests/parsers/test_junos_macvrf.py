"""Junos EVPN-VXLAN leaves configure their VLANs in a MAC-VRF routing instance, not at the top
level: `routing-instances NAME instance-type mac-vrf; interface et-0/0/10.0; vlans V {
vlan-id N; l3-interface irb.N; }`. Those VLANs number the ports' `vlan members` and make the
irb units SVIs, as top-level `vlans` do, so MTU005 (an SVI above its trunk's MTU) sees them."""

from __future__ import annotations

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState
from fabriclint.parsers import junos
from tests.rules.harness import ROCE_INTENT, Case, run_case

# A QFX5130 storage/compute leaf in a 3-stage EVPN-VXLAN fabric (written after Juniper's
# "MAC-VRF Routing Instance Type Overview" and its EVPN-VXLAN examples): host trunks in a
# vlan-aware MAC-VRF, anycast irb gateways, jumbo host ports; one trunk left at 1514.
MACVRF_LEAF = """\
## Last commit: 2026-11-20 04:12:51 UTC by netops
version 23.4R2-S3-EVO;
system {
    host-name leaf05;
}
interfaces {
    et-0/0/10 {
        description "gpu05 ens1np0";
        mtu 9216;
        unit 0 {
            family ethernet-switching {
                interface-mode trunk;
                vlan {
                    members [ STORAGE-A COMPUTE ];
                }
            }
        }
    }
    et-0/0/11 {
        description "gpu06 ens1np0";
        unit 0 {
            family ethernet-switching {
                interface-mode trunk;
                vlan {
                    members STORAGE-A;
                }
            }
        }
    }
    et-0/0/12 {
        mtu 9216;
        unit 0 {
            family ethernet-switching {
                vlan {
                    members [ STORAGE-B 300-301 ];
                }
            }
        }
    }
    irb {
        mtu 9216;
        unit 100 {
            family inet {
                mtu 9000;
                address 10.100.0.1/24;
            }
        }
        unit 200 {
            family inet {
                address 10.200.0.1/24;
            }
        }
    }
}
routing-instances {
    TENANT-L3 {
        instance-type vrf;
        interface irb.100;
        interface irb.200;
        route-distinguisher 10.255.0.5:100;
    }
    EVPN-A {
        instance-type mac-vrf;
        protocols {
            evpn {
                encapsulation vxlan;
                extended-vni-list all;
            }
        }
        vtep-source-interface lo0.0;
        service-type vlan-aware;
        interface et-0/0/10.0;
        interface et-0/0/11.0;
        route-distinguisher 10.255.0.5:1;
        vrf-target target:65000:1;
        vlans {
            STORAGE-A {
                vlan-id 100;
                l3-interface irb.100;
                vxlan {
                    vni 10100;
                }
            }
            COMPUTE {
                vlan-id 200;
                l3-interface irb.200;
                vxlan {
                    vni 10200;
                }
            }
        }
    }
    EVPN-B {
        instance-type mac-vrf;
        service-type vlan-aware;
        interface et-0/0/12.0;
        vlans {
            STORAGE-B {
                vlan-id 110;
                vxlan {
                    vni 10110;
                }
            }
            COMPUTE {
                vlan-id 210;
            }
        }
    }
}
"""


def _parse(text: str, name: str = "show configuration") -> DeviceState:
    raw = RawDevice(
        name="leaf05",
        platform="junos",
        outputs={name: RawOutput(text=text, file=f"leaf05/{name}.txt")},
    )
    return junos.parse(raw)


def _set_form(text: str) -> str:
    """The brace text as `show configuration | display set` writes it (one `set` per leaf)."""
    path: list[str] = []
    out = []
    for line in text.splitlines():
        words = line.strip().rstrip(";").replace('"', "").split()
        if not words or words[0].startswith("#"):
            continue
        if words[-1] == "{":
            path.append(" ".join(words[:-1]))
        elif words == ["}"]:
            path.pop()
        else:
            out.append("set " + " ".join([*path, *words]).replace("[ ", "").replace(" ]", ""))
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("form", ["brace", "set"])
@pytest.mark.parametrize(
    ("port", "vlans"),
    [
        ("et-0/0/10", [100, 200]),  # EVPN-A lists the unit: its STORAGE-A and COMPUTE
        ("et-0/0/11", [100]),
        ("et-0/0/12", [110, 300, 301]),  # EVPN-B's STORAGE-B, plus a range
    ],
)
def test_ports_carry_the_mac_vrf_vlans(form: str, port: str, vlans: list[int]) -> None:
    text = MACVRF_LEAF if form == "brace" else _set_form(MACVRF_LEAF)
    state = _parse(
        text, "show configuration" if form == "brace" else "show configuration | display set"
    )
    assert not state.problems, state.problems
    assert state.interfaces[port].vlans == vlans


@pytest.mark.parametrize(
    ("svi", "vlan", "mtu"),
    [("irb.100", 100, 9000), ("irb.200", 200, 9216 - 14)],  # `family inet mtu`, else media - 14
)
def test_mac_vrf_l3_interfaces_are_svis(svi: str, vlan: int, mtu: int) -> None:
    iface = _parse(MACVRF_LEAF).interfaces[svi]
    assert (iface.svi_vlan, iface.mtu, iface.routed) == (vlan, mtu, True)
    assert iface.sources["svi_vlan"].line is not None
    assert "l3-interface irb." in MACVRF_LEAF.splitlines()[iface.sources["svi_vlan"].line - 1]


@pytest.mark.parametrize(
    ("edit", "port", "vlans"),
    [
        # a unit no instance lists: a name only one MAC-VRF defines is that one's
        ("        interface et-0/0/12.0;\n", "et-0/0/12", [110, 300, 301]),
        # ... a name two MAC-VRFs define (COMPUTE: 200 and 210) numbers nothing
        ("        interface et-0/0/11.0;\n", "et-0/0/11", [100]),
    ],
    ids=["unique-name", "listed-elsewhere"],
)
def test_a_unit_no_instance_lists(edit: str, port: str, vlans: list[int]) -> None:
    state = _parse(MACVRF_LEAF.replace(edit, ""))
    assert state.interfaces[port].vlans == vlans
    ambiguous = MACVRF_LEAF.replace("        interface et-0/0/10.0;\n", "")
    assert _parse(ambiguous).interfaces["et-0/0/10"].vlans == [100]  # COMPUTE: 200 or 210


def test_only_bridging_instances_give_vlans() -> None:
    """A `vrf` (or any non-bridging) instance's would-be `vlans` are not the switch's VLANs."""
    text = MACVRF_LEAF.replace(
        "    EVPN-B {\n        instance-type mac-vrf;", "    EVPN-B {\n        instance-type vrf;"
    )
    state = _parse(text)
    assert state.interfaces["et-0/0/12"].vlans == [300, 301]
    switch = text.replace(
        "instance-type vrf;\n        service-type",
        "instance-type virtual-switch;\n        service-type",
    )
    assert _parse(switch).interfaces["et-0/0/12"].vlans == [110, 300, 301]


def test_mtu005_sees_an_svi_of_a_mac_vrf() -> None:
    """irb.100 (MTU 9000) is carried by et-0/0/11 at the default 1514 (media MTU: 1500 bytes of
    payload): MTU005 on irb.100; irb.200 rides only jumbo et-0/0/10."""
    state = _parse(MACVRF_LEAF)
    links = [("leaf05:et-0/0/10", "gpu05:ens1np0"), ("leaf05:et-0/0/11", "gpu06:ens1np0")]
    found = run_case(Case("m", "MTU005", [state], [], intent=ROCE_INTENT, links=links))
    assert [(f.object, f.expected, f.actual) for f in found] == [
        ("interface irb.100", state.interfaces["et-0/0/11"].mtu, 9000)
    ]
    source = found[0].source
    assert source is not None and source.line is not None
    assert MACVRF_LEAF.splitlines()[source.line - 1].strip() == "mtu 9000;"
