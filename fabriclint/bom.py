"""`fabriclint bom lock` and `bom verify`: lock what a benchmark's result depends on, and say
which item changed since.

The lock is built from a snapshot's parsed states: per host each RDMA NIC's model, PSID,
firmware, driver and link rate/width; per switch its model, OS version and cabled ports'
speeds; per device a sha256 of its normalized MTU/QoS settings (the DeviceState fields with
every source location dropped, so a comment or a moved line changes nothing). `verify` builds
the same lock from another snapshot and compares item by item: exit 0 same, 1 changed, 3 when a
locked device could not be read (it cannot tell).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from fabriclint.bounded import InputLimitError, json_loads
from fabriclint.engine import (
    CheckOptions,
    UsageError,
    find_snapshot,
    option_models,
    parse_snapshot,
)
from fabriclint.loaders.fabric import load_fabric
from fabriclint.models.bom import BomLock, ConfigLock, GpuLock, HostLock, NicLock, SwitchLock
from fabriclint.models.state import DeviceState
from fabriclint.parsers.kit.optics import FIRMWARE_NOT_SHOWN, transceivers
from fabriclint.rules.base import Context

RERUN = "rerun the benchmark"
_DROPPED = frozenset({"sources", "source"})
"""Where a value was written, not what it is: never part of a hash."""


@dataclass
class Taken:
    """A lock built from one snapshot, and the locked devices it could not read (-> why)."""

    lock: BomLock
    unreadable: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    """What the lock cannot hold although the device was read (a platform's output that shows
    no transceiver firmware): `bom lock` prints them."""


def take(fabric_dir: Path, snapshot: Path | str | None) -> Taken:
    """The lock of `snapshot` (raises FabricError, SnapshotError for bad input: exit 2)."""
    fabric = load_fabric(fabric_dir, option_models())
    opts = CheckOptions(fabric_dir=fabric.root, snapshot=snapshot)
    snap = find_snapshot(fabric, opts)
    ctx = parse_snapshot(fabric, snap, opts)
    unreadable = {
        name: _why(ctx, name, status)
        for name, status in ctx.status.items()
        if status != "ok" or name not in ctx.states
    }
    states = {n: s for n, s in ctx.states.items() if n not in unreadable}
    lock = BomLock(
        fabric=fabric.inventory.name,
        snapshot=Path(snap.path).name,
        hosts={n: _host(s) for n, s in sorted(states.items()) if s.kind == "host"},
        switches={n: _switch(ctx, s) for n, s in sorted(states.items()) if s.kind == "switch"},
        config=_config(states),
    )
    return Taken(lock, unreadable, _notes(states))


def _notes(states: dict[str, DeviceState]) -> list[str]:
    """One line per switch whose transceiver output shows no module firmware."""
    return [
        f"{name}: transceiver firmware not shown by {state.facts[FIRMWARE_NOT_SHOWN]}: not locked"
        for name, state in sorted(states.items())
        if FIRMWARE_NOT_SHOWN in state.facts
    ]


def _why(ctx: Context, name: str, status: str) -> str:
    """Why a device could not be locked: what is missing, else its first input problem with
    the file and line, else its status."""
    missing = ctx.missing.get(name)
    state = ctx.states.get(name)
    if missing or state is None or not state.problems:
        return missing or status
    problem = state.problems[0]
    return f"{problem.message} at {problem.source}" if problem.source else problem.message


def _host(state: DeviceState) -> HostLock:
    nics: dict[str, NicLock] = {}
    for netdev, port in sorted(state.rdma.items()):
        nics[port.hca or netdev] = NicLock(
            netdev=netdev,
            model=port.model,
            psid=port.psid,
            firmware=port.firmware,
            driver=port.driver,
            rate_gbps=port.rate_gbps,
            width=port.width,
            module=port.module,
        )
    facts = state.facts
    return HostLock(
        nics=nics, gpus=_gpus(state), kernel=facts.get("kernel"), cuda=facts.get("cuda_version")
    )


def _gpus(state: DeviceState) -> GpuLock | None:
    """The GPU facts the host parser read from `nvidia-smi --query-gpu`, or None."""
    count = state.facts.get("gpu_count")
    if count is None or not count.isdigit():
        return None
    facts = state.facts
    return GpuLock(
        count=int(count),
        model=facts.get("gpu_model"),
        driver=facts.get("gpu_driver"),
        vbios=facts.get("gpu_vbios"),
    )


def _switch(ctx: Context, state: DeviceState) -> SwitchLock:
    ports = {
        port: (state.interfaces[port].speed_mbps if port in state.interfaces else None)
        for port in sorted(ctx.cabled_ports(state.name))
    }
    shown = transceivers(state.facts)
    modules = None if shown is None else {p: shown[p] for p in ports if p in shown}
    return SwitchLock(
        model=state.facts.get("model"),
        os_version=state.os_version,
        ports=ports,
        transceivers=modules,
    )


def _config(states: dict[str, DeviceState]) -> ConfigLock:
    devices = {name: config_hash(states[name]) for name in sorted(states)}
    whole = hashlib.sha256("\n".join(f"{n} {h}" for n, h in devices.items()).encode())
    return ConfigLock(sha256=whole.hexdigest(), devices=devices)


def config_hash(state: DeviceState) -> str:
    """sha256 of the device's MTU/QoS settings: device QoS, each interface's MTU and QoS, each
    RDMA port's ToS, CNP, ECN and active MTU; locations dropped, keys sorted."""
    interfaces = {
        name: {"mtu": i.mtu, "qos": _plain(i.qos), "profiles": sorted(i.profiles)}
        for name, i in state.interfaces.items()
    }
    rdma = {
        name: _plain(
            p,
            include={"roce_tos", "cnp_dscp", "cnp_priority", "ecn_np", "ecn_rp", "active_mtu"},
        )
        for name, p in state.rdma.items()
    }
    settings = {"qos": _plain(state.qos), "interfaces": interfaces, "rdma": rdma}
    text = json.dumps(settings, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _plain(model: Any, include: set[str] | None = None) -> Any:
    """A model's JSON values without source locations (None stays None)."""
    if model is None:
        return None
    return _strip(model.model_dump(mode="json", include=include))


def _strip(node: Any) -> Any:
    if isinstance(node, dict):
        return {str(k): _strip(v) for k, v in node.items() if k not in _DROPPED}
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


def dumps(lock: BomLock) -> str:
    """The lock file's text: JSON, keys sorted, two-space indent (stable and diffable)."""
    data = lock.model_dump(mode="json", by_alias=True, exclude_none=True)
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def read_lock(path: Path, fabric: str | None = None) -> BomLock:
    """A lock file, or UsageError naming the file and what is wrong (exit 2); with `fabric`,
    a lock of another fabric is refused too (compared, every device would read as changed)."""
    locked = _parse_lock(path)
    if fabric is not None and locked.fabric != fabric:
        raise UsageError(
            f"{path}: a lock of fabric {locked.fabric!r}, not {fabric!r} (inventory.yaml `name`)"
        )
    return locked


def _parse_lock(path: Path) -> BomLock:
    """The lock file's model, or UsageError naming the file and what is wrong."""
    from fabriclint.confine import UnsafeInput, read_inside

    try:  # a regular file under the size limit (never a FIFO or /dev/zero), wherever it is
        text = read_inside(path, Path(os.sep)).decode("utf-8")
    except UnsafeInput as exc:
        raise UsageError(f"cannot read the lock file: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the lock file: {exc}") from None
    try:
        data = json_loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}") from None
    except InputLimitError as exc:
        raise UsageError(f"{path}: {exc}") from None
    try:
        return BomLock.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise UsageError(f"{path}: {where}: {first['msg']} (not a fabriclint BOM lock)") from None


@dataclass
class Verdict:
    """What `bom verify` found: each changed item, and each locked device it could not tell."""

    changes: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """3 cannot tell (whatever changed), 1 changed, 0 the same."""
        return 3 if self.unknown else 1 if self.changes else 0


def verify(locked: BomLock, now: Taken) -> Verdict:
    """Compare a lock with the lock of the current snapshot, item by item."""
    verdict = Verdict()
    current = now.lock
    for name in sorted(now.unreadable):
        if name in locked.hosts or name in locked.switches or name in locked.config.devices:
            verdict.unknown.append(f"{name}: cannot tell ({now.unreadable[name]})")
    skip = set(now.unreadable)
    _compare_group(verdict, "host", locked.hosts, current.hosts, skip)
    _compare_group(verdict, "switch", locked.switches, current.switches, skip)
    for name, before in sorted(locked.config.devices.items()):
        after = current.config.devices.get(name)
        if name not in skip and after is not None and after != before:
            verdict.changes.append(
                f"{name} MTU/QoS configuration {before[:12]} -> {after[:12]} "
                f"(`fabriclint diff` shows the settings): {RERUN}"
            )
    return verdict


def _compare_group(
    verdict: Verdict, kind: str, before: dict[str, Any], after: dict[str, Any], skip: set[str]
) -> None:
    """Devices of one kind: removed, added, or each field of each item that changed."""
    for name in sorted(set(before) | set(after)):
        if name in skip:
            continue
        if name not in after:
            verdict.changes.append(f"{name}: {kind} no longer in the fabric: {RERUN}")
        elif name not in before:
            verdict.changes.append(f"{name}: {kind} not in the lock (added): {RERUN}")
        else:
            old = _worded(before[name].model_dump(mode="json"))
            new = _worded(after[name].model_dump(mode="json"))
            verdict.changes.extend(_diff_items(name, old, new))


def _worded(item: dict[str, Any]) -> dict[str, Any]:
    """A device's dump with each transceiver keyed "PORT transceiver", so a change reads
    "leaf01 Ethernet1/1 transceiver serial X -> Y"."""
    modules = item.get("transceivers")
    if isinstance(modules, dict):
        item["transceivers"] = {f"{port} transceiver": m for port, m in modules.items()}
    return item


NOT_SHOWN_IS_NO_CHANGE = frozenset({"gpus", "module", "kernel", "cuda", "transceivers"})
"""Items from optional outputs (a host without nvidia-smi): absent on one side is not shown."""


def _diff_items(prefix: str, old: Any, new: Any) -> list[str]:
    """`prefix key ... field old -> new: rerun` for each leaf that differs ('nics' and 'ports'
    are containers, left out of the wording)."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in sorted(set(old) | set(new)):
            label = _label(prefix, key)
            if key in NOT_SHOWN_IS_NO_CHANGE and None in (old.get(key), new.get(key)):
                continue  # an optional output absent on one side: cannot tell, not a change
            if key not in new:
                out.append(f"{label}: no longer shown: {RERUN}")
            elif key not in old:
                out.append(f"{label}: not in the lock ({_show(new[key])}): {RERUN}")
            else:
                out.extend(_diff_items(label, old[key], new[key]))
        return out
    if old == new:
        return []
    return [f"{prefix} {_show(old)} -> {_show(new)}: {RERUN}"]


def _label(prefix: str, key: str) -> str:
    """How an item is named: containers ('nics', 'ports') are left out, a port's transceiver
    reads "leaf01 Ethernet1/1 transceiver serial" (see `_worded`)."""
    if key in ("nics", "ports", "transceivers"):
        return prefix
    return f"{prefix} {key}"


def _show(value: Any) -> str:
    if value is None:
        return "(not shown)"
    if isinstance(value, dict):
        return "present"
    return str(value)


def locked_nccl_version(paths: list[Path]) -> str | None:
    """The one NCCL version the results files show (UsageError when one is unreadable or they
    disagree; None when none shows a version)."""
    from fabriclint.ncclresults import ResultsError, read_results, version_text

    versions: dict[str, str] = {}
    for path in paths:
        try:
            run = read_results(path, str(path))
        except ResultsError as exc:
            raise UsageError(str(exc)) from None
        shown = version_text(run.nccl_version)
        if shown is not None:
            versions[str(path)] = shown
    if len(set(versions.values())) > 1:
        listed = ", ".join(f"{p}: {v}" for p, v in sorted(versions.items()))
        raise UsageError(f"--results: the runs used different NCCL versions ({listed})")
    return next(iter(versions.values()), None)


def nccl_changes(locked: BomLock, versions: dict[str, str | None]) -> list[str]:
    """Each results file whose NCCL version differs from the lock's (none when not locked or
    not shown: a text output without its header line shows none)."""
    if locked.nccl_version is None:
        return []
    return [
        f"NCCL version {locked.nccl_version} -> {shown} ({name}): {RERUN}"
        for name, shown in sorted(versions.items())
        if shown is not None and shown != locked.nccl_version
    ]
