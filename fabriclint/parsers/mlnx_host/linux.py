"""Linux-side inputs of the mlnx-host parser: `ip -d link show`, ECN sysfs, `ethtool -i`.

Formats:

    2: ens1np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT ...
        link/ether 94:6d:ae:12:34:56 brd ff:ff:ff:ff:ff:ff promiscuity 0 minmtu 68 maxmtu 9978 ...

    /sys/class/net/ens1np0/ecn/roce_np/enable/3:1         grep -rH . /sys/class/net/IF/ecn
    /sys/class/net/ens1np0/ecn/roce_np/cnp_dscp:48
    /sys/class/net/ens1np0/ecn/roce_np/cnp_802p_prio:6

    driver: mlx5_core                                     ethtool -i IF
    version: 24.10-1.1.4
    firmware-version: 28.39.1002 (MT_0000000838)

Cut-off outputs: every `ip link` entry is a header line and its `link/...` line, so a last
header without one was cut (mid-line or after it); an entry missing altogether (a cut exactly
between two entries) is told only by a netdev that ibdev2netdev or an mlnx_qos output names
(mlnx_host/whole.py). In the ECN tree the per-priority `enable/N` files come 0 to 7: a run that
stops short of 7, one protocol (roce_np, roce_rp) whole and the other absent with no read
error, or a last line that is no `path:value` line is a cut. A cut among the DCQCN tuning knobs
(not modeled) after whole lines cannot be told.

The ECN attribute names are those the MLNX_OFED mlx5_core driver creates (`en_ecn.c`):
`roce_np|roce_rp/enable/<prio>`, `roce_np/cnp_dscp`, `roce_np/cnp_802p_prio`, plus the DCQCN
tuning knobs listed in `DCQCN_TUNING`. See the NVIDIA "Explicit Congestion Notification (ECN)"
page of the MLNX_OFED documentation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fabriclint.parsers.kit.common import is_digits
from fabriclint.parsers.kit.lines import At, Log, Text, key_value
from fabriclint.parsers.kit.whole import last_line

_LINK_HEADER = re.compile(r"^\d+:\s+([^\s:@]+)(?:@[^\s:]*)?:\s+<([^>]*)>(.*)$")
_MTU = re.compile(r"\bmtu\s+(\d+)\b")
_STATE = re.compile(r"\bstate\s+(\S+)")
_ECN_LINE = re.compile(r"^(?P<path>\S*/ecn/(?P<proto>[^/\s]+)/(?P<attr>[^:\s]+)):(?P<value>.*)$")
_WHOLE_ECN_LINE = re.compile(r"^\S*/ecn/[^/\s]+/[^:\s]+:\S")
_PRIOS = 8
"""The driver's `enable/0` ... `enable/7` of each protocol."""
_OPER_DOWN = frozenset({"DOWN", "LOWERLAYERDOWN", "NOTPRESENT", "DORMANT"})

DCQCN_TUNING = frozenset(
    {
        "clamp_tgt_rate",
        "clamp_tgt_rate_after_time_inc",
        "rpg_time_reset",
        "rpg_byte_reset",
        "rpg_threshold",
        "rpg_max_rate",
        "rpg_ai_rate",
        "rpg_hai_rate",
        "rpg_gd",
        "rpg_min_dec_fac",
        "rpg_min_rate",
        "rate_to_set_on_first_cnp",
        "dce_tcp_g",
        "dce_tcp_rtt",
        "rate_reduce_monitor_period",
        "initial_alpha_value",
        "min_time_between_cnps",
    }
)
"""DCQCN rate-control timers and gains: known, deliberately not modeled (no rule reads them)."""


@dataclass(frozen=True)
class Link:
    """One netdev of `ip -d link show`."""

    name: str
    mtu: int | None
    admin_up: bool
    oper_up: bool | None
    line: int


def parse_ip_link(text: Text, log: Log) -> dict[str, Link]:
    """Netdevs by name (a `name@parent` VLAN or macvlan is keyed by `name`)."""
    links: dict[str, Link] = {}
    for num, line in text.numbered():
        match = _LINK_HEADER.match(line)
        if match is None:
            continue
        name, flags, rest = match.group(1), set(match.group(2).split(",")), match.group(3)
        mtu = _MTU.search(rest)
        links.setdefault(
            name,
            Link(
                name=name,
                mtu=int(mtu.group(1)) if mtu else None,
                admin_up="UP" in flags,
                oper_up=_oper_up(flags, rest),
                line=num,
            ),
        )
    if not links:
        where, first = text.first_text()
        message = f"no 'N: name: <FLAGS> mtu ...' line (first line: {first!r})"
        log.unparseable(text, message, where)
    else:
        _check_last_entry(text, max(links.values(), key=lambda link: link.line), log)
    return links


def _check_last_entry(text: Text, last: Link, log: Log) -> None:
    """The last entry's header must be followed by its `link/...` line (every entry has one)."""
    rest = (line.strip() for line in text.lines[last.line :])
    if not any(line.startswith("link/") for line in rest if line):
        message = f"output truncated: {last.name} (line {last.line}) has no 'link/...' line"
        log.unparseable(text, message, last.line)


def _oper_up(flags: set[str], rest: str) -> bool | None:
    """Operational state from `state X`; for UNKNOWN (no operstate support) fall back on carrier."""
    state = _STATE.search(rest)
    value = state.group(1) if state else "UNKNOWN"
    if value == "UP":
        return True
    if value in _OPER_DOWN:
        return False
    if "NO-CARRIER" in flags:
        return False
    return True if "LOWER_UP" in flags else None


@dataclass
class Ecn:
    """DCQCN settings of one netdev from its ECN sysfs tree."""

    np: dict[int, At[bool]] = field(default_factory=dict)
    rp: dict[int, At[bool]] = field(default_factory=dict)
    cnp_dscp: At[int] | None = None
    cnp_priority: At[int] | None = None


def parse_ecn(text: Text, log: Log) -> Ecn:
    """Per-priority np/rp enables and the CNP marking; unknown attributes go to `unparsed`."""
    ecn = Ecn()
    matched = False
    for num, line in text.numbered():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("grep:"):
            log.unmodeled(text, num, "ECN sysfs entry could not be read")
            matched = True
            continue
        match = _ECN_LINE.match(stripped)
        if match is None:
            continue
        matched = True
        _ecn_attr(ecn, match, num, text, log)
    if not matched and not text.is_blank():
        where, first = text.first_text()
        message = f"no '/sys/.../ecn/...:value' line (first line: {first!r})"
        log.unparseable(text, message, where)
    elif matched:
        _check_ecn_whole(text, ecn, log)
    return ecn


def _check_ecn_whole(text: Text, ecn: Ecn, log: Log) -> None:
    """The cut signatures of an ECN tree listing (see the module docstring); one problem."""
    number, last = last_line("\n".join(text.lines))
    errors = any(line.lstrip().startswith("grep:") for line in text.lines)
    why = None
    if not last.lstrip().startswith("grep:") and _WHOLE_ECN_LINE.match(last.strip()) is None:
        why = f"its last line is not a whole 'path:value' line ({last.strip()[:60]!r})"
    for proto, enables in (("roce_np", ecn.np), ("roce_rp", ecn.rp)):
        if enables and sorted(enables) == list(range(len(enables))) and len(enables) < _PRIOS:
            why = why or f"{proto}/enable stops at priority {len(enables) - 1} of 7"
    if not errors and (len(ecn.np) == _PRIOS) != (len(ecn.rp) == _PRIOS):
        whole, absent = ("roce_np", "roce_rp") if len(ecn.np) == _PRIOS else ("roce_rp", "roce_np")
        if not (ecn.np if absent == "roce_np" else ecn.rp):
            why = why or f"{whole} is listed and {absent} is not"
    if why is not None:
        log.unparseable(text, f"output truncated: {why}", number)


def _ecn_attr(ecn: Ecn, match: re.Match[str], num: int, text: Text, log: Log) -> None:
    proto, value = match.group("proto"), match.group("value").strip()
    parts = [p for p in match.group("attr").split("/") if p != "params"]
    number = int(value) if re.fullmatch(r"-?\d+", value) else None
    if proto in ("roce_np", "roce_rp") and len(parts) == 2 and parts[0] == "enable":
        if is_digits(parts[1]) and number in (0, 1):
            target = ecn.np if proto == "roce_np" else ecn.rp
            target[int(parts[1])] = At(number == 1, num)
            return
    elif proto == "roce_np" and parts == ["cnp_dscp"] and number is not None:
        ecn.cnp_dscp = At(number, num)
        return
    elif proto == "roce_np" and parts == ["cnp_802p_prio"] and number is not None:
        ecn.cnp_priority = At(number, num)
        return
    elif len(parts) == 1 and parts[0] in DCQCN_TUNING:
        return
    log.unmodeled(text, num, "ECN attribute not modeled")


def parse_ethtool_info(text: Text, log: Log) -> dict[str, At[str]]:
    """`ethtool -i` fields by name (driver, version, firmware-version, bus-info, ...)."""
    fields: dict[str, At[str]] = {}
    for num, line in text.numbered():
        pair = key_value(line)
        if pair is not None:
            fields.setdefault(pair[0], At(pair[1], num))
    if "driver" not in fields and not text.is_blank():
        where, first = text.first_text()
        log.unparseable(text, f"no 'driver:' line (first line: {first!r})", where)
    return fields
