"""NX-OS top-level statements: blocks, `system qos`, global PFC watchdog, interfaces and their lines."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from fabriclint.parsers.kit.common import to_int
from fabriclint.parsers.nxos.draft import NETWORK_QOS, POLICY_KIND, QOS, Applied, Draft
from fabriclint.parsers.nxos.policy import Block, Sub, class_map, policy_map
from fabriclint.parsers.nxos.tokens import interface_names, speed_mbps

# Any of these words makes an otherwise unknown top-level line QoS-relevant (reported).
GLOBAL_QOS_WORDS = frozenset(
    {"qos", "priority-flow-control", "pfc", "dcbx", "dcbxp", "random-detect", "network-qos",
     "queuing", "jumbomtu", "ecn", "wred", "afd", "qos-group", "buffer-reservation"}
)  # fmt: skip

# First words (after `no`) that make an interface line QoS-relevant.
IF_QOS_WORDS = frozenset(
    {"service-policy", "priority-flow-control", "qos", "random-detect", "priority", "pfc", "dcbx",
     "flowcontrol"}
)  # fmt: skip

# First words of top-level NX-OS statements: a file with none of them is not an NX-OS config.
NXOS_WORDS = frozenset(
    {"version", "hostname", "feature", "interface", "class-map", "policy-map", "system", "vlan",
     "vrf", "router", "ip", "ipv6", "spanning-tree", "ntp", "logging", "snmp-server", "username",
     "aaa", "tacacs-server", "line", "boot", "clock", "cli", "control-plane", "hardware", "lldp",
     "vpc", "copp", "priority-flow-control", "banner", "no", "switchname", "service", "nv",
     "fabric", "evpn", "route-map", "license", "mac", "port-channel", "errdisable", "rmon"}
)  # fmt: skip

_PFC_MODES = frozenset({"on", "off", "auto"})


def top_line(draft: Draft, text: str, words: list[str], line: int) -> Block | None:
    """Handle a top-level (unindented) line; return the handler of the lines of its block."""
    if words[0] in NXOS_WORDS:
        draft.recognized += 1
    handler = _TOP.get(words[0])
    if handler is not None:
        return handler(draft, text, words, line)
    if not GLOBAL_QOS_WORDS.isdisjoint(words):
        draft.skip(text, "global QoS setting not modeled", line)
    return partial(_other_child, draft)


def _other_child(draft: Draft, text: str, words: list[str], line: int) -> Sub:
    first = words[1] if words[0] == "no" and len(words) > 1 else words[0]
    if first in ("service-policy", "priority-flow-control", "qos"):
        draft.skip(text, "QoS statement inside an unmodeled block", line)
    return _ignore


def _ignore(text: str, words: list[str], line: int) -> None:
    """Lines nobody models and nobody needs reported (an `hsrp` group's `priority`, ...)."""


def _version(draft: Draft, text: str, words: list[str], line: int) -> None:
    if len(words) >= 2:
        draft.os_version = (words[1], line)


def _hostname(draft: Draft, text: str, words: list[str], line: int) -> None:
    if len(words) == 2:
        draft.facts["hostname"] = words[1]


def _no(draft: Draft, text: str, words: list[str], line: int) -> Block | None:
    """`no system default switchport [shutdown]`, `no priority-flow-control watch-dog-interval`."""
    if words[1:4] == ["system", "default", "switchport"]:
        _system(draft, text, words[1:], line, negated=True)
    elif words[1:2] == ["priority-flow-control"]:
        _global_pfc(draft, text, words[1:], line, negated=True)
    elif not GLOBAL_QOS_WORDS.isdisjoint(words):
        draft.skip(text, "global QoS setting not modeled", line)
    return None


def _system(
    draft: Draft, text: str, words: list[str], line: int, negated: bool = False
) -> Block | None:
    rest = words[1:]
    if rest == ["qos"] and not negated:
        draft.define("system-qos", "system qos", line)
        draft.open_block("system-qos", "system qos", line, "qos")
        return partial(_system_child, draft)
    if rest == ["default", "switchport"]:
        draft.routed_default = (negated, line)
    elif rest == ["default", "switchport", "shutdown"]:
        draft.switchport_shutdown = (not negated, line)
    elif rest[:1] == ["jumbomtu"]:
        draft.skip(text, "system jumbo MTU (upper bound of port MTUs) not modeled", line)
    elif not GLOBAL_QOS_WORDS.isdisjoint(words):
        draft.skip(text, "global QoS setting not modeled", line)
    return None


def _system_child(draft: Draft, text: str, words: list[str], line: int) -> None:
    found = service_policy(words) if words[0] == "service-policy" else None
    if found is None:
        draft.skip(text, "system qos statement not modeled", line)
        return
    kind, direction, name = found
    draft.system.policies[(kind, direction)] = (name, line)
    draft.refer(POLICY_KIND[kind], name, "system qos", line)


def service_policy(words: list[str]) -> tuple[str, str, str] | None:
    """(type, direction, name) of `service-policy [type T] [input|output] NAME`; untyped = qos.
    The network-qos type has no direction (it is system-wide): its direction is ''."""
    rest = words[1:]
    kind = QOS
    if rest[:1] == ["type"] and len(rest) >= 3:
        kind, rest = rest[1], rest[2:]
    if kind == NETWORK_QOS and len(rest) == 1:
        return kind, "", rest[0]
    if kind not in POLICY_KIND or len(rest) != 2 or rest[0] not in ("input", "output"):
        return None
    return kind, rest[0], rest[1]


def _global_pfc(
    draft: Draft, text: str, words: list[str], line: int, negated: bool = False
) -> None:
    """Global PFC watchdog: `priority-flow-control watch-dog-interval on|off`, `... watch-dog
    interval N`, `... watch-dog shutdown-multiplier N`, `... auto-restore|fixed-restore multiplier N`."""
    rest, dog = words[1:], draft.watchdog
    value = to_int(rest[-1]) if rest else None
    if rest[:1] == ["watch-dog-interval"] and (negated or rest[1:] in (["on"], ["off"])):
        dog.on = (not negated and rest[1:] == ["on"], line)
    elif negated or value is None:
        draft.skip(text, "global priority-flow-control setting not modeled", line)
    elif rest[:2] == ["watch-dog", "interval"] and len(rest) == 3:
        dog.interval = (value, line)
    elif rest[:2] == ["watch-dog", "shutdown-multiplier"] and len(rest) == 3:
        dog.shutdown_multiplier = (value, line)
    elif rest[:2] == ["auto-restore", "multiplier"] and len(rest) == 3:
        dog.auto_restore = (value, line)
    elif rest[:2] == ["fixed-restore", "multiplier"] and len(rest) == 3:
        dog.fixed_restore = (value, line)
    else:
        draft.skip(text, "global priority-flow-control setting not modeled", line)


# ---- interfaces ---------------------------------------------------------------------------------


def _interface(draft: Draft, text: str, words: list[str], line: int) -> Block | None:
    label = text.split(None, 1)[1].strip() if len(words) > 1 else ""
    names = interface_names(label) if label else None
    if names is None:
        draft.skip(text, "unreadable interface name or range", line)
        return partial(_other_child, draft)
    scopes = []
    for name in names:
        scope = draft.interfaces.get(name)
        if scope is None:
            scope = draft.interfaces[name] = Applied(name, line)
        scopes.append(scope)
    single = names[0] if len(names) == 1 else None
    draft.open_block("interface", single or label, line, single and f"interfaces.{single}.qos")
    return partial(interface_line, draft, scopes, single or label)


Handler = Callable[[Draft, list[Applied], list[str], bool, str, int], None]


def interface_line(
    draft: Draft, scopes: list[Applied], label: str, text: str, words: list[str], line: int
) -> Sub:
    """One statement of an `interface` block, applied to every interface the block names."""
    neg = words[0] == "no" and len(words) > 1
    body = words[1:] if neg else words
    if body[0] == "service-policy":
        _if_policy(draft, scopes, label, body, neg, text, line)
    else:
        handler = _IF_HANDLERS.get(body[0])
        if handler is not None:
            handler(draft, scopes, body, neg, text, line)
        elif body[0] in IF_QOS_WORDS:
            draft.skip(text, f"'{body[0]}' is not modeled here", line)
    return _ignore


def _set(scopes: list[Applied], name: str, value: object) -> None:
    for scope in scopes:
        setattr(scope, name, value)


def _if_policy(
    draft: Draft, scopes: list[Applied], label: str, words: list[str], neg: bool, text: str,
    line: int,
) -> None:  # fmt: skip
    found = service_policy(words)
    if found is None or found[0] == NETWORK_QOS:
        draft.skip(text, "service-policy form not modeled on an interface", line)
        return
    kind, direction, name = found
    for scope in scopes:
        if neg:
            scope.policies.pop((kind, direction), None)
        else:
            scope.policies[(kind, direction)] = (name, line)
    if not neg:
        draft.refer(POLICY_KIND[kind], name, f"interface {label}", line)


def _if_mtu(
    draft: Draft, scopes: list[Applied], words: list[str], neg: bool, text: str, line: int
) -> None:
    value = to_int(words[1]) if len(words) == 2 else None
    if neg:
        _set(scopes, "mtu", None)
    elif value is None:
        draft.skip(text, "malformed mtu", line)
    else:
        _set(scopes, "mtu", (value, line))


def _if_shutdown(
    draft: Draft, scopes: list[Applied], words: list[str], neg: bool, text: str, line: int
) -> None:
    if len(words) == 1:
        _set(scopes, "shutdown", (not neg, line))


def _if_switchport(
    draft: Draft, scopes: list[Applied], words: list[str], neg: bool, text: str, line: int
) -> None:
    if len(words) == 1:
        _set(scopes, "routed", (neg, line))
    elif neg and words[1:3] == ["trunk", "allowed"]:
        for scope in scopes:
            scope.l2.trunk = None
    elif not neg:
        # VLAN statements (MTU005 follows them); other forms (`trunk native vlan`) are not QoS
        # and not reported
        for scope in scopes:
            scope.l2.apply(words[1:], line)


def _if_speed(
    draft: Draft, scopes: list[Applied], words: list[str], neg: bool, text: str, line: int
) -> None:
    value = speed_mbps(words[1]) if len(words) == 2 and not neg else None
    if value is not None:
        _set(scopes, "speed", (value, line))


def _if_channel(
    draft: Draft, scopes: list[Applied], words: list[str], neg: bool, text: str, line: int
) -> None:
    _set(scopes, "channel_group", None if neg or len(words) < 2 else to_int(words[1]))


def _if_pfc(
    draft: Draft, scopes: list[Applied], words: list[str], neg: bool, text: str, line: int
) -> None:
    """`priority-flow-control mode on|off|auto [send-tlv]`, `... watch-dog-interval on|off`."""
    rest = words[1:]
    if rest[:1] == ["mode"] and (neg or (rest[1:2] and rest[1] in _PFC_MODES)):
        _set(scopes, "pfc_mode", ("auto" if neg else rest[1], line))  # `no ...` = the default
        if rest[2:] not in ([], ["send-tlv"]):
            draft.skip(text, "priority-flow-control mode option not modeled", line)
    elif rest[:1] == ["watch-dog-interval"] and (neg or rest[1:] in (["on"], ["off"])):
        _set(scopes, "watchdog", (not neg and rest[1:] == ["on"], line))
    else:
        draft.skip(text, "priority-flow-control form not modeled", line)


def _if_flowcontrol(
    draft: Draft, scopes: list[Applied], words: list[str], neg: bool, text: str, line: int
) -> None:
    if not neg and words[-1:] == ["on"]:
        draft.skip(text, "link-level (802.3x) pause is not modeled (PFC is)", line)


_IF_HANDLERS: dict[str, Handler] = {
    "mtu": _if_mtu,
    "shutdown": _if_shutdown,
    "switchport": _if_switchport,
    "speed": _if_speed,
    "channel-group": _if_channel,
    "priority-flow-control": _if_pfc,
    "flowcontrol": _if_flowcontrol,
}


def _control_plane(draft: Draft, text: str, words: list[str], line: int) -> Block:
    """CoPP (`control-plane` / `service-policy input copp-...`) polices punted traffic, not data."""
    return _ignore_block


def _ignore_block(text: str, words: list[str], line: int) -> Sub:
    return _ignore


_TOP: dict[str, Callable[[Draft, str, list[str], int], Block | None]] = {
    "interface": _interface,
    "control-plane": _control_plane,
    "class-map": class_map,
    "policy-map": policy_map,
    "system": _system,
    "priority-flow-control": _global_pfc,
    "no": _no,
    "version": _version,
    "hostname": _hostname,
    "switchname": _hostname,
}
