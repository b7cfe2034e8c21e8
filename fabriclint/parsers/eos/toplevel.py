"""EOS top-level statements: blocks, `qos map`, global PFC, policy-maps and class-maps."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from fabriclint.parsers.eos.draft import At, Draft, Layer
from fabriclint.parsers.eos.nested import Sub, layer_line, report_qos_words
from fabriclint.parsers.eos.tokens import DSCP_NAMES, to_seconds_ms
from fabriclint.parsers.kit.common import parse_values, to_int

Block = Callable[[str, list[str], int], Sub | None]
"""Handles a line directly inside a top-level block; returns the handler of its children."""

# Any of these words makes an otherwise unknown top-level line QoS-relevant.
GLOBAL_QOS_WORDS = frozenset(
    {"qos", "priority-flow-control", "random-detect", "pfc", "ecn", "tx-queue", "dcbx"}
)

_REWRITE = "egress rewrite map not modeled (the PFC priority is taken as the traffic class)"
_REWRITE_DSCP = ("qos", "rewrite", "dscp")


def top_line(draft: Draft, text: str, words: list[str], line: int) -> Block:
    """Handle a top-level (unindented) line; return the handler of the lines of its block."""
    handler = _TOP.get(words[0])
    block = handler(draft, text, words, line) if handler is not None else None
    if block is not None:
        return block
    if handler is None and not GLOBAL_QOS_WORDS.isdisjoint(words):
        draft.skip(text, "global QoS setting not modeled", line)
    return partial(_other_child, draft)


def _other_child(draft: Draft, text: str, words: list[str], line: int) -> Sub:
    report_qos_words(draft, "QoS statement inside an unmodeled block", text, words, line)
    return partial(_other_grandchild, draft)


def _other_grandchild(draft: Draft, text: str, words: list[str], line: int) -> None:
    report_qos_words(draft, "QoS statement inside an unmodeled block", text, words, line)


def _interface(draft: Draft, text: str, words: list[str], line: int) -> Block | None:
    if len(words) != 2:
        return None
    layer = draft.interfaces.get(words[1])
    if layer is None:
        layer = draft.interfaces[words[1]] = Layer("interface", words[1], draft.at(line))
    draft.open_block("interface", words[1], line, f"interfaces.{words[1]}.qos")
    return partial(layer_line, draft, layer)


def _qos(draft: Draft, text: str, words: list[str], line: int) -> Block | None:
    if words[1:2] == ["profile"] and len(words) == 3:
        layer = draft.profiles.get(words[2])
        if layer is None:
            layer = draft.profiles[words[2]] = Layer("profile", words[2], draft.at(line))
            draft.define("qos-profile", words[2], line)
        draft.open_block("qos-profile", words[2], line, f"profiles.{words[2]}")
        return partial(layer_line, draft, layer)
    if words[1:2] == ["map"] and "to" in words:
        _qos_map(draft, text, words, line)
    elif tuple(words) == _REWRITE_DSCP:
        # Arista, "qos rewrite dscp": packets leave with the DSCP of their traffic class
        # (`qos map traffic-class N to dscp D`, defaults otherwise).
        draft.rewrite_dscp = draft.at(line)
    else:
        draft.skip(text, "global qos setting not modeled", line)
    return None


def _qos_map(draft: Draft, text: str, words: list[str], line: int) -> None:
    split = words.index("to")
    kind, keys, target = words[2], words[3:split], words[split + 1 :]
    values = parse_values(keys, DSCP_NAMES if kind == "dscp" else None) if keys else None
    goal = to_int(target[1]) if len(target) >= 2 else None
    extra = target[2:]
    table = _map_table(draft, kind, target[0] if target else "")
    if table is None:
        reason = _REWRITE if kind == "traffic-class" else f"qos map {kind} not modeled"
        draft.skip(text, reason, line)
    elif values is None or goal is None or (extra and extra[:1] != ["drop-precedence"]):
        draft.skip(text, "qos map form not modeled (named or malformed map)", line)
    else:
        src = draft.at(line)
        for key in values:
            table.setdefault(key, []).append((goal, src))


def _map_table(draft: Draft, kind: str, target: str) -> dict[int, list[At[int]]] | None:
    if target == "traffic-class" and kind == "dscp":
        return draft.dscp
    if target == "traffic-class" and kind == "cos":
        return draft.cos
    if target == "tx-queue" and kind == "traffic-class":
        return draft.tc_queue
    if target == "dscp" and kind == "traffic-class":
        return draft.tc_dscp
    return None


def _pfc(draft: Draft, text: str, words: list[str], line: int) -> None:
    rest = words[1:]
    src = draft.at(line)
    if rest == ["all", "off"]:
        draft.pfc_all_off = src
    elif rest[:3] == ["pause", "watchdog", "default"] and len(rest) == 5:
        _watchdog_default(draft, text, rest[3], rest[4], line)
    elif rest[:3] == ["pause", "watchdog", "action"] and len(rest) == 4:
        draft.wd_action = (rest[3], src)
    else:
        draft.skip(text, "global priority-flow-control setting not modeled", line)


def _watchdog_default(draft: Draft, text: str, key: str, value: str, line: int) -> None:
    millis = to_seconds_ms(value)
    if millis is None or key not in ("timeout", "recovery-time"):
        reason = "watchdog polling interval has no field in the model"
        draft.skip(
            text, reason if key == "polling-interval" else "malformed watchdog default", line
        )
    elif key == "timeout":
        draft.wd_detect = (millis, draft.at(line))
    else:
        draft.wd_restore = (millis, draft.at(line))


def _policy_map(draft: Draft, text: str, words: list[str], line: int) -> Block | None:
    name = _typed_name(words, ("quality-of-service", "qos"))
    if name is None:
        return None
    draft.define("policy-map", name, line)
    draft.open_block("policy-map", name, line, f"profiles.{name}")
    return partial(_policy_child, draft, name)


def _policy_child(draft: Draft, policy: str, text: str, words: list[str], line: int) -> Sub | None:
    if words[0] != "class" or len(words) != 2:
        report_qos_words(draft, "policy-map statement not modeled", text, words, line)
        return None
    if words[1] != "class-default":
        draft.refer("class-map", words[1], f"policy-map {policy}", line)
    reason = f"policy-map {policy} class {words[1]} action not modeled (ACL classification)"
    return partial(_skip_child, draft, reason)


def _skip_child(draft: Draft, reason: str, text: str, words: list[str], line: int) -> None:
    draft.skip(text, reason, line)


def _class_map(draft: Draft, text: str, words: list[str], line: int) -> None:
    name = _typed_name([w for w in words if w not in ("match-any", "match-all")], ("qos",))
    if name is not None:
        draft.define("class-map", name, line)
        draft.open_block("class-map", name, line)


def _typed_name(words: list[str], qos_types: tuple[str, ...]) -> str | None:
    """NAME of `X type T NAME` when T is a QoS type, or of an untyped `X NAME`."""
    if len(words) == 4 and words[1] == "type":
        return words[3] if words[2] in qos_types else None
    return words[1] if len(words) == 2 else None


def _hostname(draft: Draft, text: str, words: list[str], line: int) -> None:
    if len(words) == 2:
        draft.facts["hostname"] = words[1]


_TOP: dict[str, Callable[[Draft, str, list[str], int], Block | None]] = {
    "interface": _interface,
    "qos": _qos,
    "priority-flow-control": _pfc,
    "policy-map": _policy_map,
    "class-map": _class_map,
    "hostname": _hostname,
}
