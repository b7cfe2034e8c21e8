"""Every crash the fuzz harness found, as a small explicit input through the whole check.

Each test names the input kind that crashed and asserts what the check must do instead: parse
the device (locating the bad value as unparsed or a problem) and finish with exit 0, 1 or 3.
Crashes that belong to work in progress elsewhere (YAML/JSON int limits, reporter output) are
(The ones first marked xfail for other engineers' areas now pass: the markers are gone.)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from fabriclint.engine import CheckResult, ExitCode
from tests.fuzz.checkrun import FuzzFabric
from tests.fuzz.strategies import seeds

Edit = Callable[[str], str]


def check(
    tmp_path: Path,
    platform: str,
    seed: str,
    edits: dict[str, Edit],
    only: dict[str, str] | None = None,
) -> CheckResult:
    """The whole check (and every reporter) on an example device with `edits` applied, or with
    `only` as its outputs."""
    found = next(s for s in seeds(platform) if s.name == seed)
    outputs = {cmd: text.encode() for cmd, text in (only or found.outputs).items()}
    for command, edit in edits.items():
        changed = edit(found.outputs[command])
        assert changed != found.outputs[command], f"{command}: the edit changed nothing"
        outputs[command] = changed.encode()
    return FuzzFabric(found, tmp_path / "fabric").check(outputs)


def test_junos_lossy_class_without_a_priority_does_not_crash_qos003(tmp_path: Path) -> None:
    """A Junos no-loss class on queue 4 with pfc-priority 3 leaves traffic class 3 with no
    802.1p priority (None in tc_to_priority); QOS003 compared None with an int (TypeError).
    Found on the public QFX5240/QFX5130 validated designs of the corpus, unmutated."""

    def edit(text: str) -> str:
        text = text.replace("class roce queue-num 3 no-loss", "class roce queue-num 4 no-loss")
        return text.replace("flow-control-queue 3;", "flow-control-queue 4;")

    result = check(tmp_path, "junos", "multivendor-pod/spine01", {"show configuration": edit})
    qos = result.states["spine01"].qos
    assert qos is not None and qos.tc_to_priority is not None
    # The parser now never puts None in the map: the class without a priority is lossy.
    assert None not in qos.tc_to_priority.values()
    assert not [f for f in result.report.findings if f.rule == "INTERNAL001"]
    assert result.exit_code in (ExitCode.OK, ExitCode.FINDINGS)


def test_hca_port_missing_from_ibv_devinfo_is_located_in_ibstat(tmp_path: Path) -> None:
    """An HCA whose `port: 1` block is missing from ibv_devinfo while ibstat shows the port
    (a truncated or partial output): locating the port raised KeyError(1)."""

    def edit(text: str) -> str:
        lines = text.splitlines(keepends=True)
        return "".join(lines[:1] + lines[11:])  # mlx5_0 keeps its hca_id line only

    result = check(tmp_path, "mlnx-host", "ib-cluster/gpu01", {"ibv_devinfo -v": edit})
    port = result.states["gpu01"].rdma["mlx5_0/1"]
    source = port.sources.get("")
    assert source is not None and source.file.endswith("ibstat.txt") and source.line == 8
    assert result.exit_code in (ExitCode.OK, ExitCode.FINDINGS, ExitCode.INCOMPLETE)


HUGE = "9" * 5000  # past Python's 4300-digit limit of int(str)


def test_eos_number_of_5000_digits_is_an_unparsed_line(tmp_path: Path) -> None:
    """`tx-queue 999...9` (5000 digits): int() raised ValueError (the digit-count limit)."""
    edits = {"show running-config": lambda t: t.replace("tx-queue 3\n", f"tx-queue {HUGE}\n", 1)}
    result = check(tmp_path, "eos", "roce-pod/leaf01", edits)
    state = result.states["leaf01"]
    assert not state.problems
    assert any(HUGE in u.text and u.source and u.source.line for u in state.unparsed)
    assert result.exit_code in (ExitCode.OK, ExitCode.FINDINGS)


def test_sonic_key_with_a_5000_digit_index_is_skipped(tmp_path: Path) -> None:
    """A QUEUE/BUFFER_PG key `Ethernet0|999...9` (5000 digits): int() raised ValueError."""

    def edit(text: str) -> str:
        return text.replace('"Ethernet0|3"', f'"Ethernet0|{HUGE}"', 1)

    result = check(tmp_path, "sonic", "multivendor-pod/leaf03", {"config_db.json": edit})
    state = result.states["leaf03"]
    assert not [p for p in state.problems if "failed" in p.message]
    assert any(HUGE in u.text for u in state.unparsed)
    assert result.exit_code in (ExitCode.OK, ExitCode.FINDINGS, ExitCode.INCOMPLETE)


def test_ibstat_number_of_5000_digits_does_not_crash(tmp_path: Path) -> None:
    """`Number of ports: 1999...9` in ibstat: int() raised ValueError (the digit-count limit)."""
    edits = {"ibstat": lambda t: t.replace("Number of ports: 1", f"Number of ports: 1{HUGE}", 1)}
    result = check(tmp_path, "mlnx-host", "ib-cluster/gpu01", edits)
    assert "mlx5_0/1" in result.states["gpu01"].rdma
    assert result.exit_code in (ExitCode.OK, ExitCode.FINDINGS, ExitCode.INCOMPLETE)


def test_eos_show_interfaces_mtu_of_5000_digits_is_ignored(tmp_path: Path) -> None:
    """`IP MTU 999...9 bytes` in `show interfaces`: int() raised ValueError."""
    edits = {"show interfaces": lambda t: t.replace("IP MTU 9214 bytes", f"IP MTU {HUGE} bytes", 1)}
    result = check(tmp_path, "eos", "roce-pod/leaf01", edits)
    assert not result.states["leaf01"].problems
    assert result.exit_code in (ExitCode.OK, ExitCode.FINDINGS)


def test_cumulus_port_number_of_5000_digits_sorts_without_int(tmp_path: Path) -> None:
    """`net add bond peerlink bond slaves swp17,swp18999...9` (NCLU): sorting the ports by
    number called int() on 5000 digits (ValueError)."""
    nclu = f"net add interface swp1 mtu 9216\nnet add bond peerlink bond slaves swp17,swp1{HUGE}\n"
    only = {"net show configuration commands": nclu}
    result = check(tmp_path, "cumulus", "multivendor-pod/leaf04", {}, only=only)
    state = result.states["leaf04"]
    assert not state.problems
    swps = [name for name in state.interfaces if name.startswith("swp")]
    assert swps == ["swp1", "swp17", f"swp1{HUGE}"]  # numeric order kept


def test_cumulus_traffic_conf_value_of_5000_digits_is_not_a_number(tmp_path: Path) -> None:
    """`traffic.cos_2.priority_source.8021p = [999...9]` (5000 digits) in traffic.conf: int()
    raised ValueError."""
    conf = (
        "traffic.packet_priority_source_set = [802.1p]\n"
        "traffic.cos_2.priority_source.8021p = [2]\n"
        f"traffic.cos_3.priority_source.8021p = [{HUGE}]\n"
    )
    only = {"/etc/cumulus/datapath/traffic.conf": conf}
    result = check(tmp_path, "cumulus", "multivendor-pod/leaf04", {}, only=only)
    state = result.states["leaf04"]
    assert not [p for p in state.problems if "failed" in p.message]
    assert any(HUGE in u.text and u.source and u.source.line == 3 for u in state.unparsed)


# (platform, seed, command, text, the number in it replaced by 5000 digits): each crashed one
# reader with ValueError (int() of 4300+ digits) or OverflowError (int(float('99...9')) = inf)
HUGE_NUMBERS = [
    ("eos", "roce-pod/leaf01", "show running-config", "minimum-threshold 150 kbytes", "150"),
    ("nxos", "multivendor-pod/leaf02", "show running-config", "minimum-threshold 150 kb", "150"),
    ("nxos", "multivendor-pod/leaf02", "show interface", "MTU 9170 bytes", "9170"),
    ("junos", "multivendor-pod/spine01", "show configuration", "mtu 9216;", "9216"),
    ("junos", "multivendor-pod/spine01", "show configuration", "unit 0 {", "0"),
    ("sonic", "multivendor-pod/leaf03", "config_db.json", '"Ethernet0|0": {', "0|"),
    ("cumulus", "multivendor-pod/leaf04", "nv show qos roce -o json", '"min-threshold": 1', "1"),
    ("mlnx-host", "roce-pod/gpu01", "ibdev2netdev", "mlx5_0 port 1 ==>", "1 "),
    ("mlnx-host", "roce-pod/gpu01", "mlnx_qos -i ens1np0", "tc: 0 ratelimit", "0"),
    ("mlnx-host", "roce-pod/gpu01", "ip -d link show", "mtu 9000", "9000"),
    ("mlnx-host", "roce-pod/gpu01", "grep -rH . /sys/class/net/ens1np0/ecn", "enable/3:1", "3"),
    ("mlnx-host", "roce-pod/gpu01", "cma_roce_tos -d mlx5_0 -p 1", "106", "106"),
    ("opensm", "ib-cluster/sm01", "sminfo", "sm lid 1 ", "1"),
    ("opensm", "ib-cluster/sm01", "qos-policy.conf", "default              : 0", "0"),
]


@pytest.mark.parametrize(("platform", "seed", "command", "text", "number"), HUGE_NUMBERS)
def test_a_5000_digit_number_never_crashes_a_reader(
    tmp_path: Path, platform: str, seed: str, command: str, text: str, number: str
) -> None:
    def edit(output: str) -> str:
        assert text in output
        return output.replace(text, text.replace(number, HUGE + number[len(number.rstrip()) :], 1))

    result = check(tmp_path, platform, seed, {command: edit})
    device = seed.split("/")[1]
    problems = result.states[device].problems
    # hosts and SM nodes refuse the line as unparseable, located; switch readers skip the value
    assert all(p.source and p.source.line for p in problems), problems
    assert result.exit_code in (ExitCode.OK, ExitCode.FINDINGS, ExitCode.INCOMPLETE)


def test_cumulus_threshold_of_1e309_is_not_a_number(tmp_path: Path) -> None:
    """`"min-threshold": 1e309` in `nv show qos roce -o json` reads as float inf, and
    round(inf) raised OverflowError."""
    edits = {"nv show qos roce -o json": lambda t: t.replace(": 150000,", ": 1e309,", 1)}
    result = check(tmp_path, "cumulus", "multivendor-pod/leaf04", edits)
    assert not [p for p in result.states["leaf04"].problems if "failed" in p.message]
    assert result.exit_code in (ExitCode.OK, ExitCode.FINDINGS, ExitCode.INCOMPLETE)


def test_cumulus_nvue_yaml_int_of_5000_digits_does_not_crash(tmp_path: Path) -> None:
    """`mtu: 999...9` (5000 digits) in NVUE YAML: the block-YAML reader's int() raises."""
    edits = {"nv config show -o yaml": lambda t: t.replace("mtu: 9170", f"mtu: {HUGE}", 1)}
    check(tmp_path, "cumulus", "multivendor-pod/leaf04", edits)


def test_sonic_json_number_literal_of_5000_digits_is_a_located_problem(tmp_path: Path) -> None:
    """A 5000-digit number literal in config_db.json: json.loads raises ValueError (not a
    JSONDecodeError), which the SONiC reader does not turn into a located PARSE003."""

    def edit(text: str) -> str:
        return text.replace('"BGP_NEIGHBOR": {', f'"X": {HUGE},\n    "BGP_NEIGHBOR": {{', 1)

    result = check(tmp_path, "sonic", "multivendor-pod/leaf03", {"config_db.json": edit})
    problems = result.states["leaf03"].problems
    assert problems and all(p.source and p.source.line for p in problems)


@pytest.mark.parametrize("digit", ["\u2460", "\u00b2"])
def test_junos_unit_number_in_a_unicode_digit_does_not_crash(tmp_path: Path, digit: str) -> None:
    """`unit ① {` / `unit ² {` in a Junos interface: isdigit() is True but int() raises."""
    edits = {"show configuration": lambda t: t.replace("unit 0 {", f"unit {digit} {{", 1)}
    result = check(tmp_path, "junos", "multivendor-pod/spine01", edits)
    assert not result.states["spine01"].problems
    assert result.exit_code in (ExitCode.OK, ExitCode.FINDINGS)


def test_ibv_devinfo_port_in_a_circled_digit_does_not_crash(tmp_path: Path) -> None:
    """`port:\t①` in ibv_devinfo: '①'.isdigit() is True, int('①') raises (mlnx_host/verbs.py)."""
    edits = {"ibv_devinfo -v": lambda t: t.replace("port:\t1\n", "port:\t\u2460\n", 1)}
    result = check(tmp_path, "mlnx-host", "ib-cluster/gpu01", edits)
    assert not [p for p in result.states["gpu01"].problems if "error" in p.message]


def test_nul_bytes_in_an_input_keep_the_junit_report_well_formed(tmp_path: Path) -> None:
    """A NUL byte in a qos-policy.conf line reaches a finding and the JUnit XML (a testcase
    name), which then does not parse: XML 1.0 forbids most control characters, even escaped."""
    edits = {"qos-policy.conf": lambda t: t.replace("end-qos-ulps", "end-qos-ulps\x00", 1)}
    check(tmp_path, "opensm", "ib-cluster/sm01", edits)


def test_opensm_key_whose_value_is_only_a_comment_mark_does_not_crash() -> None:
    """Found by the long profile: `sa_key #` (a value cut down to the comment mark) reached
    int('') while comparing what OpenSM reads with what the text says."""
    from fabriclint.models.raw import RawDevice, RawOutput
    from fabriclint.parsers import opensm

    text = "sa_key #\nsm_key 0x0000000000000001\n"
    raw = RawDevice(
        name="sm01",
        platform="opensm",
        outputs={"opensm.conf": RawOutput(text=text, file="sm01/opensm.conf.txt")},
    )
    state = opensm.parse(raw)
    assert not [p for p in state.problems if "parser" in p.message]
    assert state.infiniband is not None and state.infiniband.sm is not None
    option = state.infiniband.sm.options["sa_key"]
    assert option.reset == "OpenSM reads '' as 0x0000000000000000"  # the comment is cut first


def test_sonic_port_name_with_5000_digits_sorts_without_int(tmp_path: Path) -> None:
    """Found by the long profile (after a merge took the unbounded sort back): a QUEUE key
    `Ethernet<5000 digits>|3` reached int() in the port sort."""

    def edit(text: str) -> str:
        return text.replace('"Ethernet0|3"', '"Ethernet' + "9" * 5000 + '|3"', 1)

    result = check(tmp_path, "sonic", "multivendor-pod/leaf03", {"config_db.json": edit})
    assert result.exit_code in (ExitCode.OK, ExitCode.FINDINGS, ExitCode.INCOMPLETE)
    assert not [p for p in result.states["leaf03"].problems if "parser failed" in p.message]
