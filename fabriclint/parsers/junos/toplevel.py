"""What the Junos top-level statements say, recorded in the Draft: sections and `interfaces`.

`class-of-service` statements go to junos/cos.py. Sections not listed here are ignored.
"""

from __future__ import annotations

from collections.abc import Callable

from fabriclint.parsers.junos.cos import cos_statement, unmodeled
from fabriclint.parsers.junos.draft import Draft, Instance, Lined, Port, Unit, Vlan
from fabriclint.parsers.junos.text import Stmt
from fabriclint.parsers.junos.values import speed_mbps, to_int
from fabriclint.parsers.kit.vlans import MAX_VLAN

Words = tuple[str, ...]

_GROUPS = (
    "configuration groups are not expanded; collect `show configuration | display inheritance`"
)
_QOS_SECTIONS = ("class-of-service", "interfaces")


def collect(d: Draft, statements: list[Stmt]) -> None:
    """Feed every statement to the handler of its top-level section."""
    for st in statements:
        words = st.words
        if st.inactive:
            _inactive(d, st)
        elif "apply-groups" in words or "apply-groups-except" in words:
            if words[0] in _QOS_SECTIONS:
                unmodeled(d, st, _GROUPS)
        else:
            handler = _TOP.get(words[0])
            if handler is not None:
                handler(d, st)


def _inactive(d: Draft, st: Stmt) -> None:
    if st.words[0] in _QOS_SECTIONS:
        d.skip(" ".join(st.words), "inactive: Junos ignores this statement", st.line)


def _version(d: Draft, st: Stmt) -> None:
    if len(st.words) == 2:
        d.version = Lined(st.words[1], st.line)


def _system(d: Draft, st: Stmt) -> None:
    if len(st.words) == 3 and st.words[1] == "host-name":
        d.facts["hostname"] = st.words[2]


def _interface(d: Draft, st: Stmt) -> None:
    words = st.words
    if len(words) < 2:
        return
    name, rest = words[1], words[2:]
    if name == "interface-range":
        if "mtu" in rest:
            unmodeled(d, st, "interface-range members are not expanded")
        return
    if "*" in name or "<" in name:  # wildcards only appear inside groups
        return
    port = d.ports.get(name)
    if port is None:
        port = d.ports[name] = Port(name, st.line)
    if rest:
        _port_statement(d, port, rest, st)


def _port_statement(d: Draft, port: Port, rest: Words, st: Stmt) -> None:
    key, value = rest[0], rest[1] if len(rest) == 2 else None
    if key == "mtu" and value is not None and to_int(value) is not None:
        port.mtu = Lined(int(value), st.line)
    elif key == "disable" and len(rest) == 1:
        port.disable = st.line
    elif key == "speed" and value is not None:
        speed = speed_mbps(value)
        if speed is not None:
            port.speed = Lined(speed, st.line)
    elif key in ("vlan-tagging", "flexible-vlan-tagging") and len(rest) == 1:
        port.tagging = st.line
    elif key in ("ether-options", "gigether-options") and len(rest) >= 2:
        _ether_options(d, port, rest[1:], st)
    elif key == "unit" and len(rest) >= 4 and rest[2] == "family":
        unit = port.units.get(rest[1])
        if unit is None:
            unit = port.units[rest[1]] = Unit()
        _family(unit, rest[3:], st.line)


def _ether_options(d: Draft, port: Port, rest: Words, st: Stmt) -> None:
    if rest[0] == "802.3ad" and len(rest) == 2:
        port.bundle = Lined(rest[1], st.line)
    elif rest[0] == "flow-control":
        unmodeled(d, st, "802.3x PAUSE (flow-control) is not modeled")


def _family(unit: Unit, rest: Words, line: int) -> None:
    family = rest[0]
    if family == "inet":
        unit.inet = unit.inet or line
        mtu = to_int(rest[2]) if len(rest) == 3 and rest[1] == "mtu" else None
        if mtu is not None:
            unit.inet_mtu = Lined(mtu, line)
    elif family in ("ethernet-switching", "bridge"):
        unit.switching = unit.switching or line
        if rest[1:3] == ("vlan", "members"):  # brace form lists them as `[ ROCE 20 ]`
            unit.members += [Lined(w, line) for w in rest[3:] if w not in ("[", "]")]


def _vlans(d: Draft, st: Stmt) -> None:
    """`vlans NAME vlan-id N` and `vlans NAME l3-interface irb.N` (the VLAN's SVI)."""
    _vlan(d.vlans, st.words, st.line)


def _vlan(vlans: dict[str, Vlan], words: Words, line: int) -> None:
    """`vlans NAME vlan-id N` / `vlans NAME l3-interface irb.N` into `vlans` (the top-level
    ones, or a routing instance's)."""
    if len(words) != 4:
        return
    vlan = vlans.get(words[1])
    if vlan is None:
        vlan = vlans[words[1]] = Vlan(words[1])
    number = to_int(words[3])
    if words[2] == "vlan-id" and number is not None and 1 <= number <= MAX_VLAN:
        vlan.vlan_id = Lined(number, line)
    elif words[2] == "l3-interface":
        vlan.l3 = Lined(words[3], line)


def _routing_instance(d: Draft, st: Stmt) -> None:
    """`routing-instances NAME instance-type T`, `... vlans V vlan-id N` (and `l3-interface`)
    and `... interface et-0/0/1.0`: an EVPN MAC-VRF's VLANs are configured in it, not at the top
    level (Juniper, "MAC-VRF Routing Instance Type Overview")."""
    words = st.words
    if len(words) < 4:
        return
    instance = d.instances.get(words[1])
    if instance is None:
        instance = d.instances[words[1]] = Instance(words[1])
    rest = words[2:]
    if rest[0] == "instance-type" and len(rest) == 2:
        instance.kind = rest[1]
    elif rest[0] == "interface" and len(rest) == 2:
        instance.units.add(rest[1])
    elif rest[0] == "vlans":
        _vlan(instance.vlans, rest, st.line)


def _firewall(d: Draft, st: Stmt) -> None:
    """Firewall filters that set a forwarding class reclassify traffic (multifield classifiers)."""
    words = st.words
    if "then" not in words or st.opens:
        return
    action = words[words.index("then") + 1 :]
    if action[:1] not in (("forwarding-class",), ("loss-priority",)):
        return
    name = words[words.index("filter") + 1] if "filter" in words[:-1] else "?"
    if action[0] == "forwarding-class" and len(action) == 2:
        d.refer("forwarding-class", action[1], f"firewall filter {name}", st.line)
    unmodeled(d, st, "a firewall filter reclassifies traffic; resolve() does not follow it")


def _protocols(d: Draft, st: Stmt) -> None:
    if len(st.words) > 2 and st.words[1] == "dcbx":
        unmodeled(d, st, "DCBX is not modeled")


def _groups(d: Draft, st: Stmt) -> None:
    words = st.words
    if "class-of-service" in words or ("interfaces" in words and "mtu" in words):
        unmodeled(d, st, _GROUPS)


_TOP: dict[str, Callable[[Draft, Stmt], None]] = {
    "version": _version,
    "system": _system,
    "interfaces": _interface,
    "vlans": _vlans,
    "routing-instances": _routing_instance,
    "class-of-service": cos_statement,
    "firewall": _firewall,
    "protocols": _protocols,
    "groups": _groups,
}
