"""`fabriclint validate`: every problem at once, located, exit 2, never a traceback."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app

runner = CliRunner()


def run_validate(root: Path) -> tuple[int, str]:
    result = runner.invoke(app, ["validate", str(root)])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.output


def test_valid_fabric_passes(fabric_dir: Path) -> None:
    code, out = run_validate(fabric_dir)
    assert code == 0
    assert "ok: 2 devices, 1 links, 1 profile(s)" in out


@pytest.mark.parametrize(
    ("file", "old", "new", "expected"),
    [
        (
            "inventory.yaml",
            "platform: eos",
            "platfrom: eos",
            "inventory.yaml:3:12: unknown key 'platfrom' at devices.leaf01.platfrom; did you mean 'platform'?",
        ),
        (
            "inventory.yaml",
            "platform: eos",
            "platform: IOS",
            "inventory.yaml:3:22: devices.leaf01.platform: String should match pattern",
        ),
        (
            "inventory.yaml",
            '"gpu01:ens1np0"',
            '"gpu09:ens1np0"',
            "inventory.yaml:6:29: link end 'gpu09:ens1np0' names an unknown device; did you mean 'gpu01'?",
        ),
        (
            "intent.yaml",
            "dscp: [26]",
            "dscp: [64]",
            "intent.yaml:4:19: profiles.roce.roce.dscp.0: Input should be less than or equal to 63 (got 64)",
        ),
        (
            "intent.yaml",
            "priority: 3}",
            "priority: 9}",
            "intent.yaml:4:34: profiles.roce.roce.priority: Input should be less than or equal to 7 (got 9)",
        ),
        (
            "intent.yaml",
            "host: 9000",
            "host: 100",
            "intent.yaml:7:36: profiles.roce.mtu.host: Input should be greater than or equal to 576 (got 100)",
        ),
        (
            "intent.yaml",
            "leaf: {profile: roce}",
            "leaf: {profile: rcoe}",
            "intent.yaml:9:10: role 'leaf' uses undefined profile 'rcoe'; did you mean 'roce'?",
        ),
        (
            "intent.yaml",
            "trust: dscp",
            "trust: dscp\n    trust: pcp",
            "intent.yaml:4:5: duplicate key 'trust' (first at line 3)",
        ),
        ("intent.yaml", "roles:", "roles: [", "intent.yaml:"),
        # a device named by a number (or true) in YAML: located, not an internal error (exit 3)
        (
            "inventory.yaml",
            "  leaf01: {",
            "  7: {",
            "inventory.yaml:3:3: devices.7.[key]: Input should be a valid string (got 7)",
        ),
        (
            "inventory.yaml",
            "  leaf01: {",
            "  7: {",
            "inventory.yaml:6:6: link end 'leaf01:Ethernet1' names an unknown device",
        ),
        (
            "inventory.yaml",
            "  leaf01: {",
            "  true: {",
            "inventory.yaml:6:6: link end 'leaf01:Ethernet1' names an unknown device",
        ),
    ],
)
def test_each_mistake_is_located(
    fabric_dir: Path, file: str, old: str, new: str, expected: str
) -> None:
    path = fabric_dir / file
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    code, out = run_validate(fabric_dir)
    assert code == 2
    assert expected in out


def test_unused_intent_role_is_a_warning(fabric_dir: Path) -> None:
    """One intent shared by several fabrics names roles this inventory lacks: exit 0, warned."""
    path = fabric_dir / "intent.yaml"
    text = path.read_text()
    path.write_text(text.replace("gpu: {profile: roce}", "gpus: {profile: roce}", 1))
    code, out = run_validate(fabric_dir)
    assert code == 0
    assert (
        "intent.yaml:10:3: warning: role 'gpus' is used by no device in the inventory; "
        "did you mean 'gpu'?" in out
    )
    path.write_text(text)
    assert "warning: role" not in run_validate(fabric_dir)[1]


def test_every_problem_reported_at_once(fabric_dir: Path) -> None:
    inv = fabric_dir / "inventory.yaml"
    inv.write_text(
        inv.read_text().replace("platform: eos", "platfrom: eos").replace("port: 22", "")
    )
    intent = fabric_dir / "intent.yaml"
    intent.write_text(
        intent.read_text().replace("dscp: [26]", "dscp: [99]").replace("priority: 6", "priority: 8")
    )
    code, out = run_validate(fabric_dir)
    assert code == 2
    assert "4 problem(s) found" in out
    assert out.count("inventory.yaml:") == 2  # unknown key + the then-missing platform
    assert out.count("intent.yaml:") == 2


def test_an_unknown_platform_is_named_beside_the_errors(fabric_dir: Path) -> None:
    """The platform warning was only shown once every error was fixed: a new user fixing the
    errors of one run met a new message in the next."""
    inv = fabric_dir / "inventory.yaml"
    inv.write_text(inv.read_text().replace("platform: eos", "platform: arista-eos"))
    intent = fabric_dir / "intent.yaml"
    intent.write_text(intent.read_text().replace("dscp: [26]", "dscp: [99]"))
    code, out = run_validate(fabric_dir)
    assert code == 2 and "1 problem(s) found" in out
    assert re.search(
        r"inventory\.yaml:\d+:\d+: warning: .*no parser for platform 'arista-eos'", out
    )


def test_policy_problems(fabric_dir: Path) -> None:
    (fabric_dir / "policy.yaml").write_text(
        "extends: [defualt]\nignore: [PFC999, XYZ]\noptions:\n  PARSE001: {bogus: 1}\n  NOPE001: {}\n"
    )
    code, out = run_validate(fabric_dir)
    assert code == 2
    assert "policy.yaml:1:11: unknown policy pack 'defualt'; did you mean 'default'?" in out
    assert "policy.yaml:2:10: unknown rule code 'PFC999'" in out
    assert "policy.yaml:2:18: unknown rule code 'XYZ'" in out
    assert "policy.yaml:4:14: options.PARSE001.bogus: Extra inputs are not permitted" in out
    assert "policy.yaml:5:3: options for unknown rule 'NOPE001'" in out


def test_missing_inventory(tmp_path: Path) -> None:
    code, out = run_validate(tmp_path)
    assert code == 2
    assert "inventory.yaml not found" in out


def test_missing_directory(tmp_path: Path) -> None:
    code, out = run_validate(tmp_path / "nope")
    assert code == 2
    assert "fabric directory not found" in out


def test_site_rules_in_policy(fabric_dir: Path) -> None:
    (fabric_dir / "policy.yaml").write_text(
        "ignore: [SITE001]\n"
        "severity: {PFX001: error}\n"
        "site_rules:\n"
        "  - code: SITE001\n"
        "    name: leaf-mtu\n"
        "    message: leaf MTU\n"
        "    schema: {type: foo}\n"
    )
    code, out = run_validate(fabric_dir)
    assert code == 2
    assert "unknown rule code 'SITE001'" not in out
    assert "policy.yaml:2:12: unknown rule code 'PFX001'; did you mean 'PFC001'?" in out
    assert "site rule SITE001: invalid JSON Schema at type:" in out


def test_cabling_checked_even_when_a_device_fails_the_schema(fabric_dir: Path) -> None:
    inv = fabric_dir / "inventory.yaml"
    inv.write_text(
        inv.read_text()
        .replace("platform: eos", "platform: IOS")
        .replace('"gpu01:ens1np0"', '"gpu9:x"')
    )
    code, out = run_validate(fabric_dir)
    assert code == 2
    assert "devices.leaf01.platform" in out
    assert "link end 'gpu9:x' names an unknown device" in out


def test_references_checked_even_when_a_profile_fails_the_schema(fabric_dir: Path) -> None:
    intent = fabric_dir / "intent.yaml"
    intent.write_text(
        intent.read_text()
        .replace("dscp: [26]", "dscp: [99]")
        .replace("leaf: {profile: roce}", "leaf: {profile: rocee}")
    )
    code, out = run_validate(fabric_dir)
    assert code == 2
    assert "profiles.roce.roce.dscp.0" in out
    assert "role 'leaf' uses undefined profile 'rocee'; did you mean 'roce'?" in out


def test_lossy_profile_without_pfc_is_valid(fabric_dir: Path) -> None:
    intent = fabric_dir / "intent.yaml"
    text = intent.read_text()
    text = text.replace("priority: 3}", "priority: 3, mode: lossy}", 1)
    text = text.replace(
        "pfc: {priorities: [3], watchdog: {enabled: true}}", "pfc: {priorities: []}"
    )
    intent.write_text(text)
    code, out = run_validate(fabric_dir)
    assert code == 0, out


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "cnp: {dscp: 48, priority: 6}",
            "cnp: {dscp: 26, priority: 6}",
            "CNP DSCP 26 is also a RoCE DSCP",
        ),
        (
            "pfc: {priorities: [3]",
            "pfc: {priorities: [4]",
            "RoCE priority 3 is not among the PFC priorities [4]",
        ),
        (
            "cnp: {dscp: 48, priority: 6}",
            "cnp: {dscp: 48, priority: 3}",
            "CNP priority 3 equals the RoCE priority",
        ),
        (
            "roce: {dscp: [26], priority: 3}",
            "roce: {dscp: [26], priority: 3, mode: lossy}",
            "roce.mode is lossy but pfc.priorities [3] lists the RoCE priority 3",
        ),
        (
            "roce: 4096",
            "roce: 4000",
            "profiles.roce.mtu.roce: Input should be 256, 512, 1024, 2048 or 4096",
        ),
    ],
)
def test_contradictory_profiles(fabric_dir: Path, old: str, new: str, expected: str) -> None:
    intent = fabric_dir / "intent.yaml"
    assert old in intent.read_text()
    intent.write_text(intent.read_text().replace(old, new))
    code, out = run_validate(fabric_dir)
    assert code == 2 and expected in out


def test_problems_at_one_place_keep_one_order(fabric_dir: Path) -> None:
    """Problems an anchor shares with every alias are at one line:col: they are listed in the
    order they were found (devices as the inventory lists them), the same in every run, not
    in the order of a set of strings (which changes with PYTHONHASHSEED)."""
    names = [f"leaf{n:02}" for n in range(1, 9)]
    devices = "".join(
        f"  {name}:\n    platform: eos\n    role: leaf\n    host: 192.0.2.{n}\n"
        f"    credentials: {'&c {username_env: 5, bogus: 1}' if n == 1 else '*c'}\n"
        for n, name in enumerate(names, start=1)
    )
    (fabric_dir / "inventory.yaml").write_text(f"name: tiny\ndevices:\n{devices}")
    (fabric_dir / "intent.yaml").write_text(
        (fabric_dir / "intent.yaml").read_text().replace("  gpu: {profile: roce}\n", "")
    )
    outputs = set()
    for seed in ("1", "2", "3", "4"):
        run = subprocess.run(
            [sys.executable, "-m", "fabriclint", "validate", str(fabric_dir)],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        assert run.returncode == 2, run.stderr
        outputs.add(run.stdout + run.stderr)
    assert len(outputs) == 1
    found = re.findall(r": devices\.(\w+)\.credentials\.username_env: ", outputs.pop())
    assert found == names
