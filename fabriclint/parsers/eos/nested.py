"""EOS statements inside `interface` and `qos profile` blocks, and their `tx-queue` sub-blocks."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from fabriclint.models.state import EcnConfig, QueueConfig, SchedulerMode, Trust
from fabriclint.parsers.eos.draft import Draft, Layer
from fabriclint.parsers.eos.tokens import (
    THRESHOLD_UNITS,
    options,
    speed_mbps,
    threshold_bytes,
    to_seconds_ms,
)
from fabriclint.parsers.kit.common import to_int

Sub = Callable[[str, list[str], int], None]
"""Handles the lines of a sub-block: (text, words, line number)."""

Handler = Callable[[Draft, Layer, list[str], bool, str, int], "Sub | None"]

# First words that make a line QoS-relevant: such lines are reported when not modeled.
QOS_WORDS = frozenset(
    {
        "qos",
        "priority-flow-control",
        "random-detect",
        "service-policy",
        "service-profile",
        "shape",
        "bandwidth",
        "priority",
        "tx-queue",
        "uc-tx-queue",
        "mc-tx-queue",
        "dcbx",
        "flowcontrol",
        "pfc",
    }
)

_TRUST = {"dscp": Trust.DSCP, "cos": Trust.PCP}


def report_qos_words(draft: Draft, reason: str, text: str, words: list[str], line: int) -> None:
    """Report `text` when its first word (after `no`) is QoS-relevant; ignore it otherwise."""
    first = words[1] if words[0] == "no" and len(words) > 1 else words[0]
    if first in QOS_WORDS:
        draft.skip(text, reason, line)


def layer_line(draft: Draft, layer: Layer, text: str, words: list[str], line: int) -> Sub | None:
    """Handle one statement of an interface or qos profile; return the handler of its children."""
    neg = words[0] == "no" and len(words) > 1
    body = words[1:] if neg else words
    handler = _HANDLERS.get(body[0])
    if handler is not None:
        return handler(draft, layer, body, neg, text, line)
    if body[0] in QOS_WORDS:
        draft.skip(text, f"'{body[0]}' is not modeled here", line)
    return None


def _mtu(draft: Draft, layer: Layer, words: list[str], neg: bool, text: str, line: int) -> None:
    value = to_int(words[1]) if len(words) == 2 else None
    if neg:
        layer.mtu = None
    elif value is None:
        draft.skip(text, "malformed mtu", line)
    else:
        layer.mtu = (value, line)


def _l2(draft: Draft, layer: Layer, words: list[str], neg: bool, text: str, line: int) -> None:
    if len(words) == 3 and words[1] == "mtu" and not neg:
        value = to_int(words[2])
        if value is not None:
            layer.l2_mtu = (value, line)


def _shutdown(
    draft: Draft, layer: Layer, words: list[str], neg: bool, text: str, line: int
) -> None:
    if len(words) == 1:
        layer.shutdown = (not neg, draft.at(line))


def _switchport(
    draft: Draft, layer: Layer, words: list[str], neg: bool, text: str, line: int
) -> None:
    if len(words) == 1:
        layer.routed = (neg, draft.at(line))
    elif neg and words[1:3] == ["trunk", "allowed"]:
        layer.l2.trunk = None
    elif not neg:
        # VLAN statements (MTU005 follows them); other forms (`trunk group`, `native vlan`) are
        # not QoS and not reported
        layer.l2.apply(words[1:], line)


def _speed(draft: Draft, layer: Layer, words: list[str], neg: bool, text: str, line: int) -> None:
    value = None if neg else speed_mbps(words[1:])
    if value is not None:
        layer.speed = (value, line)


def _channel(draft: Draft, layer: Layer, words: list[str], neg: bool, text: str, line: int) -> None:
    if not neg and len(words) > 1:
        layer.channel_group = to_int(words[1])


def _by(layer: Layer) -> str:
    return f"interface {layer.name}" if layer.kind == "interface" else f"qos profile {layer.name}"


def _service_profile(
    draft: Draft, layer: Layer, words: list[str], neg: bool, text: str, line: int
) -> None:
    if neg or len(words) != 2 or layer.kind != "interface":
        draft.skip(text, "service-profile form not modeled", line)
        return
    layer.profile = (words[1], draft.at(line))
    draft.refer("qos-profile", words[1], _by(layer), line)


def _service_policy(
    draft: Draft, layer: Layer, words: list[str], neg: bool, text: str, line: int
) -> None:
    rest = words[1:]
    if rest[:2] == ["type", "qos"]:
        rest = rest[2:]
    if neg or len(rest) != 2 or rest[0] != "input":
        draft.skip(text, "only 'service-policy [type qos] input NAME' is modeled", line)
        return
    layer.policy = (rest[1], draft.at(line))
    draft.refer("policy-map", rest[1], _by(layer), line)


def _qos(draft: Draft, layer: Layer, words: list[str], neg: bool, text: str, line: int) -> None:
    if words[1:2] != ["trust"]:
        draft.skip(text, "qos setting not modeled (default CoS/DSCP of untrusted traffic)", line)
    elif neg and len(words) == 2:
        layer.trust = (Trust.NONE, draft.at(line))
    elif not neg and len(words) == 3 and words[2] in _TRUST:
        layer.trust = (_TRUST[words[2]], draft.at(line))
    else:
        draft.skip(text, "unknown qos trust form", line)


def _pfc(draft: Draft, layer: Layer, words: list[str], neg: bool, text: str, line: int) -> None:
    rest = words[1:]
    if rest in (["on"], ["mode", "on"], ["off"], ["mode", "off"]) or (neg and not rest):
        layer.pfc_on = (not neg and rest[-1:] == ["on"], draft.at(line))
    elif rest[:1] == ["priority"] and len(rest) in (2, 3):
        _pfc_priority(draft, layer, rest, neg, text, line)
    elif rest[:2] == ["pause", "watchdog"]:
        _watchdog(draft, layer, rest[2:], neg, text, line)
    else:
        draft.skip(text, "priority-flow-control form not modeled", line)


def _pfc_priority(
    draft: Draft, layer: Layer, rest: list[str], neg: bool, text: str, line: int
) -> None:
    prio = to_int(rest[1])
    mode = rest[2] if len(rest) == 3 else ""
    if prio is None or mode not in ("no-drop", "drop", ""):
        draft.skip(text, "malformed priority-flow-control priority", line)
    elif neg or mode != "":
        layer.pfc_prio[prio] = (mode == "no-drop" and not neg, draft.at(line))
    else:
        draft.skip(text, "priority-flow-control priority without drop/no-drop", line)


def _watchdog(draft: Draft, layer: Layer, rest: list[str], neg: bool, text: str, line: int) -> None:
    src = draft.at(line)
    if not rest:
        layer.wd_on = (not neg, src)
    elif rest[:2] == ["port", "action"] and len(rest) == 3 and not neg:
        layer.wd_action = (rest[2], src)
    elif rest[:2] == ["port", "timer"] and not neg:
        opts = options(rest[2:])
        detect = to_seconds_ms(opts.get("timeout", ""))
        restore = to_seconds_ms(opts.get("recovery-time", ""))
        if detect is None:
            draft.skip(text, "watchdog timer without a readable timeout", line)
            return
        layer.wd_detect = (detect, src)
        layer.wd_restore = (restore, src) if restore is not None else None
    else:
        draft.skip(text, "watchdog form not modeled", line)


def _tx_queue(
    draft: Draft, layer: Layer, words: list[str], neg: bool, text: str, line: int
) -> Sub | None:
    number = to_int(words[1]) if len(words) == 2 else None
    if neg or number is None:
        draft.skip(text, "malformed tx-queue", line)
        return partial(_skip_child, draft, f"inside an unreadable '{text.strip()}'")
    queue = layer.queues.get(number)
    if queue is None:
        queue = layer.queues[number] = QueueConfig(queue=number)
        queue.mark("", draft.at(line))
    return partial(queue_line, draft, queue)


def _mc_tx_queue(
    draft: Draft, layer: Layer, words: list[str], neg: bool, text: str, line: int
) -> Sub:
    draft.skip(text, "multicast tx-queues are not modeled", line)
    return partial(_skip_child, draft, f"inside '{text.strip()}' (multicast, not modeled)")


def _skip_child(draft: Draft, reason: str, text: str, words: list[str], line: int) -> None:
    draft.skip(text, reason, line)


_HANDLERS: dict[str, Handler] = {
    "mtu": _mtu,
    "l2": _l2,
    "shutdown": _shutdown,
    "switchport": _switchport,
    "speed": _speed,
    "channel-group": _channel,
    "service-profile": _service_profile,
    "service-policy": _service_policy,
    "qos": _qos,
    "priority-flow-control": _pfc,
    "tx-queue": _tx_queue,
    "uc-tx-queue": _tx_queue,
    "mc-tx-queue": _mc_tx_queue,
}


def queue_line(draft: Draft, queue: QueueConfig, text: str, words: list[str], line: int) -> None:
    """Handle one statement inside a `tx-queue N` / `uc-tx-queue N` block."""
    src = draft.at(line)
    if words == ["priority", "strict"]:
        queue.scheduler = SchedulerMode.STRICT
        queue.mark("scheduler", src)
    elif words == ["no", "priority"]:
        queue.scheduler = SchedulerMode.DWRR
        queue.mark("scheduler", src)
    elif words[0] == "bandwidth":
        _bandwidth(draft, queue, text, words, line)
    elif words[:2] == ["random-detect", "ecn"] or words[:3] == ["no", "random-detect", "ecn"]:
        _ecn(draft, queue, text, words, line)
    elif words[:2] == ["random-detect", "drop"] or words[:3] == ["no", "random-detect", "drop"]:
        queue.wred_drop = words[0] != "no"
        queue.mark("wred_drop", src)
    else:
        draft.skip(text, "tx-queue setting not modeled", line)


def _bandwidth(draft: Draft, queue: QueueConfig, text: str, words: list[str], line: int) -> None:
    rest = words[2:] if words[1:2] == ["guaranteed"] else words[1:]
    value = to_int(rest[1]) if len(rest) == 2 and rest[0] == "percent" else None
    if value is None:
        draft.skip(text, "bandwidth form not modeled (only percent)", line)
        return
    queue.weight = float(value)
    queue.mark("weight", draft.at(line))


def _ecn(draft: Draft, queue: QueueConfig, text: str, words: list[str], line: int) -> None:
    if words[0] == "no":
        ecn = EcnConfig(enabled=False)
    elif words[2:] == ["count"]:
        draft.skip(text, "ECN counters are not modeled", line)
        return
    else:
        parsed = parse_ecn(words[2:])
        if parsed is None:
            draft.skip(text, "random-detect ecn form not modeled", line)
            return
        ecn = parsed
    ecn.mark("", draft.at(line))
    queue.ecn = ecn


def parse_ecn(words: list[str]) -> EcnConfig | None:
    """`minimum-threshold V UNIT maximum-threshold V UNIT [max-mark-probability P] [weight W]`."""
    if len(words) < 6 or words[0] != "minimum-threshold" or words[3] != "maximum-threshold":
        return None
    if words[2] not in THRESHOLD_UNITS or words[5] not in THRESHOLD_UNITS:
        return None
    opts = options(words[6:])
    probability = opts.get("max-mark-probability")
    if probability is not None and to_int(probability) is None:
        return None
    return EcnConfig(
        enabled=True,
        min_bytes=threshold_bytes(words[1], words[2]),
        max_bytes=threshold_bytes(words[4], words[5]),
        min_raw=f"{words[1]} {words[2]}",
        max_raw=f"{words[4]} {words[5]}",
        probability_pct=float(probability) if probability is not None else None,
    )
