"""PARSE, DRIFT003/DRIFT004 and INV rules: input coverage, devices missing from or unexpected in
the snapshot, and inventory consistency (DRIFT001/DRIFT002 are the drift stage: rules/drift.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

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
        for device, files in sorted(ctx.unverified.items()):
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


INPUT_RULES: list[type[Rule[Any]]] = [
    UnrecognizedQosConfig,
    DuplicateKey,
    UnparseableInput,
    UnverifiedInput,
]
"""About reading each device's input."""

INVENTORY_RULES: list[type[Rule[Any]]] = [DeviceMissing, DeviceUnexpected, IntentInvalid]
"""About the inventory against the snapshot (the catalog lists DRIFT001/DRIFT002 between these
and INPUT_RULES)."""

RULES: list[type[Rule[Any]]] = [*INPUT_RULES, *INVENTORY_RULES]
