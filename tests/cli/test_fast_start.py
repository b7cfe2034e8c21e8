"""A plain `fabriclint check` is parsed without typer (cli/fast.py), with typer's results."""

from __future__ import annotations

import inspect
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli import check as command
from fabriclint.cli import fast
from fabriclint.cli.app import app
from fabriclint.cli.errors import set_debug

ROOT = Path(__file__).resolve().parents[2]
POD = str(ROOT / "inventories" / "roce-pod")


def _typer(args: list[str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.stdout, result.stderr


def _fast(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        fast.run_check(args)
    set_debug(False)
    out = capsys.readouterr()
    code = exited.value.code
    return code if isinstance(code, int) else 0, out.out, out.err


def _outputs(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize(
    "args",
    [
        ["check", POD, "--snapshot", "broken"],
        ["check", POD, "-s", "baseline", "--no-color", "--statistics"],
        ["--debug", "check", POD, "--snapshot=broken", "-q", "--fail-on", "warning"],
        [
            "check",
            POD,
            "-s",
            "broken",
            "--select",
            "PFC,ECN",
            "--ignore",
            "PFC002",
            "--limit",
            "leaf*",
        ],
        ["check", POD, "-s", "broken", "--show-suppressed", "--extend-select", "MTU"],
        [
            "check",
            POD,
            "-s",
            "broken",
            "-f",
            "json",
            "-o",
            "OUT/r.json",
            "-f",
            "sarif",
            "-o",
            "OUT/r.sarif",
            "-f",
            "text",
        ],
        ["check", POD, "-s", "broken", "--write-baseline", "OUT/base.json", "--format", "markdown"],
        ["check", POD, "-s", "nosuch"],
        ["check", POD, "--configs", "OUT/none"],
        ["check", POD, "-s", "broken", f"{POD}/snapshots/broken/leaf01/show_running-config.txt"],
        ["check", POD, "-s", "broken", "-f", "text", "-f", "json"],
    ],
)
def test_the_fast_start_gives_typers_exit_outputs_and_files(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    typer_dir, fast_dir = tmp_path / "typer", tmp_path / "fast"
    typer_dir.mkdir()
    fast_dir.mkdir()
    by_typer = _typer([a.replace("OUT", str(typer_dir)) for a in args])
    by_fast = _fast([a.replace("OUT", str(fast_dir)) for a in args], capsys)
    code, out, err = by_typer
    same = (code, out, err.replace(str(typer_dir), str(fast_dir)))
    assert by_fast == same
    assert _outputs(fast_dir) == _outputs(typer_dir)
    assert code in (0, 1, 2)


@pytest.mark.parametrize(
    "args",
    [
        ["check", POD, "--help"],
        ["--version", "check", POD],
        ["check", POD, "--live"],
        ["check", POD, "--workers", "3"],
        ["check", POD, "--snapshot"],
        ["check", POD, "--snapshot", "--quiet"],
        ["check", POD, "-s", "a", "-s", "b"],
        ["check", POD, "-sbroken"],
        ["check", POD, "--quiet=yes"],
        ["check", POD, "--format", "pdf"],
        ["check", POD, "--fail-on", "ERROR"],
        ["check", POD, "--", "x"],
        ["check", POD, "-"],
        ["check"],
        ["validate", POD],
        ["rules", "explain", "check"],
    ],
)
def test_anything_else_is_left_to_typer(args: list[str]) -> None:
    assert fast.run_check(args) is False


def test_completion_is_left_to_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_FABRICLINT_COMPLETE", "bash_complete")
    assert fast.run_check(["check", POD]) is False


def test_every_check_parameter_is_known_to_the_fast_parser() -> None:
    """A new `check` option must be added to KINDS (or TYPER_ONLY): until then every check
    would fall back to typer, silently slower."""
    params = set(inspect.signature(command.check).parameters)
    assert params == {"fabric", "files"} | set(fast.KINDS) | fast.TYPER_ONLY
    assert fast.parse(["check", POD], command.check) is not None


def test_an_unknown_parameter_leaves_the_parsing_to_typer() -> None:
    def check(fabric: str, brand_new: bool = False) -> None:
        del fabric, brand_new

    assert fast.parse(["check", POD], check) is None


def test_the_console_script_runs_check_without_building_the_typer_app() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from fabriclint.cli import main\n"
        "try:\n    main()\n"
        "finally:\n    print('fabriclint.cli.app' in sys.modules, file=sys.stderr)\n"
    )
    env = {**os.environ, "NO_COLOR": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code, "check", POD, "-s", "baseline", "-q"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip().splitlines()[-1] == "False"
