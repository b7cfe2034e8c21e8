"""Input limits: hostile YAML and JSON give a located message in bounded time, never a traceback."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.bounded import (
    InputLimitError,
    LimitsConfigError,
    exceeds_depth,
    json_loads,
    limits,
    yaml_limit_error,
)
from fabriclint.cli.app import app
from fabriclint.loaders.yaml import load_yaml
from fabriclint.snapshot import write_snapshot

runner = CliRunner()


def laughs(levels: int, anchor_line: bool = True) -> str:
    """A "billion laughs": each level is a list of ten aliases of the level before."""
    out = ["lol0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for n in range(1, levels + 1):
        out.append(f"lol{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 10)}]")
    return "\n".join(out) + "\n"


HOSTILE_YAML = {
    "alias bomb": (laughs(9), 5, "YAML aliases expand to more than 100000 nodes"),
    "recursive alias": ("a: &x [1, *x]\n", 1, "refers to a node that contains it"),
    "deep flow": ("a: " + "[" * 10_000 + "]" * 10_000 + "\n", 1, "nested more than 64 levels"),
    "deep block": ("".join(" " * n + f"k{n}:\n" for n in range(3_000)), 65, "nested more than 64"),
    "huge integer": ("a: 1\nb: " + "9" * 5_000 + "\n", 2, "an integer with 5000 digits"),
    "NUL byte": ("a: 1\nb: x\x00y\n", 2, "the character #x0000 is not allowed"),
    "python tag": ("a: !!python/object:os.system {}\n", 1, "python/object:os.system' is not"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_YAML))
def test_hostile_yaml_is_refused_with_its_line(case: str, tmp_path: Path) -> None:
    text, line, message = HOSTILE_YAML[case]
    path = tmp_path / "x.yaml"
    path.write_text(text)
    started = time.process_time()
    doc, problems = load_yaml(path, "x.yaml")
    # a runaway guard, not a speed claim: an unrefused bomb runs for minutes of CPU
    assert time.process_time() - started < 10
    assert doc is None
    (problem,) = problems
    assert (problem.line, problem.code) == (line, "PARSE003")
    assert message in problem.message, problem.message


def test_merge_keys_and_modest_aliases_still_load(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(laughs(3) + "base: &b {x: 1}\nd:\n  <<: *b\n  y: 2\n")
    doc, problems = load_yaml(path, "x.yaml")
    assert problems == [] and doc is not None
    assert doc.data["d"] == {"x": 1, "y": 2}
    assert len(doc.data["lol3"]) == 10 and doc.data["lol3"][0][0][0] == ["lol"] * 10


def test_the_alias_limit_is_configurable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(laughs(3))  # lines 2-4 add 110, 1,110 and 11,110 nodes through aliases
    monkeypatch.setenv("FABRICLINT_MAX_ALIAS_NODES", "500")
    _, problems = load_yaml(path, "x.yaml")
    assert [p.line for p in problems] == [3]
    assert "more than 500 nodes" in problems[0].message
    monkeypatch.setenv("FABRICLINT_MAX_DEPTH", "2")
    assert yaml_limit_error("a: {b: 1}\n") is None
    assert yaml_limit_error("a: {b: [1]}\n") is not None


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("FABRICLINT_MAX_DEPTH", "deep", "expected a positive integer"),
        ("FABRICLINT_MAX_DEPTH", "0", "expected a positive integer"),
        ("FABRICLINT_MAX_DEPTH", "100000", "at most 200"),
        ("FABRICLINT_MAX_INT_DIGITS", "٣", "expected a positive integer"),
        ("FABRICLINT_MAX_INT_DIGITS", "5000", "from 20 (a 64-bit counter) to 300"),
        ("FABRICLINT_MAX_INT_DIGITS", "3", "from 20 (a 64-bit counter) to 300"),
    ],
)
def test_bad_limit_settings_are_usage_errors(
    name: str, value: str, message: str, monkeypatch: pytest.MonkeyPatch, fabric_dir: Path
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(LimitsConfigError, match=re.escape(message)):
        limits()
    result = runner.invoke(app, ["validate", str(fabric_dir)])
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_bad_date_in_a_suppression_is_located(fabric_dir: Path) -> None:
    (fabric_dir / "policy.yaml").write_text(
        "suppressions:\n  - rule: PFC001\n    reason: vendor bug\n    expires: 2026-13-45\n"
    )
    for command in ("validate", "check"):
        result = runner.invoke(app, [command, str(fabric_dir)])
        assert result.exit_code == 2, result.output
        assert "policy.yaml:4:14: suppressions.0.expires" in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize(
    ("file", "text", "expected"),
    [
        ("inventory.yaml", "name: x\ndevices: " + "[" * 200 + "]" * 200, "inventory.yaml:2:"),
        ("intent.yaml", laughs(9), "intent.yaml:5:"),
        ("policy.yaml", "ignore: [PFC001]\nfail_on: " + "7" * 4_400 + "\n", "policy.yaml:2:10:"),
        (
            "policy.yaml",
            "select: [ALL]\nseverity: !!python/name:os.system x\n",
            "policy.yaml:2:11:",
        ),
    ],
)
def test_validate_and_check_report_hostile_files(
    fabric_dir: Path, file: str, text: str, expected: str
) -> None:
    (fabric_dir / file).write_text(text)
    for command in ("validate", "check"):
        result = runner.invoke(app, [command, str(fabric_dir)])
        assert result.exit_code == 2, result.output
        assert expected in result.output and "invalid YAML" in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)


SITE_RULE = """\
site_rules:
  - code: SITE001
    name: leaf-mtu
    message: leaf MTU
    schema:
      properties:
        interfaces:
          additionalProperties: {$ref: "#/$defs/port"}
      $defs:
        prot: {properties: {mtu: {const: 9214}}}
"""


def test_unresolvable_site_rule_ref_is_reported(fabric_dir: Path) -> None:
    (fabric_dir / "policy.yaml").write_text(SITE_RULE)
    write_snapshot(
        fabric_dir / "snapshots" / "s1",
        {"leaf01": ("eos", {"show running-config": "hostname leaf01\n"})},
    )
    expected = "policy.yaml:8:34: site rule SITE001: $ref '#/$defs/port' does not resolve"
    for command in ("validate", "check"):
        result = runner.invoke(app, [command, str(fabric_dir)])
        assert result.exit_code == 2, result.output
        assert expected in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
    (fabric_dir / "policy.yaml").write_text(SITE_RULE.replace("prot:", "port:"))
    assert runner.invoke(app, ["validate", str(fabric_dir)]).exit_code == 0


# --- JSON ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('{"a":\n' + "[" * 100_000 + "]" * 100_000 + "}", 2, "nested more than 64 levels"),
        ('{"a":\n' + "[" * 70 + "]" * 70 + "}", 2, "nested more than 64 levels"),
        ('{"a": 1,\n "b": ' + "5" * 5_000 + "}", 2, "an integer with 5000 digits"),
        ('{"a": 1,\n\n "b": -' + "5" * 101 + "}", 3, "an integer with 101 digits"),
    ],
)
def test_json_limits_are_located(text: str, line: int, message: str) -> None:
    with pytest.raises(InputLimitError) as caught:
        json_loads(text)
    assert caught.value.line == line
    assert message in caught.value.message


def test_json_within_limits_is_decoded_as_usual() -> None:
    text = json.dumps({"a": [[["x"]]], "sha": "9" * 500, "f": float("1e300"), "n": 10**50})
    assert json_loads(text) == json.loads(text)
    assert exceeds_depth({"a": [[1]]}, 2) and not exceeds_depth({"a": [1]}, 2)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('{"devices":\n' + "[" * 100_000 + "]" * 100_000 + "}", "manifest.json:2: nested more"),
        (
            '{"fabriclint": "0.1.0",\n "created": ' + "7" * 5_000 + "}",
            "manifest.json:2: an integer",
        ),
    ],
)
def test_hostile_manifest_is_an_input_error(fabric_dir: Path, body: str, expected: str) -> None:
    snap = fabric_dir / "snapshots" / "s1"
    write_snapshot(snap, {"leaf01": ("eos", {"show running-config": "hostname leaf01\n"})})
    (snap / "manifest.json").write_text(body)
    for args in (["--snapshot", "s1"], []):  # [] picks the newest snapshot, reading every manifest
        result = runner.invoke(app, ["check", str(fabric_dir), *args])
        assert "Traceback" not in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert result.exit_code == 2, result.output
        assert expected in result.output


@pytest.mark.parametrize("where", ["file", "below a file", "read-only folder"])
def test_schema_export_to_an_unwritable_place_is_a_usage_error(tmp_path: Path, where: str) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder\n")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    out = {"file": blocker, "below a file": blocker / "schemas", "read-only folder": locked / "s"}
    try:
        result = runner.invoke(app, ["schema", "export", "--out", str(out[where])])
    finally:
        locked.chmod(0o700)
    if where == "read-only folder" and result.exit_code == 0:
        pytest.skip("running as a user that writes anywhere (root)")
    assert result.exit_code == 2, result.output
    assert "cannot write the schemas" in result.output and str(tmp_path) in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_drift_of_a_value_no_float_can_hold() -> None:
    from fabriclint.drift.compare import Drift, compare
    from fabriclint.intent.render import Expected
    from fabriclint.models.state import DeviceState, Interface, PfcConfig, QosConfig

    tolerant = Expected(1.5, label="weight", tolerance_pct=10)
    assert tolerant.accepts(10**400) is False and tolerant.accepts(1.6) is True
    qos = QosConfig(pfc=PfcConfig(enabled=True, priorities=[3, 4]))
    state = DeviceState(name="leaf01", platform="eos", interfaces={"Et1": Interface(name="Et1")})
    state.qos = qos
    rendered = {"interface Et1": {"qos.pfc.priorities": Expected([3, 10**400], label="PFC")}}
    (drift,) = compare(state, rendered, 26)
    assert isinstance(drift, Drift) and drift.actual == [3, 4] and drift.explanation == ""
