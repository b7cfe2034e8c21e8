"""Device inputs past the input limits are located input problems, in bounded time and memory."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from fabriclint.models.common import Source
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState
from fabriclint.parsers import cumulus, eos, junos, mlnx_host, opensm, sonic
from fabriclint.parsers.cumulus.tokens import to_int as cumulus_to_int
from fabriclint.parsers.junos.values import to_int as junos_to_int
from fabriclint.parsers.kit.common import to_int
from fabriclint.parsers.kit.lines import leading_int
from fabriclint.parsers.sonic.tables import as_int

NVUE = "nv config show -o yaml"
SHOW = "nv show qos roce -o json"


@contextmanager
def bounded(seconds: float = 10.0, megabytes: float = 64.0) -> Iterator[None]:
    """Fail when the block allocates more (at its peak) than given, or runs away in CPU time.

    The time bound is not a speed claim (benchmarks measure speed): an unbounded expansion runs for
    minutes, so CPU seconds (not wall time, which a loaded machine stretches) with a wide margin
    tell a guard that works from one that does not."""
    tracemalloc.start()
    started = time.process_time()
    try:
        yield
    finally:
        elapsed = time.process_time() - started
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
    assert elapsed < seconds, f"{elapsed:.1f} s"
    assert peak < megabytes, f"{peak:.0f} MB"


def parse_one(
    parse: Callable[[RawDevice], DeviceState], platform: str, key: str, text: str
) -> DeviceState:
    raw = RawDevice(
        name="d1", platform=platform, outputs={key: RawOutput(text=text, file=f"d1/{key}.txt")}
    )
    with bounded():
        return parse(raw)


def nvue_laughs(levels: int) -> str:
    """A billion laughs inside an NVUE document (a flow list, so the block reader hands it over)."""
    lines = [
        "- set:",
        "    system:",
        "      l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]",
    ]
    for n in range(1, levels + 1):
        lines.append(f"      l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 10)}]")
    return "\n".join(lines) + "\n"


CUMULUS = {
    "alias bomb": (NVUE, nvue_laughs(9), 3, "a YAML alias of the mapping or list anchored here"),
    "recursive alias": (NVUE, "- set:\n    system: &x\n      loop: *x\n", 3, "a YAML alias"),
    "deep block": (
        NVUE,
        "- set:\n" + "".join("  " * n + f"    k{n}:\n" for n in range(200)),
        64,
        "nested more than 64 levels deep",
    ),
    "deep flow": (NVUE, "- set: " + "[" * 100 + "]" * 100 + "\n", 1, "nested more than 64"),
    "deep json": (SHOW, '{"mode":\n' + "[" * 100_000 + "]" * 100_000 + "}", 2, "nested more"),
    "huge integer (block)": (
        NVUE,
        "- set:\n    interface:\n      swp1:\n        link:\n          mtu: " + "9" * 5000 + "\n",
        5,
        "an integer with 5000 digits",
    ),
    "huge integer (json)": (
        SHOW,
        '{"mode": "lossless",\n "probability": ' + "1" * 5000 + "}",
        2,
        "5000 digits",
    ),
}


@pytest.mark.parametrize("case", sorted(CUMULUS))
def test_cumulus_inputs_past_the_limits(case: str) -> None:
    key, text, line, message = CUMULUS[case]
    state = parse_one(cumulus.parse, "cumulus", key, text)
    problems = [p for p in state.problems if p.kind == "unparseable"]
    assert len(problems) == 1, state.problems
    assert problems[0].source is not None and problems[0].source.line == line
    assert message in problems[0].message, problems[0].message


def junos_nested(depth: int, section: str = "interfaces") -> str:
    """`section { a0 { x; a1 { x; ... } } }`: Junos brace nesting `depth` blocks deep."""
    opening = "".join(f"a{n} {{\nx;\n" for n in range(depth))
    return f"{section} {{\n{opening}" + "}\n" * (depth + 1)


JUNOS = {
    "deep kept section": (junos_nested(8_000), 128, "nested more than 64 levels deep"),
    "deep skipped section": (junos_nested(200_000, "policy-options"), 128, "nested more than 64"),
    "long block path": ("interfaces " + "w " * 300 + "{\nx;\n}\n", 1, "a block path of 301 words"),
}


@pytest.mark.parametrize("case", sorted(JUNOS))
def test_junos_nesting_is_bounded(case: str) -> None:
    text, line, message = JUNOS[case]
    state = parse_one(junos.parse, "junos", "show configuration", text)
    (problem,) = [p for p in state.problems if p.kind == "unparseable"]
    assert problem.source is not None and problem.source.line == line
    assert message in problem.message


def test_junos_nesting_within_the_limit_is_read() -> None:
    state = parse_one(junos.parse, "junos", "show configuration", junos_nested(60))
    assert [p for p in state.problems if p.kind == "unparseable"] == []


SONIC = {
    "deep": ('{"PORT": {"Ethernet0":\n' + "[" * 100_000 + "]" * 100_000 + "}}", 2, "nested more"),
    "deep within the recursion limit": (
        '{"PORT": {"Ethernet0":\n' + "[" * 500 + "]" * 500 + "}}",
        2,
        "nested more than 64",
    ),
    "huge integer": ('{"PORT": {"Ethernet0":\n {"mtu": ' + "9" * 5_000 + "}}}", 2, "5000 digits"),
}


@pytest.mark.parametrize("case", sorted(SONIC))
def test_sonic_json_limits(case: str) -> None:
    text, line, message = SONIC[case]
    state = parse_one(sonic.parse, "sonic", "config_db.json", text)
    (problem,) = [p for p in state.problems if p.kind == "unparseable"]
    assert problem.source is not None and problem.source.line == line
    assert message in problem.message


# --- Unicode digits: str.isdigit() is true for '²', '①', '٣'; int() fails on the first two ---

DEVINFO_UNICODE_PORT = (
    "hca_id:\tmlx5_0\n\tfw_ver:\t\t\t28.39.1002\n\t\tport:\t①\n\t\t\tstate:\t\tPORT_ACTIVE (4)\n"
)
JUNOS_UNICODE_UNIT = (
    "interfaces {\n    et-0/0/0 {\n        unit ² {\n            family inet {\n"
    "                address 10.0.0.1/31;\n            }\n        }\n    }\n}\n"
)
SONIC_UNICODE_PORT = (
    '{"PORT": {"Ethernet0²": {"mtu": "9100"}, "Ethernet4": {"mtu": "9100"}},\n'
    ' "PORT_QOS_MAP": {"Ethernet0²": {"pfc_enable": "3"}, "Ethernet4": {"pfc_enable": "3"}}}\n'
)
ECN_UNICODE_PRIORITY = (
    "/sys/class/net/ens1np0/ecn/roce_np/enable/³:1\n/sys/class/net/ens1np0/ecn/roce_np/enable/3:1\n"
)


def internal(state: DeviceState) -> list[str]:
    """Messages of the parser's own failures (the never-raise wrappers)."""
    return [p.message for p in state.problems if "parser failed on this input" in p.message]


@pytest.mark.parametrize(
    ("parse", "platform", "key", "text"),
    [
        (mlnx_host.parse, "mlnx-host", "ibv_devinfo -v", DEVINFO_UNICODE_PORT),
        (
            mlnx_host.parse,
            "mlnx-host",
            "grep -rH . /sys/class/net/ens1np0/ecn",
            ECN_UNICODE_PRIORITY,
        ),
        (junos.parse, "junos", "show configuration", JUNOS_UNICODE_UNIT),
        (sonic.parse, "sonic", "config_db.json", SONIC_UNICODE_PORT),
    ],
    ids=["devinfo port", "sysfs ecn priority", "junos unit", "sonic port name"],
)
def test_unicode_digits_are_not_numbers(
    parse: Callable[[RawDevice], DeviceState], platform: str, key: str, text: str
) -> None:
    state = parse_one(parse, platform, key, text)
    assert internal(state) == []


def test_unicode_digits_in_ecn_priorities_are_not_read() -> None:
    key = "grep -rH . /sys/class/net/ens1np0/ecn"
    state = parse_one(mlnx_host.parse, "mlnx-host", key, ECN_UNICODE_PRIORITY)
    port = state.rdma["ens1np0"]
    assert port.ecn_np == {3: True}  # '³' is neither priority 3 nor a crash


def test_unicode_digits_in_a_dscp_list_are_not_read() -> None:
    text = "DCBX mode: OS controlled\nPriority trust state: dscp\ndscp2prio mapping:\n\tprio:3 dscp:26,٢٧,\n"
    state = parse_one(mlnx_host.parse, "mlnx-host", "mlnx_qos -i ens1np0", text)
    qos = state.interfaces["ens1np0"].qos
    assert qos is not None and qos.dscp_to_tc == {26: 3}  # Arabic-Indic 27 is not DSCP 27


# --- a parser's own failure names the file (and line) it was reading ---------------------


def test_internal_error_names_the_file_and_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(value: str) -> int:
        raise KeyError("boom")

    monkeypatch.setattr("fabriclint.parsers.mlnx_host.assemble.leading_int", broken)
    devinfo = (
        "hca_id:\tmlx5_0\n\tfw_ver:\t\t\t28.39.1002\n\t\tport:\t1\n\t\t\tactive_mtu:\t4096 (5)\n"
    )
    outputs = {
        "ibv_devinfo -v": RawOutput(text=devinfo, file="gpu01/ibv_devinfo_-v.txt"),
        "ibdev2netdev": RawOutput(text="mlx5_0 port 1 ==> ens1np0 (Up)\n", file="gpu01/ibdev.txt"),
    }
    state = mlnx_host.parse(RawDevice(name="gpu01", platform="mlnx-host", outputs=outputs))
    (message,) = internal(state)
    assert "at gpu01/ibv_devinfo_-v.txt:" in message and "KeyError" in message
    (problem,) = [p for p in state.problems if p.message == message]
    assert problem.source is not None and problem.source.file == "gpu01/ibv_devinfo_-v.txt"


def test_internal_error_without_a_place_lists_the_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("fabriclint.parsers.opensm.input_role", broken)
    outputs = {
        "opensm.conf": RawOutput(text="sm_priority 1\n", file="sm01/opensm.conf.txt"),
        "sminfo": RawOutput(text="", file="sm01/sminfo.txt"),
    }
    state = opensm.parse(RawDevice(name="sm01", platform="opensm", outputs=outputs))
    (message,) = internal(state)
    assert "one of sm01/opensm.conf.txt, sm01/sminfo.txt: RuntimeError: boom" in message


# --- a cut-off ibv_devinfo next to ibstat -------------------------------------------------

IBSTAT = """\
CA 'mlx5_0'
\tCA type: MT4123
\tNumber of ports: 1
\tFirmware version: 20.31.1014
\tNode GUID: 0x946dae0300cde72c
\tPort 1:
\t\tState: Active
\t\tPhysical state: LinkUp
\t\tRate: 200
\t\tBase lid: 7
\t\tSM lid: 1
\t\tPort GUID: 0x946dae0300cde72c
\t\tLink layer: InfiniBand
CA 'mlx5_1'
\tCA type: MT4123
\tNumber of ports: 1
\tPort 1:
\t\tState: Active
\t\tPhysical state: LinkUp
\t\tLink layer: InfiniBand
"""


@pytest.mark.parametrize(
    ("devinfo", "missing"),
    [
        ("hca_id:\tmlx5_0\n", "mlx5_0 has no port 1"),
        (
            "hca_id:\tmlx5_0\n\t\tport:\t1\n\t\t\tstate:\t\tPORT_ACTIVE (4)\nhca_id:\tmlx5_1\n",
            "mlx5_1 has no port 1",
        ),
    ],
)
def test_truncated_devinfo_next_to_ibstat_is_an_input_problem(devinfo: str, missing: str) -> None:
    outputs = {
        "ibstat": RawOutput(text=IBSTAT, file="gpu01/ibstat.txt"),
        "ibv_devinfo -v": RawOutput(text=devinfo, file="gpu01/ibv_devinfo_-v.txt"),
    }
    state = mlnx_host.parse(RawDevice(name="gpu01", platform="mlnx-host", outputs=outputs))
    assert internal(state) == []
    (problem,) = [p for p in state.problems if "cut off" in p.message]
    assert missing in problem.message
    assert problem.source == Source(file="gpu01/ibv_devinfo_-v.txt", line=devinfo.count("\n"))
    assert set(state.rdma) == {"mlx5_0/1", "mlx5_1/1"}  # ibstat still describes both ports


@pytest.mark.parametrize("number", [100, 255, 1000])
def test_ibdev2netdev_port_numbers_of_three_digits_and_more(number: int) -> None:
    devinfo = f"hca_id:\tmlx5_0\n\t\tport:\t{number}\n\t\t\tstate:\t\tPORT_ACTIVE (4)\n"
    outputs = {
        "ibdev2netdev": RawOutput(text=f"mlx5_0 port {number} ==> ens1np0 (Up)\n", file="h/i.txt"),
        "ibv_devinfo -v": RawOutput(text=devinfo, file="h/d.txt"),
    }
    state = mlnx_host.parse(RawDevice(name="h", platform="mlnx-host", outputs=outputs))
    assert internal(state) == []
    port = state.rdma["ens1np0"]
    assert (port.hca, port.port, port.state) == ("mlx5_0", number, "PORT_ACTIVE")


# --- numbers no float can hold: a threshold of 10**400 bytes is refused where it is read ----

EXAMPLES = Path(__file__).resolve().parents[2] / "inventories"


def test_sonic_threshold_past_the_integer_limit_is_not_read() -> None:
    text = (EXAMPLES / "multivendor-pod/snapshots/baseline/leaf03/config_db.json.txt").read_text()
    huge = text.replace('"green_min_threshold": "150000"', f'"green_min_threshold": "{10**400}"')
    assert huge != text
    state = parse_one(sonic.parse, "sonic", "config_db.json", huge)
    assert internal(state) == []
    queues = state.interfaces["Ethernet0"].qos
    assert queues is not None and queues.queues is not None
    ecn = queues.queues[3].ecn
    assert ecn is not None and ecn.min_bytes is None and ecn.max_bytes == 1_500_000
    (skip,) = [u for u in state.unparsed if "green_min_threshold" in u.text]
    assert "an integer with 401 digits" in skip.reason
    assert (
        skip.source is not None
        and skip.source.line
        == huge.splitlines().index(
            next(line for line in huge.splitlines() if "green_min_threshold" in line)
        )
        + 1
    )


def test_eos_threshold_too_large_for_a_float_is_not_read() -> None:
    text = (EXAMPLES / "roce-pod/snapshots/baseline/leaf01/show_running-config.txt").read_text()
    huge = text.replace("minimum-threshold 150 kbytes", f"minimum-threshold {10**400} kbytes", 1)
    assert huge != text
    state = parse_one(eos.parse, "eos", "show running-config", huge)
    assert internal(state) == []


@pytest.mark.parametrize(
    ("helper", "text"),
    [
        (to_int, "9" * 301),
        (junos_to_int, "9" * 301),
        (as_int, "9" * 301),
        (cumulus_to_int, "9" * 301),
        (leading_int, "9" * 301 + " (5)"),
    ],
)
def test_integer_helpers_refuse_numbers_past_the_limit(
    helper: Callable[[str], int | None], text: str
) -> None:
    assert helper(text) is None
    assert helper("42") == 42
