"""Scale benchmark of live collection: N lab devices, L seconds of added latency per command.

A synthetic fabric (60 % EOS switches answering with roce-pod's leaf01 outputs, 40 % ConnectX
hosts answering with gpu01's) is served by the lab in a subprocess (so the lab and the
collector do not share a GIL), then collected with `collect()` (in this process and, with
more than one, its worker processes), once per worker and process count (a fresh lab each
time, so its counts are per run). For each it prints

* wall: the collection's wall time, and devices per minute;
* ideal: devices x commands x latency / workers, with `commands` the mean number of commands
  fabriclint sent per device (counted by the lab), and wall / ideal (no ratio at latency 0);
* floor: the same with the terminal setup lines too, which the lab also delays: what no
  client can beat against this lab, and wall / floor;
* the CPU the collector (all its processes: ms per device) and the lab spent during the run,
  and what the two need of this machine's cores (`cpu-bound`): on a machine with few cores
  they compete, and a wall time near `cpu-bound` measures the machine, not the waiting;
* the load average at the end of the run (other work on the machine), and the collector's
  peak memory (VmHWM of this process).

    python benchmarks/collect_scale.py                    # quick: 100 devices, 50 ms, default workers
    python benchmarks/collect_scale.py --full             # 500 devices, 50 ms: default, 32, 64, 128
    python benchmarks/collect_scale.py --devices 200 --workers 32,64 --latency 0
    python benchmarks/collect_scale.py --devices 500 --processes 1,0   # one process vs default
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
from dataclasses import dataclass
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
    """Mean commands fabriclint sent, and mean other lines the lab delayed too (terminal
    setup: every non-empty line but `exit`), per device."""
    from fabriclint.commands import PLATFORMS, SESSION_COMMANDS

    data = json.loads(stats.read_text())
    ours = other = 0
    for name, lines in data["received"].items():
        session = SESSION_COMMANDS[PLATFORMS[data["platforms"][name]].device_type]
        ours += sum(1 for line in lines if line not in session)
        other += sum(1 for line in lines if line and line in session and line != "exit")
    count = max(1, len(data["received"]))
    return ours / count, other / count


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process `pid` so far (Linux /proc; None elsewhere)."""
    stat = Path(f"/proc/{pid}/stat")
    if not stat.is_file():
        return None
    fields = stat.read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _own_cpu() -> float:
    """CPU seconds of this process and of its finished children: collect()'s worker
    processes are joined before it returns (the lab, still running, is not counted)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


@dataclass
class Run:
    """One collection's figures."""

    devices: int
    latency: float
    workers: int
    processes: int
    """Collector processes (collect.json's record)."""
    wall: float
    commands: float
    """Mean commands fabriclint sent per device (counted by the lab)."""
    other: float
    """Mean terminal setup lines per device (also delayed by the lab)."""
    collector_cpu: float
    lab_cpu: float | None
    failed: list[Any]
    load: float = 0.0
    """The machine's 1-minute load average when the run ended (others' work included)."""

    @property
    def ideal(self) -> float:
        """Seconds fabriclint's commands alone take at this latency, perfectly spread over the
        workers (the issue's definition)."""
        return self.devices * self.commands * self.latency / self.workers

    @property
    def floor(self) -> float:
        """Seconds every line the lab delays takes (the commands and the terminal setup), spread
        over the workers: what no client can beat against this lab."""
        return self.devices * (self.commands + self.other) * self.latency / self.workers

    def ratio(self, ideal: float) -> str:
        """wall / `ideal`, or "-" when it is 0 (no latency): then only wall means anything."""
        return f"{self.wall / ideal:.2f}x" if ideal > 0 else "-"

    @property
    def cpu_bound(self) -> float:
        """Seconds the collector's and the lab's CPU take on this machine's cores: a wall time
        near it means the run was CPU-bound (the two compete for the cores), not latency-bound,
        and its ratio measures the machine rather than the waiting."""
        return (self.collector_cpu + (self.lab_cpu or 0.0)) / (os.cpu_count() or 1)

    @property
    def cpu_ms(self) -> float:
        """Collector CPU per device, milliseconds (all its processes)."""
        return self.collector_cpu / self.devices * 1000


def collect_once(
    fabric: Path, devices: int, latency: float, workers: int, processes: int | None
) -> Run:
    """Serve `fabric` in a fresh lab subprocess and collect it once with `workers` (and
    `processes`, None = collect's default)."""
    from fabriclint.collectors.base import Timeouts
    from fabriclint.collectors.run import CollectOptions, collect

    work = Path(tempfile.mkdtemp(prefix="collect-scale-run-"))
    lab, overlay, stats = _start_lab(fabric, latency, work)
    env = {"FABRICLINT_LAB_USER": "fabriclint", "FABRICLINT_LAB_PASSWORD": PASSWORD}
    options = CollectOptions(
        out=work / "live",
        overlay=overlay,
        env=env,
        workers=workers,
        processes=processes,
        timeouts=Timeouts(30, 60, 300),
    )
    try:
        lab_before, own_before = _cpu_seconds(lab.pid), _own_cpu()
        started = time.monotonic()
        result = collect(fabric, options)
        wall = time.monotonic() - started
        lab_after, own_after = _cpu_seconds(lab.pid), _own_cpu()
    finally:
        lab.send_signal(signal.SIGTERM)
        lab.wait(timeout=WAIT)
    ours, other = _counts(stats)
    lab_cpu = lab_after - lab_before if lab_after is not None and lab_before is not None else None
    failed = [(r.name, r.status, r.reason) for r in result.failed]
    used = json.loads((result.snapshot / "collect.json").read_text())["processes"]
    cpu = own_after - own_before
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    return Run(devices, latency, workers, used, wall, ours, other, cpu, lab_cpu, failed, load)


HEADER = (
    f"{'workers':>8} {'procs':>5} {'wall s':>7} {'ideal s':>8} {'ratio':>7} {'floor s':>8} "
    f"{'/floor':>7} {'dev/min':>8} {'cpu collector s':>16} {'ms/dev':>7} {'cpu lab s':>10} "
    f"{'cpu-bound s':>12} {'load':>5} {'failed':>7}"
)


def _row(run: Run, default: int) -> str:
    mark = "*" if run.workers == default else " "
    lab = f"{run.lab_cpu:.1f}" if run.lab_cpu is not None else "?"
    return (
        f"{run.workers:>7}{mark} {run.processes:>5} {run.wall:>7.2f} {run.ideal:>8.2f} "
        f"{run.ratio(run.ideal):>7} {run.floor:>8.2f} {run.ratio(run.floor):>7} "
        f"{run.devices / run.wall * 60:>8.0f} {run.collector_cpu:>16.1f} {run.cpu_ms:>7.1f} "
        f"{lab:>10} {run.cpu_bound:>12.2f} {run.load:>5.1f} {len(run.failed):>7}"
    )


def run(devices: int, latency: float, workers: list[int], processes: list[int | None]) -> list[Run]:
    """Build the fabric once, collect it once per worker and process count, print a table."""
    from fabriclint.collectors.run import default_workers
    from fabriclint.collectors.shards import default_processes

    fabric = build(Path(tempfile.mkdtemp(prefix="collect-scale-")) / "fabric", devices)
    _warm_imports()
    default = default_workers()
    print(
        f"devices {devices}  latency {latency * 1000:.0f} ms/command  cpus {os.cpu_count()}", end=""
    )
    print(f"  default workers {default} (*), processes {default_processes(devices)}")
    print(HEADER)
    runs = []
    for count in workers or [default]:
        for procs in processes:
            done = collect_once(fabric, devices, latency, count, procs)
            runs.append(done)
            print(_row(done, default), flush=True)
    _footer(runs)
    return runs


def _warm_imports() -> None:
    """Import what the first collection would (netmiko, paramiko, napalm: about a second),
    so the first worker count measured does not pay a start-up cost the others do not."""
    import importlib

    for module in ("fabriclint.collectors.netmiko_ssh", "netmiko", "napalm.eos.eos"):
        importlib.import_module(module)


def _footer(runs: list[Run]) -> None:
    first = runs[0]
    print(
        f"commands/device {first.commands:.2f} (plus {first.other:.2f} terminal setup "
        "lines, also delayed: in the floor, not in the ideal)"
    )
    print(f"peak memory (collector process) {_rss_mb():.0f} MB")
    for done in runs:
        if done.failed:
            print(f"workers {done.workers}: {len(done.failed)} failed, e.g. {done.failed[:3]}")


def _worker_counts(text: str) -> list[int]:
    """`--workers 32,64,128`: worker counts; 0 stands for collect's default."""
    from fabriclint.collectors.run import default_workers

    try:
        counts = [int(item) for item in text.split(",") if item.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: write counts like 32,64,128") from None
    if any(count < 0 for count in counts):
        raise argparse.ArgumentTypeError(f"{text!r}: counts must be 0 (default) or more")
    return [count or default_workers() for count in counts]


def _process_counts(text: str) -> list[int | None]:
    """`--processes 1,0`: process counts; 0 stands for collect's default (None)."""
    try:
        counts = [int(item) for item in text.split(",") if item.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: write counts like 1,2") from None
    if not counts or any(count < 0 for count in counts):
        raise argparse.ArgumentTypeError(f"{text!r}: counts must be 0 (default) or more")
    return list(dict.fromkeys(count or None for count in counts))


def main() -> None:
    """Command line."""
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        serve(Path(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]), Path(sys.argv[5]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--devices", type=int, default=None, help="default 100 (500 with --full)")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per command")
    parser.add_argument(
        "--workers", type=_worker_counts, default=None, help="comma-separated; 0 = default"
    )
    parser.add_argument(
        "--processes",
        type=_process_counts,
        default=[None],
        help="collector processes, comma-separated (0 = collect's default; e.g. 1,0 compares)",
    )
    parser.add_argument(
        "--full", action="store_true", help="500 devices at the default, 32, 64 and 128 workers"
    )
    args = parser.parse_args()
    if args.latency < 0 or (args.devices is not None and args.devices < 1):
        parser.error("--latency must be 0 or more and --devices 1 or more")
    devices = args.devices or (500 if args.full else 100)
    workers = args.workers or (_worker_counts("0,32,64,128") if args.full else [])
    run(devices, args.latency, list(dict.fromkeys(workers)), args.processes)


if __name__ == "__main__":
    main()
