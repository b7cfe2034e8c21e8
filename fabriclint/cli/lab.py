"""`fabriclint lab serve`: serve a snapshot's devices as SSH servers on 127.0.0.1 (a test lab)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import typer

from fabriclint.cli.errors import echo, emit, fail

app = typer.Typer(help="A simulated-device lab for trying `collect` and `check --live`.")


def _snapshot_dir(fabric: Path, snapshot: str) -> Path:
    path = Path(snapshot)
    if not path.is_dir():
        path = fabric / "snapshots" / snapshot
    if not (path / "manifest.json").is_file():
        raise fail([f"{path}: not a snapshot (no manifest.json)"])
    return path


def _stop_on_sigterm() -> None:
    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


@app.command("serve")
def serve(
    fabric: Path = typer.Argument(
        ..., help="Fabric directory holding the snapshot.", metavar="FABRIC"
    ),
    snapshot: str = typer.Option(
        ...,
        "--snapshot",
        "-s",
        help="Snapshot name under FABRIC/snapshots/, or a path.",
        metavar="TEXT",
    ),
    fault: list[str] | None = typer.Option(
        None,
        "--fault",
        help="GLOB=kind[:value][,...]: wrong-password, refuse, hang, stall, "
        "slow[:BPS], latency:S, legacy-ssh, fail-command.",
        metavar="TEXT",
    ),
    latency: float = typer.Option(
        0.0,
        "--latency",
        min=0.0,
        help="Seconds added to every command.",
        metavar="NUMBER",
    ),
    overlay_out: Path | None = typer.Option(
        None,
        "--overlay-out",
        help="Write the inventory overlay here (default: print it).",
        metavar="PATH",
    ),
    username: str = typer.Option(
        "fabriclint", "--username", help="Login name the lab accepts.", metavar="TEXT"
    ),
    counters: str | None = typer.Option(
        None,
        "--counters",
        help="Counter scenario: counters advance one interval per collection (healthy, "
        "pause-storm, ecn-off, cnp-ignored, lossy-drops); the snapshot must hold counters.",
        metavar="SCENARIO",
    ),
    duration: float | None = typer.Option(
        None,
        "--duration",
        min=0.0,
        help="Stop after this many seconds (default: until Ctrl-C).",
        metavar="NUMBER",
    ),
) -> None:
    """Serve every device of a snapshot over SSH on 127.0.0.1, one port each, until Ctrl-C.

    The password is $FABRICLINT_LAB_PASSWORD, or a random one printed on stderr.
    """
    from fabriclint.confine import UnsafeInput
    from fabriclint.lab.device import load_snapshot_devices
    from fabriclint.lab.faults import FaultError, parse_faults
    from fabriclint.lab.server import PASSWORD_ENV, USER_ENV, Lab
    from fabriclint.snapshot import SnapshotError

    try:
        devices = load_snapshot_devices(_snapshot_dir(fabric, snapshot))
        specs = list(fault or []) + ([f"*=latency:{latency}"] if latency else [])
        faults = parse_faults(specs, [d.name for d in devices])
    except (SnapshotError, FaultError, UnsafeInput, OSError) as exc:
        raise fail([str(exc)]) from None
    for device in devices:
        device.fault = faults.get(device.name, device.fault)
    if counters is not None:
        _move_counters(fabric, devices, counters)
    lab = Lab(devices, username=username, password=os.environ.get(PASSWORD_ENV))
    _stop_on_sigterm()
    lab.start()
    try:
        _announce(lab, overlay_out, generated=PASSWORD_ENV not in os.environ)
        echo(
            f"lab: {len(devices)} devices on 127.0.0.1 ({USER_ENV}={username}); Ctrl-C stops",
            err=True,
        )
        _wait(duration)
    except KeyboardInterrupt:
        pass
    finally:
        lab.stop()
    echo("lab: stopped", err=True)


def _move_counters(fabric: Path, devices: list[Any], scenario: str) -> None:
    """`--counters SCENARIO`: the devices' counters advance per collection (lab/counters.py)."""
    from fabriclint.collectors.run import CollectUsageError, load_inventory
    from fabriclint.lab.counters import ScenarioError, attach

    try:
        inventory = load_inventory(fabric)
        cables = [link.ends() for link in inventory.links]
        moved = attach(devices, cables, scenario)
    except CollectUsageError as exc:
        raise fail(exc.problems) from None
    except ScenarioError as exc:
        raise fail([str(exc)]) from None
    if moved == 0:
        raise fail(
            [f"--counters {scenario}: no served device has counter outputs the lab can move"]
        )
    echo(f"lab: counters of {moved} devices move per collection ({scenario})", err=True)


def _announce(lab: Any, overlay_out: Path | None, generated: bool) -> None:
    text = lab.overlay_yaml()
    emit(text, overlay_out, announce="lab: wrote")
    if generated:  # a throw-away password for a lab on 127.0.0.1, shown so it can be exported
        echo(f"lab: export FABRICLINT_LAB_PASSWORD={lab.password}", err=True)


def _wait(duration: float | None) -> None:
    end = time.monotonic() + duration if duration is not None else None
    while end is None or time.monotonic() < end:
        time.sleep(0.2 if end is None else max(0.0, min(0.2, end - time.monotonic())))
