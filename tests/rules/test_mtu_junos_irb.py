"""MTU005 on Junos: `irb` units as SVIs (`vlans NAME vlan-id N l3-interface irb.N`, `interfaces
irb unit N family inet mtu M`), carried by the `family ethernet-switching vlan members` of the
switched ports, as the Junos parser records them; brace and `display set` forms alike."""

from __future__ import annotations

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState
from fabriclint.parsers import junos
from tests.rules.harness import Case, found

# A QFX5120 leaf in ELS syntax (after Juniper's "Configuring Integrated Routing and Bridging
# Interfaces on Switches" and "Configuring VLANs on Switches with ELS Support"): a RoCE VLAN and
# a storage VLAN routed by irb.10 and irb.20, a host on an access port, an LACP trunk ae0 to the
# peer leaf, a storage trunk naming its VLANs by id, and a management VLAN with no irb.
JUNOS_LEAF = """\
## Last commit: 2026-11-28 09:14:02 UTC by netops
version 23.2R1.14;
system {
    host-name leaf01;
}
interfaces {
    et-0/0/1 {
        description "gpu01 ens1np0";
        mtu 9216;
        unit 0 {
            family ethernet-switching {
                interface-mode access;
                vlan {
                    members ROCE;
                }
            }
        }
    }
    et-0/0/2 {
        description "storage01 bond0";
        mtu 9216;
        unit 0 {
            family ethernet-switching {
                interface-mode trunk;
                vlan {
                    members [ 20 30 ];
                }
            }
        }
    }
    et-0/0/48 {
        ether-options {
            802.3ad ae0;
        }
    }
    et-0/0/49 {
        ether-options {
            802.3ad ae0;
        }
    }
    ae0 {
        description "peer leaf02";
        mtu 9216;
        aggregated-ether-options {
            lacp {
                active;
            }
        }
        unit 0 {
            family ethernet-switching {
                interface-mode trunk;
                vlan {
                    members [ ROCE STORAGE ];
                }
            }
        }
    }
    irb {
        mtu 9216;
        unit 10 {
            family inet {
                mtu 9000;
                address 10.10.0.1/24;
            }
        }
        unit 20 {
            family inet {
                mtu 9000;
                address 10.20.0.1/24;
            }
        }
    }
}
vlans {
    MGMT {
        vlan-id 30;
    }
    ROCE {
        description "RoCE v2 data";
        vlan-id 10;
        l3-interface irb.10;
    }
    STORAGE {
        vlan-id 20;
        l3-interface irb.20;
    }
}
"""

JUNOS_SET = """\
set version 23.2R1.14
set system host-name leaf01
set interfaces et-0/0/1 mtu 9216
set interfaces et-0/0/1 unit 0 family ethernet-switching interface-mode access
set interfaces et-0/0/1 unit 0 family ethernet-switching vlan members ROCE
set interfaces et-0/0/2 mtu 9216
set interfaces et-0/0/2 unit 0 family ethernet-switching interface-mode trunk
set interfaces et-0/0/2 unit 0 family ethernet-switching vlan members 20-21
set interfaces irb unit 20 family inet mtu 9100
set interfaces irb unit 20 family inet address 10.20.0.1/24
set vlans STORAGE vlan-id 20
set vlans STORAGE l3-interface irb.20
"""


def _parse(text: str, key: str = "show configuration") -> DeviceState:
    raw = RawDevice(
        name="leaf01",
        platform="junos",
        outputs={key: RawOutput(text=text, file="leaf01/show_configuration.txt")},
    )
    return junos.parse(raw)


def _line(text: str, needle: str, after: str = "") -> int:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if after in line) if after else 0
    return next(i for i, line in enumerate(lines) if i >= start and needle in line) + 1


def test_irb_units_are_svis_and_switched_ports_carry_their_vlans() -> None:
    state = _parse(JUNOS_LEAF)
    ifaces = state.interfaces
    assert (ifaces["irb.10"].svi_vlan, ifaces["irb.10"].mtu) == (10, 9000)
    assert (ifaces["irb.20"].svi_vlan, ifaces["irb.20"].mtu) == (20, 9000)
    assert ifaces["irb.10"].src("mtu").line == _line(JUNOS_LEAF, "mtu 9000", "unit 10 {")  # type: ignore[union-attr]
    assert ifaces["irb.10"].src("svi_vlan").line == _line(JUNOS_LEAF, "l3-interface irb.10")  # type: ignore[union-attr]
    assert ifaces["et-0/0/1"].vlans == [10]  # by name
    assert ifaces["et-0/0/2"].vlans == [20, 30]  # by id
    assert ifaces["ae0"].vlans == [10, 20]
    assert ifaces["ae0"].src("vlans").line == _line(JUNOS_LEAF, "members [ ROCE STORAGE ]")  # type: ignore[union-attr]
    assert ifaces["et-0/0/48"].channel == "ae0"
    assert ifaces["irb"].svi_vlan is None  # the irb device itself routes no VLAN
    assert "irb.30" not in ifaces  # MGMT has no l3-interface


def test_display_set_form_gives_the_same_model() -> None:
    state = _parse(JUNOS_SET)
    ifaces = state.interfaces
    assert (ifaces["irb.20"].svi_vlan, ifaces["irb.20"].mtu) == (20, 9100)
    assert ifaces["et-0/0/2"].vlans == [20, 21]  # a range
    assert ifaces["et-0/0/1"].vlans == []  # ROCE is not defined here: nothing it can name
    assert found(Case("junos", "MTU005", [state], [])) == []  # 9216 - 14 = 9202 >= 9100


@pytest.mark.parametrize(
    ("edit", "expect"),
    [
        (None, []),
        # the peer trunk at the default media MTU (1514: IP 1500) carries both routed VLANs
        (("        description \"peer leaf02\";\n        mtu 9216;\n",
          "        description \"peer leaf02\";\n"),
         [("leaf01", "interface irb.10"), ("leaf01", "interface irb.20")]),
        # the storage trunk's media MTU 9000 leaves 8986 bytes of IP: irb.20 (9000) is above it
        (("        description \"storage01 bond0\";\n        mtu 9216;",
          "        description \"storage01 bond0\";\n        mtu 9000;"),
         [("leaf01", "interface irb.20")]),
        # irb.10 without its own inet MTU runs the irb's 9216 - 14 = 9202: still fits 9202
        (("        unit 10 {\n            family inet {\n                mtu 9000;\n",
          "        unit 10 {\n            family inet {\n"), []),
        # the host's access port at media MTU 9000 (IP 8986) is below irb.10's 9000
        (("        description \"gpu01 ens1np0\";\n        mtu 9216;",
          "        description \"gpu01 ens1np0\";\n        mtu 9000;"),
         [("leaf01", "interface irb.10")]),
    ],
    ids=["clean", "peer-trunk-default", "storage-trunk-9000", "irb-default", "access-9000"],
)  # fmt: skip
def test_mtu005_on_a_junos_leaf(edit: tuple[str, str] | None, expect: list[object]) -> None:
    text = JUNOS_LEAF if edit is None else JUNOS_LEAF.replace(*edit)
    assert edit is None or text != JUNOS_LEAF
    assert found(Case("junos", "MTU005", [_parse(text)], [])) == expect


def test_members_all_is_every_vlan() -> None:
    text = JUNOS_LEAF.replace(
        "                    members [ 20 30 ];\n", "                    members all;\n"
    )
    assert _parse(text).interfaces["et-0/0/2"].vlans == "all"
