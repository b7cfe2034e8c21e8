"""PARSE, DRIFT and INV rules: input coverage, drift from intent, and inventory consistency."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fabriclint.drift.compare import Drift, compare
from fabriclint.intent.render import render
from fabriclint.models.finding import Finding
from fabriclint.models.state import DeviceState
from fabriclint.rules.base import Context, NoOptions, Rule


class UnrecognizedQosConfig(Rule[NoOptions]):
    """A QoS-relevant line the parser saw but could not model.

    Why: a line fabriclint does not understand may change what the fabric does; it is listed,
    never silently dropped, so a reviewer can judge it.

    Fails: `qos rewrite dscp` on EOS (not modeled). Passes: a config whose QoS lines are all modeled.
    """

    code = "PARSE001"
    name = "unrecognized-qos-config"
    severity = "info"
    summary = "A QoS-relevant line the parser could not model"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in ctx.states.values():
            seen: dict[str, int] = {}
            for item in state.unparsed:
                text = item.text.strip()
                # The n-th occurrence of the same text: stable when lines move, unique per device.
                seen[text] = seen.get(text, 0) + 1
                line = item.source.line if item.source and item.source.line else 0
                yield self.finding(
                    state.name,
                    f"line {line}: {text}",
                    f"unparsed.{text}.{seen[text]}",
                    "not modeled by fabriclint"
                    + ("" if item.reason in ("", "not modeled") else f": {item.reason}"),
                    source=item.source,
                )


class _ProblemRule(Rule[NoOptions]):
    kind: str = ""

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in ctx.states.values():
            for problem in state.problems:
                if problem.kind != self.kind:
                    continue
                where = problem.source.file if problem.source else "input"
                yield self.finding(
                    state.name,
                    f"file {where}",
                    f"inputs.{where}.{problem.message}",
                    problem.message,
                    source=problem.source,
                )


class DuplicateKey(_ProblemRule):
    """Duplicate keys in JSON/YAML input, where a loader would silently keep only one.

    Why: which of two values a device uses depends on the loader; the config is ambiguous.

    Fails: a config_db.json with two `"Ethernet0"` keys under PORT. Passes: unique keys.
    """

    code = "PARSE002"
    name = "duplicate-key"
    severity = "error"
    summary = "Duplicate keys in JSON/YAML input"
    kind = "duplicate-key"


class UnparseableInput(_ProblemRule):
    """An input file that could not be parsed at all; the device counts as incomplete (exit 3).

    Why: a device fabriclint cannot read is a device nobody checked.

    Fails: an `ibv_devinfo -v` output that is an error message. Passes: well-formed outputs.
    """

    code = "PARSE003"
    name = "unparseable-input"
    severity = "error"
    summary = "An input file could not be parsed"
    kind = "unparseable"


UNVERIFIED = "unverified-inputs"
"""Context.memo key: device -> snapshot files its manifest lists without a sha256 (the engine
fills it from the snapshot)."""


class UnverifiedInput(Rule[NoOptions]):
    """A snapshot manifest lists a device's files without their sha256 checksums.

    Why: the checksums are how a changed or swapped file is detected (the device is then
    incomplete, exit 3); without them a file edited after collection is checked as if the
    device had produced it. A warning by default; the `strict` pack makes it an error.

    Fails: a manifest entry `{"files": {"show running-config": "show_running-config.txt"}}`
    with no `sha256` map. Passes: every listed file has its sha256 (what `collect` writes).
    """

    code = "PARSE004"
    name = "unverified-input"
    severity = "warning"
    summary = "Snapshot files without a manifest checksum"

    def check(self, ctx: Context) -> Iterator[Finding]:
        unverified: dict[str, list[str]] = ctx.memo.get(UNVERIFIED, {})
        for device, files in sorted(unverified.items()):
            if device not in ctx.states:
                continue  # not checked (or not in the inventory): nothing was trusted
            shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
            yield self.finding(
                device,
                "manifest",
                "manifest.sha256",
                f"manifest.json gives no sha256 for {len(files)} file(s) of {device} ({shown}): "
                "a change after collection would go unnoticed",
            )


class SettingDrift(Rule[NoOptions]):
    """A setting intent declares differs from the device (outside its tolerance).

    Why: intent is what the benchmark plan assumes; any difference invalidates the result.

    Fails: intent ECN minimum 150000 B (±10 %) and the leaf programs 300000 B.
    Passes: the leaf programs 159744 B (within tolerance).
    """

    code = "DRIFT001"
    name = "setting-drift"
    severity = "error"
    summary = "A setting differs from intent"
    missing = False

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in ctx.states.values():
            profile = ctx.profile(state.name)
            if profile is None:
                ctx.skip(self.code, state.name, "an intent profile for the device's role")
                continue
            ports = [p.name for p in ctx.rdma_ports(state)]
            roce_dscp = profile.roce.dscp[0] if profile.roce else None
            key = ("drift", state.name)
            if key not in ctx.memo:
                ctx.memo[key] = compare(state, render(profile, state, ports, ctx.states), roce_dscp)
            if any(not d.comparable for d in ctx.memo[key]):
                ctx.skip(  # a threshold in segments/time: not comparable
                    self.code,
                    state.name,
                    "thresholds in bytes (the device states some in segments or time)",
                )
            drifts = [d for d in ctx.memo[key] if d.missing == self.missing and d.comparable]
            for group in _group(drifts):
                yield self._finding(state.name, group)

    def _finding(self, device: str, group: list[Drift]) -> Finding:
        first = group[0]
        if len(group) == 1:
            obj, path, where = first.obj, first.path, first.obj
        else:
            obj, path = "qos", f"interfaces.*.{first.key}"
            where = f"{len(group)} ports ({_names([d.port for d in group])})"
        if self.missing:
            message = f"{first.label} is not configured on {where} (intent: {first.expected})"
        else:
            how = f" ({first.explanation})" if first.explanation else ""
            message = (
                f"{first.label} on {where}: {first.actual}, where intent has {first.expected}{how}"
            )
        return self.finding(
            device,
            obj,
            path,
            message,
            expected=first.expected,
            actual=first.actual,
            source=first.source,
        )


def _names(ports: list[str], limit: int = 3) -> str:
    shown = ", ".join(ports[:limit])
    return shown + (f" and {len(ports) - limit} more" if len(ports) > limit else "")


def _group(drifts: list[Drift]) -> list[list[Drift]]:
    """Merge the same drift on several ports when one config line causes it (one fault, one finding)."""
    groups: dict[tuple[str, str, str, str], list[Drift]] = {}
    for drift in drifts:
        line = str(drift.source) if drift.source else "-"  # no line: one finding, not one per port
        key = (drift.key, repr(drift.expected), repr(drift.actual), line)
        groups.setdefault(key, []).append(drift)
    return list(groups.values())


class SettingMissing(SettingDrift):
    """A setting intent declares is absent on the device.

    Why: an absent setting falls back to a platform default nobody chose.

    Fails: intent declares ECN on the RoCE queue and the queue has no random-detect ecn.
    Passes: the queue marks ECN at the intended thresholds.
    """

    code = "DRIFT002"
    name = "setting-missing"
    severity = "error"
    summary = "A setting intent declares is absent"
    missing = True


class DeviceMissing(Rule[NoOptions]):
    """A device in the inventory has no data in the snapshot (the check is incomplete, exit 3).

    Why: "no findings" for a device nobody read is a lie.

    Fails: leaf04 unreachable during collection. Passes: every device collected.
    """

    code = "DRIFT003"
    name = "device-missing"
    severity = "error"
    summary = "An inventory device has no data in the snapshot"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for device, reason in sorted(ctx.missing.items()):
            yield self.finding(device, "device", "device", f"{device} was not checked: {reason}")


class DeviceUnexpected(Rule[NoOptions]):
    """The snapshot has a device the inventory does not list.

    Why: a device outside the inventory is outside every cross-device check.

    Fails: a snapshot folder leaf09 with no inventory entry. Passes: inventory and snapshot agree.
    """

    code = "DRIFT004"
    name = "device-unexpected"
    severity = "warning"
    summary = "A snapshot device is not in the inventory"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for device, platform in sorted(ctx.unexpected.items()):
            yield self.finding(
                device,
                "device",
                "device",
                f"{device} ({platform}) is in the snapshot but not in the inventory",
            )


class IntentInvalid(Rule[NoOptions]):
    """Intent/inventory break a rule the schema cannot express, seen against the parsed devices.

    Why: a cable to a port that does not exist, or a role with no profile, means part of the
    fabric is silently unchecked.

    Fails: a link `leaf01:Ethernet99` when leaf01 has no Ethernet99; role `storage` with no profile.
    Passes: every cabled port exists and every role has a profile.
    """

    code = "INV001"
    name = "intent-invalid"
    severity = "error"
    summary = "Intent or inventory inconsistent with the fabric"

    def check(self, ctx: Context) -> Iterator[Finding]:
        # Every cabled port of every parsed device, whatever the far end is (in --configs the
        # hosts are not parsed: a typo on a leaf's host port must still be caught).
        ends = {end for link in ctx.inventory.links for end in link.ends()}
        for device, port in sorted(ends):
            state = ctx.states.get(device)
            if state is None or any(p.kind == "unparseable" for p in state.problems):
                continue  # not parsed (DRIFT003 says why), or PARSE003 says why ports are unknown
            if not _has_port(state, port):
                yield self.finding(
                    device,
                    f"interface {port}",
                    f"interfaces.{port}",
                    f"the cabling plan names {device}:{port}, but {device} has no port {port}",
                    source=ctx.link_source(device, port),
                )
        if ctx.intent is None:
            return
        for device, state in sorted(ctx.states.items()):
            if state.role is not None and ctx.profile(device) is None:
                yield self.finding(
                    device,
                    "device",
                    "role",
                    f"role '{state.role}' of {device} has no profile in intent.yaml, so nothing is compared to intent",
                )


def _has_port(state: DeviceState, port: str) -> bool:
    """A port the device has: an interface, a NIC netdev, or an HCA port (`mlx5_0/1`) that has
    no netdev (InfiniBand)."""
    if port in state.interfaces or port in state.rdma:
        return True
    return any(f"{nic.hca}/{nic.port}" == port for nic in state.rdma.values() if nic.hca)


RULES: list[type[Rule[Any]]] = [
    UnrecognizedQosConfig,
    DuplicateKey,
    UnparseableInput,
    UnverifiedInput,
    SettingDrift,
    SettingMissing,
    DeviceMissing,
    DeviceUnexpected,
    IntentInvalid,
]
