"""Why a finding is new tonight: the semantic change since the previous night's snapshot that
explains it (the `fabriclint diff` comparison and marking), or that there was none."""

from __future__ import annotations

from pathlib import Path

from fabriclint.diff import Change, compare_states, mark
from fabriclint.diffrun import dscps_of
from fabriclint.loaders.fabric import Fabric
from fabriclint.models.finding import Finding
from fabriclint.models.intent import Intent
from fabriclint.models.state import DeviceState
from fabriclint.reporters.diff import value_text

NO_CHANGE = "no config change: the device or intent changed"
FIRST_NIGHT = "first night recorded: no earlier snapshot to compare"
MAX_CHANGES = 3


def intent_dscps(intent: Intent | None) -> list[int]:
    """The DSCPs intent names (RoCE and CNP), whose per-port resolution the diff compares."""
    return dscps_of(intent)


def change_text(change: Change) -> str:
    """`leaf01 interface Ethernet1/1: MTU: 9216 -> 1500` (several ports counted)."""
    where = change.objects[0] if len(change.objects) == 1 else f"{len(change.objects)} objects"
    before, after = value_text(change.before), value_text(change.after)
    return f"{change.device} {where}: {change.setting}: {before} -> {after}"


def involved(fabric: Fabric, new: list[Finding]) -> set[str] | None:
    """The devices whose change can explain the new findings: theirs and their cable peers'
    (a link finding may come from the other end). None (all) for a fabric-wide finding."""
    if any(f.device is None for f in new):
        return None
    devices = {f.device for f in new if f.device is not None}
    for (device, _port), (peer, _peer_port) in fabric.inventory.peers().items():
        if device in devices:
            devices.add(peer)
    return devices


def previous_states(
    fabric: Fabric, snapshot: Path, devices: set[str] | None
) -> dict[str, DeviceState]:
    """Parse (without running rules) the previous night's snapshot: only `devices` when given,
    so a night with a few new findings on 1,000 switches parses a few devices, not all."""
    from fabriclint.engine import CheckOptions, find_snapshot, parse_snapshot

    limit = sorted(devices) if devices is not None else None
    opts = CheckOptions(fabric_dir=fabric.root, snapshot=snapshot, limit=limit)
    return parse_snapshot(fabric, find_snapshot(fabric, opts), opts).states


def explain(
    before: dict[str, DeviceState] | None,
    after: dict[str, DeviceState],
    new: list[Finding],
    dscps: list[int],
    only: set[str] | None = None,
) -> dict[str, str]:
    """Fingerprint -> cause text for each new finding. A finding no change explains but whose
    root cause (its `cause` fingerprint) one does inherits that change."""
    if before is None:
        return dict.fromkeys((f.fingerprint for f in new), FIRST_NIGHT)
    if only is not None:  # the previous night was parsed for these devices only
        after = {name: state for name, state in after.items() if name in only}
    changes = compare_states(before, after, dscps)
    direct: dict[str, str] = {}
    for finding in new:
        mark(changes, [finding])
        hits = [change_text(c) for c in changes if c.rules]
        if hits:
            more = f" (+{len(hits) - MAX_CHANGES} more)" if len(hits) > MAX_CHANGES else ""
            direct[finding.fingerprint] = "; ".join(hits[:MAX_CHANGES]) + more
    out = {}
    for finding in new:
        root = direct.get(finding.cause) if not finding.is_cause else None
        out[finding.fingerprint] = direct.get(finding.fingerprint) or root or NO_CHANGE
    return out
