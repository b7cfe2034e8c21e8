"""The check's lean representations behave as the pydantic ones they replace: the slotted
Source, merged per-port sources read through a ChainMap, and device files read lazily."""

from __future__ import annotations

import copy
import pickle
import shutil
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from fabriclint import engine
from fabriclint.engine import CheckOptions, run_check
from fabriclint.models.common import Located, Source
from fabriclint.models.docs import json_schema
from fabriclint.models.finding import Report
from fabriclint.models.resolve import MergedSources, effective_qos
from fabriclint.models.source_schema import Source as SourceSchema
from fabriclint.models.state import (
    DeviceState,
    InputProblem,
    Interface,
    PfcConfig,
    QosConfig,
    Trust,
)
from fabriclint.snapshot import load_snapshot, read_device, write_snapshot

EXAMPLE = Path(__file__).resolve().parent.parent / "inventories" / "roce-pod"


def test_source_is_an_immutable_value() -> None:
    a, b = Source("leaf01.cfg", 7), Source(file="leaf01.cfg", line=7)
    assert a == b and hash(a) == hash(b) and a != Source("leaf01.cfg", 8)
    assert a != SourceSchema(file="leaf01.cfg", line=7)  # another type: not equal
    assert repr(a) == "Source(file='leaf01.cfg', line=7)" and str(a) == "leaf01.cfg:7"
    assert str(Source("leaf01.cfg")) == "leaf01.cfg"
    with pytest.raises(TypeError, match="immutable"):
        a.line = 8
    assert pickle.loads(pickle.dumps(a)) == a and copy.deepcopy(a) is a
    assert a.model_copy(update={"line": 9}) == Source("leaf01.cfg", 9)
    assert not hasattr(a, "__dict__")  # slotted: 48 bytes, not a pydantic instance and its dict


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"file": "a.cfg", "line": 3}, Source("a.cfg", 3)),
        ({"file": "a.cfg"}, Source("a.cfg", None)),
        ({"file": "a.cfg", "line": None}, Source("a.cfg", None)),
    ],
)
def test_source_validates_from_python_and_json(data: dict[str, Any], expected: Source) -> None:
    held = Located.model_validate({"sources": {"x": data}}).sources["x"]
    assert type(held) is Source and held == expected
    again = Located.model_validate_json(Located(sources={"x": held}).model_dump_json())
    assert again.sources["x"] == expected


@pytest.mark.parametrize(
    ("data", "loc", "kind"),
    [
        ({"file": 3}, ("sources", "x", "file"), "string_type"),
        ({"file": "a", "lines": 2}, ("sources", "x", "lines"), "extra_forbidden"),
        ({"line": 2}, ("sources", "x", "file"), "missing"),
        (5, ("sources", "x"), "model_type"),
    ],
)
def test_bad_source_errors_name_the_field_as_the_model_did(
    data: Any, loc: tuple[str, ...], kind: str
) -> None:
    with pytest.raises(ValidationError) as raised:
        Located.model_validate({"sources": {"x": data}})
    assert [(e["loc"], e["type"]) for e in raised.value.errors()] == [(loc, kind)]


def test_a_held_source_is_not_copied_and_dumps_as_the_model() -> None:
    source = Source("a.cfg")
    problem = InputProblem(kind="unparseable", message="m", source=source)
    assert problem.source is source
    assert problem.model_dump(exclude_none=True)["source"] == {"file": "a.cfg"}
    assert problem.model_dump()["source"] == {"file": "a.cfg", "line": None}
    assert problem.model_dump_json(exclude_none=True).endswith('"source":{"file":"a.cfg"}}')


def test_schemas_document_source_as_the_model() -> None:
    schema = json_schema(Report)
    assert schema["$defs"]["Source"] == json_schema(SourceSchema)
    found = schema["$defs"]["Finding"]["properties"]["source"]
    assert "title" not in found and {"$ref": "#/$defs/Source"} in found["anyOf"]


def _state() -> DeviceState:
    device = QosConfig(trust=Trust.DSCP, sources={"trust": Source("c", 1), "pfc": Source("c", 2)})
    own = QosConfig(
        pfc=PfcConfig(enabled=True, priorities=[3]),
        sources={"pfc": Source("c", 9), "profile": Source("c", 10)},
    )
    return DeviceState(
        name="leaf", platform="eos", qos=device, interfaces={"Et1": Interface(name="Et1", qos=own)}
    )


def test_merged_sources_read_as_the_merged_dict() -> None:
    state = _state()
    merged = effective_qos(state, "Et1").sources
    expected = {**state.qos.sources, **state.interfaces["Et1"].qos.sources}  # type: ignore[union-attr]
    assert isinstance(merged, MergedSources)
    assert list(merged.items()) == list(expected.items()) and merged == expected
    assert merged.get("pfc") == Source("c", 9) and merged.get("missing") is None
    with pytest.raises(TypeError, match="read-only"):
        merged["trust"] = Source("c", 5)
    assert state.qos.sources["trust"] == Source("c", 1)


def _tampered_pod(tmp_path: Path) -> Path:
    """roce-pod with snapshot `broken` copied, leaf02's configuration changed after collection
    and spine02's output gone."""
    root = tmp_path / "pod"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("snapshots"))
    shutil.copytree(EXAMPLE / "snapshots" / "broken", root / "snapshots" / "broken")
    config = root / "snapshots" / "broken" / "leaf02" / "show_running-config.txt"
    config.write_text(config.read_text(encoding="utf-8") + "! edited\n", encoding="utf-8")
    (root / "snapshots" / "broken" / "spine02" / "show_running-config.txt").unlink()
    return root


def test_a_lazy_device_reads_as_an_eager_one(tmp_path: Path) -> None:
    write_snapshot(
        tmp_path,
        {"a": ("eos", {"show running-config": "x\n"}), "b": ("eos", {"show version": "y"})},
    )
    (tmp_path / "b" / "show_version.txt").write_text("edited")
    eager, lazy = load_snapshot(tmp_path), load_snapshot(tmp_path, lazy=True)
    assert all(d.unread and d.status == "ok" for d in lazy.devices.values())
    assert lazy.devices["a"].raw.outputs["show running-config"].text == ""  # type: ignore[union-attr]
    for name in ("a", "b"):
        assert read_device(lazy.devices[name]) == eager.devices[name]
        assert not lazy.devices[name].unread
    assert lazy.devices["b"].status == "checksum-mismatch" and lazy.devices["b"].raw is None


@pytest.mark.parametrize("limit", [None, ["leaf*", "gpu01"]])
def test_check_reads_lazily_with_the_eager_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: list[str] | None
) -> None:
    root = _tampered_pod(tmp_path)
    opts = CheckOptions(fabric_dir=root, snapshot="broken", limit=limit)
    lazy = run_check(opts)
    eager_load = load_snapshot
    monkeypatch.setattr(
        engine, "load_snapshot", lambda p, base=None, lazy=False: eager_load(p, base)
    )
    eager = run_check(opts)
    assert lazy.report.model_dump() == eager.report.model_dump()
    assert lazy.exit_code == eager.exit_code == engine.ExitCode.INCOMPLETE
    statuses = {d.name: d.status for d in lazy.report.devices}
    assert statuses["leaf02"] == "checksum-mismatch"
    assert statuses["spine02"] == ("missing-file" if limit is None else "not-checked")


def test_a_lazy_device_is_read_from_where_it_was_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_snapshot(tmp_path / "snap", {"a": ("eos", {"show running-config": "x\n"})})
    monkeypatch.chdir(tmp_path)
    lazy = load_snapshot(Path("snap"), base=tmp_path, lazy=True)
    monkeypatch.chdir(tmp_path.parent)  # the working directory changes before the read
    raw = read_device(lazy.devices["a"]).raw
    assert raw is not None and raw.outputs["show running-config"].text == "x\n"
    assert raw.outputs["show running-config"].file == "snap/a/show_running-config.txt"
