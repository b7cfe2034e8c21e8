"""IB011 (partitions that isolate nothing), IB012 (partition enforcement off) and the declared
OpenSM build of IB006/IB007 (NVIDIA's routing engines and keys): data tables over SM nodes
parsed from opensm.conf / partitions.conf text, and a realistic two-tenant configuration."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rules.harness import Case, found, run_case
from tests.rules.hosts import skipped
from tests.rules.test_ib import SM01, TENANTS, intent, sm

SM = ("sm01", "partitions.conf")
OPEN = "Default=0x7fff, ipoib: ALL=full;\nteam-a=0x8001: ALL=full;\n"
DEFMEMBER = "Default=0x7fff: ALL=limited, SELF=full;\nteam-a=0x8001, defmember=full: ALL;\n"
WITH_TENANTS = intent(tenants=["team-a", "team-b"])
NO_TENANTS = intent(tenants=[])


def _enforce(device: str = "sm01") -> tuple[str, str]:
    return device, "opensm.conf part_enforce"


CASES: list[Case] = [
    # ---- IB011 partitions-isolate-nothing
    Case("ib011-isolating", "IB011", [sm("sm01", SM01, partitions=TENANTS)], [], intent=WITH_TENANTS),
    Case("ib011-all-full", "IB011", [sm("sm01", SM01, partitions=OPEN)], [SM], intent=WITH_TENANTS),
    Case("ib011-defmember-full", "IB011", [sm("sm01", SM01, partitions=DEFMEMBER)], [], intent=WITH_TENANTS),
    Case(
        "ib011-defmember-full-everywhere",
        "IB011",
        [sm("sm01", SM01, partitions="Default=0x7fff, defmember=full: ALL;\nteam-a=0x8001, defmember=full: ALL_CAS;\n")],
        [SM],
        intent=WITH_TENANTS,
    ),
    Case("ib011-empty-file", "IB011", [sm("sm01", SM01, partitions="# nothing yet\n")], [SM], intent=WITH_TENANTS),
    Case("ib011-no-tenants-declared", "IB011", [sm("sm01", SM01, partitions=OPEN)], [], intent=NO_TENANTS),
    Case("ib011-no-intent", "IB011", [sm("sm01", SM01, partitions=OPEN)], []),
    Case("ib011-limited-all-isolates", "IB011", [sm("sm01", SM01, partitions="Default=0x7fff: ALL=limited;\n")], [], intent=WITH_TENANTS),
    # ---- IB012 partition-enforcement-off
    Case("ib012-default-both", "IB012", [sm("sm01", SM01, partitions=TENANTS)], []),
    Case("ib012-off", "IB012", [sm("sm01", SM01 + "part_enforce off\n", partitions=TENANTS)], [_enforce()]),
    Case(
        "ib012-no-enforcement-flag",
        "IB012",
        [sm("sm01", SM01 + "no_partition_enforcement TRUE\n", partitions=TENANTS)],
        [("sm01", "opensm.conf no_partition_enforcement")],
    ),
    Case("ib012-in-only", "IB012", [sm("sm01", SM01 + "part_enforce in\n", partitions=TENANTS)], []),
    Case(
        "ib012-default-partition-only",
        "IB012",
        [sm("sm01", SM01 + "part_enforce off\n", partitions="Default=0x7fff: ALL=full;\n")],
        [],
    ),
    Case(
        "ib012-declared-in-intent",
        "IB012",
        [sm("sm01", SM01 + "part_enforce off\n")],
        [_enforce()],
        intent=intent(partitions={"team-a": {"pkey": 0x8001}}),
    ),
    # ---- IB006 / IB007 and the declared build
    Case("ib006-ar-updn-upstream", "IB006", [sm("sm01", "routing_engine ar_updn\n")], [("sm01", "opensm.conf routing_engine")]),
    Case("ib006-ar-updn-nvidia", "IB006", [sm("sm01", "routing_engine ar_updn,updn\n")], [], options={"build": "nvidia"}),
    Case("ib006-pqft-nvidia", "IB006", [sm("sm01", "routing_engine PQFT\n")], [], options={"build": "nvidia"}),
    Case("ib006-typo-nvidia", "IB006", [sm("sm01", "routing_engine ar_updm\n")], [("sm01", "opensm.conf routing_engine")], options={"build": "nvidia"}),
    Case("ib006-declared-extra", "IB006", [sm("sm01", "routing_engine chain\n")], [], options={"routing_engines": ["chain"]}),
    Case("ib006-other-resets-still", "IB006", [sm("sm01", "routing_engine ar_ftree\nlmc 8\n")], [("sm01", "opensm.conf lmc")], options={"build": "nvidia"}),
    Case("ib007-ar-key-upstream", "IB007", [sm("sm01", "ar_sl_mask 0xffff\n")], [("sm01", "opensm.conf ar_sl_mask")]),
    Case("ib007-ar-key-nvidia", "IB007", [sm("sm01", "ar_sl_mask 0xffff\nvirt_enabled 2\n")], [], options={"build": "nvidia"}),
    Case("ib007-typo-nvidia", "IB007", [sm("sm01", "sweep_intervall 5\n")], [("sm01", "opensm.conf sweep_intervall")], options={"build": "nvidia"}),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case) -> None:
    assert found(case) == sorted(case.expect)


def test_ib006_names_the_fallback_and_the_option() -> None:
    (finding,) = run_case(Case("b", "IB006", [sm("sm01", "routing_engine ar_updn,updn\n")], []))
    assert finding.expected == "updn" and finding.actual == "ar_updn,updn"
    assert "`build: nvidia`" in finding.message
    assert finding.source is not None and finding.source.line == 1


def test_nvidia_engine_is_kept_as_the_value() -> None:
    opt = sm("sm01", "routing_engine ar_ftree\n").infiniband.sm.options["routing_engine"]  # type: ignore[union-attr]
    assert (opt.value, opt.build, opt.reset) == ("ar_ftree", "nvidia", None)
    unknown = sm("sm01", "routing_engine chain,ftree\n").infiniband.sm.options["routing_engine"]  # type: ignore[union-attr]
    assert (unknown.value, unknown.build) == ("ftree", None) and unknown.reset is not None


def test_ib011_without_partitions_conf_is_a_gap_not_a_pass() -> None:
    case = Case("gap", "IB011", [sm("sm01", SM01)], [], intent=WITH_TENANTS)
    assert found(case) == [] and skipped(case) == {"sm01"}


# ---- a realistic UFM-managed cluster (after NVIDIA UFM's opensm.conf and OpenSM's
# partition-config examples): NVIDIA OpenSM with adaptive routing, two tenants and storage ------

UFM_CONF = """\
# opensm.conf of a UFM-managed NDR fabric
guid 0x0002c90300a00001
sm_priority 15
routing_engine ar_ftree
ar_sl_mask 0xffff
m_key 0x6a1f00c3b7e29d41
m_key_protection_level 2
sm_key 0x3c5e91a0f4d2b877
sa_key 0x9b04d6e2c1a57f30
partition_config_file /opt/ufm/files/conf/opensm/partitions.conf
part_enforce both
allow_both_pkeys FALSE
"""

UFM_PARTITIONS = """\
Default=0x7fff, ipoib, mtu=5: ALL=limited, SELF=full;
team-a=0x8001, ipoib, mtu=5, sl=1: 0x0002c90300b00100=full, 0x0002c90300b00101=full;
team-b=0x8002, ipoib, mtu=5, sl=2: 0x0002c90300b00200=full, 0x0002c90300b00201=full;
storage=0x8003, sl=3: ALL_CAS=limited, SELF=full;
"""


@pytest.mark.parametrize(
    ("edit", "rule", "options", "expect"),
    [
        (None, "IB011", {}, []),
        (None, "IB012", {}, []),
        (None, "IB006", {"build": "nvidia"}, []),
        (None, "IB007", {"build": "nvidia"}, []),
        (None, "IB006", {}, [("sm01", "opensm.conf routing_engine")]),
        (("part_enforce both", "part_enforce off"), "IB012", {}, [_enforce()]),
        (("0x0002c90300b00201=full", "ALL=full"), "IB011", {}, []),  # team-a still isolates
    ],
)
def test_ufm_cluster(
    edit: tuple[str, str] | None, rule: str, options: dict[str, Any], expect: list[Any]
) -> None:
    conf, parts = UFM_CONF, UFM_PARTITIONS
    if edit is not None:
        assert edit[0] in conf + parts
        conf, parts = conf.replace(*edit), parts.replace(*edit)
    state = sm("sm01", conf, partitions=parts)
    assert found(Case("ufm", rule, [state], [], intent=WITH_TENANTS, options=options)) == expect


def test_ufm_cluster_with_every_partition_opened() -> None:
    opened = "\n".join(f"{line.split(':')[0]}: ALL=full;" for line in UFM_PARTITIONS.splitlines())
    state = sm("sm01", UFM_CONF, partitions=opened + "\n")
    (finding,) = run_case(Case("ufm", "IB011", [state], [], intent=WITH_TENANTS))
    assert "team-a, team-b" in finding.message
    assert "(Default, team-a, team-b, storage)" in finding.message
