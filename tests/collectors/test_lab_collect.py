"""Collect inventories/roce-pod from the lab: the live snapshot checks exactly like the original."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fabriclint.collectors.run import CollectOptions, CollectUsageError, collect
from fabriclint.collectors.store import COLLECT_RECORD
from fabriclint.snapshot import load_snapshot, read_manifest
from tests.collectors.labkit import (
    ROCE_POD,
    check,
    collect_from,
    copy_fabric,
    finding_keys,
    lab_for,
)


@pytest.mark.parametrize("name", ["baseline", "broken"])
def test_live_check_equals_offline_check(tmp_path: Path, name: str) -> None:
    original = ROCE_POD / "snapshots" / name
    out = tmp_path / "live"
    with lab_for(original) as lab:
        result = collect_from(lab, ROCE_POD, out)

    assert result.complete, [(r.name, r.status, r.reason) for r in result.failed]
    offline, live = check(ROCE_POD, original), check(ROCE_POD, out)
    assert live.report.summary.complete
    assert finding_keys(live) == finding_keys(offline)
    assert live.exit_code == offline.exit_code == (0 if name == "baseline" else 1)


def test_collected_files_are_the_devices_outputs(tmp_path: Path) -> None:
    original = ROCE_POD / "snapshots" / "broken"
    out = tmp_path / "live"
    with lab_for(original) as lab:
        collect_from(lab, ROCE_POD, out)

    before, after = load_snapshot(original), load_snapshot(out)
    for name, device in before.devices.items():
        assert device.raw is not None
        live = after.devices[name].raw
        assert live is not None, name
        for key, output in device.raw.outputs.items():
            assert live.outputs[key].text.rstrip() == output.text.rstrip(), (name, key)
    facts = json.loads((out / "leaf01" / "napalm_get_facts.txt").read_text())
    assert facts["model"] == "DCS-7060X5-64S" and facts["hostname"] == "leaf01"


def test_manifest_written_last_and_record_kept(tmp_path: Path) -> None:
    out = tmp_path / "live"
    with lab_for(ROCE_POD / "snapshots" / "baseline") as lab:
        result = collect_from(lab, ROCE_POD, out)

    manifest = read_manifest(out)
    assert manifest.source == "live"
    assert list(manifest.devices) == list(
        read_manifest(ROCE_POD / "snapshots" / "baseline").devices
    )
    record = json.loads((out / COLLECT_RECORD).read_text())
    assert record["host_key_check"].startswith("known_hosts ")
    assert record["devices"]["gpu01"]["skipped"]  # ethtool/ibstat are not on the lab hosts
    assert result.host_key_check
    assert not list(tmp_path.glob(".live.partial-*"))


def test_insecure_mode_is_recorded(tmp_path: Path) -> None:
    out = tmp_path / "live"
    with lab_for(ROCE_POD / "snapshots" / "baseline") as lab:
        result = collect_from(lab, ROCE_POD, out, no_host_key_check=True, limit=["leaf01"])
    assert result.complete and not result.host_key_check
    record = json.loads((out / COLLECT_RECORD).read_text())
    assert "DISABLED" in record["host_key_check"]


def test_unknown_host_key_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "known_hosts"
    other.write_text(
        "[127.0.0.1]:1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n"
    )
    out = tmp_path / "live"
    with lab_for(ROCE_POD / "snapshots" / "baseline") as lab:
        result = collect_from(lab, ROCE_POD, out, known_hosts=other, limit=["leaf01"])
        assert lab.stats["leaf01"].logins == 0  # no password is offered to an unverified host
    leaf = result.devices["leaf01"]
    assert leaf.status == "auth-failed"
    assert "not in" in (leaf.reason or "") and "ssh-keyscan" in (leaf.reason or "")


def test_limit_and_existing_snapshot(tmp_path: Path) -> None:
    fabric = copy_fabric(tmp_path, "baseline")
    with lab_for(fabric / "snapshots" / "baseline") as lab:
        result = collect_from(
            lab, fabric, fabric / "snapshots" / "new", limit=["role:leaf,!leaf04"]
        )
        assert sorted(result.devices) == ["leaf01", "leaf02", "leaf03"]
        assert lab.stats["spine01"].connections == 0
        with pytest.raises(CollectUsageError, match="never overwritten"):
            collect_from(lab, fabric, fabric / "snapshots" / "baseline")


def test_inputs_are_checked_before_any_connection(tmp_path: Path) -> None:
    fabric = copy_fabric(tmp_path, "baseline")
    options = CollectOptions(out=tmp_path / "x", known_hosts=tmp_path / "missing", env={})
    with pytest.raises(CollectUsageError) as info:
        collect(fabric, options)
    assert "known_hosts file not found" in str(info.value.problems[0])
    options = CollectOptions(out=tmp_path / "x", no_host_key_check=True, env={})
    with pytest.raises(CollectUsageError) as info:
        collect(fabric, options)
    message = str(info.value.problems[0])
    assert "FABRICLINT_PASSWORD" in message and "FABRICLINT_HOST_USER" in message
    assert not (tmp_path / "x").exists()


def test_output_arriving_in_pieces_is_complete(tmp_path: Path) -> None:
    """A slow device sends its output in many small reads; none may end the output early
    (the running-config names the device, like its prompt does)."""
    original = ROCE_POD / "snapshots" / "baseline"
    out = tmp_path / "live"
    with lab_for(original, ["leaf03=slow:40000", "gpu01=slow:40000"]) as lab:
        result = collect_from(lab, ROCE_POD, out, limit=["leaf03", "gpu01"])
    assert result.complete, [(r.name, r.reason) for r in result.failed]
    before, after = load_snapshot(original), load_snapshot(out)
    for name in ("leaf03", "gpu01"):
        old, new = before.devices[name].raw, after.devices[name].raw
        assert old is not None and new is not None
        for key, output in old.outputs.items():
            assert new.outputs[key].text.rstrip() == output.text.rstrip(), (name, key)
