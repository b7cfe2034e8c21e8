"""`collect --counters` against the lab (127.0.0.1): only counter commands are sent, the
snapshot holds only counter outputs, and two collections judged by `fabriclint counters` give
the same findings as the stored bench snapshots."""

from __future__ import annotations

from pathlib import Path

from fabriclint.commands import COUNTER_COMMANDS, counter_allowed, is_allowed, is_counter_key
from fabriclint.counterrun import CounterOptions, run_counters
from fabriclint.snapshot import load_snapshot
from tests.collectors.labkit import ROCE_POD, collect_from, lab_for

BENCH = ROCE_POD / "snapshots"


def _findings(
    before: Path | str, after: Path | str, config: str | None = None
) -> list[tuple[str, str | None, str]]:
    opts = CounterOptions(
        fabric_dir=ROCE_POD, before=before, after=after, config=config, interval_s=600
    )
    result = run_counters(opts)
    assert result.report.summary.complete, [
        (d.name, d.status, d.error) for d in result.report.devices
    ]
    return sorted((f.rule, f.device, f.object) for f in result.report.findings)


def test_two_counter_collections_find_the_seeded_faults(tmp_path: Path) -> None:
    sides = {}
    for name in ("bench-before", "bench-after"):
        out = tmp_path / name / "snap"
        out.parent.mkdir()
        with lab_for(BENCH / name) as lab:
            result = collect_from(lab, ROCE_POD, out, counters=True)
        assert result.complete, [(r.name, r.status, r.reason) for r in result.failed]
        sides[name] = out
    snap = load_snapshot(sides["bench-after"])
    for device in snap.devices.values():
        assert device.raw is not None
        keys = set(device.raw.outputs)
        assert keys and all(
            is_counter_key(device.raw.platform, k) or k == "ibdev2netdev" for k in keys
        ), keys
    live = _findings(sides["bench-before"], sides["bench-after"], config="bench-after")
    stored = _findings("bench-before", "bench-after")
    assert live == stored and len(live) == 8


def test_counter_commands_are_allowlisted_and_read_only() -> None:
    for platform, plan in COUNTER_COMMANDS.items():
        for spec in plan.commands:
            assert is_allowed(platform, spec.command) and counter_allowed(platform, spec.command)
    assert is_allowed("mlnx-host", "ethtool -S ens1np0")
    assert is_allowed(
        "mlnx-host", "sudo -n grep -rH . /sys/class/infiniband/mlx5_0/ports/1/hw_counters"
    )
    for command in (
        "ethtool -S ens1np0; reboot",
        "ethtool -s ens1np0 speed 1000",
        "ethtool -S $(reboot)",
        "grep -rH . /sys/class/infiniband/../../../etc/shadow/ports/1/hw_counters",
        "grep -rH . /sys/class/infiniband/mlx5_0/ports/1/hw_counters/../../../../../../etc",
        "sonic-clear pfccounters",
        "pfcstat -c",
    ):
        assert not is_allowed("mlnx-host", command) and not is_allowed("sonic", command), command
    assert not is_allowed("eos", "clear priority-flow-control counters")
