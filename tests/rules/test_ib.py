"""Data table for the IB rules (IB001-IB010), and for MTU003/NIC005/NIC006/DRIFT on IB fabrics.

SM nodes are built by parsing small opensm.conf / partitions.conf / sminfo texts with the real
opensm parser (the rules read what the parser makes of OpenSM's syntax); IB hosts are built
directly from RdmaPort/HcaPort.
"""

from __future__ import annotations

from typing import Any

import pytest

from fabriclint.drift.compare import compare
from fabriclint.intent.render import render
from fabriclint.models.ib import HcaPort, InfinibandState
from fabriclint.models.intent import Intent
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState, RdmaPort
from fabriclint.parsers.opensm import parse as parse_opensm
from tests.rules.harness import Case, found, run_case
from tests.rules.hosts import skipped

GUID1, GUID2 = "0x0002c90300000001", "0x0002c90300000002"
SM01 = f"guid {GUID1}\nsm_priority 15\nrouting_engine ftree\nsm_key 0x5a5a5a5a00000001\n"
SM02 = f"guid {GUID2}\nsm_priority 14\nrouting_engine ftree\nsm_key 0x5a5a5a5a00000001\n"
TENANTS = "Default=0x7fff: ALL=limited, SELF=full;\ntenant-a=0x8001, ipoib, mtu=5: ALL_CAS=full;\n"
KEYS = "m_key 0x1111222233334444\nm_key_protection_level 2\nsa_key 0x7777888899990000\n"
QOS_ON = "qos TRUE\nmax_op_vls 4\n"
SL2VL_OK = "qos_ca_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7\n"


def sminfo(guid: str, priority: int, state: int) -> str:
    """One `sminfo` output line."""
    names = ("SMINFO_NOTACT", "SMINFO_DISCOVER", "SMINFO_STANDBY", "SMINFO_MASTER")
    return (
        f"sminfo: sm lid 1 sm guid {guid}, activity count 42 priority {priority} "
        f"state {state} {names[state]}\n"
    )


def sm(name: str, conf: str, **files: str) -> DeviceState:
    """An SM node parsed from `conf` (opensm.conf) and optional partitions/qos_policy/sminfo."""
    keys = {"partitions": "partitions.conf", "qos_policy": "qos-policy.conf", "sminfo": "sminfo"}
    texts = {"opensm.conf": conf} | {keys[k]: v for k, v in files.items()}
    outputs = {cmd: RawOutput(text=text, file=f"{name}/{cmd}") for cmd, text in texts.items()}
    state = parse_opensm(RawDevice(name=name, platform="opensm", outputs=outputs))
    state.role = "sm"
    return state


def pair(extra1: str = "", extra2: str = "", **files: str) -> list[DeviceState]:
    """Master sm01 (priority 15) and standby sm02 (14) with extra opensm.conf lines each."""
    return [sm("sm01", SM01 + extra1, **files), sm("sm02", SM02 + extra2, **files)]


def hca(key: str, **fields: Any) -> RdmaPort:
    """A healthy ConnectX-7 NDR InfiniBand port without a netdev (key mlx5_N/1)."""
    values: dict[str, Any] = {
        "netdev": key,
        "hca": key.split("/", maxsplit=1)[0],
        "port": 1,
        "link_layer": "InfiniBand",
        "state": "Active",
        "phys_state": "LinkUp",
        "rate_gbps": 400.0,
        "width": "4X",
        "active_mtu": 4096,
        "model": "MT4129",
        "firmware": "28.39.1002",
    }
    return RdmaPort.model_validate(values | fields)


def ib_host(name: str = "gpu01", count: int = 2, sm_lid: int = 1, **fields: Any) -> DeviceState:
    """An IB host with `count` healthy HCA ports; `fields` override the first port."""
    rdma = {f"mlx5_{i}/1": hca(f"mlx5_{i}/1", **(fields if i == 0 else {})) for i in range(count)}
    ports = {
        key: HcaPort(
            hca=port.hca or "",
            port=1,
            port_guid=f"0x0002c9030000{int(name[-2:]):02x}{i:02x}",
            base_lid=10 + i,
            sm_lid=sm_lid,
        )
        for i, (key, port) in enumerate(rdma.items())
    }
    return DeviceState(
        name=name,
        platform="mlnx-host",
        role="gpu",
        rdma=rdma,
        infiniband=InfinibandState(hca_ports=ports),
    )


def intent(**ib: Any) -> dict[str, Any]:
    """An intent whose `ib` profile (roles sm and gpu) has the given infiniband sections."""
    return {
        "profiles": {"ib": {"infiniband": ib}},
        "roles": {"sm": {"profile": "ib"}, "gpu": {"profile": "ib"}},
    }


SM01_OBJ = ("sm01", "subnet manager")
SM02_OBJ = ("sm02", "subnet manager")


def _conf(key: str, device: str = "sm02") -> tuple[str, str]:
    return device, f"opensm.conf {key}"


CASES: list[Case] = [
    # ---- IB001 sm-master-count
    Case(
        "ib001-clean",
        "IB001",
        pair(sminfo=sminfo(GUID1, 15, 3)),
        [],
    ),
    Case("ib001-shared-top-priority", "IB001", pair(extra2="sm_priority 15\n"), [SM02_OBJ]),
    Case(
        "ib001-tie-ignores-inactive-sm",
        "IB001",
        pair(extra2="sm_priority 15\nsm_inactive TRUE\n"),
        [],
    ),
    Case(
        "ib001-two-masters",
        "IB001",
        [
            sm("sm01", SM01, sminfo=sminfo(GUID1, 15, 3)),
            sm("sm02", SM02, sminfo=sminfo(GUID2, 14, 3)),
        ],
        [SM02_OBJ],
    ),
    Case("ib001-no-master", "IB001", pair(sminfo=sminfo(GUID1, 15, 2)), [SM01_OBJ]),
    Case(
        "ib001-no-master-needs-every-sm",
        "IB001",
        [sm("sm01", SM01, sminfo=sminfo(GUID1, 15, 2)), sm("sm02", SM02)],
        [],
    ),
    Case(
        "ib001-master-outranked",
        "IB001",
        pair(sminfo=sminfo(GUID2, 14, 3)),
        [SM02_OBJ],
    ),
    Case(
        "ib001-hosts-see-two-sm-lids",
        "IB001",
        [*pair(), ib_host("gpu01"), ib_host("gpu02"), ib_host("gpu03", sm_lid=7)],
        [("gpu03", "interface mlx5_0/1")],
    ),
    # ---- IB002 sm-config-divergent
    Case("ib002-clean", "IB002", pair(), []),
    Case(
        "ib002-routing-engine",
        "IB002",
        pair(extra2="routing_engine minhop\n"),
        [_conf("routing_engine")],
    ),
    Case("ib002-sm-key", "IB002", pair(extra2="sm_key 0x1\n"), [_conf("sm_key")]),
    Case("ib002-same-effective-lmc", "IB002", pair(extra1="lmc 8\n"), []),
    Case(
        "ib002-qos-tables-only-when-qos-on",
        "IB002",
        pair(extra1="qos_ca_sl2vl 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7\n"),
        [],
    ),
    Case(
        "ib002-qos-tables-differ",
        "IB002",
        pair(extra1=QOS_ON + SL2VL_OK, extra2=QOS_ON),
        [_conf("qos_ca_sl2vl")],
    ),
    # ---- IB003 qos-tables-ignored
    Case("ib003-clean", "IB003", [sm("sm01", SM01 + QOS_ON + SL2VL_OK)], []),
    Case(
        "ib003-tables-with-qos-off",
        "IB003",
        [sm("sm01", SM01 + SL2VL_OK)],
        [("sm01", "opensm.conf qos tables")],
    ),
    Case(
        "ib003-partition-sl-with-qos-off",
        "IB003",
        [sm("sm01", SM01, partitions="storage=0x8002, sl=3: ALL_CAS=full;\n")],
        [("sm01", "partition storage")],
    ),
    Case(
        "ib003-policy-with-qos-off",
        "IB003",
        [sm("sm01", SM01, qos_policy="qos-ulps\n  default : 0\nend-qos-ulps\n")],
        [("sm01", "qos-policy.conf")],
    ),
    Case(
        "ib003-written-defaults-set-nothing", "IB003", [sm("sm01", SM01 + "qos_sl2vl (null)\n")], []
    ),
    # ---- IB004 vlarb-vl-out-of-range
    Case("ib004-clean", "IB004", [sm("sm01", SM01 + QOS_ON + SL2VL_OK)], []),
    Case(
        "ib004-sl2vl-above-op-vls",
        "IB004",
        [sm("sm01", SM01 + QOS_ON + "qos_ca_sl2vl 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n")],
        [("sm01", "opensm.conf qos_ca_sl2vl")],
    ),
    Case(
        "ib004-vlarb-weighted-entry",
        "IB004",
        [sm("sm01", SM01 + QOS_ON + "qos_swe_vlarb_low 0:64,1:64,8:0,9:32\n")],
        [("sm01", "opensm.conf qos_swe_vlarb_low")],
    ),
    Case(
        "ib004-declared-max-vls",
        "IB004",
        [
            sm(
                "sm01",
                SM01 + "qos TRUE\nqos_max_vls 4\n" + "qos_sl2vl 0,1,2,3,4,0,1,2,3,0,1,2,3,0,1,2\n",
            )
        ],
        [("sm01", "opensm.conf qos_sl2vl")],
    ),
    Case(
        "ib004-qos-off-is-ib003s",
        "IB004",
        [sm("sm01", SM01 + "max_op_vls 4\nqos_ca_sl2vl 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n")],
        [],
    ),
    # ---- IB005 default-management-keys
    Case("ib005-clean", "IB005", [sm("sm01", SM01 + KEYS, partitions=TENANTS)], []),
    Case(
        "ib005-default-keys-with-tenants",
        "IB005",
        [sm("sm01", SM01, partitions=TENANTS)],
        [("sm01", "opensm.conf management keys")],
    ),
    Case("ib005-no-tenants", "IB005", [sm("sm01", SM01)], []),
    Case(
        "ib005-forced-multi-tenant",
        "IB005",
        [sm("sm01", SM01)],
        [("sm01", "opensm.conf management keys")],
        options={"multi_tenant": True},
    ),
    Case(
        "ib005-readable-m-key",
        "IB005",
        [
            sm(
                "sm01",
                SM01 + KEYS.replace("protection_level 2", "protection_level 0"),
                partitions=TENANTS,
            )
        ],
        [("sm01", "opensm.conf m_key_protection_level")],
    ),
    Case(
        "ib005-redacted-keys-count-as-set",
        "IB005",
        [
            sm(
                "sm01",
                SM01 + "m_key <redacted>\nm_key_protection_level 2\nsa_key <redacted>\n",
                partitions=TENANTS,
            )
        ],
        [],
    ),
    # ---- IB006 opensm-value-reset
    Case("ib006-clean", "IB006", [sm("sm01", SM01 + "lmc 2\nqos TRUE\n")], []),
    Case("ib006-lmc-8", "IB006", [sm("sm01", SM01 + "lmc 8\n")], [_conf("lmc", "sm01")]),
    Case(
        "ib006-priority-16",
        "IB006",
        [sm("sm01", "sm_priority 16\n")],
        [_conf("sm_priority", "sm01")],
    ),
    Case(
        "ib006-lowercase-true", "IB006", [sm("sm01", SM01 + "qos true\n")], [_conf("qos", "sm01")]
    ),
    Case(
        "ib006-short-sl2vl",
        "IB006",
        [sm("sm01", SM01 + QOS_ON + "qos_ca_sl2vl 0,1,2,3\n")],
        [_conf("qos_ca_sl2vl", "sm01")],
    ),
    Case(
        "ib006-unknown-routing-engine",
        "IB006",
        [sm("sm01", "routing_engine ftree,fattree\n")],
        [_conf("routing_engine", "sm01")],
    ),
    # ---- IB007 opensm-unknown-key
    Case("ib007-clean", "IB007", pair(), []),
    Case(
        "ib007-typo",
        "IB007",
        [sm("sm01", SM01 + "ignore_other_sms TRUE\n")],
        [_conf("ignore_other_sms", "sm01")],
    ),
    Case(
        "ib007-extra-keys",
        "IB007",
        [sm("sm01", SM01 + "ar_mode 1\n")],
        [],
        options={"extra_keys": ["ar_*"]},
    ),
    # ---- IB008 ignore-other-sm-on-master
    Case("ib008-clean", "IB008", pair(), []),
    Case(
        "ib008-master-ignores-standby",
        "IB008",
        pair(extra1="ignore_other_sm TRUE\n"),
        [_conf("ignore_other_sm", "sm01")],
    ),
    Case("ib008-single-sm", "IB008", [sm("sm01", SM01 + "ignore_other_sm TRUE\n")], []),
    # ---- IB009 partition-config-invalid
    Case("ib009-clean", "IB009", [sm("sm01", SM01, partitions=TENANTS)], []),
    Case(
        "ib009-mtu-in-bytes",
        "IB009",
        [sm("sm01", SM01, partitions="tenant-a=0x8001, ipoib, mtu=4096: ALL_CAS=full;\n")],
        [("sm01", "partitions.conf line 1")],
    ),
    Case(
        "ib009-membership-typo-and-bad-guid",
        "IB009",
        [
            sm(
                "sm01",
                SM01,
                partitions="a=0x8001: 0x0002c90300000101=fulll;\nb=0x8002: 0x0002c9O3;\n",
            )
        ],
        [("sm01", "partitions.conf line 1"), ("sm01", "partitions.conf line 2")],
    ),
    Case(
        "ib009-both-without-allow-both-pkeys",
        "IB009",
        [sm("sm01", SM01, partitions="a=0x8001: ALL_CAS=both;\n")],
        [("sm01", "partitions.conf line 1")],
    ),
    # ---- IB010 hca-link-degraded
    Case("ib010-clean", "IB010", [ib_host()], []),
    Case(
        "ib010-port-polling",
        "IB010",
        [ib_host(state="Down", phys_state="Polling")],
        [("gpu01", "interface mlx5_0/1")],
    ),
    Case(
        "ib010-armed-no-sm",
        "IB010",
        [ib_host(state="Armed")],
        [("gpu01", "interface mlx5_0/1")],
    ),
    Case(
        "ib010-below-intended-rate",
        "IB010",
        [ib_host(rate_gbps=200.0)],
        [("gpu01", "interface mlx5_0/1")],
        intent=intent(hca={"rate_gbps": 400, "width": "4X"}),
    ),
    Case(
        "ib010-narrow-width",
        "IB010",
        [ib_host(width="2X")],
        [("gpu01", "interface mlx5_0/1")],
        intent=intent(hca={"width": "4X"}),
    ),
    Case(
        "ib010-declared-port-absent",
        "IB010",
        [ib_host()],
        [("gpu01", "interface mlx5_7/1")],
        intent=intent(hca={"ports": ["mlx5_0/1", "mlx5_1/1", "mlx5_7/1"]}),
    ),
    # ---- MTU003 / NIC005 / NIC006 on InfiniBand ports (no cabling plan)
    Case("mtu003-ib-clean", "MTU003", [ib_host()], []),
    Case(
        "mtu003-ib-port-2048",
        "MTU003",
        [ib_host(active_mtu=2048)],
        [("gpu01", "interface mlx5_0/1")],
    ),
    Case(
        "mtu003-ib-intent-allows-2048",
        "MTU003",
        [ib_host(active_mtu=2048)],
        [],
        intent=intent(hca={"active_mtu": 2048}),
    ),
    Case(
        "nic005-ib-slower-than-peers",
        "NIC005",
        [ib_host(rate_gbps=200.0), ib_host("gpu02")],
        [("gpu01", "interface mlx5_0/1")],
    ),
    Case(
        "nic005-ib-down-is-ib010s",
        "NIC005",
        [ib_host(state="Down", phys_state="Polling"), ib_host("gpu02")],
        [],
    ),
    Case(
        "nic005-ib-below-intent-is-ib010s",
        "NIC005",
        [ib_host(rate_gbps=200.0), ib_host("gpu02")],
        [],
        intent=intent(hca={"rate_gbps": 400}),
    ),
    Case(
        "nic006-ib-firmware-skew",
        "NIC006",
        [ib_host(firmware="28.38.1000"), ib_host("gpu02"), ib_host("gpu03")],
        [("gpu01", "interface mlx5_0/1")],
    ),
    # ---- DRIFT on InfiniBand intent
    Case(
        "drift-ib-clean",
        "DRIFT001",
        pair(partitions=TENANTS),
        [],
        intent=intent(sm={"routing_engine": "ftree", "options": {"sm_key": "0x5a5a5a5a00000001"}}),
    ),
    Case(
        "drift-ib-routing-engine",
        "DRIFT001",
        pair(extra2="routing_engine minhop\n"),
        [SM02_OBJ],
        intent=intent(sm={"routing_engine": "ftree"}),
    ),
    Case(
        "drift-ib-hca-firmware",
        "DRIFT001",
        [ib_host(firmware="28.38.1000")],
        [("gpu01", "interface mlx5_0/1")],
        intent=intent(hca={"firmware": "28.39.1002"}),
    ),
    Case(
        "drift-ib-partition-absent-is-one-finding",
        "DRIFT002",
        [sm("sm01", SM01, partitions=TENANTS)],
        [("sm01", "partition tenant-b")],
        intent=intent(
            partitions={"tenant-b": {"pkey": 0x8002, "ipoib": True, "members": ["ALL_CAS"]}}
        ),
    ),
    Case(
        "drift-ib-partition-member-missing",
        "DRIFT002",
        [sm("sm01", SM01, partitions="tenant-a=0x8001: 0x0002c90300000101=full;\n")],
        [("sm01", "partition tenant-a")],
        intent=intent(partitions={"tenant-a": {"pkey": 0x8001, "members": ["0x0002c90300000102"]}}),
    ),
    Case(
        "drift-ib-keys-non-default",
        "DRIFT001",
        [sm("sm01", SM01)],
        [SM01_OBJ],
        intent=intent(sm={"keys": "non-default"}),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case) -> None:
    assert found(case) == sorted(case.expect)


def test_ib001_skips_ib_hosts_without_sm_nodes() -> None:
    case = Case("ib001-no-sm", "IB001", [ib_host()], [])
    assert skipped(case) == {"gpu01"}


def test_ib002_never_shows_key_values() -> None:
    case = Case("ib002-key", "IB002", pair(extra2="sm_key 0x1\n"), [_conf("sm_key")])
    (finding,) = run_case(case)
    assert finding.expected is None and finding.actual is None
    assert "5a5a" not in finding.message and "0x1" not in finding.message


def test_ib004_says_where_opensm_masks_the_vl() -> None:
    conf = SM01 + QOS_ON + "qos_ca_sl2vl 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
    (finding,) = run_case(Case("ib004", "IB004", [sm("sm01", conf)], []))
    assert "SL 8->VL 8" in finding.message and "VL 0" in finding.message
    assert "SL 15" not in finding.message  # VL 15 means drop
    assert finding.source is not None and finding.source.line == 7


def test_ib006_names_the_value_opensm_uses() -> None:
    (finding,) = run_case(Case("ib006", "IB006", [sm("sm01", "lmc 8\n")], []))
    assert finding.expected == 0 and finding.actual == "8" and "uses 0" in finding.message


def test_ib007_suggests_the_closest_key() -> None:
    (finding,) = run_case(Case("ib007", "IB007", [sm("sm01", "routing_engines ftree\n")], []))
    assert "did you mean 'routing_engine'?" in finding.message


def test_drift_resolves_host_members_when_given_the_fabric() -> None:
    hosts = {h.name: h for h in (ib_host("gpu01"), ib_host("gpu02"))}
    spec = intent(partitions={"tenant-a": {"pkey": 0x8001, "members": ["gpu01", "gpu02"]}})
    profile = Intent.model_validate(spec).profiles["ib"]
    listed = "0x0002c90300000100, 0x0002c90300000101, 0x0002c90300000200"  # not gpu02 mlx5_1/1
    state = sm("sm01", SM01, partitions=f"tenant-a=0x8001: {listed};\n")
    drifts = compare(state, render(profile, state, [], hosts), None)
    assert [(d.key, d.missing) for d in drifts] == [
        ("ib.partition.0x0001.member.0x0002c90300000201", True)
    ]
    assert compare(state, render(profile, state, []), None) == []  # names unresolved: skipped
