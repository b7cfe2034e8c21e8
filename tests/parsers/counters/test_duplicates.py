"""A counter read twice: the same value is one reading; two values are a located problem.

Keeping the last value silently (a repeated line, a port twice in a table, a duplicate JSON
key) would let a CTR finding, or its absence, come from a number the device never meant.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from fabriclint.counterrun import CounterOptions, run_counters
from fabriclint.engine import ExitCode
from fabriclint.models.counters import Counter, DeviceCounters
from fabriclint.models.raw import RawDevice
from fabriclint.parsers.kit.counters import Builder
from fabriclint.snapshot_import import rehash
from tests.parsers.counters.test_mlnx_host import ETHTOOL, HW, HW_KEY, _parse

ROOT = Path(__file__).resolve().parents[3]
POD = ROOT / "inventories" / "roce-pod"

Setter = Callable[[Builder, Counter], None]
SETTERS: list[tuple[str, Setter]] = [
    ("port", lambda b, c: b.port("Ethernet1/1", "storm_error", c)),
    ("port drop", lambda b, c: b.port("Ethernet1/1", "drops.rx_discards_phy", c)),
    ("priority", lambda b, c: b.priority("Ethernet1/1", 3, "rx_pause", c)),
    ("priority drop", lambda b, c: b.priority("Ethernet1/1", 3, "drops.buf_discard", c)),
    ("queue", lambda b, c: b.queue("Ethernet1/1", 3, "ecn_marked", c)),
    ("hca", lambda b, c: b.hca("mlx5_0", 1, "ens1np0", "np_cnp_sent", c)),
]


def _twice(setter: Setter, first: int, second: int) -> tuple[Builder, DeviceCounters]:
    builder = Builder(RawDevice(name="leaf01", platform="eos", outputs={}))
    setter(builder, builder.counter(first, "leaf01/out.txt", 4))
    setter(builder, builder.counter(second, "leaf01/out.txt", 9))
    return builder, builder.build()


def _values(found: DeviceCounters) -> list[int]:
    """Every counter value the built counters hold."""
    values: list[int] = []
    for port in found.ports.values():
        groups = [port, *port.priorities.values(), *port.queues.values()]
        for group in groups:
            for value in group.__dict__.values():
                items = value.values() if isinstance(value, dict) else [value]
                values += [c.value for c in items if isinstance(c, Counter)]
    values += [c.value for r in found.rdma.values() for c in r.counters.values()]
    return values


@pytest.mark.parametrize(("kind", "setter"), SETTERS, ids=[k for k, _ in SETTERS])
def test_two_values_for_one_counter_are_a_problem_at_the_second(kind: str, setter: Setter) -> None:
    _, found = _twice(setter, 1500, 7)
    (problem,) = found.problems
    assert problem.kind == "unparseable"
    assert problem.source is not None and problem.source.line == 9
    assert "1,500" in problem.message and "7" in problem.message
    assert 7 not in _values(found)  # the contradicting reading is never a counter


@pytest.mark.parametrize(("kind", "setter"), SETTERS, ids=[k for k, _ in SETTERS])
def test_the_same_value_twice_is_one_reading(kind: str, setter: Setter) -> None:
    _, found = _twice(setter, 1500, 1500)
    assert found.problems == []
    assert _values(found) == [1500]


def test_a_repeated_ethtool_line_with_another_value_is_located() -> None:
    text = ETHTOOL + "     rx_prio3_pause: 9\n"  # the 16th line contradicts line 4
    found = _parse({"ethtool -S ens1np0": text})
    assert [(p.kind, p.source.line if p.source else None) for p in found.problems] == [
        ("unparseable", 16)
    ]
    assert "rx_pause" in found.problems[0].message


def test_a_repeated_sysfs_line_with_the_same_value_is_fine() -> None:
    found = _parse({HW_KEY: HW + HW.splitlines()[2] + "\n"})
    assert found.problems == []
    assert found.rdma["mlx5_0/1"].counters["np_cnp_sent"].value == 8811


def test_counters_with_a_contradicting_line_make_the_device_incomplete(tmp_path: Path) -> None:
    fabric = Path(shutil.copytree(POD, tmp_path / "roce-pod"))
    path = fabric / "snapshots" / "bench-after" / "gpu01" / "ethtool_-S_ens1np0.txt"
    text = path.read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if "rx_prio3_buf_discard:" in x)
    path.write_text(text + line.replace(": 0", ": 5") + "\n", encoding="utf-8")
    rehash(fabric / "snapshots" / "bench-after")
    result = run_counters(
        CounterOptions(fabric_dir=fabric, before="bench-before", after="bench-after")
    )
    assert result.exit_code == ExitCode.INCOMPLETE
    (gpu01,) = [d for d in result.report.devices if d.name == "gpu01"]
    assert gpu01.status == "unparseable"
    assert gpu01.error is not None and "read twice with two values" in gpu01.error
    assert all(d.status == "ok" for d in result.report.devices if d.name != "gpu01")
