"""No pathological slowness: an input 10x larger takes at most ~10x longer to check.

Per platform, a real input has its per-port (or per-HCA, per-partition) blocks repeated 10x
under new names; the whole check (parse, rules, reporters) of the large input must take less
than 30x the time of the original (a ratio of CPU times on the same machine, not an absolute wall
time, so a busy machine does not fail it; 30x leaves room for noise and fixed costs while a quadratic step,
100x, still fails).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest

from tests.fuzz.conftest import FabricFor
from tests.fuzz.strategies import Seed, repeat_blocks, repeat_sonic_ports, seeds

COPIES = 10
MAX_RATIO = 30.0
Grow = Callable[[str], str]


def _blocks(
    header: str, rename: Callable[[str, int], str] | None = None, stop: str | None = None
) -> Grow:
    until = re.compile(stop) if stop else None
    return lambda text: repeat_blocks(text, re.compile(header), COPIES, rename, until)


def _partition(line: str, k: int) -> str:
    """`name=0xPKEY` -> `namek=0x<another pkey>`."""

    def move(m: re.Match[str]) -> str:
        pkey = 0x8000 | ((int(m.group(2), 16) + 16 * k) & 0x7FFF)
        return f"{m.group(1)}{k}=0x{pkey:04x}"

    return re.sub(r"^([\w-]+)=0x([0-9a-fA-F]+)", move, line)


# platform -> (seed name, {command: how to make its output 10x larger})
GROWTH: dict[str, tuple[str, dict[str, Grow]]] = {
    "eos": (
        "roce-pod/leaf01",
        {
            "show running-config": _blocks(r"^interface Ethernet"),
            "show interfaces": _blocks(r"^Ethernet\d"),
        },
    ),
    "nxos": (
        "multivendor-pod/leaf02",
        {
            "show running-config": _blocks(r"^interface Ethernet"),
            "show interface": _blocks(r"^Ethernet\d", stop=r"^\S+ is "),
        },
    ),
    "junos": ("multivendor-pod/spine01", {"show configuration": _blocks(r"^    et-\d")}),
    "sonic": (
        "multivendor-pod/leaf03",
        {"config_db.json": lambda text: repeat_sonic_ports(text, COPIES)},
    ),
    "cumulus": ("multivendor-pod/leaf04", {"nv config show -o yaml": _blocks(r"^      swp\d+:")}),
    "mlnx-host": (
        "ib-cluster/gpu01",
        {"ibstat": _blocks(r"^CA '"), "ibv_devinfo -v": _blocks(r"^hca_id:")},
    ),
    "opensm": ("ib-cluster/sm01", {"partitions.conf": _blocks(r"^[\w-]+=0x", _partition)}),
}


def _seed(name: str, platform: str) -> Seed:
    return next(s for s in seeds(platform) if s.name == name)


def _best_time(run: Callable[[], object], repeat: int = 3) -> float:
    """The least CPU time of `repeat` runs: CPU seconds, not wall time, which other processes
    on a loaded machine stretch for one run and not the other."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.parametrize("platform", sorted(GROWTH))
def test_ten_times_the_input_takes_less_than_thirty_times_as_long(
    platform: str, fabric_for: FabricFor
) -> None:
    name, growth = GROWTH[platform]
    seed = _seed(name, platform)
    fabric = fabric_for(seed)
    small = {cmd: text.encode() for cmd, text in seed.outputs.items()}
    large = dict(small)
    for command, grow in growth.items():
        large[command] = grow(seed.outputs[command]).encode()
    grown = sum(len(large[c]) for c in growth) / sum(len(small[c]) for c in growth)
    assert grown > 2, f"the scaled input is only {grown:.1f}x the original"

    fabric.check(large)  # also: the large input is checked soundly
    base = _best_time(lambda: fabric.check(small))
    scaled = _best_time(lambda: fabric.check(large))
    ratio = scaled / base
    print(f"{platform}: {grown:.1f}x the bytes, {ratio:.1f}x the time")
    assert ratio < MAX_RATIO, f"{platform}: {grown:.1f}x the input took {ratio:.1f}x as long"
