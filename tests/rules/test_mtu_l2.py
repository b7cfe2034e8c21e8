"""MTU005 (SVI / sub-interface above its carrier) and MTU006 (port-channel member MTU): the
VLAN and channel membership the EOS, NX-OS and SONiC parsers record, and the rules' data table."""

from __future__ import annotations

import json

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState, Interface
from fabriclint.parsers import get_parser
from fabriclint.parsers.kit.vlans import L2Port, edit_vlans, parse_vlan_list
from tests.rules.harness import Case, found

# ---- a realistic EOS MLAG leaf (after Arista's MLAG configuration guide): a peer-link
# Port-Channel1000 trunking the peer VLAN 4094 and the RoCE VLAN 10, a host bond Port-Channel10
# in access VLAN 10, and an SVI per VLAN --------------------------------------------------------

EOS_MLAG = """\
hostname leaf01
vlan 10
   name ROCE
vlan 4094
   name MLAG-PEER
   trunk group MLAGPEER
!
interface Port-Channel10
   description gpu01 bond0
   switchport access vlan 10
   mlag 10
!
interface Port-Channel1000
   description MLAG peer-link to leaf02
   switchport mode trunk
   switchport trunk allowed vlan 10,4094
   switchport trunk group MLAGPEER
!
interface Ethernet1/1
   description gpu01 ens1np0
   channel-group 10 mode active
!
interface Ethernet2/1
   description gpu02 ens1np0
   switchport access vlan 10
!
interface Ethernet47/1
   channel-group 1000 mode active
!
interface Ethernet48/1
   channel-group 1000 mode active
!
interface Ethernet49/1
   mtu 9214
   no switchport
   ip address 10.1.0.0/31
!
interface Ethernet49/1.100
   mtu 9000
   encapsulation dot1q vlan 100
   ip address 10.2.0.0/31
!
interface Vlan10
   mtu 9000
   ip address 10.10.0.2/24
!
interface Vlan4094
   mtu 9214
   no autostate
   ip address 169.254.0.0/31
!
mlag configuration
   domain-id AI-POD
   local-interface Vlan4094
   peer-address 169.254.0.1
   peer-link Port-Channel1000
!
"""


def _parse(platform: str, command: str, text: str) -> DeviceState:
    parser = get_parser(platform)
    assert parser is not None
    outputs = {command: RawOutput(text=text, file="leaf01/config.txt")}
    return parser(RawDevice(name="leaf01", platform=platform, outputs=outputs))


def _eos(text: str) -> DeviceState:
    return _parse("eos", "show running-config", text)


def test_eos_records_vlans_svis_subinterfaces_and_channels() -> None:
    state = _eos(EOS_MLAG)
    ifaces = state.interfaces
    assert ifaces["Port-Channel1000"].vlans == [10, 4094]
    assert ifaces["Port-Channel10"].vlans == [10]
    assert ifaces["Ethernet2/1"].vlans == [10]
    assert ifaces["Ethernet1/1"].channel == "Port-Channel10"
    assert ifaces["Ethernet47/1"].channel == "Port-Channel1000"
    assert ifaces["Ethernet49/1"].vlans is None  # routed
    assert ifaces["Vlan10"].svi_vlan == 10 and ifaces["Vlan4094"].svi_vlan == 4094
    assert ifaces["Ethernet49/1.100"].parent == "Ethernet49/1"
    assert ifaces["Ethernet49/1"].parent is None and ifaces["Ethernet49/1"].svi_vlan is None
    line = EOS_MLAG.splitlines().index("   switchport trunk allowed vlan 10,4094") + 1
    assert ifaces["Port-Channel1000"].src("vlans").line == line  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("edit", "rule", "expect"),
    [
        (None, "MTU005", []),
        (None, "MTU006", []),
        # the peer-link held at 1500: the RoCE SVI and the MLAG peer SVI above it
        (
            (
                "   switchport trunk group MLAGPEER\n!",
                "   switchport trunk group MLAGPEER\n   l2 mtu 1500\n!",
            ),
            "MTU005",
            [("leaf01", "interface Vlan10"), ("leaf01", "interface Vlan4094")],
        ),
        # the sub-interface above its parent port
        (
            ("   mtu 9000\n   encapsulation", "   mtu 9216\n   encapsulation"),
            "MTU005",
            [("leaf01", "interface Ethernet49/1.100")],
        ),
        # one peer-link member with its own MTU
        (
            (
                "interface Ethernet48/1\n   channel-group",
                "interface Ethernet48/1\n   l2 mtu 1500\n   channel-group",
            ),
            "MTU006",
            [("leaf01", "interface Ethernet48/1")],
        ),
    ],
    ids=["clean-005", "clean-006", "peer-link-1500", "subif-above-parent", "member-1500"],
)
def test_eos_mlag_leaf(edit: tuple[str, str] | None, rule: str, expect: list[object]) -> None:
    text = EOS_MLAG if edit is None else EOS_MLAG.replace(*edit)
    assert edit is None or text != EOS_MLAG
    assert found(Case("eos", rule, [_eos(text)], [])) == expect


NXOS = """\
hostname leaf02
feature interface-vlan
feature lacp
vlan 1,20
interface Vlan20
  mtu 9216
  no shutdown
  ip address 10.20.0.2/24
interface port-channel20
  switchport
  switchport mode trunk
  switchport trunk allowed vlan 1,20
  mtu 9216
interface Ethernet1/49
  switchport
  switchport mode trunk
  switchport trunk allowed vlan 1,20
  channel-group 20 mode active
interface Ethernet1/50
  switchport
  switchport mode trunk
  switchport trunk allowed vlan 1,20
  mtu 1500
  channel-group 20 mode active
interface Ethernet1/1
  switchport
  switchport access vlan 20
  mtu 9216
"""


def test_nxos_member_with_its_own_mtu_and_svi_vlans() -> None:
    state = _parse("nxos", "show running-config", NXOS)
    ifaces = state.interfaces
    assert ifaces["Ethernet1/50"].channel == "port-channel20"
    assert ifaces["port-channel20"].vlans == [1, 20]
    assert ifaces["Ethernet1/1"].vlans == [20]
    assert ifaces["Vlan20"].svi_vlan == 20
    assert found(Case("nxos", "MTU006", [state], [])) == [("leaf01", "interface Ethernet1/50")]
    # the member's 1500 is not a carrier of its own: the port-channel (9216) carries VLAN 20
    assert found(Case("nxos", "MTU005", [state], [])) == []
    lowered = _parse(
        "nxos",
        "show running-config",
        NXOS.replace("access vlan 20\n  mtu 9216", "access vlan 20\n  mtu 1500"),
    )
    assert found(Case("nxos", "MTU005", [lowered], [])) == [("leaf01", "interface Vlan20")]


SONIC = {
    "PORT": {
        "Ethernet0": {"mtu": "9100", "admin_status": "up"},
        "Ethernet8": {"mtu": "9100", "admin_status": "up"},
        "Ethernet16": {"mtu": "1500", "admin_status": "up"},
    },
    "PORTCHANNEL": {"PortChannel01": {"mtu": "9100", "min_links": "1", "admin_status": "up"}},
    "PORTCHANNEL_MEMBER": {"PortChannel01|Ethernet0": {}, "PortChannel01|Ethernet8": {}},
    "VLAN": {"Vlan30": {"vlanid": "30", "mtu": "9100"}},
    "VLAN_INTERFACE": {"Vlan30": {}, "Vlan30|10.30.0.1/24": {}},
    "VLAN_MEMBER": {
        "Vlan30|PortChannel01": {"tagging_mode": "tagged"},
        "Vlan30|Ethernet16": {"tagging_mode": "untagged"},
    },
}


def test_sonic_vlan_and_portchannel_tables() -> None:
    state = _parse("sonic", "config_db.json", json.dumps(SONIC, indent=2))
    ifaces = state.interfaces
    assert ifaces["PortChannel01"].vlans == [30] and ifaces["Ethernet16"].vlans == [30]
    assert ifaces["Ethernet0"].channel == "PortChannel01"
    assert ifaces["Vlan30"].svi_vlan == 30 and ifaces["Vlan30"].mtu == 9100
    assert found(Case("sonic", "MTU005", [state], [])) == [("leaf01", "interface Vlan30")]
    assert found(Case("sonic", "MTU006", [state], [])) == []


# ---- the rules' data table over hand-built states -----------------------------------------------


def _sw(*ifaces: Interface) -> DeviceState:
    return DeviceState(name="sw", platform="eos", interfaces={i.name: i for i in ifaces})


def _svi(vlan: int, mtu: int | None) -> Interface:
    return Interface(name=f"Vlan{vlan}", mtu=mtu, svi_vlan=vlan, routed=True)


def _port(
    name: str, mtu: int | None, vlans: object = None, channel: str | None = None
) -> Interface:
    return Interface.model_validate({"name": name, "mtu": mtu, "vlans": vlans, "channel": channel})


CASES: list[Case] = [
    Case("svi-equal", "MTU005", [_sw(_svi(10, 9214), _port("Et1", 9214, [10]))], []),
    Case(
        "svi-above-access",
        "MTU005",
        [_sw(_svi(10, 9214), _port("Et1", 1500, [10]))],
        [("sw", "interface Vlan10")],
    ),
    Case(
        "svi-above-trunk-all",
        "MTU005",
        [_sw(_svi(10, 9214), _port("Et1", 1500, "all"))],
        [("sw", "interface Vlan10")],
    ),
    Case("other-vlan-not-a-carrier", "MTU005", [_sw(_svi(10, 9214), _port("Et1", 1500, [20]))], []),
    Case("below-carrier", "MTU005", [_sw(_svi(10, 1500), _port("Et1", 9214, [10]))], []),
    Case(
        "member-not-a-carrier", "MTU005", [_sw(_svi(10, 9214), _port("Et1", 1500, [10], "Po1"))], []
    ),
    Case("svi-mtu-unknown", "MTU005", [_sw(_svi(10, None), _port("Et1", 1500, [10]))], []),
    Case("no-carrier", "MTU005", [_sw(_svi(10, 9214))], []),
    Case(
        "subif-above-parent",
        "MTU005",
        [_sw(_port("Et1", 1500), Interface(name="Et1.5", mtu=9000, parent="Et1"))],
        [("sw", "interface Et1.5")],
    ),
    Case(
        "member-equal", "MTU006", [_sw(_port("Po1", 9214), _port("Et1", 9214, channel="Po1"))], []
    ),
    Case(
        "member-below",
        "MTU006",
        [_sw(_port("Po1", 9214), _port("Et1", 1500, channel="Po1"))],
        [("sw", "interface Et1")],
    ),
    Case(
        "member-above",
        "MTU006",
        [_sw(_port("Po1", 1500), _port("Et1", 9214, channel="Po1"))],
        [("sw", "interface Et1")],
    ),
    Case(
        "no-channel-odd-member-out",
        "MTU006",
        [
            _sw(
                _port("Et1", 9214, channel="Po1"),
                _port("Et2", 9214, channel="Po1"),
                _port("Et3", 1500, channel="Po1"),
            )
        ],
        [("sw", "interface Et3")],
    ),
    Case(
        "member-mtu-unknown",
        "MTU006",
        [_sw(_port("Po1", 9214), _port("Et1", None, channel="Po1"))],
        [],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_rule_table(case: Case) -> None:
    assert found(case) == sorted(case.expect)


def test_messages_name_the_carrier_and_the_mtus() -> None:
    findings = __import__("tests.rules.harness", fromlist=["run_case"]).run_case(CASES[1])
    assert findings[0].message == (
        "Vlan10 has MTU 9214 but VLAN 10 on Et1 has MTU 1500: larger packets are dropped there"
    )
    assert (findings[0].expected, findings[0].actual) == (1500, 9214)


# ---- VLAN list helpers ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10", [10]),
        ("10,20-22", [10, 20, 21, 22]),
        ("all", "all"),
        ("none", []),
        ("0", None),
        ("4095", None),
        ("5-3", None),
        ("x", None),
    ],
)
def test_parse_vlan_list(text: str, expected: object) -> None:
    assert parse_vlan_list(text) == expected


def test_trunk_edits() -> None:
    port = L2Port()
    assert port.apply(["mode", "trunk"], 1) and port.carried() == "all"
    assert port.apply(["trunk", "allowed", "vlan", "10,20"], 2)
    assert port.apply(["trunk", "allowed", "vlan", "add", "30"], 3)
    assert port.apply(["trunk", "allowed", "vlan", "remove", "10"], 4)
    assert port.carried() == [20, 30] and port.line == 4
    assert not port.apply(["trunk", "allowed", "vlan", "10,bad"], 5)
    assert edit_vlans("all", "remove", [1]) == list(range(2, 4095))


# ---- Cumulus NVUE (after NVIDIA's "VLAN-aware Bridge Mode" and "Bonding" examples): bond1 to a
# storage host in the VLAN-aware bridge, an SVI per VLAN, a routed uplink ----------------------

NVUE = """\
- header:
    model: SN4700
    version: Cumulus Linux 5.9.1
- set:
    bridge:
      domain:
        br_default:
          vlan:
            '10': {}
            '20': {}
    interface:
      bond1:
        bond:
          member:
            swp1: {}
            swp2: {}
        bridge:
          domain:
            br_default: {}
        link:
          mtu: 9000
        type: bond
      swp1:
        type: swp
      swp2:
        type: swp
      swp3:
        bridge:
          domain:
            br_default:
              access: 20
        link:
          mtu: 1500
        type: swp
      swp31:
        ip:
          address:
            10.1.0.1/31: {}
        link:
          mtu: 9216
        type: swp
      vlan10:
        ip:
          address:
            10.10.0.1/24: {}
        link:
          mtu: 9000
        type: svi
        vlan: 10
      vlan20:
        ip:
          address:
            10.20.0.1/24: {}
        link:
          mtu: 9000
        type: svi
        vlan: 20
"""


def _nvue(text: str) -> DeviceState:
    return _parse("cumulus", "nv config show -o yaml", text)


def test_cumulus_bridge_bond_and_svis() -> None:
    ifaces = _nvue(NVUE).interfaces
    assert ifaces["bond1"].vlans == [10, 20] and ifaces["swp3"].vlans == [20]
    assert ifaces["swp1"].channel == "bond1" and ifaces["swp2"].channel == "bond1"
    assert ifaces["swp1"].mtu == 9000  # a member runs its bond's MTU
    assert ifaces["vlan10"].svi_vlan == 10 and ifaces["swp31"].vlans is None


@pytest.mark.parametrize(
    ("edit", "rule", "expect"),
    [
        (None, "MTU006", []),
        # VLAN 20's access port swp3 at 1500 under SVI vlan20 at 9000
        (None, "MTU005", [("leaf01", "interface vlan20")]),
        # a member with its own MTU
        (
            (
                "      swp2:\n        type: swp",
                "      swp2:\n        link:\n          mtu: 1500\n        type: swp",
            ),
            "MTU006",
            [("leaf01", "interface swp2")],
        ),
    ],
    ids=["members-inherit", "svi-above-access-port", "member-own-mtu"],
)
def test_cumulus_rules(edit: tuple[str, str] | None, rule: str, expect: list[object]) -> None:
    text = NVUE if edit is None else NVUE.replace(*edit)
    assert edit is None or edit[0] in NVUE
    assert found(Case("cumulus", rule, [_nvue(text)], [])) == expect
