"""Device inputs past the input limits are located input problems, in bounded time and memory."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState
from fabriclint.parsers import cumulus, junos, sonic

NVUE = "nv config show -o yaml"
SHOW = "nv show qos roce -o json"


@contextmanager
def bounded(seconds: float = 2.0, megabytes: float = 64.0) -> Iterator[None]:
    """Fail when the block takes longer or allocates more (at its peak) than given."""
    tracemalloc.start()
    started = time.perf_counter()
    try:
        yield
    finally:
        elapsed = time.perf_counter() - started
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
