"""NCLU `net show configuration commands` (`net add ...` lines of CL 3.x/4.x): interface MTU,
speed and state, bridge and bond membership, hostname, and `net add roce`."""

from __future__ import annotations

from fabriclint.models.common import Source, source_at
from fabriclint.parsers.cumulus.draft import Draft
from fabriclint.parsers.cumulus.tokens import expand_ports, to_int

# Objects whose names are interfaces, and how a name becomes the Linux interface name.
_IFACE_OBJECTS = {"interface": "", "bond": "", "loopback": "", "vlan": "vlan"}
# Words that make an otherwise unmodeled line QoS-relevant.
_QOS_WORDS = frozenset(
    {"qos", "pfc", "ecn", "dscp", "cos", "roce", "priority-flow-control", "pause"}
)
_ROCE_MODES = frozenset({"lossless", "lossy"})


def read_nclu(draft: Draft, file: str, text: str) -> None:
    """Read `net add` lines; a file with none is not NCLU output (PARSE003)."""
    seen = 0
    for number, raw in enumerate(text.splitlines(), 1):
        words = raw.split()
        if len(words) < 2 or words[0] != "net":
            continue
        seen += 1
        if words[1] == "add" and len(words) > 2:
            _add(draft, words[2:], raw, source_at(file, number))
    if not seen:
        message = "not NCLU output: no 'net add' lines"
        draft.problem("unparseable", message, source_at(file, 1))


def _add(draft: Draft, words: list[str], raw: str, src: Source) -> None:
    head = words[0]
    if head in _IFACE_OBJECTS and len(words) >= 3:
        _interface(draft, head, words[1], words[2:], raw, src)
    elif head == "bridge" and len(words) >= 4 and words[2] == "ports":
        _bridge_ports(draft, words[3], src)
    elif head == "bgp" and len(words) >= 4 and words[1] == "neighbor" and words[3] == "interface":
        _unnumbered(draft, words[2], src)
    elif head == "hostname" and len(words) == 2:
        draft.facts["hostname"] = words[1]
    elif head == "roce" and len(words) == 2 and words[1] in _ROCE_MODES:
        draft.roce = (words[1], src)
    elif not _QOS_WORDS.isdisjoint(words):
        draft.skip(raw, "NCLU QoS command not modeled", src)


def _interface(draft: Draft, kind: str, spec: str, rest: list[str], raw: str, src: Source) -> None:
    prefix = _IFACE_OBJECTS[kind]
    names = expand_ports(spec) if not prefix else [f"{prefix}{spec}"]
    if names is None:
        draft.skip(raw, "interface range not understood", src)
        return
    for name in names:
        port = draft.port(name, src)
        _setting(draft, port.name, rest, raw, src)


def _setting(draft: Draft, name: str, rest: list[str], raw: str, src: Source) -> None:
    port = draft.ports[name]
    if rest[0] == "mtu" and len(rest) == 2:
        value = to_int(rest[1])
        if value is None:
            draft.skip(raw, "malformed MTU", src)
        else:
            port.mtu = (value, src)
    elif rest[:2] == ["link", "speed"] and len(rest) == 3 and to_int(rest[2]) is not None:
        port.speed = (to_int(rest[2]) or 0, src)
    elif rest[:1] == ["link"] and rest[1:] in (["down"], ["up"]):
        port.admin_up = (rest[1] == "up", src)
    elif rest[:2] == ["bond", "slaves"] and len(rest) == 3:
        for member in expand_ports(rest[2]) or []:
            draft.port(member, src).routed = None
    elif rest[:2] == ["ip", "address"] and name.startswith("swp"):
        port.routed = (True, src)
    elif not _QOS_WORDS.isdisjoint(rest):
        draft.skip(raw, "NCLU QoS command not modeled", src)


def _bridge_ports(draft: Draft, spec: str, src: Source) -> None:
    """`net add bridge bridge ports a,b,c`: those ports are switched."""
    for name in expand_ports(spec) or []:
        draft.port(name, src).routed = (False, src)


def _unnumbered(draft: Draft, name: str, src: Source) -> None:
    """`net add bgp neighbor swpN interface ...`: BGP unnumbered runs on a routed port."""
    if name.startswith("swp"):
        port = draft.port(name, src)
        if port.routed is None:
            port.routed = (True, src)
