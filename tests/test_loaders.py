"""The YAML loader: libyaml fast path with YAML 1.2 scalars, ruamel for positions when needed."""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from fabriclint.loaders.yaml import load_yaml

TRICKY = """\
name: no
flags: [yes, off, on, true, False, ~, null]
numbers: [010, 0o17, 0x1F, 1_000, 1e3, .5, -3, 190:20:30]
nested: {a: {b: [1, {c: d}]}}
empty:
"""


def test_fast_path_reads_yaml_12_like_ruamel(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(TRICKY)
    doc, problems = load_yaml(path, "x.yaml")
    assert doc is not None and problems == []
    ruamel = YAML(typ="safe", pure=True).load(TRICKY)
    assert doc.data == ruamel
    assert doc.data["name"] == "no"
    assert doc.data["flags"][:3] == ["yes", "off", "on"]
    assert doc.data["numbers"][:2] == [10, 15]


def test_positions_are_built_on_demand(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(TRICKY)
    doc, _ = load_yaml(path, "x.yaml")
    assert doc is not None
    assert doc.where(("nested", "a", "b", 1, "c")) == (4, 22)
    assert doc.where(("numbers", 2), value=True) == (3, 22)
    assert str(doc.problem(("empty",), "boom")) == "x.yaml:5:1: boom"


def test_duplicates_and_syntax_errors_take_the_located_path(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("a: 1\nb:\n  c: 2\n  c: 3\n")
    doc, problems = load_yaml(path, "x.yaml")
    assert doc is not None
    assert [str(p) for p in problems] == [
        "x.yaml:4:3: duplicate key 'c' (first at line 3); YAML keeps only one"
    ]
    path.write_text("a: [1, 2\nb: 3\n")
    doc, problems = load_yaml(path, "x.yaml")
    assert doc is None
    assert len(problems) == 1 and problems[0].message.startswith("invalid YAML")
    assert problems[0].line == 2


def test_unreadable_file(tmp_path: Path) -> None:
    doc, problems = load_yaml(tmp_path / "missing.yaml", "missing.yaml")
    assert doc is None and "cannot read" in problems[0].message


@pytest.mark.parametrize(
    ("text", "line", "key"),
    [
        ("s:\n  3: {mode: dwrr}\n  0x3: {mode: strict}\n", 3, "0x3"),  # hex spelling
        ("s:\n  3: a\n  +3: b\n", 3, "+3"),
        ("s:\n  26: a\n  026: b\n", 3, "026"),  # a leading zero is decimal in YAML 1.2
        ("s:\n  8: a\n  0o10: b\n", 3, "0o10"),
        ("s:\n  1000: a\n  1_000: b\n", 3, "1_000"),
        ("s:\n  3: a\n  !!int 3: b\n", 3, "3"),
    ],
)
def test_one_integer_key_spelled_two_ways_is_a_duplicate(
    tmp_path: Path, text: str, line: int, key: str
) -> None:
    """YAML reads both spellings as one key and keeps the last: a setting hidden in plain sight
    (`3: dwrr` overridden by `0x3: strict`) must be reported like `3:` written twice."""
    path = tmp_path / "x.yaml"
    path.write_text(text)
    doc, problems = load_yaml(path, "x.yaml")
    assert doc is not None
    assert [(p.line, p.code) for p in problems] == [(line, "PARSE002")]
    assert f"duplicate key '{key}' (first at line 2)" in problems[0].message
