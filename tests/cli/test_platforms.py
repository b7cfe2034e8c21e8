"""A platform fabriclint does not parse, or a config of another OS declared as one it does,
never checks clean: `validate` warns (exit 0), `check` is incomplete (exit 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app

DELL_OS10 = Path(__file__).parents[1] / "parsers" / "signature" / "dell_os10.cfg"
runner = CliRunner()


def fabric(tmp_path: Path, platform: str) -> Path:
    """One uncabled leaf of `platform` whose rendered config (configs/leaf01.cfg) is Dell OS10's:
    with nothing cabled, no port check can make the run incomplete by itself."""
    root = tmp_path / "fabric"
    (root / "configs").mkdir(parents=True)
    (root / "inventory.yaml").write_text(
        f"name: t\ndevices:\n  spine01: {{platform: eos, role: spine}}\n"
        f"  leaf01: {{platform: {platform}, role: leaf}}\n"
    )
    (root / "configs" / "leaf01.cfg").write_text(DELL_OS10.read_text(encoding="utf-8"))
    (root / "configs" / "spine01.cfg").write_text("hostname spine01\n!\n")
    return root


def check(root: Path) -> tuple[int, dict[str, object]]:
    result = runner.invoke(
        app, ["check", str(root), "--configs", str(root / "configs"), "-f", "json"]
    )
    assert "Traceback" not in result.output
    return result.exit_code, json.loads(result.stdout)


def test_validate_accepts_an_unsupported_platform_with_a_located_warning(tmp_path: Path) -> None:
    root = fabric(tmp_path, "dellos10")
    result = runner.invoke(app, ["validate", str(root)])
    assert result.exit_code == 0, result.output
    line = next(s for s in result.output.splitlines() if "warning:" in s)
    assert line.startswith(f"{root / 'inventory.yaml'}:4:22: warning: device 'leaf01': no parser ")
    assert "platform 'dellos10'" in line and "exit 3" in line
    assert "ok: 2 devices" in result.output


def test_check_reports_an_unsupported_platform_incomplete(tmp_path: Path) -> None:
    code, report = check(fabric(tmp_path, "dellos10"))
    assert code == 3
    statuses = {d["name"]: d["status"] for d in report["devices"]}  # type: ignore[attr-defined]
    assert statuses == {"leaf01": "unsupported", "spine01": "ok"}


@pytest.mark.parametrize("declared", ["eos", "nxos"])
def test_a_dell_config_declared_as_a_supported_platform_is_parse003(
    tmp_path: Path, declared: str
) -> None:
    code, report = check(fabric(tmp_path, declared))
    assert code == 3
    findings = [(f["rule"], f["device"], f["message"]) for f in report["findings"]]  # type: ignore[attr-defined]
    message = f"this looks like Dell OS10 (line 1: `! Version 10.5.4.0`), not {declared}"
    assert [(r, d) for r, d, m in findings if m.startswith(message)] == [("PARSE003", "leaf01")]
    statuses = {d["name"]: d["status"] for d in report["devices"]}  # type: ignore[attr-defined]
    assert statuses["leaf01"] == "unparseable"
