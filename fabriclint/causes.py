"""Root causes: link each finding to the finding that explains it, so one fault reads as one item.

One wrong setting shows up through several rules: a NIC with PFC on the wrong priority is a drift
(DRIFT001), a NIC/switch mismatch (NIC001), a RoCE priority without PFC (PFC002), an asymmetric
link (PFC007) and a fabric inconsistency (FAB002). They are one fault. Findings are joined when
they share evidence, and each group's cause is its most specific finding:

- the same source line on the same device and the same setting family (every rule read the
  same setting);
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
"different from its peer". Then an error explains a warning, never the reverse; then the most
specific rule. Every step is an index lookup, so grouping stays linear in the findings.

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
    ("QOS008", 6.5),  # buffers follow the lossless set: the set (or its drift) is the cause
    ("QOS", 2),
    ("MTU003", 2),
    ("MTU004", 2),
    ("MTU005", 2),
    ("MTU006", 2),
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
    ("infiniband.sm.qos", "ib-qos"),  # `qos FALSE` and the qos_* tables it switches off
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


class _Facts:
    """Each finding's family and port, computed once, and the indexes the joins look up."""

    def __init__(self, findings: list[Finding]) -> None:
        self.findings = findings
        self.family = [family(f) for f in findings]
        self.port = [port(f) for f in findings]
        self.by_device_family: dict[tuple[str | None, str | None], list[int]] = {}
        self.by_end: dict[tuple[str | None, str | None, str | None], list[int]] = {}
        for i, f in enumerate(findings):
            if f.rule.startswith(("FAB", "SUP")):
                continue
            self.by_device_family.setdefault((f.device, self.family[i]), []).append(i)
            self.by_end.setdefault((f.device, self.port[i], self.family[i]), []).append(i)


def link_causes(findings: list[Finding]) -> None:
    """Set `cause` on every finding: its group's root cause's fingerprint (its own if a cause)."""
    active = [f for f in findings if f.suppressed is None]
    for finding in findings:
        finding.cause = finding.fingerprint
    facts = _Facts(active)
    groups = _Groups(len(active))
    for join in (
        _join_by_line,
        _join_by_family,
        _join_links,
        _join_roce_queue,
        _join_trust,
        _join_references,
        _join_repeats,
        _join_fabric_views,
    ):
        join(facts, groups)
    members: dict[int, list[Finding]] = {}
    for i, finding in enumerate(active):
        members.setdefault(groups.find(i), []).append(finding)
    for group in members.values():
        root = _root(group)
        for finding in group:
            finding.cause = root.fingerprint


_SEVERITY = {"error": 0, "warning": 1, "info": 2}


def _root(group: list[Finding]) -> Finding:
    """The group's cause: on the end that drifted from intent, an error before a warning, then
    the most specific rule."""
    drifted = {f.device for f in group if f.rule.startswith("DRIFT")}
    return min(
        group,
        key=lambda f: (
            bool(drifted) and f.device not in drifted,
            _SEVERITY[f.severity],
            rank(f),
            f.rule,
            f.object,
        ),
    )


def _join_keyed(
    facts: _Facts, groups: _Groups, key: Callable[[int, Finding], Hashable | None]
) -> None:
    by_key: dict[Hashable, list[int]] = {}
    for i, finding in enumerate(facts.findings):
        k = key(i, finding)
        if k is not None:
            by_key.setdefault(k, []).append(i)
    for items in by_key.values():
        groups.join(items)


def _join_by_line(facts: _Facts, groups: _Groups) -> None:
    def key(i: int, f: Finding) -> Hashable | None:
        source = f.source
        if source is None or not source.line or f.rule.startswith(("FAB", "SUP", "PARSE001")):
            return None  # FAB findings sit on a representative line, not on their cause's
        # Two faults can share a line (a partition line holds its SL and its members): the
        # same line joins findings about the same setting only.
        setting = facts.family[i] or f.path
        return (f.device, source.file, source.line, setting)

    _join_keyed(facts, groups, key)


def _join_by_family(facts: _Facts, groups: _Groups) -> None:
    def key(i: int, f: Finding) -> Hashable | None:
        if facts.family[i] is None or f.rule.startswith(("FAB", "SUP", "PARSE", "INTERNAL")):
            return None
        return (f.device, facts.family[i], facts.port[i])

    _join_keyed(facts, groups, key)
    # A device-wide finding of a family joins the per-port findings of the same family.
    for i, wide in enumerate(facts.findings):
        fam = facts.family[i]
        if facts.port[i] is None and fam is not None and not wide.rule.startswith("FAB"):
            groups.join([i, *facts.by_device_family.get((wide.device, fam), [])])


def _join_links(facts: _Facts, groups: _Groups) -> None:
    for i, link in enumerate(facts.findings):
        match = _LINK.match(link.object)
        if match is None:
            continue
        fam = facts.family[i]
        for device, end in ((match["a"], match["pa"]), (match["b"], match["pb"])):
            same = facts.by_end.get((device, end, fam), [])
            wide = facts.by_end.get((device, None, fam), []) if device != link.device else []
            groups.join([i, *same, *wide])  # that end's port, or a device-wide setting there


def _join_roce_queue(facts: _Facts, groups: _Groups) -> None:
    """Settings of the RoCE queue follow the RoCE class: a reclassification explains them."""
    for i, f in enumerate(facts.findings):
        if "roce_queue" in f.path or "priority_queue" in f.path:
            moved = facts.by_device_family.get((f.device, "classification"), [])
            if moved:
                groups.join([*moved, i])


def _join_trust(facts: _Facts, groups: _Groups) -> None:
    """A port that trusts the wrong field classifies nothing by DSCP: its DSCP findings follow."""
    for i, f in enumerate(facts.findings):
        if facts.family[i] == "trust":
            here = facts.port[i]
            groups.join([i, *facts.by_end.get((f.device, here, "classification"), [])])


def _join_references(facts: _Facts, groups: _Groups) -> None:
    by_device: dict[str | None, list[int]] = {}
    for j, f in enumerate(facts.findings):
        by_device.setdefault(f.device, []).append(j)
    for i, ref in enumerate(facts.findings):
        match = _REFERENCED_BY.search(ref.message) if ref.rule == "QOS005" else None
        if match is None:
            continue
        by = match["by"]
        found = [
            j
            for j in by_device.get(ref.device, [])
            if facts.port[j] == by or by in facts.findings[j].message
        ]
        groups.join([i, *found])


_ONE_SETTING_MANY_PLACES = ("PFC004", "PFC006", "IB003")
"""Rules whose repeated findings on one device come from one device-wide setting (a watchdog
turned off globally, a network-qos class without pause, `qos FALSE`)."""


def _join_repeats(facts: _Facts, groups: _Groups) -> None:
    def key(_i: int, f: Finding) -> Hashable | None:
        return (f.device, f.rule) if f.rule in _ONE_SETTING_MANY_PLACES else None

    _join_keyed(facts, groups, key)


def _join_fabric_views(facts: _Facts, groups: _Groups) -> None:
    """A FAB finding left alone joins the nearest other finding on its device."""
    size: dict[int, int] = {}
    for j in range(len(facts.findings)):
        root = groups.find(j)
        size[root] = size.get(root, 0) + 1
    by_device: dict[str | None, list[tuple[int, int]]] = {}
    for j, f in enumerate(facts.findings):
        if not f.rule.startswith(("FAB", "SUP")):
            line = f.source.line if f.source and f.source.line else 0
            by_device.setdefault(f.device, []).append((line, j))
    for i, fab in enumerate(facts.findings):
        if not fab.rule.startswith("FAB") or facts.family[i] == "os":
            continue  # an OS version skew is a fault of its own
        if size[groups.find(i)] > 1:
            continue
        line = fab.source.line if fab.source and fab.source.line else 0
        others = by_device.get(fab.device, [])
        if others:
            groups.join([i, min((abs(other - line), j) for other, j in others)[1]])
