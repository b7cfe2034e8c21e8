"""Snapshot reading: manifest, per-device status, integrity, atomic writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fabriclint.snapshot import (
    SnapshotError,
    atomic_write,
    command_to_filename,
    load_configs,
    load_snapshot,
    newest_snapshot,
    write_snapshot,
)


def test_filename_convention() -> None:
    assert command_to_filename("show running-config") == "show_running-config.txt"
    assert command_to_filename("grep -rH . /sys/class/net/eth0/ecn") == (
        "grep_-rH_._%2Fsys%2Fclass%2Fnet%2Feth0%2Fecn.txt"
    )


def test_round_trip(tmp_path: Path) -> None:
    write_snapshot(tmp_path, {"leaf01": ("eos", {"show running-config": "hostname leaf01\n"})})
    snap = load_snapshot(tmp_path)
    dev = snap.devices["leaf01"]
    assert dev.status == "ok" and dev.raw is not None
    assert dev.raw.outputs["show running-config"].text == "hostname leaf01\n"


def test_status_and_missing_file_and_checksum(tmp_path: Path) -> None:
    write_snapshot(
        tmp_path,
        {
            "leaf01": ("eos", {"show running-config": "a\n"}),
            "leaf02": ("eos", {"show running-config": "b\n"}),
            "leaf03": ("eos", {}),
        },
        statuses={"leaf03": ("unreachable", "connect timed out after 10 s")},
    )
    (tmp_path / "leaf01" / "show_running-config.txt").unlink()
    (tmp_path / "leaf02" / "show_running-config.txt").write_text("edited\n")
    snap = load_snapshot(tmp_path)
    assert snap.devices["leaf01"].status == "missing-file"
    assert snap.devices["leaf02"].status == "checksum-mismatch"
    assert snap.devices["leaf03"].status == "unreachable"
    assert snap.devices["leaf03"].error == "connect timed out after 10 s"


def test_checksum_mismatch_names_the_rehash_for_a_deliberate_edit(tmp_path: Path) -> None:
    """A pre-change review edits a copied snapshot: the reason says which command accepts it."""
    write_snapshot(tmp_path, {"leaf01": ("eos", {"show running-config": "a\n"})})
    (tmp_path / "leaf01" / "show_running-config.txt").write_text("edited\n")
    error = load_snapshot(tmp_path).devices["leaf01"].error or ""
    assert "sha256 differs" in error and "fabriclint snapshot rehash " in error, error


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no manifest.json"),
        ("{not json", "manifest.json:1:2: invalid JSON"),
        (
            json.dumps({"fabriclint": "0", "created": "x", "source": "bogus", "devices": {}}),
            "source",
        ),
    ],
)
def test_bad_manifest(tmp_path: Path, content: str | None, message: str) -> None:
    if content is not None:
        (tmp_path / "manifest.json").write_text(content)
    with pytest.raises(SnapshotError, match=message):
        load_snapshot(tmp_path)


def test_configs_folder(tmp_path: Path) -> None:
    (tmp_path / "leaf01.cfg").write_text("hostname leaf01\n")
    (tmp_path / "stray.cfg").write_text("x\n")
    snap = load_configs(tmp_path, {"leaf01": "eos"})
    assert snap.devices["leaf01"].raw is not None
    assert "show running-config" in snap.devices["leaf01"].raw.outputs
    assert snap.devices["stray"].raw is not None and snap.devices["stray"].raw.platform == "unknown"


@pytest.mark.parametrize(
    ("names", "refused"),
    [
        (["leaf01.cfg", "leaf01.old"], True),  # the stale .old sorted last and was checked
        (["leaf01.cfg", "leaf01.txt"], True),
        (["leaf01.cfg", "leaf01.cfg.bak", ".leaf01.swp"], False),  # other stems, a hidden file
        (["stray.cfg", "stray.txt", "leaf01.cfg"], False),  # not an inventory device
    ],
)
def test_two_configs_of_one_device_are_refused(
    tmp_path: Path, names: list[str], refused: bool
) -> None:
    for name in names:
        (tmp_path / name).write_text(f"hostname {name}\n")
    if not refused:
        raw = load_configs(tmp_path, {"leaf01": "eos"}).devices["leaf01"].raw
        assert raw is not None and "leaf01.cfg" in raw.outputs["show running-config"].file
        return
    with pytest.raises(SnapshotError, match=r"leaf01\.cfg and leaf01\.\w+ are both configs"):
        load_configs(tmp_path, {"leaf01": "eos"})


def test_newest_snapshot_ignores_half_written(tmp_path: Path) -> None:
    write_snapshot(tmp_path / "a", {"x": ("eos", {"c": "t"})})
    (tmp_path / "b").mkdir()  # no manifest: a half-written snapshot must not be picked
    assert newest_snapshot(tmp_path) == tmp_path / "a"
    assert newest_snapshot(tmp_path / "nothing") is None


def test_newest_snapshot_by_manifest_time_not_file_time(tmp_path: Path) -> None:
    for name, created in (
        ("2026-11-28T0200Z", "2026-11-28T02:00:00Z"),
        ("old", "2026-01-01T00:00:00Z"),
    ):
        write_snapshot(tmp_path / name, {"x": ("eos", {"c": "t"})})
        manifest = tmp_path / name / "manifest.json"
        data = json.loads(manifest.read_text())
        data["created"] = created
        manifest.write_text(json.dumps(data))
    assert newest_snapshot(tmp_path) == tmp_path / "2026-11-28T0200Z"


def test_atomic_write_keeps_old_file_on_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.json"
    target.write_text("old")

    def boom(*_: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", boom)
    with pytest.raises(OSError):
        atomic_write(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def _manifest(tmp_path: Path, body: str) -> None:
    (tmp_path / "manifest.json").write_text(body)


def test_duplicate_device_in_manifest_is_an_input_error(tmp_path: Path) -> None:
    entry = '{"platform": "eos", "status": "%s", "files": {}}'
    _manifest(
        tmp_path,
        '{"fabriclint": "0", "created": "x", "source": "live", "devices": {\n'
        f'  "leaf01": {entry % "unreachable"},\n'
        f'  "leaf01": {entry % "ok"}\n'
        "}}",
    )
    with pytest.raises(SnapshotError, match=r"manifest.json:3: duplicate key 'leaf01'"):
        load_snapshot(tmp_path)


@pytest.mark.parametrize("name", ["/etc/passwd", "../../outside.txt", "a/../../b.txt"])
def test_manifest_file_names_stay_inside_the_snapshot(tmp_path: Path, name: str) -> None:
    body = {
        "fabriclint": "0",
        "created": "x",
        "source": "live",
        "devices": {"leaf01": {"platform": "eos", "files": {"show running-config": name}}},
    }
    _manifest(tmp_path, json.dumps(body))
    with pytest.raises(SnapshotError, match="must stay inside the device's folder"):
        load_snapshot(tmp_path)


def test_manifest_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_bytes(b'{"fabriclint": "\xff"}')
    with pytest.raises(SnapshotError, match="not UTF-8"):
        load_snapshot(tmp_path)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("net add interface swp1 mtu 9216\n", "net show configuration commands"),
        ("traffic.packet_priority_source_set = [dscp]\n", "/etc/cumulus/datapath/traffic.conf"),
        ("- set:\n    qos:\n      roce:\n        enable: on\n", "nv config show -o yaml"),
    ],
)
def test_cumulus_config_form_is_recognized(tmp_path: Path, text: str, key: str) -> None:
    (tmp_path / "leaf01.cfg").write_text(text)
    raw = load_configs(tmp_path, {"leaf01": "cumulus"}).devices["leaf01"].raw
    assert raw is not None and list(raw.outputs) == [key]
