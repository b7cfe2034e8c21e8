"""The cable or transceiver of each HCA port from `mlxlink -d HCA -m --json` (optional).

mlxlink(1) `-m` prints the port's module information; with `--json` the same fields are an
object named "Module Info", nested under the tool's result envelope (its depth differs between
MFT/mstflint versions, so it is looked for, not addressed):

    {"result": {"output": {"Module Info": {
        "Vendor Name": "NVIDIA", "Vendor Part Number": "MMA4Z00-NS400",
        "Vendor Serial Number": "MT2412FT01234", "FW Version": "47.153.1400", ...}}}}

Read into `RdmaPort.module` (vendor, part_number, serial, firmware; only those shown) of the
netdev the HCA's port maps to. A value "N/A" is not shown. An output that is not JSON, or has
no module section (no module inserted), sets nothing.
"""

from __future__ import annotations

from typing import Any

from fabriclint.bounded import InputLimitError, json_loads
from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.lines import Log, Text

FIELDS = {
    "vendor name": "vendor",
    "vendor part number": "part_number",
    "vendor serial number": "serial",
    "fw version": "firmware",
}
"""mlxlink's field names (lower case) -> RdmaPort.module keys."""
MAX_DEPTH = 8


def _module_info(data: Any, depth: int = 0) -> dict[str, Any] | None:
    """The "Module Info" object anywhere in `data` (breadth before depth), or None."""
    if not isinstance(data, dict) or depth > MAX_DEPTH:
        return None
    for key, value in data.items():
        if key.strip().lower() == "module info" and isinstance(value, dict):
            return value
    for value in data.values():
        found = _module_info(value, depth + 1)
        if found is not None:
            return found
    return None


def read_module(state: DeviceState, hca: str, text: Text, log: Log) -> None:
    """Set `module` of the RDMA ports of `hca` from its mlxlink output."""
    try:
        data = json_loads("\n".join(text.lines))
    except InputLimitError as exc:
        log.unparseable(text, str(exc))
        return
    except ValueError:
        log.unmodeled(text, None, "mlxlink output is not JSON")
        return
    info = _module_info(data)
    if info is None:
        return
    module = {}
    for name, value in info.items():
        key = FIELDS.get(str(name).strip().lower())
        shown = str(value).strip() if isinstance(value, str | int | float) else ""
        if key is not None and shown and shown.upper() != "N/A":
            module[key] = shown
    for port in state.rdma.values():
        if port.hca == hca and module:
            port.module = dict(sorted(module.items()))
            port.mark("module", text.src(None))
