"""`fabriclint host snapshot` (a host's commands run locally, stand-in tools on PATH) and
`snapshot merge` (host folders and a switch snapshot into one snapshot)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.cli.app import app
from fabriclint.commands import PLATFORMS, is_counter_key
from fabriclint.engine import CheckOptions, run_check
from fabriclint.hostsnap import HOST_RECORD, HostOptions, HostSnapshotError, merge, take
from fabriclint.snapshot import SnapshotError, load_snapshot, read_manifest, write_snapshot
from tests.collectors.labkit import ROCE_POD
from tests.hostkit import fake_tools

BASE = ROCE_POD / "snapshots" / "bench-before"
HOSTS = ["gpu01", "gpu02", "gpu03", "gpu04"]
runner = CliRunner()


def _env(bin_dir: Path) -> dict[str, str]:
    return {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin"}


def _host(tmp: Path, name: str, out: Path, counters: bool = False) -> Path:
    bin_dir = fake_tools(tmp / f"bin-{name}", (BASE / name).resolve())
    folder, result = take(HostOptions(out=out, name=name, counters=counters, env=_env(bin_dir)))
    assert result.status == "ok", result.reason
    return folder


def _expected_keys(name: str, counters: bool) -> set[str]:
    entry = read_manifest(BASE).devices[name]
    maps = {"ibdev2netdev", "rdma link show"}
    if counters:
        return {k for k in entry.files if is_counter_key("mlnx-host", k) or k in maps}
    return {k for k in entry.files if not is_counter_key("mlnx-host", k)}


@pytest.mark.parametrize("counters", [False, True], ids=["config", "counters"])
def test_host_snapshot_takes_exactly_the_plan_byte_for_byte(tmp_path: Path, counters: bool) -> None:
    folder = _host(tmp_path, "gpu01", tmp_path / "out", counters)
    record = json.loads((folder / HOST_RECORD).read_text())
    assert record["device"] == "gpu01" and record["status"] == "ok"
    assert set(record["files"]) == _expected_keys("gpu01", counters)
    for key, filename in record["files"].items():
        original = BASE / "gpu01" / read_manifest(BASE).devices["gpu01"].files[key]
        assert (folder / filename).read_bytes() == original.read_bytes(), key
    # tools the stand-in host lacks are "not available", not a failure
    assert any(s.startswith("lldpctl -f json") for s in record["skipped"]) is not counters
    assert not list((tmp_path / "out").glob(".*")), "no partial folder left behind"


def test_a_host_without_the_tools_is_recorded_and_incomplete(tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    result = runner.invoke(
        app,
        ["host", "snapshot", "--out", str(tmp_path / "out"), "--name", "gpu09"],
        env={"PATH": f"{empty}:/nonexistent"},
    )
    assert result.exit_code == 3, result.output
    assert "Traceback" not in result.output
    record = json.loads((tmp_path / "out" / "gpu09" / HOST_RECORD).read_text())
    assert record["status"] == "command-failed"
    assert "ibv_devinfo -v" in record["error"] and "not found" in record["error"]


def test_a_hung_optional_tool_is_killed_at_its_timeout(tmp_path: Path) -> None:
    bin_dir = fake_tools(tmp_path / "bin", (BASE / "gpu01").resolve())
    pidfile = tmp_path / "hung.pid"
    (bin_dir / "lldpctl").write_text(f"#!/bin/sh\necho $$ > {pidfile}\nsleep 60\n")
    opts = HostOptions(out=tmp_path / "out", name="gpu01", command_timeout=1, env=_env(bin_dir))
    _, result = take(opts)
    assert result.status == "ok"
    assert any("lldpctl -f json" in s and "timed out after 1 s" in s for s in result.skipped)
    pid = int(pidfile.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the hung tool's whole group was killed, not only the shell


def test_outputs_are_redacted_as_collection_does(tmp_path: Path) -> None:
    bin_dir = fake_tools(tmp_path / "bin", (BASE / "gpu01").resolve())
    (bin_dir / "lldpctl").write_text(
        '#!/bin/sh\necho \'{"lldp": {"interface": []}, "password": "hunter2-secret"}\'\n'
    )
    folder, _ = take(HostOptions(out=tmp_path / "out", name="gpu01", env=_env(bin_dir)))
    text = (folder / "lldpctl_-f_json.txt").read_text()
    assert "hunter2-secret" not in text and "<redacted>" in text


@pytest.mark.parametrize(
    ("name", "platform", "wanted"),
    [
        ("../x", "mlnx-host", "cannot name a device"),
        ("gpu01", "eos", "not a host platform"),
        ("gpu01", "nope", "not a host platform"),
    ],
)
def test_bad_options_run_nothing(tmp_path: Path, name: str, platform: str, wanted: str) -> None:
    with pytest.raises(HostSnapshotError, match=wanted):
        take(HostOptions(out=tmp_path / "out", name=name, platform=platform))
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["", " ", "gpu 01", "../x", "a/b", "-x", ".hidden"])
def test_a_bad_name_is_a_usage_error_never_another_name(tmp_path: Path, name: str) -> None:
    """`--name ""` used to fall back to $SLURMD_NODENAME (or the host name) silently."""
    out = tmp_path / "out"
    result = runner.invoke(
        app,
        ["host", "snapshot", "--out", str(out), "--name", name],
        env={"SLURMD_NODENAME": "gpu01", "PATH": "/nonexistent"},
    )
    assert result.exit_code == 2, result.output
    assert f"--name {name!r} cannot name a device" in result.output
    assert "Traceback" not in result.output
    assert not out.exists(), "nothing run, nothing written"


def test_an_existing_host_folder_is_never_overwritten(tmp_path: Path) -> None:
    (tmp_path / "out" / "gpu01").mkdir(parents=True)
    result = runner.invoke(
        app, ["host", "snapshot", "--out", str(tmp_path / "out"), "--name", "gpu01"]
    )
    assert result.exit_code == 2 and "never overwritten" in result.output


def test_the_name_comes_from_slurm_when_not_given(tmp_path: Path) -> None:
    bin_dir = fake_tools(tmp_path / "bin", (BASE / "gpu02").resolve())
    env = {**_env(bin_dir), "SLURMD_NODENAME": "gpu02"}
    folder, _ = take(HostOptions(out=tmp_path / "out", env=env))
    assert folder.name == "gpu02"


def _switches(tmp: Path) -> Path:
    """The bench-before snapshot without its hosts: what SSH collection of the switches gives."""
    snap = load_snapshot(BASE)
    devices = {
        name: (d.raw.platform, {k: o.text for k, o in d.raw.outputs.items()})
        for name, d in snap.devices.items()
        if d.raw is not None and PLATFORMS[d.raw.platform].kind != "host"
    }
    return write_snapshot(tmp / "switches", devices, source="live")


def test_merged_host_folders_check_like_the_ssh_snapshot(tmp_path: Path) -> None:
    hosts = tmp_path / "hosts"
    for name in HOSTS:
        _host(tmp_path, name, hosts)
    merged = merge(tmp_path / "merged", [_switches(tmp_path), hosts])
    assert sorted(merged.devices) == sorted(read_manifest(BASE).devices)
    ours = run_check(CheckOptions(fabric_dir=ROCE_POD, snapshot=merged.path))
    theirs = run_check(CheckOptions(fabric_dir=ROCE_POD, snapshot=BASE))
    assert ours.exit_code == theirs.exit_code == 0
    assert [f.rule for f in ours.report.findings] == [f.rule for f in theirs.report.findings]


def test_an_expected_node_that_returned_nothing_is_unreachable(tmp_path: Path) -> None:
    hosts = tmp_path / "hosts"
    _host(tmp_path, "gpu01", hosts)
    expect = dict.fromkeys(HOSTS, "mlnx-host")
    merged = merge(tmp_path / "m", [_switches(tmp_path), hosts], expect, "srun: no output")
    assert merged.missing == ["gpu02", "gpu03", "gpu04"]
    result = run_check(CheckOptions(fabric_dir=ROCE_POD, snapshot=merged.path))
    assert result.exit_code == 3
    bad = {d.name: d.status for d in result.report.devices if d.status != "ok"}
    assert bad == dict.fromkeys(["gpu02", "gpu03", "gpu04"], "unreachable")


def test_merge_refuses_a_device_twice_and_a_changed_file(tmp_path: Path) -> None:
    hosts = tmp_path / "hosts"
    folder = _host(tmp_path, "gpu01", hosts)
    with pytest.raises(SnapshotError, match=r"gpu01: in .* and in"):
        merge(tmp_path / "m1", [hosts, folder])
    (folder / "ibv_devinfo_-v.txt").write_text("changed\n")
    result = runner.invoke(app, ["snapshot", "merge", str(tmp_path / "m2"), str(hosts)])
    assert result.exit_code == 2 and "sha256 differs" in result.output
    assert not (tmp_path / "m2").exists()
    assert not list(tmp_path.glob(".m2*")), "no partial snapshot left behind"


@pytest.mark.parametrize("kind", ["snapshot", "host folder"])
def test_merge_refuses_a_file_without_a_sha256_record(tmp_path: Path, kind: str) -> None:
    """A file its source lists with no sha256 cannot be verified as it is copied: refused
    with the source and the file named (exit 2), never copied unchecked."""
    if kind == "snapshot":
        source = _switches(tmp_path)
        record_path, device = source / "manifest.json", "leaf01"
        record = json.loads(record_path.read_text())
        entry = record["devices"][device]
    else:
        source = _host(tmp_path, "gpu01", tmp_path / "hosts")
        record_path, device = source / HOST_RECORD, "gpu01"
        record = entry = json.loads(record_path.read_text())
    filename = sorted(entry["sha256"])[0]
    del entry["sha256"][filename]
    record_path.write_text(json.dumps(record))
    out = tmp_path / "m"
    result = runner.invoke(app, ["snapshot", "merge", str(out), str(source)])
    assert result.exit_code == 2, result.output
    assert f"{filename}: no sha256 record in {record_path}" in result.output
    assert "Traceback" not in result.output
    assert not out.exists() and not list(tmp_path.glob(".m.*")), "nothing written"


def test_merge_cli_writes_a_loadable_snapshot(tmp_path: Path) -> None:
    hosts = tmp_path / "hosts"
    _host(tmp_path, "gpu03", hosts)
    result = runner.invoke(app, ["snapshot", "merge", str(tmp_path / "m"), str(hosts)])
    assert result.exit_code == 0, result.output
    loaded = load_snapshot(tmp_path / "m")
    assert loaded.devices["gpu03"].status == "ok"
    again = runner.invoke(app, ["snapshot", "merge", str(tmp_path / "m"), str(hosts)])
    assert again.exit_code == 2 and "never overwritten" in again.output


def test_merge_names_the_folders_it_ignores(tmp_path: Path) -> None:
    """A node whose `host snapshot` died leaves `.gpu04.partial-*` (and a stray folder may sit
    next to the host folders): merge says it ignored them instead of dropping them unsaid."""
    hosts = tmp_path / "hosts"
    _host(tmp_path, "gpu03", hosts)
    (hosts / ".gpu04.partial-ab12").mkdir()
    (hosts / "notes").mkdir()
    (hosts / "README.txt").write_text("not a folder: not a host either\n")
    result = runner.invoke(app, ["snapshot", "merge", str(tmp_path / "m"), str(hosts)])
    assert result.exit_code == 0, result.output
    assert f"ignored: {hosts / '.gpu04.partial-ab12'} (no host.json" in result.stderr
    assert f"ignored: {hosts / 'notes'} (no host.json" in result.stderr
    assert "README.txt" not in result.stderr and "gpu03" not in result.stderr
    assert sorted(read_manifest(tmp_path / "m").devices) == ["gpu03"]


def test_merge_with_a_fabric_enters_its_missing_hosts_unreachable(tmp_path: Path) -> None:
    hosts = tmp_path / "hosts"
    _host(tmp_path, "gpu02", hosts)
    out = tmp_path / "m"
    result = runner.invoke(
        app, ["snapshot", "merge", str(out), str(hosts), "--fabric", str(ROCE_POD)]
    )
    assert result.exit_code == 0, result.output
    assert "unreachable: gpu01" in result.stderr and "unreachable: gpu02" not in result.stderr
    devices = read_manifest(out).devices
    assert {n: d.status for n, d in devices.items()} == {
        "gpu02": "ok",
        "gpu01": "unreachable",
        "gpu03": "unreachable",
        "gpu04": "unreachable",
    }


def test_the_documented_daemonset_runs_host_snapshot_as_written(tmp_path: Path) -> None:
    """docs/bench.md's DaemonSet: valid YAML whose init container's command line works."""
    import re
    import shlex

    from ruamel.yaml import YAML

    doc = (Path(__file__).resolve().parents[1] / "docs" / "bench.md").read_text()
    section = doc.split("### Kubernetes", 1)[1]
    block = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert block is not None
    ds = YAML(typ="safe").load(block[1])
    assert ds["kind"] == "DaemonSet"
    spec = ds["spec"]["template"]["spec"]
    assert spec["hostNetwork"] is True
    init = spec["initContainers"][0]
    assert init["securityContext"]["privileged"] is True
    script = init["command"][2]
    line = script.split("||")[0].replace("$(PHASE)", "config").replace("$(NODE)", "gpu01")
    argv = shlex.split(line)
    assert argv[:3] == ["fabriclint", "host", "snapshot"]
    argv = [a.replace("/out", str(tmp_path / "out")) for a in argv[1:]]
    bin_dir = fake_tools(tmp_path / "bin", (BASE / "gpu01").resolve())
    result = runner.invoke(app, argv, env={"PATH": f"{bin_dir}:/usr/bin:/bin"})
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "config" / "gpu01" / HOST_RECORD).is_file()


@pytest.mark.parametrize("inside", ["hosts", "hosts/merged", "hosts/gpu03/m"])
def test_merge_refuses_an_out_inside_a_source(tmp_path: Path, inside: str) -> None:
    """OUT in (or equal to) a SOURCE would be written into what is read, and taken as a source
    by the next merge: refused, exit 2, naming both, nothing written."""
    hosts = tmp_path / "hosts"
    _host(tmp_path, "gpu03", hosts)
    before = sorted(p.relative_to(tmp_path) for p in hosts.rglob("*"))
    out = tmp_path / inside
    result = runner.invoke(app, ["snapshot", "merge", str(out), str(tmp_path / "x"), str(hosts)])
    assert result.exit_code == 2, result.output
    assert f"{out}: inside the source {hosts}" in result.stderr
    assert sorted(p.relative_to(tmp_path) for p in hosts.rglob("*")) == before
