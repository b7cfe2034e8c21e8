"""The connect timeout bounds the whole login: a device slow at every step of it (banner, auth,
terminal setup) is cut when the connect timeout is spent, not after several of them."""

from __future__ import annotations

from pathlib import Path

from fabriclint.collectors.base import Timeouts
from tests.collectors.labkit import ROCE_POD, collect_from, lab_for

CONNECT = 2.0


def test_a_slow_login_is_cut_at_the_connect_timeout(tmp_path: Path) -> None:
    # 1.5 s per line: each terminal-setup command stays under the 2 s per-read limit, two of
    # them do not fit in the 2 s connect timeout
    limits = Timeouts(connect=CONNECT, command=10.0, device=40.0)
    with lab_for(ROCE_POD / "snapshots" / "baseline", ["leaf01=latency:1.5"]) as lab:
        result = collect_from(
            lab, ROCE_POD, tmp_path / "live", timeouts=limits, retries=0, facts=False
        )
        commands = [line for line in lab.stats["leaf01"].received if line.startswith("show")]
    leaf = result.devices["leaf01"]
    assert leaf.status == "timeout", (leaf.status, leaf.reason, leaf.seconds)
    assert f"connect timeout ({CONNECT:g} s)" in str(leaf.reason)
    # cut during login: no fabric command was sent. The second setup line is answered 3 s
    # in: a login cut only after several connect timeouts (or a limit per step) would have
    # ended and sent the fabric's commands.
    assert commands == []
    others = [r for name, r in result.devices.items() if name != "leaf01"]
    assert all(r.status == "ok" for r in others)
