"""Shared fixtures: a small valid fabric directory written into tmp_path; Ctrl-C as from a
terminal for the processes the tests start."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True, scope="session")
def _terminal_sigint() -> Iterator[None]:
    """Processes the tests start get Ctrl-C's default disposition, as from a terminal, even
    when this run ignores SIGINT (a background job, nohup), which they would inherit: the
    tests that interrupt a `collect` or a `check --jobs` would otherwise see it run to its end."""
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # reset to default by exec
    yield
    signal.signal(signal.SIGINT, previous)


INVENTORY = """\
name: tiny
devices:
  leaf01: {platform: eos, role: leaf, host: 192.0.2.1}
  gpu01: {platform: mlnx-host, role: gpu, host: 192.0.2.11}
links:
  - {a: "leaf01:Ethernet1", b: "gpu01:ens1np0"}
"""

INTENT = """\
profiles:
  roce:
    trust: dscp
    roce: {dscp: [26], priority: 3}
    cnp: {dscp: 48, priority: 6}
    pfc: {priorities: [3], watchdog: {enabled: true}}
    mtu: {switch_port: 9214, host: 9000, roce: 4096}
roles:
  leaf: {profile: roce}
  gpu: {profile: roce}
"""


@pytest.fixture
def fabric_dir(tmp_path: Path) -> Path:
    """A valid fabric directory with inventory and intent (no policy: the default pack applies)."""
    root = tmp_path / "fabric"
    root.mkdir()
    (root / "inventory.yaml").write_text(INVENTORY)
    (root / "intent.yaml").write_text(INTENT)
    return root
