"""Planted-secret corpus: realistic outputs of every platform with each kind of secret planted.

Each secret is written between `«` and `»` in the templates below; `plant()` removes the
brackets and returns the secrets, so a test knows exactly which strings must disappear and that
every other line must come out byte-identical. Secrets are unique strings (no secret is a
substring of non-secret text). The lines without brackets include look-alikes that are not
secrets (QoS, `session shared-secret profile NAME`, `-cvauth=token,/path`, an SNMPv3 user name,
`key-chain` names, a BGP community, OpenSM keys at their defaults).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PLANTED = re.compile(r"«([^»]*)»")


@dataclass(frozen=True)
class Planted:
    """One output with planted secrets."""

    platform: str
    key: str
    """The snapshot key (command) the output is stored under."""
    text: str
    secrets: tuple[str, ...]


def plant(platform: str, key: str, template: str) -> Planted:
    """The output of `template` with its «secrets» unbracketed, and those secrets."""
    secrets = tuple(dict.fromkeys(_PLANTED.findall(template)))
    return Planted(platform, key, _PLANTED.sub(r"\1", template), secrets)


EOS = """\
! Command: show running-config
! device: leaf09 (DCS-7060DX5-64S, EOS-4.31.2F)
!
! boot system flash:/EOS-4.31.2F.swi
!
no aaa root
aaa authentication login default group tacacs+ local
!
username admin privilege 15 role network-admin secret sha512 «$6$Pl4ntSalt$Pl4ntAdminHash001»
username ops privilege 1 role network-operator secret 0 «PL-eos-ops-002»
username backup privilege 15 secret 5 «$1$Pl4nt$BackupHash003»
username legacy privilege 15 password 7 «0822455D0A16»
enable secret sha512 «$6$Pl4ntEn$EnableHash005»
enable password 0 «PL-eos-enable-006»
!
daemon TerminAttr
   exec /usr/bin/TerminAttr -cvaddr=10.0.0.5:9910 -cvauth=key,«PL-eos-cvkey-007» -cvvrf=MGMT -taillogs
   no shutdown
!
daemon TerminAttrCloud
   exec /usr/bin/TerminAttr -cvaddr=apiserver.cv.example.net:443 -cvauth=token-secure,/tmp/cv-onboarding-token -cvvrf=MGMT
   no shutdown
!
tacacs-server key 7 «070C285F4D06»
tacacs-server host 10.0.0.7 vrf MGMT key 7 «PL-eos-tachost-009»
radius-server key 0 «PL-eos-radius-010»
radius-server host 10.0.0.8 vrf MGMT auth-port 1812 key 7 «PL-eos-radhost-011»
!
ntp authentication-key 1 md5 7 «PL-eos-ntp-012»
ntp authentication-key 2 sha1 0 «PL-eos-ntp-013»
ntp trusted-key 1-2
ntp authenticate
ntp server vrf MGMT 10.0.0.1 prefer key 1
!
snmp-server community «PL-eos-comm-014» ro
snmp-server community «PL-eos-comm-015» rw SNMP-ACL
snmp-server host 10.0.0.9 version 2c «PL-eos-trap-016»
snmp-server host 10.0.0.1 «PL-eos-trap-017»
snmp-server host 10.0.0.2 vrf MGMT «PL-eos-trap-018»
snmp-server host 10.0.0.3 vrf MGMT traps «PL-eos-trap-019»
snmp-server host 10.0.0.4 informs version 2c «PL-eos-trap-020» udp-port 1162
snmp-server host 10.0.0.5 vrf MGMT version 3 priv mon-user
snmp-server group monitoring v3 priv read all-view
snmp-server user mon monitoring v3 auth sha «PL-eos-v3auth-021» priv aes «PL-eos-v3priv-022»
snmp-server user mon2 monitoring v3 localized 0000000123456 auth sha512 «PL-eos-v3auth-023» priv aes256 «PL-eos-v3priv-024»
!
management security
   session shared-secret profile CVP-SECRETS
      secret 1 7 «PL-eos-shared-025» receive-lifetime infinite transmit-lifetime infinite
      secret 2 0 «PL-eos-shared-026» receive-lifetime infinite transmit-lifetime infinite
   key-chain ROUTING-KEYS
      key 1 secret 0 «PL-eos-kc-027»
      key 2 secret 7 «PL-eos-kc-028» receive-lifetime infinite transmit-lifetime infinite
!
mac security
   profile MACSEC-P1
      cipher aes256-gcm-xpn
      key 1234 7 «PL-eos-cak-029»
      key abcd00 0 «PL-eos-cak-030» fallback
      mka key-server priority 16
!
qos map dscp 26 to traffic-class 3
qos map dscp 48 to traffic-class 6
!
qos profile ROCE
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   tx-queue 3
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 20
!
interface Ethernet49/1
   description uplink to core
   mtu 9214
   no switchport
   ip address 10.9.0.1/31
   vrrp 1 peer authentication text «PL-eos-vrrp-031»
   vrrp 2 peer authentication ietf-md5 key-string 7 «PL-eos-vrrp-032»
   ip ospf authentication-key 7 «PL-eos-ospf-033»
   ip ospf message-digest-key 1 md5 7 «PL-eos-ospf-034»
   isis enable UNDERLAY
   isis authentication mode md5
   isis authentication key 7 «PL-eos-isis-035»
   isis authentication key 0 «PL-eos-isis-036» level-1
   mac security profile MACSEC-P1
   service-profile ROCE
!
router isis UNDERLAY
   net 49.0001.0000.0000.0009.00
   authentication mode md5
   authentication key 0 «PL-eos-isis-037» level-2
!
router bgp 65009
   neighbor SPINE peer group
   neighbor SPINE password 7 «PL-eos-bgp-038»
   neighbor 10.9.0.0 password 0 «PL-eos-bgp-039»
   neighbor 10.9.0.0 send-community
   route-map RM-OUT permit 10
!
end
"""

NXOS = """\
!Command: show running-config
!Running configuration last done at: Sun Nov 29 02:00:00 2026
version 10.3(4a) Bios:version 05.47
hostname nx9
feature tacacs+
feature ospf
feature bgp
feature hsrp
feature vrrp
feature macsec

no password strength-check
username admin password 5 «$5$Pl4ntNx$NxAdminHash001»  role network-admin
username ops password 0 «PL-nx-ops-002» role network-operator
username svc password 5 «$8$Pl4ntNx8$NxSvcHash003»  role network-operator
tacacs-server key 7 "«PL-nx-tac-004»"
tacacs-server host 10.0.0.7 key 7 "«PL-nx-tachost-005»" port 49
radius-server host 10.0.0.8 key 7 "«PL-nx-rad-006»" authentication accounting
radius-server key 0 «PL-nx-rad-007»
ldap-server host 10.0.0.10 rootDN "cn=admin,dc=lab" password 7 «PL-nx-ldap-008» port 389
snmp-server user admin network-admin auth md5 «0xPL-nx-auth-009» priv «0xPL-nx-priv-010» localizedkey
snmp-server user mon network-operator auth sha «PL-nx-auth-011» priv aes-128 «PL-nx-priv-012»
snmp-server community «PL-nx-comm-013» group network-operator
snmp-server host 10.0.0.9 traps version 2c «PL-nx-trap-014»
snmp-server host 10.0.0.10 «PL-nx-trap-015»
snmp-server host 10.0.0.10 use-vrf management
snmp-server host 10.0.0.11 informs version 3 auth mon
ntp authentication-key 1 md5 «PL-nx-ntp-016» 7
ntp trusted-key 1
ntp authenticate

key chain OSPF-KC
  key 1
    key-string 7 «PL-nx-kc-017»
key chain MKA-KC macsec
  key 01
    key-octet-string 7 «PL-nx-mka-018» cryptographic-algorithm AES_256_CMAC

class-map type qos match-all ROCE
  match dscp 26
policy-map type qos ROCE-QOS
  class ROCE
    set qos-group 3

interface Vlan10
  no shutdown
  ip address 10.10.0.2/24
  hsrp 10
    authentication text «PL-nx-hsrp-019»
    ip 10.10.0.1
  hsrp 11
    authentication md5 key-string «PL-nx-hsrp-020»
  hsrp 12
    authentication md5 key-chain OSPF-KC
  vrrp 20
    authentication text «PL-nx-vrrp-021»

interface Ethernet1/1
  mtu 9216
  priority-flow-control mode on
  service-policy type qos input ROCE-QOS
  ip ospf authentication-key 3 «PL-nx-ospf-022»
  ip ospf message-digest-key 1 md5 3 «PL-nx-ospf-023»
  ip ospf authentication key-chain OSPF-KC
  macsec keychain MKA-KC policy MP1

router bgp 65002
  neighbor 10.0.0.1
    remote-as 65100
    password 3 «PL-nx-bgp-024»
"""

JUNOS_BRACES = """\
## Last commit: 2026-11-29 02:00:00 UTC by ops
version 22.4R1.10;
system {
    host-name spine09;
    root-authentication {
        encrypted-password "«$6$Pl4ntRt$JunosRootHash001»"; ## SECRET-DATA
    }
    login {
        user ops {
            uid 2001;
            class super-user;
            authentication {
                encrypted-password "«$6$x$JunosOpsHash002»"; ## SECRET-DATA
                ssh-ed25519 "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx0b3BzZWNyZXRub3Q ops@lab";
            }
        }
        password {
            format sha512;
        }
    }
    tacplus-server {
        10.0.0.7 {
            secret "«$9$Pl4ntTac003»"; ## SECRET-DATA
        }
    }
    radius-server {
        10.0.0.8 secret "«$9$Pl4ntRad004»"; ## SECRET-DATA
    }
    ntp {
        authentication-key 1 type md5 value "«$9$Pl4ntNtp005»"; ## SECRET-DATA
        trusted-key 1;
    }
}
snmp {
    community «PL-jn-comm-006» {
        authorization read-only;
    }
    community "«PL jn comm 007»";
    trap-group «PL-jn-tg-008» {
        version v2;
        targets {
            10.0.0.9;
        }
    }
    v3 {
        usm {
            local-engine {
                user mon {
                    authentication-sha {
                        authentication-key "«$9$Pl4ntV3Auth009»"; ## SECRET-DATA
                    }
                    privacy-aes128 {
                        privacy-key "«$9$Pl4ntV3Priv010»"; ## SECRET-DATA
                    }
                }
            }
        }
        snmp-community idx1 {
            community-name "«$9$Pl4ntCommName011»"; ## SECRET-DATA
            security-name mon-v2;
        }
    }
}
protocols {
    ospf {
        area 0.0.0.0 {
            interface et-0/0/0.0 {
                authentication {
                    md5 1 key "«$9$Pl4ntOspf012»"; ## SECRET-DATA
                }
            }
        }
    }
    bgp {
        group LEAVES {
            authentication-key "«$9$Pl4ntBgp013»"; ## SECRET-DATA
        }
    }
    isis {
        level 2 {
            authentication-key "«$9$Pl4ntIsis014»"; ## SECRET-DATA
            authentication-type md5;
        }
        interface et-0/0/1.0 {
            level 2 hello-authentication-key "«$9$Pl4ntIsisHello015»"; ## SECRET-DATA
        }
    }
}
security {
    macsec {
        connectivity-association CA1 {
            pre-shared-key {
                ckn abcdef0123456789;
                cak "«$9$Pl4ntCak016»"; ## SECRET-DATA
            }
        }
    }
    ike {
        policy IKE-P {
            pre-shared-key ascii-text "«$9$Pl4ntIke017»"; ## SECRET-DATA
        }
    }
}
policy-options {
    community RT-A members target:65000:1;
}
class-of-service {
    code-point-aliases {
        dscp {
            roce 011010;
        }
    }
    congestion-notification-profile {
        cnp {
            input {
                ieee-802.1 {
                    code-point 011 {
                        pfc;
                    }
                }
            }
        }
    }
}
"""

JUNOS_SET = """\
set version 22.4R1.10
set system host-name spine08
set system root-authentication encrypted-password "«$6$Pl4ntSet$JunosSetRoot018»"
set system login user ops authentication encrypted-password "«$6$y$JunosSetOps019»"
set system login password format sha512
set system tacplus-server 10.0.0.7 secret "«$9$Pl4ntSetTac020»"
set system radius-server 10.0.0.8 secret «PL-jn-set-rad-021»
set system ntp authentication-key 2 type sha256 value "«$9$Pl4ntSetNtp022»"
set snmp community «PL-jn-set-comm-023» authorization read-only
set snmp community «PL-jn-set-comm-024» clients 10.0.0.0/8
set snmp trap-group «PL-jn-set-tg-025» version v2
set snmp trap-group «PL-jn-set-tg-025» targets 10.0.0.9
set snmp v3 usm local-engine user mon authentication-sha authentication-password «PL-jn-set-auth-026»
set snmp v3 usm local-engine user mon privacy-aes128 privacy-password «PL-jn-set-priv-027»
set snmp v3 snmp-community idx2 community-name «PL-jn-set-cn-028»
set snmp v3 snmp-community idx2 security-name mon-v2
set protocols ospf area 0.0.0.0 interface et-0/0/0.0 authentication md5 1 key «PL-jn-set-ospf-029»
set protocols bgp group LEAVES authentication-key «PL-jn-set-bgp-030»
set security macsec connectivity-association CA1 pre-shared-key ckn abcdef0123456789
set security macsec connectivity-association CA1 pre-shared-key cak «PL-jn-set-cak-031»
set security ike policy IKE-P pre-shared-key hexadecimal «PL-jn-set-ike-032»
set policy-options community RT-B members target:65000:2
set class-of-service code-point-aliases dscp roce 011010
set class-of-service interfaces et-0/0/0 congestion-notification-profile cnp
"""

SONIC_NESTED = """\
{
    "DEVICE_METADATA": {
        "localhost": {"hostname": "leaf07", "hwsku": "Mellanox-SN4600C-C64", "type": "LeafRouter"}
    },
    "AAA": {"authentication": {"login": "tacacs+,local"}},
    "TACPLUS": {"global": {"auth_type": "pap", "passkey": "«PL-sn-tac-001»", "timeout": "5"}},
    "TACPLUS_SERVER": {"10.0.0.7": {"priority": "1", "tcp_port": "49", "passkey": «73910482»}},
    "RADIUS": {"global": {"passkey": "«PL-sn-rad-003»", "auth_type": "pap"}},
    "RADIUS_SERVER": {"10.0.0.8": {"passkey": «55120937», "auth_port": "1812"}},
    "SNMP_COMMUNITY": {
        "«PL-sn-comm-005»": {"TYPE": "RO"},
        "«PL-sn-comm-006»": {"TYPE": "RW"}
    },
    "SNMP_USER": {
        "mon": {
            "SNMP_USER_TYPE": "AuthPriv",
            "SNMP_USER_AUTH_TYPE": "SHA",
            "SNMP_USER_AUTH_PASSWORD": "«PL-sn-v3auth-007»",
            "SNMP_USER_ENCRYPTION_TYPE": "AES",
            "SNMP_USER_ENCRYPTION_PASSWORD": "«PL-sn-v3priv-008»",
            "SNMP_USER_PERMISSION": "RO"
        }
    },
    "MACSEC_PROFILE": {
        "MP1": {
            "priority": "64",
            "cipher_suite": "GCM-AES-XPN-256",
            "primary_cak": "«PL-sn-cak-009»",
            "primary_ckn": "6162636465666768",
            "policy": "security"
        }
    },
    "BGP_NEIGHBOR": {"10.0.0.1": {"asn": "65100", "name": "spine01", "password": "«PL-sn-bgp-010»"}},
    "LDAP": {"global": {"bind_dn": "cn=admin,dc=lab", "bind_password": "«PL-sn-ldap-011»"}},
    "PORT": {"Ethernet0": {"mtu": "9100", "speed": "400000", "admin_status": "up"}},
    "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4", "dscp_to_tc_map": "AZURE", "trust": "dscp"}},
    "DSCP_TO_TC_MAP": {"AZURE": {"26": "3", "48": "6"}}
}
"""

SONIC_FLAT = """\
{
    "DEVICE_METADATA|localhost": {"hostname": "leaf06"},
    "SNMP_COMMUNITY|«PL-sn-flat-012»": {"TYPE": "RO"},
    "SNMP_COMMUNITY|«PL-sn-flat-013»": {"TYPE": "RW"},
    "TACPLUS|global": {"passkey": «8841207», "auth_type": "chap"},
    "TACPLUS_SERVER|10.0.0.7": {"passkey": "«PL-sn-flat-tac-015»"},
    "RADIUS_SERVER|10.0.0.8": {"passkey": "«PL-sn-flat-rad-016»"},
    "MACSEC_PROFILE|MP1": {"primary_cak": "«PL-sn-flat-cak-017»", "primary_ckn": "6162636465666768"},
    "SNMP_USER|mon": {"SNMP_USER_AUTH_PASSWORD": "«PL-sn-flat-v3-018»"},
    "PORT_QOS_MAP|Ethernet0": {"pfc_enable": "3,4", "dscp_to_tc_map": "AZURE"},
    "DSCP_TO_TC_MAP|AZURE": {"26": "3"}
}
"""

CUMULUS = """\
- header:
    model: SN4600C
    nvue-api-version: nvue_v1
    rev-id: 1.0
    version: Cumulus Linux 5.9.0
- set:
    system:
      hostname: leaf05
      aaa:
        user:
          cumulus:
            hashed-password: '«$6$Pl4ntCl$CumulusHash001»'
            role: system-admin
          ops:
            hashed-password: «$6$y$CumulusOps002»
            role: nvue-monitor
        tacacs:
          enable: on
          server:
            '1':
              host: 10.0.0.7
              secret: «PL-cl-tac-003»
        radius:
          server:
            10.0.0.8:
              key: «PL-cl-rad-004»
    service:
      snmp-server:
        enable: on
        listening-address:
          all: {}
        readonly-community:
          «PL-cl-comm-005»:
            access:
              any: {}
        readonly-community-v6:
          '«PL-cl-comm-006»':
            access:
              any: {}
        trap-destination:
          10.0.0.9:
            vrf:
              mgmt:
                community-password:
                  «PL-cl-trap-007»:
                    version: 2c
          10.0.0.10:
            vrf:
              mgmt:
                community-password: «PL-cl-trap-008»
        username:
          mon:
            auth-sha:
              «PL-cl-v3auth-009»:
                encrypt-aes:
                  «PL-cl-v3priv-010»: {}
          mon2:
            auth-md5: «PL-cl-v3auth-011»
            encrypt-des: «PL-cl-v3priv-012»
    vrf:
      default:
        router:
          bgp:
            neighbor:
              swp51:
                password: «PL-cl-bgp-013»
                remote-as: external
    qos:
      roce:
        enable: on
        mode: lossless
"""

CUMULUS_FLOW = """\
- set:
    service:
      snmp-server:
        enable: on
        readonly-community: {«PL-cl-flow-021»: {access: {any: {}}}, '«PL-cl-flow-022»': {access: {localhost: {}}}}
        listening-address: {all: {}}
        trap-destination:
          10.0.0.9:
            vrf:
              mgmt:
                community-password: {«PL-cl-flow-023»: {version: 2c}}
"""

CUMULUS_NCLU = """\
net add hostname leaf04
net add snmp-server readonly-community «PL-cl-nclu-014» access any
net add snmp-server trap-destination 10.0.0.9 vrf mgmt community-password «PL-cl-nclu-015» version 2c
net add snmp-server username mon auth-sha «PL-cl-nclu-016» encrypt-aes «PL-cl-nclu-017»
net add snmp-server username mon2 auth-md5 «PL-cl-nclu-018» encrypt-des «PL-cl-nclu-019»
net add bgp neighbor swp51 password «PL-cl-nclu-020»
net add interface swp1 mtu 9216
net commit
"""

MLNX_HOST = """\
# Port info: Lid 12 port 1
Mkey:............................0x«00000000cafe1234»
GidPrefix:.......................0xfe80000000000000
Lid:.............................12
SMLid:...........................1
LinkWidthActive:.................4X
"""

OPENSM = """\
# OpenSM configuration file, generated on sm09
guid 0x0002c903000a0b0c
m_key «0x00c0ffee12345678»
m_key_protection_level 2
m_key_lease_period 60
sm_key «0x00c0ffee87654321»
sa_key «0x5a5a5a5a00001234»
cc_key «0xc0c0c0c0deadbeef»
sm_priority 14
qos TRUE
qos_max_vls 8
qos_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7
"""

OPENSM_DEFAULTS = """\
m_key 0x0000000000000000
sm_key 0x0000000000000001
sa_key 0x1
cc_key 0x0
sm_priority 0
"""

GENERIC = """\
-----BEGIN OPENSSH PRIVATE KEY-----
«b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW»
«QyNTUxOQAAACDPl4ntPl4ntPl4ntPl4ntPl4ntPl4ntPl4ntPl4ntPl4ntAAAAJ»
-----END OPENSSH PRIVATE KEY-----
"""

CORPUS: tuple[Planted, ...] = (
    plant("eos", "show running-config", EOS),
    plant("nxos", "show running-config", NXOS),
    plant("junos", "show configuration", JUNOS_BRACES),
    plant("junos", "show configuration | display set", JUNOS_SET),
    plant("sonic", "config_db.json", SONIC_NESTED),
    plant("sonic", "config_db.json (flat)", SONIC_FLAT),
    plant("cumulus", "nv config show -o yaml", CUMULUS),
    plant("cumulus", "nv config show -o yaml (flow maps)", CUMULUS_FLOW),
    plant("cumulus", "net show configuration commands", CUMULUS_NCLU),
    plant("mlnx-host", "smpquery portinfo", MLNX_HOST),
    plant("opensm", "opensm.conf", OPENSM),
    plant("opensm", "opensm.conf (defaults)", OPENSM_DEFAULTS),
    *(plant(platform, "private key", GENERIC) for platform in ("eos", "mlnx-host", "opensm")),
)
"""Every planted output (the generic rules are planted under three platforms)."""
