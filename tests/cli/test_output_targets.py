"""`-o PATH` of every writing command: through a symlink to its target, atomically; never over a
device node, a FIFO or a directory (exit 2 with a clear message)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
POD = ROOT / "inventories" / "roce-pod"
runner = CliRunner()


def commands(target: Path) -> dict[str, list[str]]:
    """Each command that writes a file, writing it to `target`."""
    snapshots = POD / "snapshots"
    return {
        "check": ["check", str(POD), "-s", "baseline", "-f", "json", "-o", str(target)],
        "baseline": ["check", str(POD), "-s", "broken", "--write-baseline", str(target)],
        "diff": ["diff", str(snapshots / "baseline"), str(snapshots / "broken"), "-o", str(target)],
        "rules-docs": ["rules", "docs", "-o", str(target)],
    }


NAMES = ["check", "baseline", "diff", "rules-docs"]


def run(args: list[str]) -> tuple[int, str]:
    result = runner.invoke(app, args)
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


@pytest.mark.parametrize("name", NAMES)
def test_a_symlinked_output_writes_its_target_and_keeps_the_link(tmp_path: Path, name: str) -> None:
    (tmp_path / "reports").mkdir()
    real = tmp_path / "reports" / "latest.txt"
    real.write_text("old\n")
    link = tmp_path / "report.txt"
    link.symlink_to(real)
    code, out = run(commands(link)[name])
    assert code in (0, 1), out
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() != "old\n" and len(real.read_text()) > 10
    assert [p.name for p in (tmp_path / "reports").iterdir()] == ["latest.txt"]  # no temp left


def test_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "report.json"
    link.symlink_to(tmp_path / "new.json")
    code, _ = run(commands(link)["check"])
    assert code == 0 and link.is_symlink() and (tmp_path / "new.json").is_file()


@pytest.mark.parametrize("name", NAMES)
def test_a_fifo_is_refused_without_waiting(tmp_path: Path, name: str) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, out = run(commands(fifo)[name])
    assert code == 2 and "not a regular file" in out
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.parametrize("name", NAMES)
def test_a_directory_is_refused(tmp_path: Path, name: str) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    code, out = run(commands(folder)[name])
    assert code == 2 and "a directory, not a regular file" in out and folder.is_dir()


@pytest.fixture
def device_node(tmp_path: Path) -> Path:
    """A character device like /dev/full, made in tmp_path (the real one is never a target:
    a regression would replace it for the whole machine)."""
    node = tmp_path / "full"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    except (PermissionError, AttributeError):
        pytest.skip("making a device node needs root")
    return node


def test_a_device_node_is_never_replaced(tmp_path: Path, device_node: Path) -> None:
    link = tmp_path / "report.json"
    link.symlink_to(device_node)
    for target in (device_node, link):
        code, out = run(commands(target)["check"])
        assert code == 2 and "device, FIFO or socket" in out
        assert stat.S_ISCHR(device_node.lstat().st_mode)


def test_schema_export_into_a_file_is_a_usage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "schemas"
    blocker.write_text("not a folder\n")
    code, out = run(["schema", "export", "-o", str(blocker)])
    assert code == 2 and "cannot write" in out
