"""How two drifted values differ, in the words `DeepDiff(expected, actual, ignore_order=True)` gives.

A drift's explanation lists the items one side has and the other lacks: `added [4]`, `removed
[3]`, from DeepDiff's `iterable_item_added` / `iterable_item_removed`. Importing DeepDiff costs
~0.05-0.15 s, more than the rest of a small check's drift stage, and the drifted values are nearly
always short lists of integers or strings (PFC priorities, DSCP sets) or flat mappings. For those
the answer is worked out here, with DeepDiff's own rules for an unordered list:

- items are told apart by type and value (`1` and `"1"` differ; repetitions are not reported);
- an added and a removed item may pair up as one changed value, then neither is listed: two
  integers pair when their distance `|a - b| / ((a + b) / 0.3)` is below 0.3, closest pairs
  first, and only when the items that differ are at most 70 % of the distinct items of both sides
  plus one (a string pairs with nothing: its distance to any other item is 0.5 or more);
- an unpaired added and removed item that first appear at the same index are one changed value
  too (DeepDiff reports both at `root[i]`, then merges them);
- a mapping of plain values, or a mapping beside a list, has no list items to list.

Anything else (floats, nested lists, integers beyond 2**53 that DeepDiff hashes as floats) is
handed to DeepDiff itself. tests/test_perf_equivalence.py compares both on generated inputs.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

CUTOFF_DISTANCE = 0.3
"""DeepDiff's `cutoff_distance_for_pairs` default: items at least this far apart never pair."""
CUTOFF_INTERSECTION = 0.7
"""DeepDiff's `cutoff_intersection_for_pairs` default: above this share of differing items,
nothing pairs."""
EXACT = 2**53
"""Integers DeepDiff's float-based hashing tells apart (a larger one goes to DeepDiff itself)."""

Item = tuple[type, Any]
"""An item as DeepDiff's hash tells items apart: its type and value."""


def explain(expected: Any, actual: Any) -> str:
    """`added [...]`, `removed [...]` (comma-joined), or "" when no item is added or removed."""
    if not isinstance(expected, list | dict) or not isinstance(actual, list | dict):
        return ""
    found = differing_items(expected, actual)
    if found is None:
        found = _deepdiff(expected, actual)
        if found is None:
            return ""
    added, removed = found
    parts = []
    if added:
        parts.append(f"added {sorted(added)}")
    if removed:
        parts.append(f"removed {sorted(removed)}")
    return ", ".join(parts)


def _deepdiff(expected: Any, actual: Any) -> tuple[list[Any], list[Any]] | None:
    """DeepDiff's added and removed items; None when it cannot hash the values."""
    from deepdiff import DeepDiff  # heavy import (~0.1 s): only for what this module cannot decide

    try:
        diff = DeepDiff(expected, actual, ignore_order=True)
    except OverflowError:  # it hashes numbers as floats: 10**400 has none; the drift stands
        return None
    added = list(diff.get("iterable_item_added", {}).values())
    removed = list(diff.get("iterable_item_removed", {}).values())
    return added, removed


def _plain(value: Any) -> bool:
    """A str, or an int (not a bool) that DeepDiff hashes exactly."""
    return type(value) is str or (type(value) is int and -EXACT < value < EXACT)


def _flat(mapping: dict[Any, Any]) -> bool:
    """A mapping whose values are plain (or bool/None): DeepDiff reports no list items in it."""
    return all(_plain(v) or v is None or type(v) is bool for v in mapping.values())


def differing_items(expected: Any, actual: Any) -> tuple[list[Any], list[Any]] | None:
    """(added, removed) items as DeepDiff(ignore_order=True) lists them, each once, or None when
    the values are not of a shape worked out here (DeepDiff decides)."""
    if isinstance(expected, dict) or isinstance(actual, dict):
        both = isinstance(expected, dict) and isinstance(actual, dict)
        if not both or (_flat(expected) and _flat(actual)):
            return [], []  # a type change, or changed/added/removed keys: no list items
        return None
    if not (all(map(_plain, expected)) and all(map(_plain, actual))):
        return None
    old = _first_indexes(expected)
    new = _first_indexes(actual)
    added = [item for item in new if item not in old]
    removed = [item for item in old if item not in new]
    if (
        added
        and removed
        and (len(added) + len(removed)) / (len(old) + len(new) + 1) <= CUTOFF_INTERSECTION
    ):
        paired_added, paired_removed = _pairs(added, removed)
        added = [item for item in added if item not in paired_added]
        removed = [item for item in removed if item not in paired_removed]
    # An added and a removed item reported at the same index (each at its first occurrence) are
    # one changed value in DeepDiff's report (TreeResult.mutual_add_removes_to_become_value_changes).
    same = {new[item] for item in added} & {old[item] for item in removed}
    return (
        [value for kind, value in added if new[(kind, value)] not in same],
        [value for kind, value in removed if old[(kind, value)] not in same],
    )


def _first_indexes(items: list[Any]) -> dict[Item, int]:
    """Each distinct item (by type and value), in order, with the index it first appears at."""
    found: dict[Item, int] = {}
    for index, value in enumerate(items):
        found.setdefault((type(value), value), index)
    return found


def _distance(removed: Item, added: Item) -> float:
    """DeepDiff's rough distance of two integers (`_get_numbers_distance`, the same float
    arithmetic, so ties break alike); a string is never closer than the cutoff."""
    if removed[0] is not int or added[0] is not int:
        return CUTOFF_DISTANCE
    num1, num2 = float(removed[1]), float(added[1])
    divisor = (num1 + num2) / CUTOFF_DISTANCE
    if divisor == 0:
        return CUTOFF_DISTANCE
    return min(CUTOFF_DISTANCE, abs((num1 - num2) / divisor))


def _candidates(added: list[Item], removed: list[Item]) -> dict[Item, dict[float, list[Item]]]:
    """Added item -> distance -> the removed items at that distance (closer than the cutoff), in
    DeepDiff's order: added items, then removed items, as they first appear."""
    candidates: dict[Item, dict[float, list[Item]]] = {}
    for new in added:
        for old in removed:
            distance = _distance(old, new)
            if distance < CUTOFF_DISTANCE:
                candidates.setdefault(new, {}).setdefault(distance, []).append(old)
    return candidates


def _pairs(added: list[Item], removed: list[Item]) -> tuple[set[Item], set[Item]]:
    """The added and the removed items DeepDiff pairs up as changed values.

    Its greedy walk, step for step: from the closest distance up, the added items with
    candidates at it are taken last first, each pairing with its unused removed items at that
    distance, also last first. An added item that pairs twice keeps the last: the one it dropped
    is still reported as removed.
    """
    candidates = _candidates(added, removed)
    by_distance: defaultdict[float, list[Item]] = defaultdict(list)
    for new, distances in candidates.items():
        for distance in distances:
            by_distance[distance].append(new)
    used: set[Item] = set()
    pairs: dict[Item, Item] = {}
    for distance in sorted(by_distance):
        for new in reversed(by_distance[distance]):
            if new in used:
                continue
            for old in reversed(candidates[new][distance]):
                if old not in used:
                    used.update((new, old))
                    pairs[new] = old
    return set(pairs), set(pairs.values())
