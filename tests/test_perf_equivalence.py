"""The check's fast paths give the same answers as the general code they stand in for."""

from __future__ import annotations

import gc
from typing import Any

import pytest
from deepdiff import DeepDiff
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from fabriclint.drift.explain import differing_items, explain
from fabriclint.models import resolve
from fabriclint.models.common import Source, make_source
from fabriclint.models.compact import share_annotated_fields_sets, share_fields_sets
from fabriclint.models.resolve import effective_qos
from fabriclint.models.state import DeviceState, Interface, PfcConfig, QosConfig, Trust
from fabriclint.rules.scope import sites

_ITEMS = st.one_of(
    st.integers(-4, 12),
    st.integers(-(10**6), 10**6),
    st.sampled_from(["a", "b", "3"]),
    st.just(2**53 - 1),
    st.just(2**60),
)
_LISTS = st.lists(_ITEMS, max_size=7)
_NUMBERS = st.lists(st.integers(-4, 40), max_size=8)
_SCALARS = st.one_of(_ITEMS, st.none(), st.booleans(), st.floats(allow_nan=False))
_MAPPINGS = st.dictionaries(
    st.sampled_from(["a", "b", "c"]), st.one_of(_SCALARS, st.lists(_ITEMS, max_size=3)), max_size=3
)


def _deepdiff(expected: Any, actual: Any) -> tuple[list[str], list[str]]:
    """What the explanation is made of, from DeepDiff itself (each item's repr, sorted)."""
    diff = DeepDiff(expected, actual, ignore_order=True)
    added = diff.get("iterable_item_added", {}).values()
    removed = diff.get("iterable_item_removed", {}).values()
    return sorted(map(repr, added)), sorted(map(repr, removed))


def _deepdiff_explain(expected: Any, actual: Any) -> str:
    """The explanation as DeepDiff alone gave it before drift/explain.py."""
    diff = DeepDiff(expected, actual, ignore_order=True)
    added = list(diff.get("iterable_item_added", {}).values())
    removed = list(diff.get("iterable_item_removed", {}).values())
    parts = [f"added {sorted(added)}"] if added else []
    return ", ".join(parts + ([f"removed {sorted(removed)}"] if removed else []))


def _agrees(expected: Any, actual: Any) -> None:
    """differing_items gives DeepDiff's items when it decides; explain gives its message."""
    found = differing_items(expected, actual)
    if found is not None:
        added, removed = found
        assert (sorted(map(repr, added)), sorted(map(repr, removed))) == _deepdiff(expected, actual)
    try:
        want = _deepdiff_explain(expected, actual)
    except TypeError:  # str and int items both added (or removed): unsortable, as before
        with pytest.raises(TypeError):
            explain(expected, actual)
        return
    assert explain(expected, actual) == want


def _decided(items: list[Any]) -> bool:
    return all(type(v) is str or abs(v) < 2**53 for v in items)


@settings(max_examples=600, deadline=None)
@given(_LISTS, _LISTS)
def test_list_explanation_agrees_with_deepdiff(expected: list[Any], actual: list[Any]) -> None:
    _agrees(expected, actual)
    if _decided(expected + actual):  # the shapes worked out without DeepDiff
        assert differing_items(expected, actual) is not None


@settings(max_examples=600, deadline=None)
@given(_NUMBERS, _NUMBERS)
def test_paired_numbers_agree_with_deepdiff(expected: list[int], actual: list[int]) -> None:
    """Close integers pair up as changed values, ties included (DeepDiff's greedy order)."""
    assert differing_items(expected, actual) is not None
    _agrees(expected, actual)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_MAPPINGS, _LISTS), _MAPPINGS)
def test_mapping_explanation_agrees_with_deepdiff(expected: Any, actual: dict[str, Any]) -> None:
    _agrees(expected, actual)
    _agrees(actual, expected)


@pytest.mark.parametrize(
    ("expected", "actual", "message"),
    [
        ([3], [3, 4], "added [4]"),
        ([3, 4], [], "removed [3, 4]"),
        ([3], [4], ""),  # one changed value: DeepDiff pairs them
        ([3, 5], [5, 4], ""),
        ([3], [2, 3, 40], "added [2, 40]"),
        ([0, 5], [5, 1], "added [1], removed [0]"),  # 0 and 1 are 0.3 apart: no pair
        ([1, 2, 3], [3, 4, 5, 6], "added [6]"),  # closest first: 4 with 2, then 5 with 1
        ([4, 9], [2, 8, 9], "added [2]"),  # 2 and 8 as close to 4: the later one pairs
        ([9, 2, 8], [9, 4], "removed [8]"),  # 4 pairs with 8, then again with 2, which it keeps
        ([3], [4, 40], "added [40]"),  # too much differs to pair; 3 and 4 share index 0
        (["rx", "tx"], ["tx", "both"], "added ['both'], removed ['rx']"),  # strings never pair
        (["tx", "rx"], ["tx", "both"], ""),  # ... but share index 1
        ([3, 3, "3"], ["3"], "removed [3]"),
        (["x"], {"a": 1}, ""),
        ({"a": 1, "b": "x"}, {"a": 2}, ""),
        ({"a": [1]}, {"a": [1, 9]}, "added [9]"),  # DeepDiff decides
        ([2**60], [3], ""),  # DeepDiff decides
    ],
)
def test_explain_words_added_and_removed_items(expected: Any, actual: Any, message: str) -> None:
    assert explain(expected, actual) == message == _deepdiff_explain(expected, actual)


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


class _Leaf(BaseModel):
    a: int = 0
    b: str = ""


class _Holder(BaseModel):
    items: list[_Leaf]
    pair: tuple[_Leaf, _Leaf]
    by: dict[str, _Leaf]
    note: str = ""
    source: Source | None = None


@pytest.mark.parametrize("where", ["items", "pair", "by"])
def test_shared_fields_sets_reach_models_in_lists_tuples_and_dicts(where: str) -> None:
    """The walk skips plain values (str, int, None, Source...) but still reaches every model held
    in a list, a tuple or a dict: each gets the one shared set equal to its own."""
    holder = _Holder(
        items=[_Leaf(a=1), _Leaf(a=2)],
        pair=(_Leaf(a=3), _Leaf(a=4)),
        by={"x": _Leaf(a=5), "y": _Leaf(a=6)},
        note="n",
        source=make_source("c", 1),
    )
    held = getattr(holder, where)
    first, second = held.values() if isinstance(held, dict) else held
    assert first.__pydantic_fields_set__ is not second.__pydantic_fields_set__
    share_fields_sets([holder])
    assert first.__pydantic_fields_set__ is second.__pydantic_fields_set__
    assert first.model_fields_set == second.model_fields_set == {"a"}
    assert holder.model_fields_set == {"items", "pair", "by", "note", "source"}
