"""Platform descriptors: each one is complete, and nothing outside them compares platform names."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
from pathlib import Path

import pytest

from fabriclint import platforms
from fabriclint.collectors.redaction.tables import TABLES
from fabriclint.parsers import MODULES, get_parser
from fabriclint.platforms.base import KINDS, Platform
from fabriclint.snapshot import NoConfigForm, config_key, main_config_key

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "fabriclint"
GOLDEN = ROOT / "tests" / "parsers" / "golden"
IDS = [p.name for p in platforms.ALL]


@pytest.mark.parametrize("platform", platforms.ALL, ids=IDS)
def test_every_descriptor_is_complete(platform: Platform) -> None:
    """One parser, one golden case, one docs page, one schema entry, one redaction table."""
    assert platform.kind in KINDS
    assert importlib.util.find_spec(platform.parser) is not None, platform.parser
    assert callable(importlib.import_module(platform.parser).parse)
    assert get_parser(platform.name) is not None
    cases = [c for c in (GOLDEN / platform.name).glob("*") if (c / "inputs.json").is_file()]
    assert cases, f"no golden case under tests/parsers/golden/{platform.name}/"
    page = ROOT / "docs" / "platforms" / f"{platform.name}.md"
    assert page.is_file(), f"no docs page docs/platforms/{platform.name}.md"
    assert f"`{platform.name}`" in page.read_text(), f"{page} does not name the platform"
    inventory = json.loads((ROOT / "schemas" / "inventory.json").read_text())
    assert platform.name in inventory["$defs"]["Device"]["properties"]["platform"]["examples"]
    assert platform.name in TABLES, f"no redaction table for {platform.name}"


@pytest.mark.parametrize("platform", platforms.ALL, ids=IDS)
def test_config_keys_are_collected_keys(platform: Platform) -> None:
    """The configuration a --configs file stands for is one the plan collects (else the parser
    would be handed a key the collector never writes)."""
    keys = {spec.key for spec in platform.commands}
    assert set(platform.config_keys) <= keys
    assert main_config_key(platform.name) == (platform.config_keys or (None,))[0]


def test_registries_list_exactly_the_descriptors() -> None:
    assert list(MODULES) == list(platforms.NAMES)
    assert len(set(platforms.NAMES)) == len(platforms.NAMES)
    assert all(platforms.get(n) is p for n, p in zip(platforms.NAMES, platforms.ALL, strict=True))
    assert platforms.get("dellos10") is None and platforms.kind_of("dellos10") == "switch"


def test_descriptors_do_not_import_parsers() -> None:
    """`fabriclint --help` stays fast: importing the descriptors loads no parser module."""
    code = (
        "import sys, fabriclint.platforms\n"
        "print(sorted(m for m in sys.modules if m.startswith('fabriclint.parsers')))\n"
    )
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("platform", "text", "key"),
    [
        ("eos", "hostname leaf01\n", "show running-config"),
        ("junos", "system { }\n", "show configuration"),
        ("sonic", "{}", "config_db.json"),
        ("cumulus", "- set: {}\n", "nv config show -o yaml"),
        ("cumulus", "net add interface swp1\n", "net show configuration commands"),
        (
            "cumulus",
            "traffic.packet_priority_source_set = [dscp]\n",
            "/etc/cumulus/datapath/traffic.conf",
        ),
    ],
)
def test_rendered_config_key(platform: str, text: str, key: str) -> None:
    assert config_key(platform, text) == key


@pytest.mark.parametrize("platform", ["mlnx-host", "opensm", "dellos10"])
def test_a_platform_without_a_config_form_is_an_explicit_error(platform: str) -> None:
    """No silent `show running-config` guess: the error names the platform and what is read."""
    with pytest.raises(NoConfigForm, match=f"platform '{platform}'.*eos, nxos, junos"):
        config_key(platform, "hostname x\n")


def test_unrenderable_device_in_configs_folder_is_unsupported(tmp_path: Path) -> None:
    from fabriclint.snapshot import load_configs

    (tmp_path / "gpu01.cfg").write_text("whatever\n")
    (tmp_path / "stray.cfg").write_text("hostname stray\n")
    snap = load_configs(tmp_path, {"gpu01": "mlnx-host"})
    gpu = snap.devices["gpu01"]
    assert gpu.raw is None and gpu.status == "unsupported"
    assert "gpu01.cfg" in (gpu.error or "") and "mlnx-host" in (gpu.error or "")
    stray = snap.devices["stray"].raw
    assert stray is not None and stray.platform == "unknown"


# ---- no platform-name comparisons outside the descriptors ----------------------------------------


def _platform_constants(node: ast.expr) -> list[str]:
    """Platform names a comparison operand spells out (a string, or a tuple/list/set of them)."""
    items = node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else [node]
    return [
        i.value
        for i in items
        if isinstance(i, ast.Constant) and isinstance(i.value, str) and i.value in platforms.NAMES
    ]


def platform_comparisons(source: str) -> list[tuple[int, str]]:
    """(line, name) of every comparison with a platform name (`== "opensm"`, `in ("nxos",)`)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                found += [(node.lineno, name) for name in _platform_constants(operand)]
    return found


def test_the_scan_finds_comparisons() -> None:
    """The scan below would catch what it forbids (so its silence means something)."""
    code = (
        'a = s.platform == "opensm"\n'
        'b = "mlnx-host" != p\n'
        'c = p in ("nxos", "x")\n'
        'd = {"eos": 1}\n'
        'e = p == "switch"\n'
    )
    assert platform_comparisons(code) == [(1, "opensm"), (2, "mlnx-host"), (3, "nxos")]


def test_no_platform_name_is_compared_outside_the_descriptors() -> None:
    """Switch / host / subnet manager is `DeviceState.kind` (or the descriptor's attributes),
    never a platform string: a new platform then needs no edit outside its descriptor."""
    offenders = []
    for path in sorted(PKG.rglob("*.py")):
        if (PKG / "platforms") in path.parents:
            continue
        for line, name in platform_comparisons(path.read_text()):
            offenders.append(f"{path.relative_to(ROOT)}:{line}: compares with '{name}'")
    assert offenders == []
