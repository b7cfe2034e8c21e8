"""GPUs in the BOM lock: `nvidia-smi --query-gpu` read by the host parser, locked per host,
and compared by `bom verify` (absent on one side is not shown, never a change)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabriclint import bom
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.parsers.mlnx_host import parse
from fabriclint.platforms.mlnx_host import NVIDIA_SMI
from fabriclint.snapshot import load_snapshot
from tests.examples import baseline_with

ROOT = Path(__file__).resolve().parents[1]
POD = ROOT / "inventories" / "roce-pod"
BASELINE = POD / "snapshots" / "baseline"

# An 8-GPU HGX H100 node as `nvidia-smi --query-gpu=index,name,driver_version,vbios_version
# --format=csv,noheader` prints it (written after nvidia-smi(1); values of a typical node).
H100 = "".join(f"{i}, NVIDIA H100 80GB HBM3, 550.54.15, 96.00.99.00.01\n" for i in range(8))


def _facts(text: str) -> tuple[dict[str, str], list[str]]:
    base = load_snapshot(BASELINE).devices["gpu01"].raw
    assert base is not None
    outputs = dict(base.outputs)
    outputs[NVIDIA_SMI] = RawOutput(text=text, file="gpu01/nvidia-smi.txt")
    state = parse(RawDevice(name="gpu01", platform="mlnx-host", outputs=outputs))
    gpu = {k: v for k, v in state.facts.items() if k.startswith("gpu_")}
    return gpu, [u.text for u in state.unparsed]


@pytest.mark.parametrize(
    ("text", "facts", "unparsed"),
    [
        (
            H100,
            {
                "gpu_count": "8",
                "gpu_model": "NVIDIA H100 80GB HBM3",
                "gpu_driver": "550.54.15",
                "gpu_vbios": "96.00.99.00.01",
            },
            0,
        ),
        (
            "0, NVIDIA H100 80GB HBM3, 550.54.15, 96.00.99.00.01\n"
            "1, NVIDIA A100-SXM4-80GB, 550.54.15, 92.00.45.00.03\n",
            {
                "gpu_count": "2",
                "gpu_model": "NVIDIA A100-SXM4-80GB + NVIDIA H100 80GB HBM3",
                "gpu_driver": "550.54.15",
                "gpu_vbios": "92.00.45.00.03 + 96.00.99.00.01",
            },
            0,
        ),
        ("", {}, 0),
        (
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
            {},
            1,
        ),
        ("0, NVIDIA H100 80GB HBM3, 550.54.15\n", {}, 1),
    ],
    ids=["hgx-h100", "mixed", "empty", "driver-down", "short-line"],
)
def test_gpu_facts(text: str, facts: dict[str, str], unparsed: int) -> None:
    got, lines = _facts(text)
    assert got == facts
    assert len(lines) == unparsed


def _snapshot(tmp: Path, name: str, gpu_text: str | None) -> Path:
    """The baseline snapshot, gpu01 with `gpu_text` as its nvidia-smi output (None: none)."""
    return baseline_with(
        tmp, POD, name, {} if gpu_text is None else {"gpu01": {NVIDIA_SMI: gpu_text}}
    )


def test_gpus_are_locked_and_a_driver_change_is_named(tmp_path: Path) -> None:
    locked = bom.take(POD, _snapshot(tmp_path, "a", H100)).lock
    gpus = locked.hosts["gpu01"].gpus
    assert gpus is not None and (gpus.count, gpus.driver) == (8, "550.54.15")
    assert locked.hosts["gpu02"].gpus is None  # no output: not shown
    older = H100.replace("550.54.15", "535.104.05").replace("\n7, ", "\nX, ")
    found = bom.verify(locked, bom.take(POD, _snapshot(tmp_path, "b", older)))
    assert found.changes == [
        "gpu01 gpus count 8 -> 7: rerun the benchmark",
        "gpu01 gpus driver 550.54.15 -> 535.104.05: rerun the benchmark",
    ]


def test_gpus_not_shown_on_one_side_are_no_change(tmp_path: Path) -> None:
    with_gpus = bom.take(POD, _snapshot(tmp_path, "a", H100))
    without = bom.take(POD, _snapshot(tmp_path, "b", None))
    assert bom.verify(with_gpus.lock, without).changes == []
    assert bom.verify(without.lock, with_gpus).changes == []
