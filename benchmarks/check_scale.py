"""Scale benchmark: the whole `fabriclint check` CLI on synthetic RoCE fabrics against a floor.

Two fabric shapes, each generated into a temporary directory by a fresh interpreter
(benchmarks/fabricgen.py):

* `goal` (the issue-12 goal shape): N Arista EOS leaves of 64 ports, each port carrying its own
  `priority-flow-control` and watchdog lines (~715-line configs), cabled to N dual-homed
  ConnectX hosts, with faults seeded on a few devices so the run has findings to report;
* `old` (the first benchmark's shape): pods of 4 spines + 16 leaves whose ports inherit all QoS
  from one profile, 8 dual-homed hosts per leaf, no findings.

For each size and case, two fresh subprocesses are timed side by side, `--repeat` times:

* floor: reading every manifest-listed file and scanning it with one regex, in one process (the
  least any checker must do; its time excludes interpreter start-up);
* check: `fabriclint check FABRIC --snapshot bench` writing a text and a JSON report, run as the
  installed CLI (start-up, imports, loading, parsing, rules, rendering: everything a user waits
  for). Its peak RSS is the subprocess's own (os.wait4's rusage).

Prints each run, the check/floor ratio (of the medians), per-device cost, and the growth between
consecutive sizes (linear growth keeps the per-device time and memory flat).

    python benchmarks/check_scale.py                        # quick: 100 switches, both cases
    python benchmarks/check_scale.py --sizes 100 1000 2000  # the issue-12 figures
    python benchmarks/check_scale.py --case goal --sizes 1000 --repeat 3
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

EXAMPLE = ROOT / "inventories" / "roce-pod"
SCAN = re.compile(r"^.*\b(?:mtu|MTU|priority-flow-control|random-detect|enable/\d)\b.*$", re.M)
CASES = ("goal", "old")
Json = dict[str, Any]


def _rss_mb() -> float:
    """Peak resident set size of this program so far, MB.

    Linux keeps getrusage's ru_maxrss across exec, so a child would inherit its parent's peak;
    VmHWM in /proc/self/status belongs to the new address space and does not. Elsewhere fall
    back to ru_maxrss (KiB on Linux, bytes on macOS; only Linux is assumed here).
    """
    status = Path("/proc/self/status")
    if status.is_file():
        found = re.search(r"^VmHWM:\s+(\d+) kB", status.read_text(), re.M)
        if found:
            return int(found.group(1)) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ---- the fabrics --------------------------------------------------------------------------------


def goal_fabric(switches: int) -> Any:
    """`switches` EOS leaves with per-port QoS lines, as many dual-homed hosts, a few faults.

    Faults (each makes findings): every 50th leaf has one host port whose own PFC line says
    priority 4 (the NIC and the intent say 3); every 100th has a host port at MTU 1500; every
    100th host (from the 50th) trusts PCP on its first NIC."""
    from benchmarks.fabricgen import FabricSpec, build_fabric

    leaves = max(2, switches - switches % 2)
    spec = FabricSpec(
        name=f"goal-{leaves}", pods=1, spines_per_pod=0, leaves_per_pod=leaves, hosts_per_leaf=2
    )
    fabric = build_fabric(spec)
    for sw in fabric.switches.values():
        for port in sw.ports.values():
            port.pfc_priorities = [3]
            port.pfc_watchdog = True
    for number, sw in enumerate(fabric.switches.values()):
        if number % 50 == 0:
            sw.ports["Ethernet1/1"].pfc_priorities = [4]
        if number % 100 == 1:
            sw.ports["Ethernet2/1"].mtu = 1500
    for number, host in enumerate(fabric.hosts.values()):
        if number % 100 == 50:
            host.nics[0].trust = "pcp"
    return fabric


def old_fabric(switches: int, hosts_per_leaf: int = 8) -> Any:
    """The first benchmark's shape: pods of 4 spines + 16 leaves, profile-only QoS, clean."""
    from benchmarks.fabricgen import FabricSpec, build_fabric

    return build_fabric(FabricSpec.for_switch_count(switches, hosts_per_leaf=hosts_per_leaf))


def write_fabric(fabric: Any, root: Path) -> dict[str, int]:
    """Write inventory, intent, policy and snapshot `bench` of `fabric` under `root`."""
    from benchmarks.fabricgen import render_inventory, snapshot_devices
    from fabriclint.snapshot import write_snapshot

    root.mkdir(parents=True, exist_ok=True)
    (root / "inventory.yaml").write_text(render_inventory(fabric), encoding="utf-8")
    shutil.copyfile(EXAMPLE / "policy.yaml", root / "policy.yaml")
    intent = (EXAMPLE / "intent.yaml").read_text(encoding="utf-8")
    if not any(sw.role == "spine" for sw in fabric.switches.values()):  # a role nothing uses
        intent = intent.replace("  spine: {profile: roce-lossless}\n", "")
    (root / "intent.yaml").write_text(intent, encoding="utf-8")
    devices = snapshot_devices(fabric)
    write_snapshot(root / "snapshots" / "bench", devices, source="candidate")
    configs = [o["show running-config"] for p, o in devices.values() if p == "eos"]
    return {
        "switches": len(fabric.switches),
        "hosts": len(fabric.hosts),
        "devices": len(devices),
        "files": sum(len(outputs) for _, outputs in devices.values()),
        "bytes": sum(len(t) for _, outputs in devices.values() for t in outputs.values()),
        "config_lines": round(statistics.mean(c.count("\n") for c in configs)) if configs else 0,
    }


def generate(size: int, hosts_per_leaf: int, root: Path, case: str = "old") -> dict[str, int]:
    """Write a synthetic fabric of about `size` switches under `root`; return its shape."""
    fabric = goal_fabric(size) if case == "goal" else old_fabric(size, hosts_per_leaf)
    return write_fabric(fabric, root)


# ---- the measurements ---------------------------------------------------------------------------


def measure_floor(fabric_dir: Path) -> Json:
    """Read every manifest-listed file and scan it with one regex: the cost floor."""
    rss_before = _rss_mb()
    t0, cpu0 = time.perf_counter(), time.process_time()
    snapshot = fabric_dir / "snapshots" / "bench"
    manifest = json.loads((snapshot / "manifest.json").read_text(encoding="utf-8"))
    hits = 0
    for name, entry in manifest["devices"].items():
        for filename in entry["files"].values():
            text = (snapshot / name / filename).read_bytes().decode("utf-8")
            hits += sum(1 for _ in SCAN.finditer(text))
    return {
        "wall_s": time.perf_counter() - t0,
        "cpu_s": time.process_time() - cpu0,
        "rss_before_mb": rss_before,
        "peak_mb": _rss_mb(),
        "hits": hits,
    }


def _cli() -> list[str]:
    """The installed `fabriclint` script next to this interpreter, else the same entry point."""
    script = Path(sys.executable).parent / "fabriclint"
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from fabriclint.cli import main; main()"]


class TreeRss(threading.Thread):
    """Samples the summed RSS of a process and its descendants (`check --jobs` workers) every
    20 ms from /proc (Linux): wait4's ru_maxrss is the largest single process, not their sum."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_kb = 0
        self.stop = threading.Event()

    def run(self) -> None:
        """Sample until stopped."""
        while not self.stop.wait(0.02):
            self.peak_kb = max(self.peak_kb, sum(_rss_kb(pid) for pid in _tree(self.pid)))


def _tree(pid: int) -> list[int]:
    """`pid` and its descendants (those alive now)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def _rss_kb(pid: int) -> int:
    """A process's resident set in kB (0 once it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    line = next((ln for ln in status.splitlines() if ln.startswith("VmRSS:")), "VmRSS: 0 kB")
    return int(line.split()[1])


def measure_check(fabric_dir: Path, extra: list[str]) -> Json:
    """Run `fabriclint check` (text + JSON reports to files) as a subprocess: wall, peak RSS."""
    out = fabric_dir / "out"
    out.mkdir(exist_ok=True)
    cmd = [*_cli(), "check", str(fabric_dir), "--snapshot", "bench", *extra]
    cmd += ["--format", "text", "--output", str(out / "report.txt")]
    cmd += ["--format", "json", "--output", str(out / "report.json")]
    with open(out / "stderr.txt", "wb") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT)
        sampler = TreeRss(proc.pid)
        sampler.start()
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        sampler.stop.set()
        sampler.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    summary = json.loads((out / "report.json").read_text(encoding="utf-8"))
    findings: dict[str, int] = {}
    for f in summary["findings"]:
        findings[f["rule"]] = findings.get(f["rule"], 0) + 1
    return {
        "wall_s": wall,
        "peak_mb": usage.ru_maxrss / 1024,
        "tree_peak_mb": sampler.peak_kb / 1024,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "exit_code": proc.returncode,
        "complete": summary["summary"]["complete"],
        "findings": findings,
    }


def _child(*args: str) -> Json:
    """Run this script in a fresh interpreter and return the JSON it prints last (the fabric
    directory goes first: `--case` takes several values)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), *args]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def run_one(case: str, size: int, opts: argparse.Namespace) -> Json:
    """Generate one fabric, then time floor and check side by side `opts.repeat` times."""
    work = Path(tempfile.mkdtemp(prefix=f"fabriclint-bench-{case}-{size}-", dir=opts.keep))
    try:
        t0 = time.perf_counter()
        hpl = str(opts.hosts_per_leaf)
        shape = _child(str(work), "--generate", str(size), "--hosts-per-leaf", hpl, "--case", case)
        shape["generate_s"] = time.perf_counter() - t0
        _child("--measure", "floor", str(work))  # discarded: both then read from a warm cache
        floors, checks = [], []
        for _ in range(opts.repeat):
            floors.append(_child("--measure", "floor", str(work)))
            checks.append(measure_check(work, opts.check_args))
    finally:
        if opts.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    row = {"case": case, "shape": shape, "floors": floors, "checks": checks}
    row["floor_s"] = statistics.median(f["wall_s"] for f in floors)
    row["check_s"] = statistics.median(c["wall_s"] for c in checks)
    row["floor_cpu_s"] = statistics.median(f["cpu_s"] for f in floors)
    row["check_cpu_s"] = statistics.median(c["cpu_s"] for c in checks)
    row["peak_mb"] = max(c["peak_mb"] for c in checks)
    row["tree_peak_mb"] = max(c["tree_peak_mb"] for c in checks)
    return row


def _print_row(row: Json) -> None:
    shape = row["shape"]
    print(
        f"\n== {row['case']}: {shape['switches']} switches, {shape['hosts']} hosts,"
        f" {shape['files']} files, {shape['bytes'] / 1e6:.1f} MB,"
        f" ~{shape['config_lines']}-line configs (generated in {shape['generate_s']:.1f} s)"
    )
    for floor, check in zip(row["floors"], row["checks"], strict=True):
        print(
            f"   floor {floor['wall_s']:7.2f} s (cpu {floor['cpu_s']:.2f} s, {floor['peak_mb']:.0f} MB)"
            f"   check {check['wall_s']:7.2f} s (cpu {check['cpu_s']:.2f} s,"
            f" largest process {check['peak_mb']:.0f} MB, all processes {check['tree_peak_mb']:.0f} MB)"
            f"   ratio {check['wall_s'] / floor['wall_s']:.1f}x"
        )
    last = row["checks"][-1]
    per_device = 1000 * row["check_s"] / shape["devices"]
    print(
        f"   median check / floor: {row['check_s'] / row['floor_s']:.1f}x"
        f" (cpu {row['check_cpu_s'] / row['floor_cpu_s']:.1f}x)"
        f"   per device {per_device:.2f} ms   peak RSS {row['peak_mb']:.0f} MB"
        f" ({row['peak_mb'] / shape['switches']:.2f} MB/switch)"
    )
    print(f"   exit {last['exit_code']}, complete={last['complete']}, findings {last['findings']}")


def _print_growth(rows: list[Json]) -> None:
    for before, after in itertools.pairwise(rows):
        if before["case"] != after["case"]:
            continue
        scale = after["shape"]["devices"] / before["shape"]["devices"]
        print(
            f"\n== growth {before['case']} {before['shape']['switches']} ->"
            f" {after['shape']['switches']} switches ({scale:.1f}x devices):"
            f" check {after['check_s'] / before['check_s']:.1f}x"
            f" (cpu {after['check_cpu_s'] / before['check_cpu_s']:.1f}x),"
            f" floor {after['floor_s'] / before['floor_s']:.1f}x,"
            f" peak RSS {after['peak_mb'] / before['peak_mb']:.1f}x"
        )


def run(opts: argparse.Namespace) -> int:
    """Every case at every size, printed as it finishes; `--json` keeps the figures."""
    rows: list[Json] = []
    for case in opts.case:
        for size in opts.sizes:
            rows.append(run_one(case, size, opts))
            _print_row(rows[-1])
    _print_growth(rows)
    if opts.json is not None:
        opts.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100], help="switch counts")
    parser.add_argument("--case", choices=CASES, nargs="+", default=list(CASES))
    parser.add_argument("--repeat", type=int, default=1, help="floor/check pairs per size")
    parser.add_argument("--hosts-per-leaf", type=int, default=8, help="old case only")
    parser.add_argument("--keep", type=Path, help="generate under this folder and keep it")
    parser.add_argument("--json", type=Path, help="also write every figure to this file")
    parser.add_argument("--jobs", type=int, help="`check --jobs N` (default: check chooses)")
    parser.add_argument(
        "--check-args", nargs=argparse.REMAINDER, default=[], help="extra `check` options"
    )
    parser.add_argument("--measure", choices=["floor"], help=argparse.SUPPRESS)
    parser.add_argument("--generate", type=int, metavar="SIZE", help=argparse.SUPPRESS)
    parser.add_argument("fabric_dir", nargs="?", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.generate:
        case = args.case[0]
        print(json.dumps(generate(args.generate, args.hosts_per_leaf, args.fabric_dir, case)))
        return 0
    if args.measure:
        print(json.dumps(measure_floor(args.fabric_dir)))
        return 0
    if args.jobs is not None:
        args.check_args = ["--jobs", str(args.jobs), *args.check_args]
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
