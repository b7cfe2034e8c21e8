"""Scale benchmark of live collection: N lab devices, L seconds of added latency per command.

A synthetic fabric (60 % EOS switches answering with roce-pod's leaf01 outputs, 40 % ConnectX
hosts answering with gpu01's) is served by the lab in a subprocess (so the lab and the
collector do not share a GIL), then collected in this process with `collect()`. Prints

* wall: the collection's wall time;
* ideal: devices x commands x latency / workers, with `commands` the mean number of commands
  fabriclint sent per device (counted by the lab);
* their ratio, what else the lab received (netmiko's terminal setup and logout, also delayed),
  and the collector's peak memory (VmHWM).

    python benchmarks/collect_scale.py                       # 500 devices, 50 ms, default workers
    python benchmarks/collect_scale.py --devices 100 --workers 32
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

EXAMPLE = ROOT / "inventories" / "roce-pod" / "snapshots" / "baseline"
PASSWORD = "bench-lab-password"
WAIT = 300.0


def _rss_mb() -> float:
    """Peak resident set size of this process, MB (VmHWM; ru_maxrss elsewhere)."""
    status = Path("/proc/self/status")
    if status.is_file():
        found = re.search(r"^VmHWM:\s+(\d+) kB", status.read_text(), re.M)
        if found:
            return int(found.group(1)) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _outputs(name: str) -> dict[str, str]:
    manifest = json.loads((EXAMPLE / "manifest.json").read_text())["devices"][name]
    return {key: (EXAMPLE / name / file).read_text() for key, file in manifest["files"].items()}


def build(root: Path, devices: int) -> Path:
    """A fabric of `devices` (inventory + `seed` snapshot) under `root`."""
    import yaml

    from fabriclint.snapshot import write_snapshot

    switches = devices * 3 // 5
    leaf, gpu = _outputs("leaf01"), _outputs("gpu01")
    inventory: dict[str, Any] = {"name": "bench", "devices": {}}
    snapshot: dict[str, tuple[str, dict[str, str]]] = {}
    for i in range(devices):
        name, platform = (f"sw{i:04d}", "eos") if i < switches else (f"gpu{i:04d}", "mlnx-host")
        inventory["devices"][name] = {"platform": platform, "role": "x", "host": "192.0.2.1"}
        snapshot[name] = (platform, leaf if platform == "eos" else gpu)
    root.mkdir(parents=True)
    (root / "inventory.yaml").write_text(yaml.safe_dump(inventory))
    write_snapshot(root / "snapshots" / "seed", snapshot, source="import")
    return root


def serve(fabric: Path, latency: float, overlay: Path, stats: Path) -> None:
    """Lab subprocess: serve the seed snapshot until SIGTERM, then write per-device stats."""
    from fabriclint.lab.device import load_snapshot_devices
    from fabriclint.lab.faults import Fault
    from fabriclint.lab.server import Lab
    from fabriclint.snapshot import atomic_write

    devices = load_snapshot_devices(fabric / "snapshots" / "seed")
    for device in devices:
        device.fault = Fault(latency=latency)
    stop: list[int] = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    with Lab(devices, password=PASSWORD) as lab:
        atomic_write(overlay, lab.overlay_yaml())  # the parent waits for the file to appear
        while not stop:
            time.sleep(0.1)
        received = {name: s.received for name, s in lab.stats.items()}
        platforms = {name: d.platform for name, d in lab.devices.items()}
    stats.write_text(json.dumps({"received": received, "platforms": platforms}))


def _start_lab(
    fabric: Path, latency: float, work: Path
) -> tuple[subprocess.Popen[bytes], Path, Path]:
    overlay, stats = work / "overlay.yaml", work / "stats.json"
    args = [
        sys.executable,
        __file__,
        "--serve",
        str(fabric),
        str(latency),
        str(overlay),
        str(stats),
    ]
    lab = subprocess.Popen(args)
    end = time.monotonic() + WAIT
    while not overlay.is_file():
        if time.monotonic() > end or lab.poll() is not None:
            lab.kill()
            raise SystemExit("the lab did not start")
        time.sleep(0.1)
    return lab, overlay, stats


def _counts(stats: Path) -> tuple[float, float]:
    """Mean commands fabriclint sent, and mean other non-empty lines, per device."""
    from fabriclint.commands import PLATFORMS, SESSION_COMMANDS

    data = json.loads(stats.read_text())
    ours = other = 0
    for name, lines in data["received"].items():
        session = SESSION_COMMANDS[PLATFORMS[data["platforms"][name]].device_type]
        ours += sum(1 for line in lines if line not in session)
        other += sum(1 for line in lines if line and line in session)
    count = len(data["received"])
    return ours / count, other / count


def run(devices: int, latency: float, workers: int | None) -> None:
    """Build, serve, collect, report."""
    from fabriclint.collectors.base import Timeouts
    from fabriclint.collectors.run import CollectOptions, collect, default_workers

    work = Path(tempfile.mkdtemp(prefix="collect-scale-"))
    fabric = build(work / "fabric", devices)
    lab, overlay, stats = _start_lab(fabric, latency, work)
    workers = workers or default_workers()
    env = {"FABRICLINT_LAB_USER": "fabriclint", "FABRICLINT_LAB_PASSWORD": PASSWORD}
    options = CollectOptions(
        out=work / "live", overlay=overlay, env=env, workers=workers, timeouts=Timeouts(30, 60, 300)
    )
    try:
        started = time.monotonic()
        result = collect(fabric, options)
        wall = time.monotonic() - started
    finally:
        lab.send_signal(signal.SIGTERM)
        lab.wait(timeout=WAIT)
    failed = [(r.name, r.status, r.reason) for r in result.failed]
    _report(devices, latency, workers, wall, stats, failed)


def _report(
    devices: int, latency: float, workers: int, wall: float, stats: Path, failed: list[Any]
) -> None:
    ours, other = _counts(stats)
    ideal = devices * ours * latency / workers
    own = resource.getrusage(resource.RUSAGE_SELF)
    lab = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"devices {devices}  latency {latency * 1000:.0f} ms/command  workers {workers}", end="")
    print(f"  cpus {os.cpu_count()}")
    print(f"commands/device {ours:.2f} (plus {other:.2f} netmiko setup/logout lines, also delayed)")
    print(f"wall {wall:.2f} s  ideal {ideal:.2f} s  ratio {wall / ideal:.1f}x")
    print(f"peak memory (collector process) {_rss_mb():.0f} MB  failed {len(failed)} {failed[:3]}")
    print(
        f"cpu: collector {own.ru_utime + own.ru_stime:.1f} s, lab {lab.ru_utime + lab.ru_stime:.1f} s"
    )


def main() -> None:
    """Command line."""
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        serve(Path(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]), Path(sys.argv[5]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--devices", type=int, default=500)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per command")
    parser.add_argument("--workers", type=int, default=None, help="default: collect's default")
    args = parser.parse_args()
    run(args.devices, args.latency, args.workers)


if __name__ == "__main__":
    main()
