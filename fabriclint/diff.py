"""Semantic diff of two snapshots: what a change does to the fabric, in normalized terms.

Each device is flattened to objects (interfaces with their effective QoS, RDMA ports, the
device-wide DSCP map, definitions) and settings in fabric terms ("DSCP 26 priority",
"PFC priorities", "queue 3 ECN"); the two sides are compared by identity with plain equality.
When the fabric directory is known, both sides are also checked and the findings the change
introduces and resolves are listed, and each change is marked with the rules it breaks.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from fabriclint.models.finding import Finding
from fabriclint.models.resolve import effective_qos, lossless_priorities, resolve_qos
from fabriclint.models.state import DeviceState, QosConfig, QueueConfig

Flat = dict[str, dict[str, Any]]


class Change(BaseModel):
    """One setting that differs between the two sides (on one or several objects)."""

    model_config = ConfigDict(extra="forbid")

    device: str
    objects: list[str]
    """Objects (interface Ethernet1, rdma ens1np0, qos, device) where the same change happens."""
    setting: str
    before: Any
    after: Any
    rules: list[str] = Field(default_factory=list)
    """Codes of findings the change introduces on this device/object."""


class Moved(BaseModel):
    """A finding that is still there after the change, only reported in another scope: a
    setting of one rule on one device whose ports now share one finding, or no longer do (the
    fingerprint, rule + device + path, changed with the path; the problem did not)."""

    model_config = ConfigDict(extra="forbid")

    rule: str
    device: str | None
    setting: str
    """The setting under its scope (`roce_queue.ecn.min_bytes`, `pfc.watchdog`)."""
    before: list[Finding]
    after: list[Finding]


class DiffReport(BaseModel):
    """The semantic diff (JSON form; text and Markdown are views of it)."""

    model_config = ConfigDict(extra="forbid")

    before: str
    after: str
    changes: list[Change]
    introduced: list[Finding] = Field(default_factory=list)
    resolved: list[Finding] = Field(default_factory=list)
    moved: list[Moved] = Field(default_factory=list)
    """Findings that persist on ports that had them before, under another fingerprint:
    neither introduced nor resolved."""
    checked: bool = False
    """Whether findings were compared (needs the fabric directory)."""


def _queue_text(conf: QueueConfig) -> dict[str, Any]:
    mode = conf.scheduler.value if conf.scheduler else None
    ecn = conf.ecn
    marking = None
    if ecn is not None and ecn.enabled:
        low = ecn.min_bytes if ecn.min_bytes is not None else ecn.min_raw
        high = ecn.max_bytes if ecn.max_bytes is not None else ecn.max_raw
        marking = f"{low} to {high}"
        if ecn.probability_pct is not None:  # EOS writes none: not 'at None%'
            marking += f" at {ecn.probability_pct}%"
    return {
        f"queue {conf.queue} scheduler": f"{mode} {conf.weight:g}" if conf.weight else mode,
        f"queue {conf.queue} ECN": marking or "off",
        f"queue {conf.queue} WRED drop": conf.wred_drop,
        f"queue {conf.queue} class MTU": conf.mtu,
    }


def _port(qos: QosConfig, dscps: Iterable[int]) -> dict[str, Any]:
    pfc = qos.pfc
    dog = pfc.watchdog if pfc else None
    out: dict[str, Any] = {
        "trust": qos.trust.value if qos.trust else None,
        "PFC priorities": lossless_priorities(qos),
        "PFC watchdog": (
            f"{'on' if dog.enabled else 'off'} {dog.detection_ms}/{dog.restoration_ms} ms"
            if dog
            else None
        ),
        "profile": qos.profile,
    }
    for dscp in dscps:
        res = resolve_qos(qos, dscp)
        out[f"DSCP {dscp} priority"] = res.priority
        out[f"DSCP {dscp} queue"] = res.queue
    for conf in (qos.queues or {}).values():
        out.update(_queue_text(conf))
    return out


def flatten(state: DeviceState, dscps: Iterable[int]) -> Flat:
    """A device as objects of settings, in fabric terms."""
    dscps = list(dscps)
    out: Flat = {"device": {"os version": state.os_version, "platform": state.platform}}
    out["qos"] = {f"DSCP {d} -> TC": tc for d, tc in sorted((state.qos.dscp_to_tc or {}).items())}
    for name, iface in state.interfaces.items():
        flat = {"admin up": iface.admin_up, "MTU": iface.mtu}
        flat.update(_port(effective_qos(state, name), dscps))
        out[f"interface {name}"] = flat
    for netdev, port in state.rdma.items():
        flat_port: dict[str, Any] = {}
        for key, value in port.model_dump(mode="json", exclude={"sources"}).items():
            if isinstance(value, dict):  # ecn_np / ecn_rp per priority: one setting each
                flat_port.update({f"{key} priority {k}": v for k, v in value.items()})
            else:
                flat_port[key] = value
        out[f"rdma {netdev}"] = flat_port
    out["definitions"] = {f"{d.kind} {d.name}": "defined" for d in state.definitions}
    return out


def _changes(device: str, before: Flat, after: Flat) -> list[Change]:
    grouped: dict[tuple[str, str, str], Change] = {}
    for obj in sorted(set(before) | set(after)):
        old, new = before.get(obj), after.get(obj)
        if old == new:
            continue
        if old is None or new is None:
            setting, was, now = "present", old is not None, new is not None
            _add(grouped, device, obj, setting, was, now)
            continue
        for setting in sorted(set(old) | set(new)):
            if old.get(setting) != new.get(setting):
                _add(grouped, device, obj, setting, old.get(setting), new.get(setting))
    return list(grouped.values())


def _add(
    grouped: dict[tuple[str, str, str], Change],
    device: str,
    obj: str,
    setting: str,
    was: Any,
    now: Any,
) -> None:
    key = (setting, repr(was), repr(now))
    if key in grouped:
        grouped[key].objects.append(obj)
    else:
        grouped[key] = Change(device=device, objects=[obj], setting=setting, before=was, after=now)


def compare_states(
    before: dict[str, DeviceState], after: dict[str, DeviceState], dscps: Iterable[int]
) -> list[Change]:
    """Every setting change, per device, the same change on several ports folded into one."""
    dscps = list(dscps)
    changes: list[Change] = []
    for device in sorted(set(before) | set(after)):
        old, new = before.get(device), after.get(device)
        if old is None or new is None:
            changes.append(
                Change(
                    device=device,
                    objects=["device"],
                    setting="present",
                    before=old is not None,
                    after=new is not None,
                )
            )
            continue
        changes += _changes(device, flatten(old, dscps), flatten(new, dscps))
    return changes


# Which rule families can be about which setting (words of the setting name -> code prefixes).
_FAMILIES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("DSCP",), ("PFC002", "FAB001", "QOS", "DRIFT", "ECN001")),
    (("PFC",), ("PFC", "NIC001", "FAB002", "DRIFT", "ECN001")),
    (("ECN", "WRED"), ("ECN", "FAB003", "DRIFT")),
    (("scheduler",), ("QOS004", "QOS007", "FAB003", "DRIFT")),
    (("MTU", "active_mtu"), ("MTU", "DRIFT")),
    (("trust",), ("QOS001", "PFC005", "DRIFT")),
    (("profile", "present"), ("QOS005", "QOS006", "DRIFT003", "DRIFT004", "INV")),
    (("os version",), ("FAB004",)),
    (("ecn_np", "ecn_rp"), ("NIC002",)),
    (("cnp",), ("NIC003",)),
    (("roce_tos",), ("NIC004",)),
    (("state", "rate", "width"), ("NIC005", "IB010")),
    (("firmware", "driver"), ("NIC006",)),
)


def _families(setting: str) -> tuple[str, ...]:
    found: tuple[str, ...] = ()
    for words, codes in _FAMILIES:
        if any(word in setting for word in words):
            found += codes
    return found


def _located(change: Change, finding: Finding) -> bool:
    """Whether the finding is about the object(s) the change touches (a cross-device finding
    may sit on the other end of the cable)."""
    if len(change.objects) == 1 and change.objects[0].startswith(("interface ", "rdma ")):
        port = change.objects[0].split(" ", 1)[1]
        if finding.object.startswith("link "):
            return f"{change.device}:{port}" in finding.object
        if finding.device != change.device:
            return False
        return finding.object == f"interface {port}" or (
            not finding.object.startswith("interface ") and port in finding.message
        )
    if finding.device != change.device:
        return False
    return not finding.object.startswith(("interface ", "link "))


def mark(changes: list[Change], introduced: list[Finding]) -> None:
    """Attach to each change the codes of introduced findings about its setting and objects."""
    for change in changes:
        families = _families(change.setting)
        change.rules = sorted(
            {f.rule for f in introduced if f.rule.startswith(families) and _located(change, f)}
        )


class Delta(BaseModel):
    """Findings after a change against before it."""

    model_config = ConfigDict(extra="forbid")

    introduced: list[Finding]
    resolved: list[Finding]
    moved: list[Moved]


def _identity(finding: Finding) -> tuple[str, str | None, str] | None:
    """(rule, device, setting) of a finding that says which setting and ports it covers."""
    if not finding.setting or not finding.ports:
        return None
    return finding.rule, finding.device, finding.setting


def finding_delta(before: list[Finding], after: list[Finding]) -> Delta:
    """Introduced, resolved and moved findings, suppressed ones left out.

    Findings are matched by fingerprint. A finding only after the change is *moved*, not
    introduced, when the same rule reported the same setting on the same device before, under
    another fingerprint, on every port it covers now (a fault of three ports is left on one,
    or one port's override splits a device-wide fault): the setting, device, rule and ports
    are the ones that were wrong already. A port not covered before makes it introduced. The
    findings before it replaces are moved too, not resolved; the others are resolved."""
    old = {f.fingerprint for f in before if f.suppressed is None}
    new = {f.fingerprint for f in after if f.suppressed is None}
    came = [f for f in after if f.fingerprint in new - old]
    gone = [f for f in before if f.fingerprint in old - new]
    moved: list[Moved] = []
    taken: set[int] = set()
    for key in dict.fromkeys(k for k in map(_identity, came) if k is not None):
        was = [f for f in gone if _identity(f) == key]
        covered = frozenset[str]().union(*(f.ports for f in was))
        now = [f for f in came if _identity(f) == key and f.ports <= covered]
        if not now:
            continue
        ports = frozenset[str]().union(*(f.ports for f in now))
        was = [f for f in was if f.ports & ports]
        taken.update(id(f) for f in [*was, *now])
        moved.append(Moved(rule=key[0], device=key[1], setting=key[2], before=was, after=now))
    return Delta(
        introduced=[f for f in came if id(f) not in taken],
        resolved=[f for f in gone if id(f) not in taken],
        moved=moved,
    )
