"""Adversarial inputs: device names that are paths, symlinks out of a snapshot or fabric folder,
FIFOs and device nodes, oversized files, policy packs from anywhere, manifests without checksums.

Each test names the trick; the fabric is a copy of roce-pod (exit 0 on its baseline).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.confine import MAX_FILE_SIZE_ENV, UnsafeInput, read_inside
from fabriclint.loaders.fabric import PACKS_DIR
from fabriclint.snapshot import load_configs, sha256_of

ROOT = Path(__file__).resolve().parents[1]
POD = ROOT / "inventories" / "roce-pod"
RUNNING = "show_running-config.txt"
runner = CliRunner()


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env=env)
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


@pytest.fixture
def pod(tmp_path: Path) -> Path:
    """roce-pod with only its baseline snapshot."""
    root = tmp_path / "pod"
    root.mkdir()
    for name in ("inventory.yaml", "intent.yaml", "policy.yaml"):
        shutil.copy(POD / name, root / name)
    shutil.copytree(POD / "snapshots" / "baseline", root / "snapshots" / "baseline")
    return root


def manifest(snapshot: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((snapshot / "manifest.json").read_text())
    return data


def save(snapshot: Path, data: dict[str, Any]) -> None:
    (snapshot / "manifest.json").write_text(json.dumps(data, indent=2))


def report(pod: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    code, out = invoke("check", str(pod), "-s", "baseline", "-f", "json", *args, env=env)
    data: dict[str, Any] = json.loads(out[out.index("{") :])
    return code, data


def statuses(data: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    return {d["name"]: (d["status"], d["error"]) for d in data["devices"]}


# ---- device names ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["/etc", "../../../x/dev", "rack1/leaf01", "..", "-rf", ".hidden"])
def test_manifest_device_name_that_is_a_path_is_an_input_error(pod: Path, name: str) -> None:
    snapshot = pod / "snapshots" / "baseline"
    data = manifest(snapshot)
    data["devices"][name] = {"platform": "eos", "files": {"show running-config": "passwd"}}
    save(snapshot, data)
    code, out = invoke("check", str(pod), "-s", "baseline")
    assert code == 2, out
    assert "manifest.json" in out and "one path component" in out


@pytest.mark.parametrize("name", ["/etc", "../../../x/dev", "rack1/leaf01", "a b", "-x"])
def test_inventory_device_name_that_is_a_path_is_a_located_validate_error(
    pod: Path, name: str
) -> None:
    text = (pod / "inventory.yaml").read_text()
    (pod / "inventory.yaml").write_text(
        text.replace("devices:\n", f'devices:\n  "{name}": {{platform: eos, role: leaf}}\n', 1)
    )
    line = (
        (pod / "inventory.yaml")
        .read_text()
        .splitlines()
        .index(f'  "{name}": {{platform: eos, role: leaf}}')
    )
    code, out = invoke("validate", str(pod))
    assert code == 2
    assert f"inventory.yaml:{line + 1}:3:" in out and "one path component" in out


def test_ordinary_device_names_stay_valid(pod: Path) -> None:
    text = (pod / "inventory.yaml").read_text()
    extra = "  leaf-01.dc_2: {platform: eos, role: leaf}\n  _9: {platform: eos, role: leaf}\n"
    (pod / "inventory.yaml").write_text(text.replace("devices:\n", "devices:\n" + extra, 1))
    assert invoke("validate", str(pod))[0] == 0


# ---- symlinks, FIFOs, device nodes, sizes ------------------------------------------------------


def test_device_folder_linked_outside_the_snapshot_is_refused(pod: Path, tmp_path: Path) -> None:
    snapshot = pod / "snapshots" / "baseline"
    outside = tmp_path / "elsewhere"
    shutil.move(snapshot / "leaf01", outside)
    (snapshot / "leaf01").symlink_to(outside, target_is_directory=True)
    code, data = report(pod)
    assert code == 3
    status, error = statuses(data)["leaf01"]
    assert status == "unsafe-path" and error is not None and "outside" in error


def test_file_linked_to_etc_passwd_is_refused(pod: Path) -> None:
    config = pod / "snapshots" / "baseline" / "leaf02" / RUNNING
    config.unlink()
    config.symlink_to("/etc/passwd")
    code, data = report(pod)
    assert code == 3
    assert statuses(data)["leaf02"][0] == "unsafe-path"


def test_link_inside_the_snapshot_is_followed(pod: Path) -> None:
    folder = pod / "snapshots" / "baseline" / "leaf01"
    (folder / "copy.txt").write_bytes((folder / RUNNING).read_bytes())
    (folder / RUNNING).unlink()
    (folder / RUNNING).symlink_to("copy.txt")
    code, data = report(pod)
    assert code == 0 and statuses(data)["leaf01"] == ("ok", None)


def _check_in_subprocess(pod: Path) -> subprocess.CompletedProcess[str]:
    """A hang must fail the test, not the suite: the check runs with a timeout."""
    code = "from fabriclint.cli.app import main; main()"
    args = [sys.executable, "-c", code, "check", str(pod), "-s", "baseline", "-f", "json"]
    return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)


def test_fifo_in_a_snapshot_is_refused_not_waited_on(pod: Path) -> None:
    config = pod / "snapshots" / "baseline" / "leaf03" / RUNNING
    config.unlink()
    os.mkfifo(config)
    done = _check_in_subprocess(pod)
    assert done.returncode == 3, done.stderr
    assert statuses(json.loads(done.stdout))["leaf03"][0] == "not-a-file"


def test_file_linked_to_dev_zero_is_refused(pod: Path) -> None:
    folder = pod / "snapshots" / "baseline" / "leaf03"
    (folder / RUNNING).unlink()
    (folder / RUNNING).symlink_to("/dev/zero")
    done = _check_in_subprocess(pod)
    assert done.returncode == 3, done.stderr
    assert statuses(json.loads(done.stdout))["leaf03"][0] == "unsafe-path"


def test_device_node_is_never_read_even_inside_its_root() -> None:
    with pytest.raises(UnsafeInput, match="not a regular file") as caught:
        read_inside(Path("/dev/zero"), Path("/"))
    assert caught.value.kind == "not-a-file"


def test_per_file_size_limit_is_configurable(pod: Path) -> None:
    code, data = report(pod, env={MAX_FILE_SIZE_ENV: "32K"})
    assert code == 3
    status, error = statuses(data)["leaf01"]
    assert status == "too-large" and error is not None
    assert (
        "show_interfaces.txt" in error
        and "32 KiB per-file limit" in error
        and MAX_FILE_SIZE_ENV in error
    )
    assert report(pod, env={MAX_FILE_SIZE_ENV: "64M"})[0] == 0


def test_a_size_limit_that_is_not_a_size_is_a_usage_error(pod: Path) -> None:
    code, out = invoke("check", str(pod), "-s", "baseline", env={MAX_FILE_SIZE_ENV: "lots"})
    assert code == 2 and MAX_FILE_SIZE_ENV in out and "not a size" in out


def test_manifest_linked_outside_is_refused(pod: Path, tmp_path: Path) -> None:
    snapshot = pod / "snapshots" / "baseline"
    shutil.move(snapshot / "manifest.json", tmp_path / "manifest.json")
    (snapshot / "manifest.json").symlink_to(tmp_path / "manifest.json")
    code, out = invoke("check", str(pod), "-s", "baseline")
    assert code == 2 and "outside" in out


def test_named_snapshot_linked_outside_the_fabric_is_refused(pod: Path, tmp_path: Path) -> None:
    shutil.move(pod / "snapshots" / "baseline", tmp_path / "real")
    (pod / "snapshots" / "baseline").symlink_to(tmp_path / "real", target_is_directory=True)
    code, out = invoke("check", str(pod), "-s", "baseline")
    assert code == 2 and "outside the fabric folder" in out


def test_newest_snapshot_never_picks_a_link_outside(pod: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    shutil.copytree(pod / "snapshots" / "baseline", other)
    data = manifest(other)
    data["created"] = "2999-01-01T00:00:00Z"  # would be the newest
    save(other, data)
    (pod / "snapshots" / "zzz").symlink_to(other, target_is_directory=True)
    code, out = invoke("check", str(pod), "-f", "json")
    assert code == 0
    assert json.loads(out)["snapshot"].endswith("baseline")


@pytest.mark.parametrize("name", ["inventory.yaml", "policy.yaml"])
def test_fabric_file_linked_outside_is_refused(pod: Path, tmp_path: Path, name: str) -> None:
    shutil.move(pod / name, tmp_path / name)
    (pod / name).symlink_to(tmp_path / name)
    code, out = invoke("validate", str(pod))
    assert code == 2 and f"{name}:1:1:" in out and "outside" in out


def test_fabric_file_that_is_a_fifo_is_refused(pod: Path) -> None:
    (pod / "policy.yaml").unlink()
    os.mkfifo(pod / "policy.yaml")
    code, out = invoke("validate", str(pod))
    assert code == 2 and "not a regular file" in out


def test_configs_folder_link_outside_is_refused(tmp_path: Path) -> None:
    configs = tmp_path / "rendered"
    configs.mkdir()
    (configs / "leaf01.cfg").symlink_to("/etc/passwd")
    (configs / "leaf02.cfg").write_text("hostname leaf02\n")
    snap = load_configs(configs, {"leaf01": "eos", "leaf02": "eos"})
    assert snap.devices["leaf01"].status == "unsafe-path" and snap.devices["leaf01"].raw is None
    assert snap.devices["leaf02"].status == "ok"


# ---- policy packs -----------------------------------------------------------------------------


@pytest.mark.parametrize("relative_to", ["fabric", "builtin-packs"])
def test_policy_pack_outside_the_fabric_is_refused(
    pod: Path, tmp_path: Path, relative_to: str
) -> None:
    (tmp_path / "somewhere").mkdir()
    (tmp_path / "somewhere" / "pack.yaml").write_text("ignore: [PFC]\n")
    if relative_to == "fabric":
        name = "../somewhere/pack.yaml"
    else:  # the old lookup joined the name to the built-in folder: any YAML file on disk
        name = os.path.relpath(tmp_path / "somewhere" / "pack", PACKS_DIR)
    (pod / "policy.yaml").write_text(f"extends: ['{name}']\n")
    code, out = invoke("validate", str(pod))
    assert code == 2
    assert "policy.yaml:1:" in out and "policy pack" in out


@pytest.mark.parametrize("name", ["../../../../../../etc/passwd", "/etc/passwd", "/etc/hostname"])
def test_policy_pack_by_path_cannot_leave_the_fabric(pod: Path, name: str) -> None:
    (pod / "policy.yaml").write_text(f"extends: ['{name}']\n")
    code, out = invoke("validate", str(pod))
    assert code == 2 and "policy.yaml:1:" in out and "policy pack" in out


def test_policy_pack_inside_the_fabric_is_used(pod: Path) -> None:
    (pod / "packs").mkdir()
    (pod / "packs" / "site.yaml").write_text("extends: [strict]\nignore: [PFC]\n")
    (pod / "policy.yaml").write_text("extends: ['packs/site.yaml']\n")
    assert invoke("validate", str(pod))[0] == 0
    code, data = report(pod, "--select", "ALL")
    assert code == 0 and not [f for f in data["findings"] if f["rule"].startswith("PFC")]


# ---- manifests without checksums --------------------------------------------------------------


def test_manifest_without_checksums_is_reported(pod: Path) -> None:
    snapshot = pod / "snapshots" / "baseline"
    data = manifest(snapshot)
    del data["devices"]["leaf01"]["sha256"]
    data["devices"]["leaf02"]["sha256"].pop(RUNNING)
    save(snapshot, data)
    code, found = report(pod)
    unverified = sorted(
        (f["device"], f["severity"]) for f in found["findings"] if f["rule"] == "PARSE004"
    )
    assert unverified == [("leaf01", "warning"), ("leaf02", "warning")]
    assert code == 0  # a warning: the default gate still passes


def test_strict_pack_fails_a_manifest_without_checksums(pod: Path) -> None:
    snapshot = pod / "snapshots" / "baseline"
    data = manifest(snapshot)
    data["devices"]["leaf01"]["sha256"] = {}
    save(snapshot, data)
    (pod / "policy.yaml").write_text("extends: [strict]\n")
    code, found = report(pod, "--select", "PARSE")
    assert code == 1
    assert [(f["device"], f["severity"]) for f in found["findings"]] == [("leaf01", "error")]


def test_checksums_still_catch_a_changed_file(pod: Path) -> None:
    config = pod / "snapshots" / "baseline" / "leaf01" / RUNNING
    config.write_text(config.read_text() + "!\n")
    assert (
        sha256_of(config.read_bytes())
        != manifest(config.parents[1])["devices"]["leaf01"]["sha256"][RUNNING]
    )
    code, data = report(pod)
    assert code == 3 and statuses(data)["leaf01"][0] == "checksum-mismatch"


@pytest.mark.parametrize("filename", ["x\u0000y", "a\nb.txt"])
def test_manifest_file_name_with_a_control_character_is_an_input_error(
    pod: Path, filename: str
) -> None:
    snapshot = pod / "snapshots" / "baseline"
    data = manifest(snapshot)
    data["devices"]["leaf01"]["files"]["show running-config"] = filename
    save(snapshot, data)
    code, out = invoke("check", str(pod), "-s", "baseline")
    assert code == 2 and "control character" in out


def test_a_name_with_nul_is_refused_not_a_crash(tmp_path: Path) -> None:
    with pytest.raises(UnsafeInput, match="not a valid file name"):
        read_inside(tmp_path / "a\u0000b", tmp_path)


def test_overlay_device_name_that_is_a_path_is_refused(tmp_path: Path) -> None:
    from fabriclint.collectors.overlay import load_overlay
    from fabriclint.models.inventory import Device

    path = tmp_path / "overlay.yaml"
    path.write_text("devices:\n  ../leaf01: {host: 127.0.0.1}\n")
    overlay, problems = load_overlay(path, {"leaf01": Device(platform="eos", role="leaf")})
    assert overlay is None
    assert any("overlay.yaml:2:3:" in str(p) and "one path component" in str(p) for p in problems)


def test_collect_refuses_an_inventory_name_that_is_a_path_before_contacting(pod: Path) -> None:
    text = (pod / "inventory.yaml").read_text()
    line = '  "rack1/leaf01": {platform: eos, role: leaf, host: 127.0.0.1, port: 1}\n'
    (pod / "inventory.yaml").write_text(text.replace("devices:\n", "devices:\n" + line, 1))
    code, out = invoke("collect", str(pod), "--insecure-no-host-key-check", "--out", str(pod / "x"))
    assert code == 2 and "one path component" in out and not (pod / "x").exists()
