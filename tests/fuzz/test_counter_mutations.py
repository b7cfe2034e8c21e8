"""Every counter parser, fed mutated counter outputs, then every CTR rule on the result.

Seeds: the example's bench-after counter outputs (EOS JSON, `ethtool -S`, sysfs hw_counters)
and the NX-OS, SONiC, Junos and Cumulus outputs of the parser tests. Line and byte mutations for all, structural ones for
the JSON. The parser must read each mutant without falling back on its internal-error net
(bad text is a located problem, never an exception), and the CTR rules must judge whatever it
read without raising.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabriclint.models.counters import DeviceCounters
from fabriclint.models.inventory import Inventory
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.parsers.counters import parse_counters
from fabriclint.rules import ctr
from fabriclint.rules.base import Context
from fabriclint.rules.ctr_data import COUNTERS, CounterRun
from fabriclint.snapshot import load_snapshot
from tests.fuzz.checkrun import fuzz_settings
from tests.fuzz.strategies import structured_mutants, text_mutants
from tests.parsers.counters import test_cumulus, test_junos, test_nxos, test_sonic

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "inventories" / "roce-pod" / "snapshots" / "bench-after"
SHORT = 60


def _bench(device: str) -> dict[str, str]:
    loaded = load_snapshot(BENCH).devices[device].raw
    assert loaded is not None
    return {
        k: v.text
        for k, v in loaded.outputs.items()
        if k.startswith(("show ", "ethtool -S", "grep -rH . /sys/class/infiniband", "ibdev2netdev"))
    }


SEEDS: dict[str, tuple[str, dict[str, str]]] = {
    "cumulus": (
        "leaf06",
        {
            "ip -o link show": test_cumulus.LINKS,
            "ethtool -S swp1": test_cumulus.MLXSW,
            "ethtool -S swp2": test_cumulus.SWITCHD,
        },
    ),
    "junos": (
        "leaf05",
        {
            "show interfaces extensive": test_junos.EXTENSIVE_TEXT,
            "show interfaces queue": test_junos.QUEUES_TEXT,
        },
    ),
    "eos": ("leaf01", _bench("leaf01")),
    "mlnx-host": ("gpu01", _bench("gpu01")),
    "nxos": ("leaf02", {"show interface priority-flow-control": test_nxos.TEXT}),
    "sonic": (
        "leaf03",
        {
            "pfcstat": test_sonic.PFCSTAT,
            "show queue counters": test_sonic.QUEUES,
            "show queue wredcounters": test_sonic.WRED_NO_DASHES,
            "show pfcwd stats": test_sonic.PFCWD,
        },
    ),
}


def _device(platform: str, outputs: dict[str, str]) -> RawDevice:
    name = SEEDS[platform][0]
    files = {
        k: RawOutput(text=v, file=f"{name}/{i}.txt")
        for i, (k, v) in enumerate(sorted(outputs.items()))
    }
    return RawDevice(name=name, platform=platform, outputs=files)


def _judge(platform: str, before: DeviceCounters, after: DeviceCounters) -> None:
    inventory = Inventory.model_validate(
        {
            "name": "f",
            "devices": {after.name: {"platform": platform, "role": "leaf", "host": "192.0.2.1"}},
        }
    )
    ctx = Context(inventory=inventory, intent=None, states={})
    ctx.memo[COUNTERS] = CounterRun(
        before={before.name: before}, after={after.name: after}, interval_s=600
    )
    for rule in ctr.RULES:
        list(rule(rule.options_model.model_validate({})).check(ctx))


def _check(platform: str, command: str, data: bytes) -> None:
    outputs = dict(SEEDS[platform][1])
    original = parse_counters(_device(platform, outputs))
    outputs[command] = data.decode("utf-8", errors="replace")
    mutated = parse_counters(_device(platform, outputs))
    assert original is not None and mutated is not None
    assert not any("counter parser failed" in p.message for p in mutated.problems), mutated.problems
    _judge(platform, original, mutated)
    _judge(platform, mutated, original)


@st.composite
def text_cases(draw: st.DrawFn, platform: str) -> tuple[str, bytes]:
    outputs = SEEDS[platform][1]
    command = draw(st.sampled_from(sorted(outputs)))
    return command, draw(text_mutants(outputs[command]))


@st.composite
def json_cases(draw: st.DrawFn) -> tuple[str, bytes]:
    outputs = SEEDS["eos"][1]
    command = draw(st.sampled_from(sorted(k for k in outputs if k.endswith("| json"))))
    return command, draw(structured_mutants(outputs[command], "json"))


@pytest.mark.parametrize("platform", sorted(SEEDS))
def test_counter_text_mutants_never_crash(platform: str) -> None:
    @fuzz_settings(SHORT)
    @given(case=text_cases(platform))
    def run(case: tuple[str, bytes]) -> None:
        _check(platform, *case)

    run()


def test_eos_counter_json_structure_mutants_never_crash() -> None:
    @fuzz_settings(SHORT)
    @given(case=json_cases())
    def run(case: tuple[str, bytes]) -> None:
        _check("eos", *case)

    run()


@pytest.mark.parametrize(
    "value",
    [10**40, -1, 1.5, True, None, "12", [], {}, {"rxFrames": {"deep": 1}}],
    ids=repr,
)
def test_odd_json_values_are_problems_or_absent(value: Any) -> None:
    text = json.dumps(
        {"interfaces": {"Ethernet1/1": {"priorities": {"3": {"rxFrames": value, "txFrames": 1}}}}}
    )
    _check("eos", "show priority-flow-control counters detail | json", text.encode())
