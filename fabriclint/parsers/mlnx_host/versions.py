"""The host's kernel release (`uname -r`) and the CUDA version its driver supports (the header
of plain `nvidia-smi`), both optional, both for the BOM lock.

`uname -r` prints one line, the release (`5.15.0-105-generic`, `6.8.0-40-generic`,
`4.18.0-513.24.1.el8_9.x86_64`). nvidia-smi(1) without options prints a summary table whose
header line carries the versions:

    | NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4     |

(`nvidia-smi -q` spells the same item `CUDA Version : 12.4`; both are read). Read into
`DeviceState.facts` `kernel` and `cuda_version`. A host where the tool ran but shows no GPU
(`No devices were found`, `NVIDIA-SMI has failed ...`, `CUDA Version: N/A`) shows no CUDA
version: not shown, never a change. An output that is neither is an input problem at its line.
"""

from __future__ import annotations

import re

from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.lines import Log, Text

_RELEASE = re.compile(r"^[0-9]+\.[0-9]+[0-9A-Za-z._+~-]*$")
"""A kernel release: major.minor then the distribution's suffix (no spaces)."""
_CUDA = re.compile(r"CUDA Version\s*:\s*(\S+)")
_CUDA_VALUE = re.compile(r"^[0-9]+\.[0-9]+(?:\.[0-9]+)?$")
_NO_GPU = re.compile(r"No devices were found|NVIDIA-SMI has failed|couldn't communicate")
_NOT_SHOWN = frozenset({"n/a", "not available"})


def read_kernel(state: DeviceState, text: Text, log: Log) -> None:
    """Set fact `kernel` from `uname -r` (one release line; anything else is a problem)."""
    lines = [(n, line.strip()) for n, line in text.numbered() if line.strip()]
    if not lines:
        return
    number, release = lines[0]
    if len(lines) > 1 or not _RELEASE.match(release):
        at = lines[1][0] if _RELEASE.match(release) else number
        log.unparseable(
            text, "not one kernel release line (`uname -r` prints 6.8.0-40-generic)", at
        )
        return
    state.facts["kernel"] = release


def read_cuda(state: DeviceState, text: Text, log: Log) -> None:
    """Set fact `cuda_version` from the `CUDA Version:` item of an nvidia-smi output."""
    for number, line in text.numbered():
        match = _CUDA.search(line)
        if match is None:
            continue
        value = match[1].strip("|")
        if value.lower() in _NOT_SHOWN:
            return
        if not _CUDA_VALUE.match(value):
            log.unparseable(text, f"CUDA Version {value!r} is not a version (12.4)", number)
            return
        state.facts["cuda_version"] = value
        return
    if text.is_blank() or any(_NO_GPU.search(line) for line in text.lines[:5]):
        return  # the tool ran on a host without a usable GPU: not shown
    log.unparseable(text, "no `CUDA Version:` item (the nvidia-smi summary header)", 1)
