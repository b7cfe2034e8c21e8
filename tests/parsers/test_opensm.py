"""Focused tests of the opensm parser: how OpenSM reads values, what it resets, the partitions and
QoS-policy grammars, sminfo, robustness."""

from __future__ import annotations

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.lines import Text
from fabriclint.parsers.opensm import input_role, parse
from fabriclint.parsers.opensm.partitions import parse_partitions
from fabriclint.parsers.opensm.values import read_bool, read_net64, read_number, strtoul
from fabriclint.platforms.opensm_keys import KEYS


def sm(**files: str) -> DeviceState:
    """Parse an SM node from inline files (keyword names: conf, partitions, qos, sminfo)."""
    keys = {"conf": "opensm.conf", "partitions": "partitions.conf", "qos": "qos-policy.conf"}
    outputs = {keys.get(k, k): RawOutput(text=v, file=keys.get(k, k)) for k, v in files.items()}
    return parse(RawDevice(name="sm01", platform="opensm", outputs=outputs))


def option(conf: str, key: str) -> tuple[object, str | None]:
    """(value OpenSM uses, reset reason) of `key` after reading `conf`."""
    state = sm(conf=conf)
    assert state.infiniband is not None and state.infiniband.sm is not None
    found = state.infiniband.sm.options[key]
    return found.value, found.reset


# ---- values --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "used"),
    [
        ("10", 10, "10"),
        ("0x1F", 31, "0x1F"),
        ("010", 8, "010"),  # octal, as C reads it
        ("018", 1, "01"),  # octal stops at 8
        ("10s", 10, "10"),
        ("abc", 0, ""),
        ("0x", 0, "0"),
        ("  +7", 7, "+7"),
        ("-1", (1 << 64) - 1, "-1"),
    ],
)
def test_strtoul_reads_like_c(text: str, value: int, used: str) -> None:
    parsed, _, consumed = strtoul(text)
    assert (parsed, consumed) == (value, used)


@pytest.mark.parametrize(
    ("text", "kind", "value", "reason"),
    [
        ("8", "u8", 8, None),
        ("256", "u8", 0, "8-bit"),
        ("4294967296", "u32", 0, "32-bit"),
        ("-1", "i32", -1, None),
        ("-1", "u8", 255, "8-bit"),
        ("010", "u8", 8, "octal"),
        ("10s", "u32", 10, "reads only '10'"),
        ("ten", "u32", 0, "not a number"),
    ],
)
def test_numbers_keep_what_opensm_keeps(
    text: str, kind: str, value: int, reason: str | None
) -> None:
    read = read_number(text, kind)
    assert read.value == value
    assert (read.reset is None) if reason is None else (reason in (read.reset or ""))


def test_net64_is_hex_and_booleans_are_upper_case_true() -> None:
    assert read_net64("1").value == "0x0000000000000001"
    assert read_net64("0xZZ").reset is not None
    assert read_bool("TRUE").value is True and read_bool("FALSE").reset is None
    for text in ("true", "yes", "1", "on"):
        assert read_bool(text).value is False and read_bool(text).reset is not None


# ---- opensm.conf ---------------------------------------------------------------------------------


def _default_conf() -> str:
    """Every key with its default, written the way `opensm -c` writes values."""
    lines = []
    for key, spec in KEYS.items():
        value = spec.default
        text = (
            "(null)"
            if value is None
            else ("TRUE" if value is True else "FALSE" if value is False else str(value))
        )
        lines.append(f"{key} {text}")
    return "\n".join(lines) + "\n"


def test_a_conf_of_every_default_reads_back_as_defaults() -> None:
    state = sm(conf=_default_conf())
    conf = state.infiniband.sm  # type: ignore[union-attr]
    assert conf is not None and conf.unknown == [] and state.problems == []
    assert {k: o.value for k, o in conf.options.items()} == {k: s.default for k, s in KEYS.items()}
    assert [k for k, o in conf.options.items() if o.reset] == []
    assert conf.tables == {}  # written (null)/0/-1 tables set nothing


@pytest.mark.parametrize(
    ("line", "key", "value", "reason"),
    [
        ("lmc 8", "lmc", 0, "0-7"),
        ("sm_priority 16", "sm_priority", 0, "0-15"),
        ("sm_priority 256", "sm_priority", 0, "8-bit"),
        ("m_key_protection_level 5", "m_key_protection_level", 2, "uses 2"),
        ("force_link_speed 9", "force_link_speed", 15, "0-7 and 15"),
        ("force_link_speed_ext 12", "force_link_speed_ext", 31, "30, 31"),
        ("force_link_width 40", "force_link_width", 255, "255"),
        ("fdr10 3", "fdr10", 1, "0-2"),
        ("max_op_vls 8", "max_op_vls", 5, "OperationalVLs"),
        ("console telnet", "console", "off", "off"),
        ("part_enforce strict", "part_enforce", "both", "both"),
        ("sm_sl 17", "sm_sl", 1, "4 bits"),
        ("vl_stall_count 9", "vl_stall_count", 1, "3 bits"),
        ("routing_engine ftree,fatree", "routing_engine", "ftree", "fatree"),
        ("routing_engine fatree", "routing_engine", None, "minhop"),
        ("qos yes", "qos", False, "TRUE"),
        ("perfmgr_sweep_time_s 0", "perfmgr_sweep_time_s", 180, "180"),
        ("long_transaction_timeout 50", "long_transaction_timeout", 200, "transaction_timeout"),
    ],
)
def test_values_opensm_replaces(line: str, key: str, value: object, reason: str) -> None:
    found, why = option(line + "\n", key)
    assert found == value and why is not None and reason in why


def test_accepted_values_are_not_reset() -> None:
    conf = "lmc 7\nsm_priority 15\nrouting_engine ftree,updn,no_fallback\nforce_link_speed_ext 30\n"
    for key in ("lmc", "sm_priority", "routing_engine", "force_link_speed_ext"):
        assert option(conf, key)[1] is None


def test_qos_sets_are_only_verified_with_qos_on() -> None:
    assert option("qos_ca_max_vls 16\n", "qos_ca_max_vls") == (16, None)
    assert option("qos TRUE\nqos_ca_max_vls 16\n", "qos_ca_max_vls")[0] == 0


def test_protected_mkey_lease_forces_sweeping() -> None:
    conf = "m_key_protection_level 1\nm_key_lease_period 60\nsweep_interval 0\n"
    assert option(conf, "sweep_interval")[0] == 59
    conf = "m_key_protection_level 1\nm_key_lease_period 5\nsweep_interval 10\n"
    assert option(conf, "m_key_lease_period")[0] == 11


def test_comments_quotes_unknown_keys_duplicates_and_redaction() -> None:
    conf = (
        'log_file "/var/log/osm.log"  # quoted\n'
        "  # a comment line\n"
        "lmc 1 # trailing comment\n"
        "routing_engines ftree\n"
        "lmc 2\n"
        "cc_ca_cong_setting_ccti_timer 0 10\n"
        "cc_ca_cong_setting_ccti_timer 1 10\n"
        "sm_key <redacted>\n"
    )
    state = sm(conf=conf)
    ib = state.infiniband.sm  # type: ignore[union-attr]
    assert ib is not None
    assert ib.value("log_file") == "/var/log/osm.log" and ib.value("lmc") == 2
    assert [(u.key, u.source.line if u.source else 0) for u in ib.unknown] == [
        ("routing_engines", 4)
    ]
    assert [(p.kind, p.source.line if p.source else 0) for p in state.problems] == [
        ("duplicate-key", 5)
    ]
    assert ib.options["sm_key"].redacted and ib.options["sm_key"].value is None


def test_qos_tables_keep_entries_and_malformed_tokens() -> None:
    conf = "qos_ca_sl2vl 0,1,2,x3\nqos_vlarb_low 0:64, 1:32 ,7\n"
    tables = sm(conf=conf).infiniband.sm.tables  # type: ignore[union-attr]
    assert tables["qos_ca"].sl2vl == [0, 1, 2, 0] and tables["qos_ca"].malformed == {
        "sl2vl": ["x3"]
    }
    assert [(e.vl, e.weight) for e in tables["qos"].vlarb_low or []] == [(0, 64), (1, 32), (7, 0)]
    assert tables["qos"].malformed == {"vlarb_low": ["7"]}


# ---- partitions.conf -----------------------------------------------------------------------------


def partitions(
    text: str,
) -> tuple[list[tuple[str, int | None, list[tuple[str, str]]]], list[tuple[int, str]]]:
    """(name, pkey, members) per partition and (line, severity) per issue."""
    parts, issues = parse_partitions(Text.of("partitions.conf", "p.conf", text))
    summary = [(p.name, p.pkey, [(m.port, str(m.membership)) for m in p.members]) for p in parts]
    located = [((i.source.line or 0) if i.source else 0, str(i.severity)) for i in issues]
    return summary, located


def test_partition_grammar_prefixes_wrapping_and_merging() -> None:
    text = (
        "Default=0x7fff : ALL, SELF=full ;\n"
        "gpu=0x8001, ipoib, mtu=5, defmember=full:\n"
        "   0x10, 0x11=lim,\n"
        "   ALL_S=f ;\n"
        "gpu=0x0001: A_ ; storage : ALL_CAS=both;\n"  # A_ is no keyword: rest of line skipped
    )
    parts, issues = partitions(text)
    assert parts[0] == ("Default", 0x7FFF, [("ALL", "limited"), ("SELF", "full")])
    assert parts[1] == (
        "gpu",
        1,
        [
            ("0x0000000000000010", "full"),
            ("0x0000000000000011", "limited"),
            ("ALL_SWITCHES", "full"),
        ],
    )
    assert len(parts) == 2 and issues == [(5, "error")]


@pytest.mark.parametrize(
    ("text", "issues"),
    [
        ("a=0x8001, ipoib, mtu=4096: ALL=full;\n", [(1, "error")]),
        ("a=0x8001, rate=99: ALL=full;\n", [(1, "error")]),
        ("a=0x8001, sl=16, bogus: ALL=full;\n", [(1, "warning"), (1, "warning")]),
        ("a=0x8001: 0x10=fulll;\n", [(1, "error")]),
        ("a=0xZZ: ALL;\n", [(1, "error")]),
        ("a 0x8001: ALL;\n", [(1, "error")]),
        ("a=0x8001, ipoib\n: ALL;\n", [(1, "error")]),
        ("a=0x8001: mgid=fe80::1;\n", [(1, "error")]),
        ("a=0x8001, ipoib: mgid=ff12:401b:0002::1;\n", [(1, "error")]),
        ("a=0x8001, ipoib: mgid=ff12:401b::1, mtu=5;\n", [(1, "error")]),
        ("a=0x8001, ipoib: mgid=ff12:401b::1, sl=1;\n", []),
    ],
)
def test_partition_issues_are_located(text: str, issues: list[tuple[int, str]]) -> None:
    assert partitions(text)[1] == issues


def test_a_failed_line_keeps_the_partition_open() -> None:
    parts, issues = partitions("a=0x8001: 0xZZ; b=0x8002: ALL;\nb=0x8002: ALL;\n")
    assert [p[0] for p in parts] == ["a"]  # line 2 is read as members of a
    assert issues == [(1, "error"), (2, "error")]


def test_both_without_allow_both_pkeys_is_reported_with_the_conf() -> None:
    state = sm(conf="", partitions="a=0x8001: ALL_CAS=both;\n")
    issues = state.infiniband.partition_issues  # type: ignore[union-attr]
    assert [i.severity for i in issues] == ["warning"]
    state = sm(conf="allow_both_pkeys TRUE\n", partitions="a=0x8001: ALL_CAS=both;\n")
    assert state.infiniband.partition_issues == []  # type: ignore[union-attr]


# ---- qos-policy.conf, sminfo, keys ---------------------------------------------------------------


def test_qos_policy_references_and_syntax_errors() -> None:
    policy = (
        "port-groups\n port-group\n  name: GPUs\n  node-type: CA\n end-port-group\nend-port-groups\n"
        "qos-levels\n qos-level\n  name: Fast\n  sl: 1\n end-qos-level\nend-qos-levels\n"
        "qos-match-rules\n qos-match-rule\n  source: GPUs, Storage\n  qos-level-name: Fast\n"
        " end-qos-match-rule\nend-qos-match-rules\n"
    )
    state = sm(conf="", qos=policy)
    refs = sorted((r.kind, r.name) for r in state.references)
    assert refs == [
        ("port-group", "GPUs"),
        ("port-group", "Storage"),
        ("qos-level", "DEFAULT"),
        ("qos-level", "Fast"),
    ]
    assert state.problems == []
    broken = sm(conf="", qos="qos-levels\n qos-level\n  name: DEFAULT\n  sl: 0\n  colour: red\n")
    assert [p.source.line if p.source else 0 for p in broken.problems] == [5, 5]  # + unclosed


def test_qos_ulps_default_defines_the_default_level() -> None:
    state = sm(conf="", qos="qos-ulps\n default : 0\n ipoib, pkey 0x8001 : 2\nend-qos-ulps\n")
    assert state.references == [] and state.problems == []
    assert [u.match for u in state.infiniband.qos_policy.ulps] == ["default", "ipoib pkey 0x8001"]  # type: ignore[union-attr]


def test_sminfo_lines_and_errors() -> None:
    text = (
        "sminfo: sm lid 1 sm guid 0x2c90300c0ffee, activity count 7 priority 15 state 3 SMINFO_MASTER\n"
        "ibwarn: [42] mad_rpc_open_port: can't open UMAD port\n"
    )
    state = sm(conf="", sminfo=text)
    (info,) = state.infiniband.sminfo  # type: ignore[union-attr]
    assert (info.guid, info.priority, info.is_master) == ("0x0002c90300c0ffee", 15, True)
    assert [p.source.line if p.source else 0 for p in state.problems] == [2]


@pytest.mark.parametrize(
    ("key", "role"),
    [
        ("opensm.conf", "opensm.conf"),
        ("cat /etc/opensm/opensm.conf", "opensm.conf"),
        ("/etc/rdma/partitions.conf", "partitions.conf"),
        ("sminfo -G 0x1", "sminfo"),
        ("uptime", None),
    ],
)
def test_input_roles(key: str, role: str | None) -> None:
    assert input_role(key) == role


def test_missing_opensm_conf_is_an_input_problem() -> None:
    state = parse(RawDevice(name="sm", platform="opensm", outputs={}))
    assert [p.kind for p in state.problems] == ["unparseable"]


GARBAGE = [
    "",
    "\x00\x01\xff",
    "=" * 5000,
    "qos-ulps\n:\n",
    "a=:;;;,,,=\n",
    "mgid=::::\n",
    "0x" * 300,
]


@pytest.mark.parametrize("text", GARBAGE)
def test_never_raises(text: str) -> None:
    state = sm(conf=text, partitions=text, qos=text, sminfo=text)
    assert not any("parser failed" in p.message for p in state.problems)
    state.model_dump_json()
