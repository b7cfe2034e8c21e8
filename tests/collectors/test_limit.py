"""--limit expressions and inventory overlays."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabriclint.collectors.limit import LimitError, select
from fabriclint.collectors.overlay import apply_overlay, load_overlay
from fabriclint.collectors.run import load_inventory
from tests.collectors.labkit import ROCE_POD

DEVICES = load_inventory(ROCE_POD).devices


@pytest.mark.parametrize(
    ("limit", "expected"),
    [
        ([], list(DEVICES)),
        (["leaf0[12]"], ["leaf01", "leaf02"]),
        (["role:spine"], ["spine01", "spine02"]),
        (["platform:mlnx-host,!gpu0[34]"], ["gpu01", "gpu02"]),
        (["tag:rack-b"], ["gpu03", "gpu04"]),
        (["spine01", "role:gpu"], ["spine01", "gpu01", "gpu02", "gpu03", "gpu04"]),
        (["!role:gpu"], ["spine01", "spine02", "leaf01", "leaf02", "leaf03", "leaf04"]),
    ],
)
def test_select(limit: list[str], expected: list[str]) -> None:
    assert select(DEVICES, limit) == expected


@pytest.mark.parametrize(
    ("limit", "message"), [(["nothing*"], "selects no device"), (["rack:a"], "unknown field")]
)
def test_bad_limits(limit: list[str], message: str) -> None:
    with pytest.raises(LimitError, match=message):
        select(DEVICES, limit)


def test_overlay(tmp_path: Path) -> None:
    path = tmp_path / "overlay.yaml"
    path.write_text(
        "known_hosts: kh\ndevices:\n  leaf01: {host: 127.0.0.1, port: 2201, credentials: {username_env: U}}\n"
    )
    overlay, problems = load_overlay(path, DEVICES)
    assert problems == [] and overlay is not None
    assert overlay.known_hosts == str(tmp_path / "kh")
    merged = apply_overlay(DEVICES, overlay)
    assert (merged["leaf01"].host, merged["leaf01"].port) == ("127.0.0.1", 2201)
    assert merged["leaf01"].credentials.password_env is None
    assert merged["leaf01"].role == "leaf" and DEVICES["leaf01"].port == 22
    path.write_text("devices:\n  leaf01: {prot: 1}\n")
    overlay, problems = load_overlay(path, DEVICES)
    assert overlay is None and "did you mean 'port'" in str(problems[0])
    path.write_text("devices:\n  leaf99: {port: 2201}\n")
    overlay, problems = load_overlay(path, DEVICES)
    assert overlay is None and "unknown device 'leaf99'" in str(problems[0])
