"""NX-OS `class-map` / `policy-map` blocks of types qos, queuing and network-qos, and their classes."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from fabriclint.models.state import EcnConfig
from fabriclint.parsers.kit.common import to_int
from fabriclint.parsers.nxos.draft import (
    CLASS_KIND,
    NETWORK_QOS,
    POLICY_KIND,
    QOS,
    QUEUING,
    ClassMap,
    Draft,
    Policy,
    PolicyClass,
)
from fabriclint.parsers.nxos.tokens import (
    DSCP_NAMES,
    SIZE_UNITS,
    parse_values,
    threshold_bytes,
)

Sub = Callable[[str, list[str], int], None]
"""Handles a line inside a sub-block: (text, words, line number)."""

Block = Callable[[str, list[str], int], Sub | None]
"""Handles a line directly inside a top-level block; returns the handler of its children."""

_FILLERS = frozenset({"match-any", "match-all", "match-first"})
_TYPES = frozenset({QOS, QUEUING, NETWORK_QOS})
_ACL = "classification by ACL/protocol is not followed by resolve()"


def typed_name(words: list[str]) -> tuple[str, str, bool] | None:
    """(type, name, match-any) of `class-map|policy-map [type T] [match-any|...] NAME`;
    None for other types (control-plane, pbr, ...). Untyped maps are type qos."""
    rest = words[1:]
    kind = QOS
    if rest[:1] == ["type"] and len(rest) >= 2:
        kind, rest = rest[1], rest[2:]
    match_any = "match-any" in rest
    rest = [w for w in rest if w not in _FILLERS]
    if kind not in _TYPES or len(rest) != 1:
        return None
    return kind, rest[0], match_any


# ---- class-map ----------------------------------------------------------------------------------


def class_map(draft: Draft, text: str, words: list[str], line: int) -> Block | None:
    """`class-map type T NAME`: define it and read its `match` lines."""
    found = typed_name(words)
    if found is None:
        return None
    kind, name, match_any = found
    cmap = ClassMap(kind, name, line, match_any=match_any)
    draft.class_maps[(kind, name)] = cmap
    draft.define(CLASS_KIND[kind], name, line)
    draft.open_block(CLASS_KIND[kind], name, line)
    return partial(_match_line, draft, cmap)


def _match_line(draft: Draft, cmap: ClassMap, text: str, words: list[str], line: int) -> None:
    if words[0] != "match" or len(words) < 3:
        draft.skip(text, "class-map statement not modeled", line)
        return
    cmap.criteria += 1
    what, values = words[1], words[2:]
    if what == "dscp":
        _add(draft, cmap.dscp, parse_values(values, DSCP_NAMES), text, line)
    elif what == "precedence":
        prec = parse_values(values)
        dscp = [p * 8 + d for p in prec for d in range(8)] if prec else None
        _add(draft, cmap.dscp, dscp, text, line)
    elif what == "cos":
        _add(draft, cmap.cos, parse_values(values), text, line)
    elif what == "qos-group" and to_int(values[0]) is not None and len(values) == 1:
        cmap.qos_group = (int(values[0]), line)
    elif what == "not":
        draft.skip(text, "negated match not modeled", line)
    else:
        draft.skip(text, _ACL, line)
    if cmap.criteria == 2 and not cmap.match_any:
        reason = "match-all with several criteria: each criterion is modeled as if it matched alone"
        draft.skip(f"class-map {cmap.name}", reason, cmap.line)


def _add(
    draft: Draft, into: list[tuple[list[int], int]], values: list[int] | None, text: str, line: int
) -> None:
    if values is None:
        draft.skip(text, "unreadable match values", line)
    else:
        into.append((values, line))


# ---- policy-map ---------------------------------------------------------------------------------


def policy_map(draft: Draft, text: str, words: list[str], line: int) -> Block | None:
    """`policy-map type T NAME`: define it; its `class` lines open sub-blocks of actions."""
    found = typed_name(words)
    if found is None:
        return None
    kind, name, _ = found
    policy = Policy(kind, name, line)
    draft.policies[(kind, name)] = policy
    draft.define(POLICY_KIND[kind], name, line)
    draft.open_block(POLICY_KIND[kind], name, line, f"profiles.{name}")
    return partial(_policy_child, draft, policy)


def _policy_child(draft: Draft, policy: Policy, text: str, words: list[str], line: int) -> Sub:
    name = words[-1] if words[0] == "class" and len(words) in (2, 4) else None
    if name is None or (len(words) == 4 and words[1:3] != ["type", policy.kind]):
        draft.skip(text, f"policy-map {policy.name} statement not modeled", line)
        return partial(_skip, draft, f"inside an unreadable '{text.strip()}'")
    pclass = PolicyClass(name, line)
    policy.classes.append(pclass)
    if name != "class-default":
        draft.refer(
            CLASS_KIND[policy.kind], name, f"{POLICY_KIND[policy.kind]} {policy.name}", line
        )
    return partial(_ACTIONS[policy.kind], draft, pclass)


def _skip(draft: Draft, reason: str, text: str, words: list[str], line: int) -> None:
    draft.skip(text, reason, line)


def _qos_action(draft: Draft, pclass: PolicyClass, text: str, words: list[str], line: int) -> None:
    value = to_int(words[2]) if words[:2] == ["set", "qos-group"] and len(words) == 3 else None
    dscp = parse_values(words[2:], DSCP_NAMES) if words[:2] == ["set", "dscp"] else None
    if value is not None:
        pclass.set_qos_group = (value, line)
    elif dscp is not None and len(dscp) == 1:
        pclass.set_dscp = (dscp[0], line, text)  # judged where the policy is bound (assemble)
    else:
        draft.skip(text, "type qos action not modeled (only 'set qos-group N', 'set dscp D')", line)


def _queuing_action(
    draft: Draft, pclass: PolicyClass, text: str, words: list[str], line: int
) -> None:
    if words[0] == "priority" and (len(words) == 1 or words[1] == "level"):
        pclass.priority = line
    elif words[0] == "bandwidth":
        _bandwidth(draft, pclass, text, words, line)
    elif words[0] == "random-detect":
        _random_detect(draft, pclass, text, words[1:], line)
    elif words[:2] == ["afd", "queue-desired"] and len(words) in (4, 5):
        _afd(draft, pclass, text, words, line)
    elif words[0] == "pause" and "buffer-size" in words:
        _pause_buffer(draft, pclass, text, words, line)
    else:
        draft.skip(text, "queuing action not modeled", line)


def _bandwidth(draft: Draft, pclass: PolicyClass, text: str, words: list[str], line: int) -> None:
    rest = words[2:] if words[1:2] == ["remaining"] else words[1:]
    value = to_int(rest[1]) if len(rest) == 2 and rest[0] == "percent" else None
    if value is None:
        draft.skip(text, "bandwidth form not modeled (only [remaining] percent)", line)
    else:
        pclass.bandwidth = (float(value), line)


def _random_detect(
    draft: Draft, pclass: PolicyClass, text: str, rest: list[str], line: int
) -> None:
    """`random-detect minimum-threshold X U maximum-threshold Y U [drop-probability P]
    [weight W] [ecn]`, or `random-detect threshold burst-optimized|mesh-optimized [ecn]`."""
    ecn = rest[-1:] == ["ecn"]
    body = rest[:-1] if ecn else rest
    parsed = _thresholds(body)
    if parsed is None:
        draft.skip(text, "random-detect form not modeled", line)
        return
    if not ecn:
        pclass.wred_drop = line
        return
    parsed.mark("", draft.at(line))
    pclass.ecn = parsed


def _afd(draft: Draft, pclass: PolicyClass, text: str, words: list[str], line: int) -> None:
    """`afd queue-desired X U [ecn]`: approximate fair drop marks ECN (or drops) per flow
    around a desired queue depth; there is no min/max ramp, so the depth is kept as written."""
    if words[3] not in SIZE_UNITS or words[4:] not in ([], ["ecn"]):
        draft.skip(text, "afd form not modeled", line)
    elif words[4:]:
        depth = f"afd queue-desired {words[2]} {words[3]}"
        pclass.ecn = EcnConfig(min_raw=depth, max_raw=depth, sources={"": draft.at(line)})
    else:
        pclass.wred_drop = line


def _thresholds(words: list[str]) -> EcnConfig | None:
    if words[:1] == ["threshold"] and len(words) == 2:
        return EcnConfig(min_raw=words[1], max_raw=words[1])  # Cisco presets, no byte values
    if len(words) < 6 or words[0] != "minimum-threshold" or words[3] != "maximum-threshold":
        return None
    if words[2] not in SIZE_UNITS or words[5] not in SIZE_UNITS:
        return None  # an unknown unit is reported, not guessed
    options = dict(zip(words[6::2], words[7::2], strict=False))
    probability = options.get("drop-probability")
    if (probability is not None and to_int(probability) is None) or len(words) % 2:
        return None
    return EcnConfig(
        min_bytes=threshold_bytes(words[1], words[2]),
        max_bytes=threshold_bytes(words[4], words[5]),
        min_raw=f"{words[1]} {words[2]}",
        max_raw=f"{words[4]} {words[5]}",
        probability_pct=float(probability) if probability is not None else None,
    )


def _pause_buffer(
    draft: Draft, pclass: PolicyClass, text: str, words: list[str], line: int
) -> None:
    options = dict(zip(words[1::2], words[2::2], strict=False))
    size = to_int(options.get("buffer-size", ""))
    xoff = to_int(options.get("pause-threshold", ""))
    xon = to_int(options.get("resume-threshold", ""))
    if size is None or xoff is None or xon is None:
        draft.skip(text, "pause buffer form not modeled", line)
    else:
        pclass.buffer = ((size, xoff, xon), line)


def _network_action(
    draft: Draft, pclass: PolicyClass, text: str, words: list[str], line: int
) -> None:
    if words[0] == "mtu" and len(words) == 2 and to_int(words[1]) is not None:
        pclass.mtu = (int(words[1]), line)
    elif words[0] == "pause" and "buffer-size" in words:
        _pause_buffer(draft, pclass, text, words, line)
    elif words[0] == "pause":
        _pause(draft, pclass, text, words[1:], line)
    else:
        draft.skip(text, "network-qos action not modeled", line)


def _pause(draft: Draft, pclass: PolicyClass, text: str, rest: list[str], line: int) -> None:
    """`pause pfc-cos L` (Nexus 9000) or `pause no-drop [pfc-cos L]` (Nexus 3000/5000/6000)."""
    if rest[:1] == ["no-drop"]:
        rest = rest[1:]
        if not rest:
            pclass.no_drop = line
            return
    values = parse_values(rest[1:]) if rest[:1] == ["pfc-cos"] else None
    if values is None:
        draft.skip(text, "pause form not modeled", line)
    else:
        pclass.pause_cos = (values, line)


_ACTIONS: dict[str, Callable[[Draft, PolicyClass, str, list[str], int], None]] = {
    QOS: _qos_action,
    QUEUING: _queuing_action,
    NETWORK_QOS: _network_action,
}
