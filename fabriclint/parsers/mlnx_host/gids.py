"""The RoCE GID table from `show_gids` (MLNX_OFED; optional), onto each HCA port.

Format (one line per populated GID; the header and `n_gids_found` are skipped):

    DEV     PORT    INDEX   GID                                     IPv4            VER     DEV
    ---     ----    -----   ---                                     ------------    ---     ---
    mlx5_0  1       0       fe80:0000:0000:0000:966d:aeff:fe12:3456                 v1      ens1np0
    mlx5_0  1       1       fe80:0000:0000:0000:966d:aeff:fe12:3456                 v2      ens1np0
    mlx5_0  1       2       0000:0000:0000:0000:0000:ffff:0a00:0001 10.0.0.1        v1      ens1np0
    mlx5_0  1       3       0000:0000:0000:0000:0000:ffff:0a00:0001 10.0.0.1        v2      ens1np0
    n_gids_found=4

Each index's version goes to `RdmaPort.roce_gids` of the netdev the HCA port maps to
(`ibdev2netdev`); a port the output lists no GID for gets an empty table. NVIDIA MLNX_OFED
documentation, "RoCE": show_gids; NCCL takes `NCCL_IB_GID_INDEX` from this table.
"""

from __future__ import annotations

import re

from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.lines import Log, Text

_ROW = re.compile(
    r"^(?P<hca>\S+)\s+(?P<port>\d+)\s+(?P<index>\d+)\s+(?P<gid>[0-9a-fA-F:]{39})\s+"
    r"(?:(?P<ipv4>\d+\.\d+\.\d+\.\d+)\s+)?(?P<ver>v[12])\b"
)
_SKIP = re.compile(r"^(?:DEV\s|---|n_gids_found=)")


def read_gids(state: DeviceState, text: Text, log: Log) -> None:
    """Set `roce_gids` of every RDMA port from one `show_gids` output."""
    table: dict[tuple[str, int], dict[int, str]] = {}
    lines: dict[tuple[str, int], int] = {}
    for number, line in text.numbered():
        stripped = line.strip()
        if not stripped or _SKIP.match(stripped):
            continue
        row = _ROW.match(stripped)
        if row is None:
            log.unmodeled(text, number, "not a show_gids table row")
            continue
        key = (row["hca"], int(row["port"]))
        table.setdefault(key, {})[int(row["index"])] = row["ver"]
        lines.setdefault(key, number)
    for port in state.rdma.values():
        if port.hca is None:
            continue
        key = (port.hca, port.port)
        port.roce_gids = dict(sorted(table.get(key, {}).items()))
        port.mark("roce_gids", text.src(lines.get(key)))
