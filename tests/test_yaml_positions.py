"""Positions read from libyaml's node tree are the positions ruamel's round-trip loader gives.

`YamlDoc.where` locates a problem in a fabric file loaded by the fast (libyaml) path. It used to
re-read the file with ruamel; it now walks libyaml's node tree (ruamel only where that cannot
answer). Both are compared on every YAML file of the repository, the public corpus when present,
and generated documents in every style ruamel writes (block, flow, quoted, literal, folded,
anchors and aliases, comments, empty values, indentless sequences, CRLF line ends).
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    FoldedScalarString,
    LiteralScalarString,
    SingleQuotedScalarString,
)

from fabriclint.loaders.yaml import Index, Loc, YamlDoc, load_yaml, node_index, ruamel_index

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"


def _questions(index: Index) -> list[tuple[Loc, bool]]:
    """Every location the ruamel index knows, a child of each that is not there, key and value."""
    locs = set(index.lines) | set(index.values)
    asked = locs | {(*loc, "not-there") for loc in locs} | {("not-there", 0)}
    return [(loc, value) for loc in sorted(asked, key=repr) for value in (False, True)]


def _same_answers(text: str) -> Index | None:
    """Assert both ways answer every question alike; libyaml's index (None: ruamel's only)."""
    want = ruamel_index(text)
    fast = node_index(text)
    doc = YamlDoc("x.yaml", None, text)
    for loc, value in _questions(want):
        expected = want.find(loc, value)
        assert doc.where(loc, value) == expected, (loc, value)
        if fast is not None and fast.find(loc, value) is not None:
            assert fast.find(loc, value) == expected, (loc, value)
    return fast


def _yaml_files() -> list[Path]:
    roots = [ROOT / "inventories", ROOT / "tests", ROOT / "docs", ROOT / "fabriclint", CORPUS]
    found = [p for root in roots if root.is_dir() for p in root.rglob("*.y*ml")]
    return sorted(p for p in found if p.is_file() and p.suffix in (".yaml", ".yml"))


def test_every_yaml_file_of_the_repository_is_located_alike() -> None:
    checked = fast = 0
    for path in _yaml_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            ruamel_index(text)
        except Exception:  # not YAML ruamel reads (a malformed test fixture): nothing to compare
            continue
        checked += 1
        fast += _same_answers(text) is not None
    assert checked >= 20 and fast >= checked - 2  # the rest: duplicate keys, merge keys


_WORDS = st.sampled_from(["a", "b", "leaf01", "Ethernet1/1", "x y", "3", "true", "", "ü"])
_SCALARS = st.one_of(
    _WORDS,
    st.integers(-5, 10**6),
    st.none(),
    st.booleans(),
    _WORDS.map(SingleQuotedScalarString),
    _WORDS.map(DoubleQuotedScalarString),
    st.sampled_from(["one\ntwo\n", "a\n"]).map(LiteralScalarString),
    st.sampled_from(["long text\n", "x\n"]).map(FoldedScalarString),
)
_KEYS = st.one_of(st.sampled_from(["a", "b", "name", "mtu", "key two", "é"]), st.integers(0, 99))


def _extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(_KEYS, children, max_size=4),
    )


_TREES = st.recursive(_SCALARS, _extend, max_leaves=12)


def _styled(data: Any, draw: Any, anchors: list[int]) -> Any:
    """ruamel containers with a drawn flow/block style, comments and anchors."""
    if isinstance(data, dict):
        out: Any = CommentedMap((k, _styled(v, draw, anchors)) for k, v in data.items())
    elif isinstance(data, list):
        out = CommentedSeq(_styled(v, draw, anchors) for v in data)
    else:
        return data
    if out and draw(st.booleans()):
        out.fa.set_flow_style()
    if out and not out.fa.flow_style() and draw(st.booleans()):
        key = next(iter(out)) if isinstance(out, dict) else 0
        out.yaml_add_eol_comment("# note", key)
    if draw(st.integers(0, 4)) == 0:
        anchors.append(len(anchors))
        out.yaml_set_anchor(f"a{anchors[-1]}", always_dump=True)
    return out


def _alias_one(data: CommentedMap | CommentedSeq) -> None:
    """Refer to a nested container a second time: ruamel writes an anchor and an alias."""
    children = list(data.values()) if isinstance(data, CommentedMap) else list(data)
    shared = next((c for c in children if isinstance(c, CommentedMap | CommentedSeq)), None)
    if shared is None:
        return
    if isinstance(data, CommentedMap):
        data["again"] = shared
    else:
        data.append(shared)


@st.composite
def _documents(draw: Any) -> str:
    data = _styled(draw(_TREES), draw, [])
    if isinstance(data, CommentedMap | CommentedSeq) and draw(st.booleans()):
        _alias_one(data)
    yaml = YAML(typ="rt")
    mapping, sequence, offset = draw(st.sampled_from([(2, 2, 0), (2, 4, 2), (4, 4, 2), (3, 2, 0)]))
    yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
    yaml.explicit_start = draw(st.booleans())
    buffer = io.StringIO()
    yaml.dump(data, buffer)
    text = buffer.getvalue()
    if draw(st.booleans()):
        text = "# leading comment\n\n" + text
    return text.replace("\n", "\r\n") if draw(st.integers(0, 3)) == 0 else text


@settings(max_examples=400, deadline=None)
@given(_documents())
def test_generated_documents_are_located_alike(text: str) -> None:
    try:
        ruamel_index(text)
    except Exception:
        assume(False)
    _same_answers(text)


@pytest.mark.parametrize(
    ("text", "loc", "value", "where"),
    [
        ("a: 1\nb:\n  - x\n  - {c: 2}\n", ("b", 1, "c"), True, (4, 9)),
        ("a: &x [1, 2]\nb: *x\n", ("b", 1), False, (1, 11)),  # an alias: the anchored item
        ("a:\nb: 2\n", ("a",), True, (2, 1)),  # ruamel puts an empty value at the next key
        ("- \n- 3\n", (0,), False, (1, 2)),  # an empty item: after its dash
        ("'q': |\n  text\n", ("q",), True, (1, 6)),
        ("0x1F: a\n", (31,), False, (1, 1)),  # an integer key, as the loaders read it
    ],
)
def test_known_positions(text: str, loc: Loc, value: bool, where: tuple[int, int]) -> None:
    assert YamlDoc("x.yaml", None, text).where(loc, value) == where
    assert ruamel_index(text).find(loc, value) == where


@pytest.mark.parametrize(
    "text",
    [
        "base: &b {mtu: 9214}\nleaf: {<<: *b, name: x}\n",  # merge keys: ruamel's own rules
        "1.5: a\n",  # a float key
        "? [a, b]\n: c\n",  # a complex key
        "a: 1\na: 2\n",  # duplicate keys
        "a: x\x85b\n",  # a YAML 1.1 line break
    ],
)
def test_what_libyaml_cannot_answer_goes_to_ruamel(text: str) -> None:
    assert node_index(text) is None
    _same_answers(text)


def test_empty_values_are_left_to_ruamel() -> None:
    index = node_index("a:\nb: 2\n")
    assert index is not None and index.find(("a",), True) is None
    assert index.find(("b",), True) == (2, 4) and index.find(("a",), False) == (1, 1)


def test_locating_a_fast_loaded_file_does_not_import_ruamel(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("devices:\n  - name: leaf01\n    mtu: 9214\n", encoding="utf-8")
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from fabriclint.loaders.yaml import load_yaml\n"
        f"doc, _ = load_yaml(Path({str(path)!r}), 'x.yaml')\n"
        "print(doc.where(('devices', 0, 'mtu'), value=True), 'ruamel' in sys.modules)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "(3, 10) False"
    doc, _ = load_yaml(path, "x.yaml")
    assert doc is not None and doc.where(("devices", 0, "mtu"), value=True) == (3, 10)
