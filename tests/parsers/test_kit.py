"""The shared parser kit (parsers/kit/): the never-raise contract, the located draft records and
the one layered merge, as every parser family uses them."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

import pytest

from fabriclint.models.common import Source
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState, InputProblem
from fabriclint.parsers import get_parser
from fabriclint.parsers.counters import parse_counters
from fabriclint.parsers.cumulus.draft import Draft as CumulusDraft
from fabriclint.parsers.junos.draft import Draft as JunosDraft
from fabriclint.parsers.kit.draft import BaseDraft
from fabriclint.parsers.kit.inputs import missing_or_empty
from fabriclint.parsers.kit.merge import Merge, by_key, last, stack, update, update_unless
from fabriclint.parsers.nxos.draft import Draft as NxosDraft
from fabriclint.parsers.sonic.draft import Draft as SonicDraft

# platform -> (package, a function its parse calls, an input that reaches it, name in messages)
FAMILIES = {
    "eos": ("eos", "build_state", "show running-config", "hostname leaf01\n", "EOS"),
    "nxos": ("nxos", "build_state", "show running-config", "hostname leaf01\n", "NX-OS"),
    "junos": ("junos", "parse_text", "show configuration", "system { }\n", "Junos"),
    "sonic": ("sonic", "build_state", "config_db.json", '{"PORT": {}}\n', "SONiC"),
    "cumulus": ("cumulus", "build_state", "nv config show -o yaml", "- set: {}\n", "Cumulus"),
    "mlnx-host": ("mlnx_host", "_netdev_links", "ibstat", "CA 'mlx5_0'\n", "mlx5_0"),
    "opensm": ("opensm", "_add_conf", "opensm.conf", "sm_priority 15\n", "OpenSM"),
}
FAMILIES["mlnx-host"] = (*FAMILIES["mlnx-host"][:4], "mlnx-host")


def _line(source: Source | None) -> int | None:
    assert source is not None
    return source.line


def _raw(platform: str, key: str, text: str) -> RawDevice:
    outputs = {key: RawOutput(text=text, file=f"sw1/{key.replace(' ', '_')}.txt")}
    return RawDevice(name="sw1", platform=platform, outputs=outputs)


@pytest.mark.parametrize("platform", sorted(FAMILIES))
def test_a_bug_in_any_parser_is_one_located_problem(
    platform: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    package, inner, key, text, name = FAMILIES[platform]
    module = importlib.import_module(f"fabriclint.parsers.{package}")

    def broken(*_: object, **__: object) -> None:
        raise KeyError("boom")

    monkeypatch.setattr(module, inner, broken)
    state = module.parse(_raw(platform, key, text))
    assert state.platform == platform and state.name == "sw1"
    (problem,) = state.problems
    assert problem.kind == "unparseable"
    assert problem.message.startswith(f"{name} parser failed on this input")
    assert "KeyError" in problem.message
    assert not state.interfaces and not state.unparsed  # half a parse never feeds the rules


# platform -> (counter package, a reader its parse calls, a counter key that reaches it)
COUNTER_FAMILIES = {
    "eos": ("eos", "read_detail", "show priority-flow-control counters detail | json"),
    "nxos": ("nxos", "read_pfc", "show interface priority-flow-control"),
    "sonic": ("sonic", "read_queues", "show queue counters"),
    "mlnx-host": ("mlnx_host", "read_ethtool", "ethtool -S ens1np0"),
}


@pytest.mark.parametrize("platform", sorted(COUNTER_FAMILIES))
def test_a_bug_in_any_counter_parser_is_one_located_problem(
    platform: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    package, inner, key = COUNTER_FAMILIES[platform]
    module = importlib.import_module(f"fabriclint.parsers.{package}.counters")

    def broken(*_: object, **__: object) -> None:
        raise KeyError("boom")

    monkeypatch.setattr(module, inner, broken)
    raw = _raw(platform, key, "x\n")
    found = parse_counters(raw)
    assert found is not None and found.platform == platform and not found.ports
    (problem,) = found.problems
    assert problem.kind == "unparseable"
    assert problem.message.startswith(f"{platform} counter parser failed on this input at sw1/")
    assert "KeyError" in problem.message and problem.source is not None


def test_the_registry_covers_the_signature_check(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(raw: RawDevice) -> None:
        raise ValueError("signature bug")

    monkeypatch.setattr("fabriclint.parsers.kit.signature.not_this_platform", broken)
    parser = get_parser("eos")
    assert parser is not None
    state = parser(_raw("eos", "show running-config", "hostname leaf01\ninterface Ethernet1\n"))
    (problem,) = state.problems
    assert problem.message.startswith("eos parser failed on this input")
    assert "ValueError: signature bug" in problem.message


def test_a_draft_makes_one_source_per_line() -> None:
    draft = BaseDraft(file="leaf01/run.txt")
    assert draft.at(7) is draft.at(7)
    assert (draft.at(7).file, draft.at(7).line) == ("leaf01/run.txt", 7)
    assert draft.at(0).line is None and draft.at(None) is draft.default
    given = Source(file="other.txt", line=3)
    assert draft.where(given) is given and draft.where(4) is draft.at(4)


def test_a_draft_records_what_it_skips_defines_and_refers_to() -> None:
    draft = BaseDraft(file="f")
    draft.skip("  qos foo  ", "not modeled", 2)
    draft.define("qos-profile", "ROCE", 3)
    draft.refer("qos-profile", "ROCE", "interface Ethernet1", 9)
    (unparsed,) = draft.unparsed
    assert unparsed.text == "  qos foo  " and unparsed.source == Source(file="f", line=2)
    assert [(d.kind, d.name, _line(d.source)) for d in draft.definitions] == [
        ("qos-profile", "ROCE", 3)
    ]
    assert [(r.name, r.by, _line(r.source)) for r in draft.references] == [
        ("ROCE", "interface Ethernet1", 9)
    ]


def test_families_that_report_raw_lines_strip_them() -> None:
    nxos, cumulus = NxosDraft(file="f"), CumulusDraft(file="f")
    nxos.skip("  pause  ", "r", 1)
    cumulus.skip("key = ", "r", Source(file="traffic.conf", line=4))
    assert nxos.unparsed[0].text == "pause"
    assert cumulus.unparsed[0].text == "key =" and _line(cumulus.unparsed[0].source) == 4


def test_junos_defines_and_refers_once() -> None:
    draft = JunosDraft(file="f")
    for line in (3, 8):
        draft.define("scheduler-map", "SM", line)
        draft.refer("scheduler-map", "SM", "et-0/0/1", line)
    draft.refer("scheduler-map", "SM", "et-0/0/2", 9)
    assert [_line(d.source) for d in draft.definitions] == [3]
    assert [(r.by, _line(r.source)) for r in draft.references] == [("et-0/0/1", 3), ("et-0/0/2", 9)]


def test_sonic_counts_the_entries_of_one_table_once() -> None:
    draft = SonicDraft(file="config_db.json")
    for port, line in (("Ethernet0|3", 10), ("Ethernet4|3", 20), ("Ethernet8|3", 30)):
        draft.refer_entry("WRED_PROFILE", "ROCE", "QUEUE", port, line)
    draft.flush()
    (ref,) = draft.references
    assert ref.by == "QUEUE|Ethernet0|3 and 2 more QUEUE entries" and _line(ref.source) == 10


@dataclass
class _Level:
    mode: str | None = None
    table: dict[int, str] = field(default_factory=dict)
    queues: dict[int, list[str]] | None = None
    fresh: bool = False


_HOW: dict[str, Merge] = {
    "mode": last,
    "table": update,
    "queues": by_key(lambda below, above: [*below, *above]),
}


def test_higher_levels_win_field_by_field() -> None:
    low = _Level(mode="a", table={1: "x", 2: "y"}, queues={3: ["low"]})
    high = _Level(table={2: "z"}, queues={3: ["high"], 4: ["only"]})
    out = stack([low, high], _Level, _HOW)
    assert out.mode == "a"  # not set above: the lower level's stays
    assert out.table == {1: "x", 2: "z"}
    assert out.queues == {3: ["low", "high"], 4: ["only"]}
    assert low.table == {1: "x", 2: "y"} and low.queues == {3: ["low"]}  # layers are not changed


def test_a_replacing_level_drops_the_lower_mapping() -> None:
    how: dict[str, Merge] = {"table": update_unless("fresh")}
    low, add, replace = _Level(table={1: "x"}), _Level(table={2: "y"}), _Level(table={3: "z"})
    replace.fresh = True
    assert stack([low, add], _Level, how).table == {1: "x", 2: "y"}
    assert stack([low, add, replace], _Level, how).table == {3: "z"}


def test_one_level_is_itself_and_none_is_empty() -> None:
    only = _Level(mode="a")
    assert stack([only], _Level, _HOW) is only
    assert stack([], _Level, _HOW) == _Level()


def test_a_draft_hands_its_records_over_in_input_order() -> None:
    draft = BaseDraft(file="run.txt")
    draft.skip("b", "r", 9)
    draft.skip("a", "r", 2)
    draft.skip("default", "r", None)
    draft.skip("other", "r", Source(file="another.txt", line=1))
    draft.define("qos-profile", "ROCE", 3)
    state = DeviceState(name="sw1", platform="eos")
    draft.hand_over(state)
    assert [u.text for u in state.unparsed] == ["other", "default", "a", "b"]
    assert state.definitions == draft.definitions


def test_a_missing_or_empty_output_is_a_problem() -> None:
    def problem(outputs: dict[str, RawOutput]) -> InputProblem | None:
        raw = RawDevice(name="sw1", platform="eos", outputs=outputs)
        return missing_or_empty(raw, "show running-config", "EOS")

    missing = problem({})
    assert missing is not None and missing.source is None
    assert missing.message == (
        "no 'show running-config' output: the EOS configuration could not be read"
    )
    empty = problem({"show running-config": RawOutput(text=" \n\t\n", file="sw1/run.txt")})
    assert empty is not None and empty.message == "'show running-config' output is empty"
    assert empty.source == Source(file="sw1/run.txt")
    assert problem({"show running-config": RawOutput(text="hostname a\n", file="f")}) is None
