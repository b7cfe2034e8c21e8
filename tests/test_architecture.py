"""Layering, startup cost and generated-file freshness."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from fabriclint.schemas import build_schemas

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "fabriclint"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module == "fabriclint":
            names.update(
                f"fabriclint.{alias.name}" for alias in node.names
            )  # from fabriclint import x
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def _project_imports(path: Path) -> list[str]:
    return [m for m in _imports(path) if m.startswith("fabriclint.") or m == "fabriclint"]


def test_layering() -> None:
    forbidden = ("fabriclint.collectors", "fabriclint.cli")
    for layer in ("models", "parsers", "rules", "drift", "intent", "platforms"):
        for path in (PKG / layer).rglob("*.py"):
            bad = [m for m in _imports(path) if m.startswith(forbidden)]
            assert not bad, f"{path} imports {bad}"
    for path in (PKG / "models").rglob("*.py"):
        outside = [
            m
            for m in _project_imports(path)
            if not m.startswith(("fabriclint.models", "fabriclint.platforms"))
        ]
        assert not outside, (
            f"{path} imports {outside}: models/ may import only models/ and platforms/"
        )


def test_platform_descriptors_import_nothing_else() -> None:
    """platforms/ is the bottom layer: every other layer reads it, so it reads none of them
    (and importing it imports no parser: `fabriclint --help` stays fast)."""
    for path in (PKG / "platforms").rglob("*.py"):
        outside = [
            m
            for m in _project_imports(path)
            if not m.startswith("fabriclint.platforms") and m != "fabriclint.registry"
        ]
        assert not outside, f"{path} imports {outside}"


@pytest.mark.parametrize(
    ("layer", "banned"),
    [("rules", "fabriclint.parsers"), ("parsers", "fabriclint.loaders")],
)
def test_layer_does_not_import(layer: str, banned: str) -> None:
    """Rules read DeviceState, never a parser's internals; parsers are pure text -> model and
    never load files (the loaders' job)."""
    for path in (PKG / layer).rglob("*.py"):
        bad = [m for m in _project_imports(path) if m == banned or m.startswith(banned + ".")]
        assert not bad, f"{path} imports {bad}: {layer}/ must not import {banned}"


def test_platform_parsers_share_only_the_kit() -> None:
    """A platform package imports the kit, the shared counter helpers and itself; the kit
    imports no platform."""
    parsers = PKG / "parsers"
    packages = [p for p in parsers.iterdir() if (p / "__init__.py").is_file()]
    assert {p.name for p in packages} >= {"kit", "eos", "nxos", "junos", "sonic", "cumulus"}
    for package in packages:
        allowed = {"fabriclint.parsers.kit", f"fabriclint.parsers.{package.name}"}
        if package.name != "kit":  # the counter helpers are shared like the kit
            allowed.add("fabriclint.parsers.counters.common")
        for path in package.rglob("*.py"):
            mods = [m for m in _imports(path) if m.startswith("fabriclint.parsers")]
            bad = [m for m in mods if not {m, m.rsplit(".", 1)[0]} & allowed]
            assert not bad, f"{path} imports {bad}"


def test_help_does_not_import_heavy_libraries() -> None:
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from fabriclint.cli.app import app\n"
        "r = CliRunner().invoke(app, ['--help'])\n"
        "assert r.exit_code == 0, r.output\n"
        "print(sorted(m for m in ('napalm', 'netmiko', 'deepdiff', 'paramiko') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_schemas_are_fresh() -> None:
    for name, text in build_schemas().items():
        path = ROOT / "schemas" / name
        assert path.is_file(), f"schemas/{name} missing: run `fabriclint schema export`"
        assert path.read_text() == text, f"schemas/{name} is stale: run `fabriclint schema export`"


def test_schemas_carry_field_docs() -> None:
    intent = json.loads((ROOT / "schemas" / "intent.json").read_text())
    roce = intent["$defs"]["RoceClass"]["properties"]
    assert "RoCE traffic carries" in roce["dscp"]["description"]
    assert roce["dscp"]["items"]["maximum"] == 63


def test_example_yaml_files_reference_their_schema() -> None:
    for path in sorted((ROOT / "inventories").rglob("*.yaml")):
        first = path.read_text().splitlines()[0]
        kind = path.stem
        if kind in ("inventory", "intent", "policy"):
            assert first.startswith("# yaml-language-server: $schema="), path
            assert first.endswith(f"schemas/{kind}.json"), path


def test_rule_docs_are_fresh() -> None:
    from fabriclint.ruledocs import render_markdown

    path = ROOT / "docs" / "rules.md"
    assert path.is_file() and path.read_text() == render_markdown(), (
        "docs/rules.md is stale: run `fabriclint rules docs --out docs/rules.md`"
    )


def test_nothing_cites_a_document_outside_the_project() -> None:
    """docs/architecture.md is the reference; no file may point at a design doc that is not here."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    for name in tracked:
        if name.endswith((".py", ".md", ".toml", ".yaml", ".yml", ".txt")):
            text = (ROOT / name).read_text(errors="replace")
            outside = "DESIGN" + ".md"  # spelled apart so this test does not cite it either
            assert outside not in text, name
    assert (ROOT / "docs" / "architecture.md").is_file()
