"""Parser for InfiniBand subnet-manager nodes (platform `opensm`): raw files -> DeviceState.

Inputs, by snapshot key (a path or `cat <path>` works too; see docs/platforms/infiniband.md):

    opensm.conf       required; OpenSM's options (an empty file means every default)
    partitions.conf   optional; without it OpenSM makes every port a full member of 0x7fff
    qos-policy.conf   optional; read by OpenSM only when `qos TRUE`
    sminfo            optional; `sminfo` output lines (`sminfo -G <own port GUID>` shows this
                      node's own SM; plain `sminfo` shows the master as this node sees it)
    ibnetdiscover     optional; the subnet's topology: every link becomes a neighbour of
                      `DeviceState.neighbors` with its `local_system` (topology.py)

Everything lands in `DeviceState.infiniband`; keys written twice become PARSE002 problems, a
qos-policy.conf OpenSM would reject becomes a PARSE003 problem, partition names and QoS policy
names become definitions/references (QOS005 checks them).
"""

from __future__ import annotations

import re

from fabriclint.models.common import Source, construct
from fabriclint.models.ib import InfinibandState, PartitionIssue, SmInfo
from fabriclint.models.ports import system_key
from fabriclint.models.raw import RawDevice
from fabriclint.models.state import Definition, DeviceState, InputProblem, Interface, Reference
from fabriclint.parsers.kit.internal import never_raises
from fabriclint.parsers.kit.lines import Log, Text, checked
from fabriclint.parsers.opensm.conf import parse_conf
from fabriclint.parsers.opensm.partitions import parse_partitions, unterminated
from fabriclint.parsers.opensm.qos import parse_qos_policy
from fabriclint.parsers.opensm.topology import (
    cut_off,
    read_nodes,
    read_topology,
    repeated,
    unreadable,
)
from fabriclint.platforms.opensm import (
    IBNETDISCOVER,
    OPENSM_CONF,
    PARTITIONS_CONF,
    QOS_POLICY_CONF,
    SMINFO,
)

FILES = (OPENSM_CONF, PARTITIONS_CONF, QOS_POLICY_CONF)
_SMINFO = re.compile(
    r"sm lid (\d+) sm guid (0x[0-9a-fA-F]+), activity count (\d+) priority (\d+) state (\d+)"
)


def input_role(command: str) -> str | None:
    """Which input a snapshot key is: one of FILES, `sminfo`, or None (ignored)."""
    words = command.split()
    if words and words[0] in (SMINFO, IBNETDISCOVER):
        return words[0]
    name = words[-1].rsplit("/", 1)[-1] if words else ""
    return name if name in FILES else None


@never_raises("opensm", "OpenSM")
def parse(raw: RawDevice) -> DeviceState:
    """Parse one SM node. Pure; never raises: bad input becomes `problems`."""
    state = construct(DeviceState, name=raw.name, platform=raw.platform)
    texts: dict[str, list[Text]] = {}
    log = Log()
    for cmd, out in sorted(raw.outputs.items()):
        role = input_role(cmd)
        if role is not None:
            texts.setdefault(role, []).append(checked(Text.of(cmd, out.file, out.text), log))
            state.inputs.append(cmd)
    ib = state.infiniband = InfinibandState()
    conf = texts.get(OPENSM_CONF)
    if conf is None:
        log.missing(OPENSM_CONF, "required input is missing")
    else:
        _add_conf(state, ib, conf[0])
    for text in texts.get(PARTITIONS_CONF, [])[:1]:
        _add_partitions(state, ib, text)
    for text in texts.get(QOS_POLICY_CONF, [])[:1]:
        _add_qos_policy(state, ib, text, log)
    for text in texts.get(SMINFO, []):
        ib.sminfo.extend(_parse_sminfo(text, log))
    for text in texts.get(IBNETDISCOVER, [])[:1]:
        _add_topology(state, text)
    state.problems.extend(log.problems)
    state.unparsed.extend(log.unparsed)
    return state


def _add_topology(state: DeviceState, text: Text) -> None:
    """The subnet's links as neighbours; an output with no node block is unreadable (the
    device is incomplete: its cabling view cannot be trusted), never an empty subnet. A node
    block repeated for one GUID is a duplicate-key problem; its first block is the one read."""
    nodes, repeats = read_nodes(text)
    state.problems.extend(repeated(text, repeat) for repeat in repeats)
    found = read_topology(text, nodes)
    if found is None:
        state.problems.append(unreadable(text))
        return
    state.neighbors = found
    cut = cut_off(text, nodes)
    if cut is not None:
        state.problems.append(cut)
    own = system_key(state.name)
    for seen in found:  # the node's own HCA ports: the plan cables them like a host's
        if seen.local_system is not None and system_key(seen.local_system) == own:
            state.interfaces.setdefault(
                seen.local_port,
                Interface(name=seen.local_port, oper_up=True, sources=_at(seen.source)),
            )


def _at(source: Source | None) -> dict[str, Source]:
    return {"": source} if source is not None else {}


def _add_conf(state: DeviceState, ib: InfinibandState, text: Text) -> None:
    result = parse_conf(text)
    ib.sm = result.config
    for key, lines in sorted(result.duplicates.items()):
        shown = ", ".join(map(str, lines))
        state.problems.append(
            InputProblem(
                kind="duplicate-key",
                message=f"opensm.conf sets '{key}' on lines {shown}; OpenSM uses the last",
                source=text.src(lines[-1]),
            )
        )
    guid = ib.sm.value("guid")
    if isinstance(guid, str) and int(guid, 16):
        state.facts["sm_port_guid"] = guid


def _add_partitions(state: DeviceState, ib: InfinibandState, text: Text) -> None:
    ib.partitions, ib.partition_issues = parse_partitions(text)
    ib.partitions_file = text.file
    cut = unterminated(text)
    if cut is not None:
        shown = text.lines[cut - 1].strip()[:60]
        message = f"cut off: the last definition is not closed by ';' (line {cut}, {shown!r})"
        state.problems.append(
            InputProblem(kind="unparseable", message=f"{text.cmd}: {message}", source=text.src(cut))
        )
    for part in ib.partitions:
        state.definitions.append(Definition(kind="partition", name=part.name, source=part.src()))
    if ib.sm is not None and not ib.sm.flag("allow_both_pkeys"):
        _both_needs_allow(ib, text)


def _both_needs_allow(ib: InfinibandState, text: Text) -> None:
    """Membership `both` without allow_both_pkeys: OpenSM adds the ports as full members only."""
    for part in ib.partitions or []:
        both = [m for m in part.members if m.membership == "both"]
        line = both[0].source.line if both and both[0].source else None
        if both:
            ib.partition_issues.append(
                PartitionIssue(
                    message=f"partition {part.name or hex(part.pkey or 0)} asks for 'both' "
                    "membership but opensm.conf has allow_both_pkeys FALSE; OpenSM makes "
                    "those ports full members only",
                    severity="warning",
                    text=text.lines[line - 1].strip() if line else "",
                    source=both[0].source,
                )
            )


def _add_qos_policy(state: DeviceState, ib: InfinibandState, text: Text, log: Log) -> None:
    policy, errors = parse_qos_policy(text)
    ib.qos_policy = policy
    for line, message in errors:
        log.unparseable(text, f"{message}; OpenSM rejects the whole policy file", line)
    for group in policy.port_groups:
        state.definitions.append(
            Definition(kind="port-group", name=group.name, source=group.source)
        )
        if ib.partitions is not None:
            for name in group.partitions:
                by = f"port-group {group.name}"
                state.references.append(
                    Reference(kind="partition", name=name, by=by, source=group.source)
                )
    for level in policy.levels:
        state.definitions.append(Definition(kind="qos-level", name=level.name, source=level.source))
    _policy_references(state, text)


def _policy_references(state: DeviceState, text: Text) -> None:
    policy = state.infiniband.qos_policy if state.infiniband else None
    if policy is None or not policy.statements:
        return
    for index, rule in enumerate(policy.match_rules, 1):
        by = f"qos-match-rule {index}" + (f" ({rule.use})" if rule.use else "")
        for name in (*rule.sources_groups, *rule.destinations):
            state.references.append(
                Reference(kind="port-group", name=name, by=by, source=rule.source)
            )
        if rule.level:
            state.references.append(
                Reference(kind="qos-level", name=rule.level, by=by, source=rule.source)
            )
    if not any(u.match == "default" for u in policy.ulps):
        by = "OpenSM (a QoS policy needs a DEFAULT qos-level)"
        state.references.append(
            Reference(kind="qos-level", name="DEFAULT", by=by, source=text.src(None))
        )


def _parse_sminfo(text: Text, log: Log) -> list[SmInfo]:
    found: list[SmInfo] = []
    for num, line in text.numbered():
        match = _SMINFO.search(line)
        if match is None:
            if line.strip():
                log.unparseable(text, f"not sminfo output: {line.strip()!r}", num)
            continue
        lid, guid, activity, priority, sm_state = match.groups()
        found.append(
            SmInfo(
                guid=f"0x{int(guid, 16):016x}",
                lid=int(lid),
                priority=int(priority),
                state=int(sm_state),
                activity=int(activity),
                source=text.src(num),
            )
        )
    return found
