"""The check's fast paths give the same answers as the general code they stand in for."""

from __future__ import annotations

import gc
from typing import Any

from deepdiff import DeepDiff
from hypothesis import given, settings
from hypothesis import strategies as st

from fabriclint.drift.compare import _explain, _one_sided
from fabriclint.models import resolve
from fabriclint.models.common import Source, make_source
from fabriclint.models.compact import share_annotated_fields_sets, share_fields_sets
from fabriclint.models.resolve import effective_qos
from fabriclint.models.state import DeviceState, Interface, PfcConfig, QosConfig, Trust
from fabriclint.rules.scope import sites

_ITEMS = st.one_of(
    st.integers(-3, 9), st.sampled_from(["a", "b"]), st.just(2**53 - 1), st.just(2**60)
)


def _deepdiff(expected: list[Any], actual: list[Any]) -> tuple[list[str], list[str]]:
    diff = DeepDiff(expected, actual, ignore_order=True)
    added = diff.get("iterable_item_added", {}).values()
    removed = diff.get("iterable_item_removed", {}).values()
    return sorted(map(repr, added)), sorted(map(repr, removed))


@settings(max_examples=400, deadline=None)
@given(st.lists(_ITEMS, max_size=6), st.lists(_ITEMS, max_size=6))
def test_one_sided_diff_agrees_with_deepdiff(expected: list[Any], actual: list[Any]) -> None:
    found = _one_sided(expected, actual)
    if found is None:  # DeepDiff decides: items may pair up as changed values
        assert any(type(v) is int and abs(v) >= 2**53 for v in expected + actual) or (
            set(map(repr, expected)) - set(map(repr, actual))
            and set(map(repr, actual)) - set(map(repr, expected))
        )
        return
    added, removed = found
    assert (sorted(map(repr, added)), sorted(map(repr, removed))) == _deepdiff(expected, actual)


def test_explain_words_added_and_removed_items() -> None:
    assert _explain([3], [3, 4]) == "added [4]"
    assert _explain([3, 4], []) == "removed [3, 4]"
    assert _explain([3], [4]) == ""  # DeepDiff pairs them as one changed value
    assert _explain(["x"], {"a": 1}) == ""


def test_make_source_equals_a_validated_source() -> None:
    made, validated = make_source("a.cfg", 7), Source(file="a.cfg", line=7)
    assert made == validated and hash(made) == hash(validated)
    assert made.model_dump() == validated.model_dump()
    assert made.model_fields_set == validated.model_fields_set == {"file", "line"}
    assert str(make_source("a.cfg")) == "a.cfg"


def _state() -> DeviceState:
    def port(name: str, line: int) -> Interface:
        pfc = PfcConfig(enabled=True, priorities=[3], sources={"": make_source("c", line)})
        return Interface(name=name, qos=QosConfig(pfc=pfc, profile="P"))

    return DeviceState(
        name="leaf", platform="eos", interfaces={"Et1": port("Et1", 1), "Et2": port("Et2", 2)}
    )


def test_shared_fields_sets_keep_every_answer_and_dump() -> None:
    state = _state()
    before = state.model_dump(mode="json")
    sets = {
        id(m): set(m.model_fields_set)
        for i in state.interfaces.values()
        for m in (i, i.qos, i.qos.pfc if i.qos else None)
        if m is not None
    }
    share_fields_sets([state])
    one, two = state.interfaces["Et1"], state.interfaces["Et2"]
    assert one.qos is not None and two.qos is not None and one.qos.pfc and two.qos.pfc
    assert one.qos.pfc.__pydantic_fields_set__ is two.qos.pfc.__pydantic_fields_set__
    assert one.__pydantic_fields_set__ is not two.__pydantic_fields_set__  # annotated: own
    one.neighbor = "gpu01:eth0"
    assert "neighbor" not in two.model_fields_set
    assert state.model_dump(mode="json") == {
        **before,
        "interfaces": {
            **before["interfaces"],
            "Et1": {**before["interfaces"]["Et1"], "neighbor": "gpu01:eth0"},
        },
    }
    for model in (one.qos, two.qos, one.qos.pfc, two.qos.pfc):
        assert set(model.model_fields_set) == sets[id(model)]


def test_state_memo_is_shared_then_dropped_with_its_state() -> None:
    state = _state()
    first = effective_qos(state, "Et1")
    assert effective_qos(state, "Et1") is first
    assert [s.iface.name if s.iface else None for s in sites(state, "pfc")] == [None, "Et1", "Et2"]
    key = id(state)
    assert key in resolve._MEMOS
    del state, first
    gc.collect()
    assert key not in resolve._MEMOS


def test_sites_follow_ports_added_after_a_first_answer() -> None:
    state = _state()
    assert len(sites(state, "pfc")) == 3
    state.interfaces["Et0"] = Interface(name="Et0", qos=QosConfig(trust=Trust.DSCP))
    found = sites(state, "pfc")
    assert [s.iface.name if s.iface else None for s in found] == [None, "Et1", "Et2"]
    assert len(found[0].users) == 2  # the device, and Et0 that inherits its PFC
    assert [s.iface.name if s.iface else None for s in sites(state, "trust")] == [None, "Et0"]


def test_annotated_models_share_theirs_once_annotated() -> None:
    state = _state()
    share_fields_sets([state])
    one, two = state.interfaces["Et1"], state.interfaces["Et2"]
    one.neighbor = two.neighbor = "gpu01:eth0"  # what annotation does
    share_annotated_fields_sets([state])
    assert one.__pydantic_fields_set__ is two.__pydantic_fields_set__
    assert one.model_fields_set == {"name", "qos", "neighbor"}
