"""`fabriclint snapshot import` turns folders of outputs saved by Ansible/Nornir playbooks into
snapshots that check exactly as the originals; `snapshot rehash` refreshes checksums."""

from __future__ import annotations

import json
import os
import shutil
import socket
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.engine import CheckOptions, CheckResult, run_check
from fabriclint.snapshot import load_snapshot

ROOT = Path(__file__).resolve().parent.parent
FABRIC = ROOT / "inventories" / "roce-pod"
runner = CliRunner()

Namer = Callable[[str, str], str]
"""(device, command) -> the path a playbook saves that output under."""


def per_device_underscores(device: str, command: str) -> str:
    """`dest: outputs/{{ inventory_hostname }}/{{ item | replace(' ', '_') | replace('/', '_') }}.txt`"""
    return f"{device}/{command.replace(' ', '_').replace('/', '_')}.txt"


def per_device_spaces(device: str, command: str) -> str:
    """Nornir's write_file with the command as it was sent (`/` url-quoted)."""
    return f"{device}/{command.replace('/', '%2F')}.log"


def flat_dashes(device: str, command: str) -> str:
    """`dest: outputs/{{ inventory_hostname }}-{{ item | replace(' ', '-') | replace('/', '-') }}.out`"""
    return f"{device}-{command.replace(' ', '-').replace('/', '-')}.out"


def playbook_layout(snapshot: Path, folder: Path, namer: Namer) -> int:
    """Copy a snapshot's outputs to where a playbook would have saved them; the file count."""
    manifest = json.loads((snapshot / "manifest.json").read_text())
    count = 0
    for device, entry in manifest["devices"].items():
        for command, filename in entry["files"].items():
            target = folder / namer(device, command)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(snapshot / device / filename, target)
            count += 1
    return count


def findings(result: CheckResult) -> list[tuple[str, str | None, str, str]]:
    return sorted((f.rule, f.device, f.object, f.message) for f in result.report.findings)


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.output


@pytest.mark.parametrize("namer", [per_device_underscores, per_device_spaces, flat_dashes])
@pytest.mark.parametrize("name", ["baseline", "broken"])
def test_playbook_outputs_become_a_snapshot_that_checks_like_the_original(
    tmp_path: Path, namer: Namer, name: str
) -> None:
    original = FABRIC / "snapshots" / name
    outputs = tmp_path / "outputs"
    count = playbook_layout(original, outputs, namer)
    out = tmp_path / "imported"
    code, text = invoke(
        "snapshot", "import", str(outputs), "--fabric", str(FABRIC), "--out", str(out)
    )
    assert code == 0, text
    assert f"10 devices, {count} files, 0 not imported" in text
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["source"] == "import"
    want = json.loads((original / "manifest.json").read_text())
    for device, entry in want["devices"].items():
        assert manifest["devices"][device]["files"].keys() == entry["files"].keys()
        assert manifest["devices"][device]["sha256"] == entry["sha256"]
    mine = run_check(CheckOptions(fabric_dir=FABRIC, snapshot=out))
    theirs = run_check(CheckOptions(fabric_dir=FABRIC, snapshot=original))
    assert mine.exit_code == theirs.exit_code
    assert findings(mine) == findings(theirs)


def test_unknown_files_are_listed_and_platforms_come_from_the_map(tmp_path: Path) -> None:
    outputs = tmp_path / "outputs"
    (outputs / "leaf01").mkdir(parents=True)
    baseline = FABRIC / "snapshots" / "baseline"
    shutil.copy(
        baseline / "leaf01" / "show_running-config.txt", outputs / "leaf01" / "running-config.cfg"
    )
    (outputs / "leaf01" / "show_version.txt").write_text("Arista DCS-7060X5\n")
    (outputs / "fw01").mkdir()
    (outputs / "fw01" / "show_run.txt").write_text("hostname fw01\n")
    (outputs / "notes.md").write_text("collected by hand\n")
    (outputs / "leaf 02").mkdir()
    (outputs / "leaf 02" / "show_running-config.txt").write_text("hostname leaf02\n")
    out = tmp_path / "snap"
    code, text = invoke("snapshot", "import", str(outputs), "-p", "leaf*=eos", "--out", str(out))
    assert code == 0, text
    assert "not imported: leaf01/show_version.txt: no eos input by that name" in text
    assert "not imported: fw01/show_run.txt: device 'fw01' has no platform (--platform-map)" in text
    assert "not imported: notes.md: names no device with a known platform" in text
    assert "not imported: leaf 02/show_running-config.txt: 'leaf 02' is no device name" in text
    assert "1 devices, 1 files, 4 not imported" in text
    snap = load_snapshot(out)
    raw = snap.devices["leaf01"].raw
    assert raw is not None and list(raw.outputs) == ["show running-config"]
    code, text = invoke("snapshot", "import", str(outputs), "-p", "leaf*=eos", "--out", str(out))
    assert code == 2 and "already a snapshot" in text
    code, text = invoke(
        "snapshot", "import", str(outputs), "-p", "leaf01", "--out", str(tmp_path / "x")
    )
    assert code == 2 and "write it GLOB=PLATFORM" in text
    code, text = invoke(
        "snapshot", "import", str(outputs), "-p", "leaf*=EOS", "--out", str(tmp_path / "y")
    )
    assert code == 2 and "--platform-map 'leaf*=EOS': unknown platform 'EOS' (one of" in text
    assert "eos" in text and not (tmp_path / "y").exists()


def test_rehash_after_a_deliberate_edit(tmp_path: Path) -> None:
    snap = tmp_path / "candidate"
    shutil.copytree(FABRIC / "snapshots" / "baseline", snap)
    config = snap / "leaf01" / "show_running-config.txt"
    text = config.read_text()
    assert "qos map dscp 26 to traffic-class 3" in text
    config.write_text(
        text.replace("qos map dscp 26 to traffic-class 3", "qos map dscp 26 to traffic-class 1")
    )
    before = run_check(CheckOptions(fabric_dir=FABRIC, snapshot=snap))
    assert before.exit_code == 3  # the edit fails its checksum: incomplete, never trusted
    (snap / "leaf01" / "extra.txt").write_text("scratch\n")
    code, text = invoke("snapshot", "rehash", str(snap))
    assert code == 0, text
    assert "rehashed leaf01/show_running-config.txt" in text
    assert "not in the manifest (left out): leaf01/extra.txt" in text
    assert "1 checksum(s) updated" in text
    after = run_check(CheckOptions(fabric_dir=FABRIC, snapshot=snap))
    assert after.exit_code == 1
    assert any(f.rule == "PFC002" and f.device == "leaf01" for f in after.report.findings)
    config.unlink()
    manifest = (snap / "manifest.json").read_text()
    code, text = invoke("snapshot", "rehash", str(snap))
    assert code == 2 and "show_running-config.txt: cannot read" in text
    assert (snap / "manifest.json").read_text() == manifest


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))


def _dangling(path: Path) -> None:
    path.symlink_to(path.parent / "gone.txt")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize(
    ("make", "kind"),
    [(_fifo, "a FIFO"), (_socket, "a socket"), (_dangling, "a link to nothing")],
    ids=["fifo", "socket", "dangling-link"],
)
@pytest.mark.parametrize("where", ["leaf01/show_interfaces.txt", "leaf01-show-interfaces.out"])
def test_an_entry_that_is_no_regular_file_refuses_the_import(
    tmp_path: Path, make: Callable[[Path], None], kind: str, where: str
) -> None:
    """A FIFO (or socket, or dangling link) among the outputs was skipped silently inside a
    device folder: the device was imported without `show interfaces` and nobody was told. It is
    refused with its path (exit 2, nothing written), as a FIFO named at the top level already
    was, and never opened (reading a FIFO waits for a writer)."""
    outputs = tmp_path / "outputs"
    (outputs / "leaf01").mkdir(parents=True)
    baseline = FABRIC / "snapshots" / "baseline"
    shutil.copy(
        baseline / "leaf01" / "show_running-config.txt",
        outputs / "leaf01" / "show_running-config.txt",
    )
    make(outputs / where)
    out = tmp_path / "snap"
    code, text = invoke("snapshot", "import", str(outputs), "-p", "leaf*=eos", "--out", str(out))
    assert code == 2, text
    assert f"{outputs / where}: {kind}, not a regular file; refused" in " ".join(text.split())
    assert not out.exists()


@pytest.mark.parametrize("where", ["leaf02", "leaf01/more"])
def test_a_link_to_a_folder_refuses_the_import(tmp_path: Path, where: str) -> None:
    """A device folder (or a folder inside one) that links elsewhere: the listing walked where it
    points (`leaf02 -> /etc` named files of /etc in its errors), and inside a device folder it
    was skipped with what it held. Refused with its path, nothing written, nothing outside
    named."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret-name.txt").write_text("not an output\n")
    outputs = tmp_path / "outputs"
    (outputs / "leaf01").mkdir(parents=True)
    shutil.copy(
        FABRIC / "snapshots" / "baseline" / "leaf01" / "show_running-config.txt",
        outputs / "leaf01" / "show_running-config.txt",
    )
    (outputs / where).symlink_to(outside, target_is_directory=True)
    out = tmp_path / "snap"
    code, text = invoke("snapshot", "import", str(outputs), "-p", "leaf*=eos", "--out", str(out))
    assert code == 2, text
    said = " ".join(text.split())
    assert f"{outputs / where}: a link to a folder, not a regular file; refused" in said
    assert "secret-name" not in said
    assert not out.exists()


def test_files_inside_a_hidden_folder_of_a_device_are_not_outputs(tmp_path: Path) -> None:
    """A device folder that is a git checkout (or holds an editor's hidden folder) imports its
    outputs only: `.git/config` was imported as an output of the device, and a FIFO inside
    `.git/` refused the whole import."""
    outputs = tmp_path / "outputs"
    (outputs / "leaf01" / ".git" / "hooks").mkdir(parents=True)
    baseline = FABRIC / "snapshots" / "baseline"
    shutil.copy(
        baseline / "leaf01" / "show_running-config.txt",
        outputs / "leaf01" / "show_running-config.txt",
    )
    (outputs / "leaf01" / ".git" / "config").write_text("[core]\n\tbare = false\n")
    if hasattr(os, "mkfifo"):
        os.mkfifo(outputs / "leaf01" / ".git" / "hooks" / "pipe")
    out = tmp_path / "snap"
    code, text = invoke("snapshot", "import", str(outputs), "-p", "leaf*=eos", "--out", str(out))
    assert code == 0, text
    manifest = json.loads((out / "manifest.json").read_text())
    assert list(manifest["devices"]["leaf01"]["files"]) == ["show running-config"]
    assert not any(p.name == "config" for p in (out / "leaf01").rglob("*"))
