"""Root causes: link each finding to the finding that explains it, so one fault reads as one item.

One wrong setting shows up through several rules: a NIC with PFC on the wrong priority is a drift
(DRIFT001), a NIC/switch mismatch (NIC001), a RoCE priority without PFC (PFC002), an asymmetric
link (PFC007) and a fabric inconsistency (FAB002). They are one fault. Findings are joined when
they share evidence, and each group's cause is its most specific finding:

- the same source line on the same device (every rule read the same setting);
- the same setting family (MTU, ECN, PFC watchdog, trust, ...) on the same device and port;
- a link finding (`link A:p - B:q`) and a finding of its family on either end's port;
- settings of the RoCE queue (ECN on it, its scheduler) and a change of the RoCE classification
  on the same device: the queue settings moved with the class;
- a port's trust and the DSCP classification findings on that port;
- a dangling reference (QOS005) and the findings on the objects that reference it;
- repeated findings of a rule that one device-wide setting explains (PFC004, PFC006, IB003);
- a fabric-consistency finding (FAB001-FAB003) with nothing else to join: the nearest other
  finding on the same device (the deviation it describes).

Across devices, the cause sits on the end that drifted from intent: the other end is only
"different from its peer".

Suppressed findings are their own causes: an accepted finding explains nothing new.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable

from fabriclint.models.finding import Finding

# Ranked: the lower, the likelier the root cause. Input and reference problems come first, then
# the rule that names the faulty setting, then drift from intent, then cross-device views of it.
_RANK_BY_PREFIX: tuple[tuple[str, float], ...] = (
    ("INTERNAL", 0),
    ("PARSE003", 0),
    ("INV", 1),
    ("QOS005", 1),
    ("QOS008", 4.6),  # buffers follow the lossless set: the set is the cause
    ("QOS", 2),
    ("MTU003", 2),
    ("MTU004", 2),
    ("NIC", 3),
    ("ECN", 3),
    ("PFC007", 7),
    ("PFC002", 4.5),  # "RoCE is not lossless" is what most PFC and map faults lead to
    ("PFC", 4),
    ("IB", 4),
    ("DRIFT", 5),
    ("MTU", 6),
    ("FAB", 8),
)

# Setting families, by the first keyword found in a finding's model path.
_FAMILIES: tuple[tuple[str, str], ...] = (
    ("watchdog", "watchdog"),
    ("wred", "ecn"),
    ("ecn", "ecn"),
    ("cnp", "cnp"),
    ("buffers", "pfc"),  # lossless buffers/headroom follow the lossless priority set
    ("mtu", "mtu"),
    ("trust", "trust"),
    ("scheduler", "scheduler"),
    ("dscp", "classification"),
    ("roce_tos", "classification"),
    ("pfc", "pfc"),
    ("firmware", "firmware"),
    ("driver", "firmware"),
    ("os_version", "os"),
    ("state", "link-state"),
)

_LINK = re.compile(r"^link (?P<a>[^:\s]+):(?P<pa>\S+) - (?P<b>[^:\s]+):(?P<pb>\S+)$")
_REFERENCED_BY = re.compile(r"referenced by (?:interface )?(?P<by>\S+)")


def rank(finding: Finding) -> float:
    """How likely the finding is a root cause (lower is likelier)."""
    return next((r for prefix, r in _RANK_BY_PREFIX if finding.rule.startswith(prefix)), 5)


def family(finding: Finding) -> str | None:
    """The setting family the finding is about, from its model path."""
    path = finding.path.lower()
    return next((name for key, name in _FAMILIES if key in path), None)


def port(finding: Finding) -> str | None:
    """The port the finding is about (`interfaces.X.` / `rdma.X.`), None when device-wide."""
    for head in ("interfaces.", "rdma."):
        if finding.path.startswith(head):
            name = finding.path[len(head) :].split(".", 1)[0]
            return None if name == "*" else name
    if finding.object.startswith("interface "):
        return finding.object.removeprefix("interface ")
    return None


class _Groups:
    """Union-find over finding indexes."""

    def __init__(self, size: int) -> None:
        self.parent = list(range(size))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def join(self, items: Iterable[int]) -> None:
        first: int | None = None
        for i in items:
            if first is None:
                first = self.find(i)
            else:
                self.parent[self.find(i)] = first


def link_causes(findings: list[Finding]) -> None:
    """Set `cause` on every finding: its group's root cause's fingerprint (its own if a cause)."""
    active = [f for f in findings if f.suppressed is None]
    for finding in findings:
        finding.cause = finding.fingerprint
    groups = _Groups(len(active))
    _join_by_line(active, groups)
    _join_by_family(active, groups)
    _join_links(active, groups)
    _join_roce_queue(active, groups)
    _join_trust(active, groups)
    _join_references(active, groups)
    _join_repeats(active, groups)
    _join_fabric_views(active, groups)
    members: dict[int, list[Finding]] = {}
    for i, finding in enumerate(active):
        members.setdefault(groups.find(i), []).append(finding)
    for group in members.values():
        root = _root(group)
        for finding in group:
            finding.cause = root.fingerprint


def _root(group: list[Finding]) -> Finding:
    """The group's cause. Across a link the faulty end is the one that drifted from intent
    (the other end is only "different from its peer"); then the most specific rule."""
    drifted = {f.device for f in group if f.rule.startswith("DRIFT")}
    return min(
        group,
        key=lambda f: (bool(drifted) and f.device not in drifted, rank(f), f.rule, f.object),
    )


def _join_keyed(
    findings: list[Finding], groups: _Groups, key: Callable[[Finding], Hashable | None]
) -> None:
    by_key: dict[Hashable, list[int]] = {}
    for i, finding in enumerate(findings):
        k = key(finding)
        if k is not None:
            by_key.setdefault(k, []).append(i)
    for items in by_key.values():
        groups.join(items)


def _join_by_line(findings: list[Finding], groups: _Groups) -> None:
    def key(f: Finding) -> tuple[str | None, str, int] | None:
        source = f.source
        if source is None or not source.line or f.rule.startswith(("FAB", "SUP", "PARSE001")):
            return None  # FAB findings sit on a representative line, not on their cause's
        return (f.device, source.file, source.line)

    _join_keyed(findings, groups, key)


def _join_by_family(findings: list[Finding], groups: _Groups) -> None:
    def key(f: Finding) -> tuple[str | None, str, str | None] | None:
        fam = family(f)
        if fam is None or f.rule.startswith(("FAB", "SUP", "PARSE", "INTERNAL")):
            return None
        return (f.device, fam, port(f))

    _join_keyed(findings, groups, key)
    # A device-wide finding of a family joins the per-port findings of the same family.
    for i, wide in enumerate(findings):
        if port(wide) is not None or family(wide) is None or wide.rule.startswith("FAB"):
            continue
        same = [
            j
            for j, f in enumerate(findings)
            if f.device == wide.device
            and family(f) == family(wide)
            and not f.rule.startswith("FAB")
        ]
        groups.join([i, *same])


def _join_links(findings: list[Finding], groups: _Groups) -> None:
    for i, link in enumerate(findings):
        match = _LINK.match(link.object)
        if match is None:
            continue
        ends = {(match["a"], match["pa"]), (match["b"], match["pb"])}
        devices = {match["a"], match["b"]}
        for j, f in enumerate(findings):
            if j == i or family(f) != family(link) or f.device not in devices:
                continue
            here = port(f)
            # that end's port, or a device-wide setting of the family at that end
            if (f.device, here) in ends or (here is None and f.device != link.device):
                groups.join([i, j])


def _join_roce_queue(findings: list[Finding], groups: _Groups) -> None:
    """Settings of the RoCE queue follow the RoCE class: a reclassification explains them."""
    for i, f in enumerate(findings):
        if "roce_queue" not in f.path and "priority_queue" not in f.path:
            continue
        moved = [
            j
            for j, g in enumerate(findings)
            if g.device == f.device and family(g) == "classification"
        ]
        if moved:
            groups.join([*moved, i])


def _join_trust(findings: list[Finding], groups: _Groups) -> None:
    """A port that trusts the wrong field classifies nothing by DSCP: its DSCP findings follow."""
    for i, f in enumerate(findings):
        if family(f) != "trust":
            continue
        here = port(f)
        for j, g in enumerate(findings):
            if g.device == f.device and port(g) == here and family(g) == "classification":
                groups.join([i, j])


def _join_references(findings: list[Finding], groups: _Groups) -> None:
    for i, ref in enumerate(findings):
        if ref.rule != "QOS005":
            continue
        match = _REFERENCED_BY.search(ref.message)
        if match is None:
            continue
        by = match["by"]
        for j, f in enumerate(findings):
            if j != i and f.device == ref.device and (port(f) == by or by in f.message):
                groups.join([i, j])


_ONE_SETTING_MANY_PLACES = ("PFC004", "PFC006", "IB003")
"""Rules whose repeated findings on one device come from one device-wide setting (a watchdog
turned off globally, a network-qos class without pause, `qos FALSE`)."""


def _join_repeats(findings: list[Finding], groups: _Groups) -> None:
    def key(f: Finding) -> tuple[str | None, str] | None:
        return (f.device, f.rule) if f.rule in _ONE_SETTING_MANY_PLACES else None

    _join_keyed(findings, groups, key)


def _join_fabric_views(findings: list[Finding], groups: _Groups) -> None:
    """A FAB finding left alone joins the nearest other finding on its device."""
    for i, fab in enumerate(findings):
        if not fab.rule.startswith("FAB") or family(fab) == "os":
            continue  # an OS version skew is a fault of its own
        root = groups.find(i)
        if any(groups.find(j) == root for j in range(len(findings)) if j != i):
            continue
        line = fab.source.line if fab.source and fab.source.line else 0
        others = [
            (abs((f.source.line if f.source and f.source.line else 0) - line), j)
            for j, f in enumerate(findings)
            if j != i and f.device == fab.device and not f.rule.startswith(("FAB", "SUP"))
        ]
        if others:
            groups.join([i, min(others)[1]])
