"""The host's GPUs from `nvidia-smi --query-gpu=... --format=csv,noheader` (optional).

Format (one line per GPU, fields in the order queried; nvidia-smi(1), "--query-gpu"):

    0, NVIDIA H100 80GB HBM3, 550.54.15, 96.00.99.00.01
    1, NVIDIA H100 80GB HBM3, 550.54.15, 96.00.99.00.01

Read into `DeviceState.facts`: `gpu_count`, `gpu_model`, `gpu_driver`, `gpu_vbios` (a value
that differs between GPUs is listed, sorted, with " + "). The BOM lock records them; a host
without the output shows no GPU facts (not shown, not zero GPUs).
"""

from __future__ import annotations

from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.lines import Log, Text

FIELDS = ("index", "name", "driver_version", "vbios_version")
"""The queried fields, in order (platforms/mlnx_host.py: NVIDIA_SMI)."""


def read_gpus(state: DeviceState, text: Text, log: Log) -> None:
    """Set the GPU facts of `state` from one `nvidia-smi --query-gpu` CSV output."""
    rows: list[dict[str, str]] = []
    for number, line in text.numbered():
        if not line.strip():
            continue
        values = [v.strip() for v in line.split(",")]
        if len(values) != len(FIELDS) or not values[0].isdigit():
            log.unmodeled(text, number, f"not a --query-gpu CSV line of {len(FIELDS)} fields")
            continue
        rows.append(dict(zip(FIELDS, values, strict=True)))
    if not rows:
        return
    state.facts["gpu_count"] = str(len(rows))
    for fact, column in (("gpu_model", "name"), ("gpu_driver", "driver_version")):
        state.facts[fact] = " + ".join(sorted({row[column] for row in rows}))
    state.facts["gpu_vbios"] = " + ".join(sorted({row["vbios_version"] for row in rows}))
