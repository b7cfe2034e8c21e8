"""Fix-it hints: what to configure for a finding, in the vendor's own syntax where it is known.

A hint is written from the finding's setting (its model path), the intended values (the
device's intent profile) and the object the finding names (port, queue, QoS profile). It says
*what* to set, as a reviewer would type it; it is never applied. Where fabriclint does not know
the platform's syntax for a setting, the finding has no hint rather than a guess.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from fabriclint.causes import family
from fabriclint.models.finding import Finding
from fabriclint.models.intent import Profile
from fabriclint.models.resolve import (
    effective_qos,
    lossless_priorities,
    lossless_tcs,
    priority_queue,
    tc_queue,
)
from fabriclint.models.state import DeviceState, QosConfig


@dataclass(frozen=True)
class Want:
    """What the finding's setting should be, and where it lives."""

    port: str | None
    queue: int | None
    profile: str | None
    """The QoS profile/policy block the finding names (EOS `qos profile ROCE`)."""
    intent: Profile
    expected: object
    path: str = ""
    defined: dict[str, list[str]] | None = None
    """Names the device's configuration defines, by kind (policy maps, profiles, ...)."""
    switched: bool = False
    """The port the finding names is a layer-2 (switched) port: EOS sets its MTU with `l2 mtu`."""
    priority: int | None = None
    """The priority whose queue the finding is about (`priority_queue.P.`); `queue` is then
    the device's queue for that priority."""
    state: DeviceState | None = None
    """The device, for what only some platforms' hints need (`ports`)."""

    @cached_property
    def ports(self) -> tuple[str, ...]:
        """The ports that are lossless for the intended RoCE priority (the ports a device-wide
        queue setting must reach where queues are bound per port: SONiC `QUEUE|PORT|Q`, an EOS
        `qos profile` no port applies yet). Worked out when a hint asks for them."""
        state, roce = self.state, self.intent.roce
        if state is None or roce is None:
            return ()
        lossless = (
            p
            for p in state.interfaces
            if roce.priority in lossless_priorities(effective_qos(state, p))
        )
        return tuple(sorted(lossless))

    def one(self, kind: str, placeholder: str) -> str:
        """The one object of `kind` the configuration defines, else the placeholder."""
        names = (self.defined or {}).get(kind, [])
        return names[0] if len(names) == 1 else placeholder


_PORT = re.compile(r"^(?:interfaces|rdma)\.(?P<port>[^.*][^.]*)\.")
_QUEUE = re.compile(r"\bqueues\.(?P<q>\d+)\.|\bpriority_queue\.(?P<p>\d+)\.")


def _want(finding: Finding, intent: Profile, state: DeviceState) -> Want:
    port = _PORT.match(finding.path)
    queue = _QUEUE.search(finding.path)
    number = int(queue["q"] or queue["p"]) if queue else None
    priority = int(queue["p"]) if queue and queue["p"] else None
    if priority is not None:  # the queue the device gives that priority (identity unless mapped)
        qos = effective_qos(state, port["port"] if port else None)
        number = priority_queue(qos, priority)
        number = priority if number is None else number
    if number is None and "roce_queue" in finding.path and intent.roce is not None:
        # The queue the device gives the intended RoCE class (identity unless it maps it).
        qos = effective_qos(state, port["port"] if port else None)
        number = tc_queue(qos, intent.roce.priority)
    if finding.object.startswith("qos-profile "):
        profile: str | None = finding.object.removeprefix("qos-profile ")
    else:  # the profile the device's ports apply (the most common one)
        applied = Counter(p for iface in state.interfaces.values() for p in iface.profiles)
        profile = applied.most_common(1)[0][0] if applied else None
    name = port["port"] if port else None
    defined: dict[str, list[str]] = {}
    for item in state.definitions:
        if item.name not in defined.setdefault(item.kind, []):
            defined[item.kind].append(item.name)
    iface = state.interfaces.get(name) if name is not None else None
    switched = iface is not None and iface.routed is False
    return Want(
        name, number, profile, intent, finding.expected, finding.path, defined, switched,
        priority, state,
    )  # fmt: skip


def _lossless(want: Want) -> list[int]:
    pfc = want.intent.pfc
    return list(pfc.priorities) if pfc else []


def _ecn(want: Want) -> tuple[int, int] | None:
    ecn = want.intent.ecn
    return (ecn.min_bytes, ecn.max_bytes) if ecn else None


def _mtu(want: Want, host: bool) -> int | None:
    if "active_mtu" in want.path:  # RoCE MTU follows the netdev MTU: set that one
        host = True
    elif isinstance(want.expected, int):
        return want.expected
    mtu = want.intent.mtu
    if mtu is None:
        return None
    return mtu.host if host else mtu.switch_port


def _eos_block(want: Want) -> str:
    """Where a QoS statement goes: the QoS profile the ports apply, else the port itself (an
    EOS interface takes the same statements as a `qos profile`), else a profile to create."""
    if want.profile:
        return f"qos profile {want.profile}"
    if want.port:
        return f"interface {want.port}"
    if want.ports:
        return f"qos profile {want.one('qos-profile', 'ROCE')}"
    return "qos profile <the port's profile>"


def _eos_in(want: Want, body: str) -> str:
    """`body` in its block; a profile no port applies yet is applied to the RoCE ports."""
    text = f"{_eos_block(want)}\n{body}"
    if want.profile or want.port or not want.ports:
        return text
    name = want.one("qos-profile", "ROCE")
    return text + "".join(f"\ninterface {p}\n   service-profile {name}" for p in want.ports)


def _eos_classification(want: Want) -> str | None:
    roce = want.intent.roce
    return f"qos map dscp {roce.dscp[0]} to traffic-class {roce.priority}" if roce else None


def _eos_pfc(want: Want) -> str | None:
    if not _lossless(want):
        return None
    lines = [f"   priority-flow-control priority {p} no-drop" for p in _lossless(want)]
    return _eos_in(want, "\n".join(["   priority-flow-control on", *lines]))


def _eos_ecn(want: Want) -> str | None:
    pair = _ecn(want)
    if pair is None or want.queue is None:
        return None
    drop = "      no random-detect drop\n" if "wred_drop" in want.path else ""
    return _eos_in(
        want,
        f"   tx-queue {want.queue}\n{drop}"
        f"      random-detect ecn minimum-threshold {pair[0]} bytes maximum-threshold "
        f"{pair[1]} bytes",
    )


def _scheduler(want: Want) -> tuple[str, float | None]:
    """The intended mode (and weight) of the finding's queue: what the finding expects when it
    names a mode (DRIFT on `...scheduler`), else the intent's entry for the priority, else strict
    (the CNP class of QOS004)."""
    entry = (want.intent.scheduler or {}).get(
        want.priority if want.priority is not None else want.queue or 0
    )
    expected = want.expected if want.expected in ("strict", "dwrr", "ets") else None
    mode = str(expected or (entry.mode if entry else "strict"))
    return mode, entry.weight if entry is not None and mode != "strict" else None


def _eos_scheduler(want: Want) -> str | None:
    if want.queue is None:
        return None
    mode, weight = _scheduler(want)
    if weight is not None and not weight.is_integer():
        return None  # `bandwidth percent` takes a whole number: no hint rather than a guess
    lines = ["priority strict"] if mode == "strict" else ["no priority"]
    if weight is not None:
        lines.append(f"bandwidth percent {weight:g}")
    body = "".join(f"\n      {line}" for line in lines)
    return _eos_in(want, f"   tx-queue {want.queue}{body}")


def _seconds(millis: float) -> str:
    return f"{millis / 1000:g}"


def _eos_watchdog(want: Want) -> str:
    """The watchdog on, with the intended timer when intent has one (without it the port uses
    the switch's default timeout, which DRIFT compares with the intent)."""
    text = "   priority-flow-control pause watchdog"
    dog = want.intent.pfc.watchdog if want.intent.pfc else None
    if dog is None or dog.detection_ms is None:
        return _eos_in(want, text)
    restore = _seconds(dog.restoration_ms) if dog.restoration_ms is not None else "0"
    return _eos_in(
        want,
        f"{text}\n   priority-flow-control pause watchdog port timer timeout "
        f"{_seconds(dog.detection_ms)} polling-interval auto recovery-time {restore}",
    )


def _port_block(keyword: str, text: str, host: bool = False) -> Callable[[Want], str | None]:
    """`interface PORT` + one statement (`{mtu}` is the intended MTU)."""

    def write(want: Want) -> str | None:
        mtu = _mtu(want, host)
        if want.port is None or ("{mtu}" in text and mtu is None):
            return None
        return f"{keyword} {want.port}\n   {text.format(mtu=mtu)}"

    return write


_EOS: dict[str, Callable[[Want], str | None]] = {
    "classification": _eos_classification,
    "pfc": _eos_pfc,
    "watchdog": _eos_watchdog,
    "ecn": _eos_ecn,
    "scheduler": _eos_scheduler,
    "trust": _port_block("interface", "qos trust dscp"),
    "mtu": lambda want: _port_block("interface", ("l2 " if want.switched else "") + "mtu {mtu}")(
        want
    ),
}


def _eos(setting: str, want: Want) -> str | None:
    write = _EOS.get(setting)
    return write(want) if write else None


def _nxos(setting: str, want: Want) -> str | None:
    if setting == "pfc" and _lossless(want):
        cos = " ".join(str(p) for p in _lossless(want))
        policy = want.one("network-qos-policy-map", "<the system network-qos policy>")
        roce = want.intent.roce
        klass = f"c-8q-nq{roce.priority}" if roce else "<the RoCE class>"
        return (
            f"policy-map type network-qos {policy}\n"
            f"  class type network-qos {klass}\n"
            f"    pause pfc-cos {cos}"
        )
    if setting == "watchdog":
        return "priority-flow-control watch-dog-interval on"
    if setting == "ecn" and (pair := _ecn(want)) and want.queue is not None:
        policy = want.one("queuing-policy-map", "<the egress queuing policy>")
        ecn = want.intent.ecn
        probability = int(ecn.probability_pct) if ecn and ecn.probability_pct else 100
        return (
            f"policy-map type queuing {policy}\n"
            f"  class type queuing c-out-8q-q{want.queue}\n"
            f"    random-detect minimum-threshold {pair[0]} bytes maximum-threshold {pair[1]} "
            f"bytes drop-probability {probability} weight 0 ecn"
        )
    if setting == "mtu" and want.port and (mtu := _mtu(want, host=False)):
        return f"interface {want.port}\n  mtu {mtu}"
    return None


def _junos(setting: str, want: Want) -> str | None:
    roce = want.intent.roce
    if setting == "pfc" and roce is not None:
        bits = f"{roce.dscp[0]:06b}"
        profile = want.one("congestion-notification-profile", "<profile>")
        return (
            f"set class-of-service congestion-notification-profile {profile} input dscp "
            f"code-point {bits} pfc"
        )
    if setting == "ecn":
        return "set class-of-service schedulers <the RoCE queue's scheduler> explicit-congestion-notification"
    if setting == "mtu" and want.port and (mtu := _mtu(want, host=False)):
        # intent's switch MTU is the IP MTU on Junos (the media MTU is 9216 on QFX)
        return f"set interfaces {want.port} unit 0 family inet mtu {mtu}"
    return None


def _sonic_pfc(want: Want) -> str | None:
    if not _lossless(want):
        return None
    enable = ",".join(str(p) for p in _lossless(want))
    return f'PORT_QOS_MAP|{want.port or "<port>"}: "pfc_enable": "{enable}"'


def _sonic_ecn(want: Want) -> str | None:
    """The green curve marks only with wred_green_enable (SAI's default is off), and a profile
    acts only on the queues a QUEUE entry binds it to."""
    pair = _ecn(want)
    if pair is None:
        return None
    profile = want.one("WRED_PROFILE", "<the lossless profile>")
    fix = (
        f'WRED_PROFILE|{profile}: "ecn": "ecn_all", "wred_green_enable": "true", '
        f'"green_min_threshold": "{pair[0]}", "green_max_threshold": "{pair[1]}"'
    )
    ports = [want.port] if want.port else list(want.ports)
    if want.queue is None or not ports:
        return fix
    return f'{fix}\nQUEUE|{",".join(ports)}|{want.queue}: "wred_profile": "{profile}"'


def _sonic_mtu(want: Want) -> str | None:
    mtu = _mtu(want, host=False)
    return f'PORT|{want.port or "<port>"}: "mtu": "{mtu}"' if mtu else None


def _sonic_watchdog(want: Want) -> str:
    """The PFC_WD entry `pfcwd start` writes, in the config_db form of the other hints."""
    dog = want.intent.pfc.watchdog if want.intent.pfc else None
    detect = int(dog.detection_ms) if dog and dog.detection_ms else 200
    restore = int(dog.restoration_ms) if dog and dog.restoration_ms else 2 * detect
    return (
        f'PFC_WD|{want.port or "<port>"}: "action": "drop", "detection_time": "{detect}", '
        f'"restoration_time": "{restore}"'
    )


def _sonic(setting: str, want: Want) -> str | None:
    write = _SONIC.get(setting)
    return write(want) if write else None


def _sonic_scheduler(want: Want) -> str | None:
    """A SCHEDULER entry of the intended mode and weight, bound to the queue by QUEUE."""
    mode, weight = _scheduler(want)
    if weight is not None and not weight.is_integer():
        return None  # a SCHEDULER weight is a whole number (1-100): no hint rather than a guess
    kind = {"strict": "STRICT", "dwrr": "DWRR"}.get(mode)
    ports = [want.port] if want.port else list(want.ports)
    if kind is None or want.queue is None or not ports:
        return None  # ETS has no SCHEDULER type of its own
    name = f"scheduler.{want.queue}"
    fields = f'"type": "{kind}"' + (f', "weight": "{weight:g}"' if weight is not None else "")
    return (
        f'SCHEDULER|{name}: {fields}\nQUEUE|{",".join(ports)}|{want.queue}: "scheduler": "{name}"'
    )


_SONIC: dict[str, Callable[[Want], str | None]] = {
    "pfc": _sonic_pfc,
    "ecn": _sonic_ecn,
    "mtu": _sonic_mtu,
    "scheduler": _sonic_scheduler,
    "watchdog": _sonic_watchdog,
}


def _cumulus(setting: str, want: Want) -> str | None:
    if setting == "pfc" and _lossless(want):
        prios = ",".join(str(p) for p in _lossless(want))
        return f"nv set qos pfc default-global switch-priority {prios}"
    if setting == "ecn" and (pair := _ecn(want)) and want.queue is not None:
        where = f"nv set qos congestion-control default-global traffic-class {want.queue}"
        return f"{where} min-threshold {pair[0]}\n{where} max-threshold {pair[1]}"
    if setting == "trust":
        return "nv set qos mapping default-global trust l3"
    if setting == "mtu" and want.port and (mtu := _mtu(want, host=False)):
        return f"nv set interface {want.port} link mtu {mtu}"
    return None


def _host_pfc(want: Want) -> str | None:
    if not _lossless(want):
        return None
    bits = ",".join("1" if p in _lossless(want) else "0" for p in range(8))
    return f"mlnx_qos -i {want.port or '<netdev>'} --pfc {bits}"


def _host_classification(want: Want) -> str | None:
    roce = want.intent.roce
    if roce is None:
        return None
    return f"mlnx_qos -i {want.port or '<netdev>'} --dscp2prio set,{roce.dscp[0]},{roce.priority}"


def _host_ecn(want: Want) -> str | None:
    roce = want.intent.roce
    if roce is None:
        return None
    sysfs = f"/sys/class/net/{want.port or '<netdev>'}/ecn"
    return (
        f"echo 1 > {sysfs}/roce_np/enable/{roce.priority}\n"
        f"echo 1 > {sysfs}/roce_rp/enable/{roce.priority}"
    )


def _host_cnp(want: Want) -> str | None:
    cnp = want.intent.cnp
    if cnp is None:
        return None
    sysfs = f"/sys/class/net/{want.port or '<netdev>'}/ecn/roce_np"
    return f"echo {cnp.dscp} > {sysfs}/cnp_dscp\necho {cnp.priority} > {sysfs}/cnp_802p_prio"


def _host_mtu(want: Want) -> str | None:
    mtu = _mtu(want, host=True)
    return f"ip link set dev {want.port or '<netdev>'} mtu {mtu}" if mtu else None


_HOST: dict[str, Callable[[Want], str | None]] = {
    "pfc": _host_pfc,
    "trust": lambda want: f"mlnx_qos -i {want.port or '<netdev>'} --trust dscp",
    "classification": _host_classification,
    "ecn": _host_ecn,
    "cnp": _host_cnp,
    "mtu": _host_mtu,
}


def _host(setting: str, want: Want) -> str | None:
    write = _HOST.get(setting)
    return write(want) if write else None


# ---- PFC009: PFC on where intent runs RoCE lossy: turn it off for the RoCE priority ------------


def _priorities(value: object) -> list[int]:
    return [p for p in value if isinstance(p, int)] if isinstance(value, list) else []


def _eos_pfc_off(want: Want, stop: list[int]) -> str:
    block = f"interface {want.port}" if want.port else _eos_block(want)
    lines = [f"   no priority-flow-control priority {p}" for p in stop]
    if not _priorities(want.expected):
        lines.append("   no priority-flow-control")
    return "\n".join([block, *lines])


def _nxos_pfc_off(want: Want, stop: list[int]) -> str:
    policy = want.one("network-qos-policy-map", "<the system network-qos policy>")
    lines = [f"policy-map type network-qos {policy}"]
    for p in stop:
        lines += [f"  class type network-qos c-8q-nq{p}", f"    no pause pfc-cos {p}"]
    return "\n".join(lines)


def _junos_pfc_off(want: Want, stop: list[int]) -> str | None:
    roce = want.intent.roce
    if roce is None:
        return None
    profile = want.one("congestion-notification-profile", "<profile>")
    return (
        f"delete class-of-service congestion-notification-profile {profile} input dscp "
        f"code-point {roce.dscp[0]:06b} pfc"
    )


def _sonic_pfc_off(want: Want, stop: list[int]) -> str:
    keep = ",".join(str(p) for p in _priorities(want.expected))
    return f'PORT_QOS_MAP|{want.port or "<port>"}: "pfc_enable": "{keep}"'


def _cumulus_pfc_off(want: Want, stop: list[int]) -> str:
    keep = ",".join(str(p) for p in _priorities(want.expected))
    if keep:
        return f"nv set qos pfc default-global switch-priority {keep}"
    return "nv unset qos pfc default-global"


_PFC_OFF: dict[str, Callable[[Want, list[int]], str | None]] = {
    "eos": _eos_pfc_off,
    "nxos": _nxos_pfc_off,
    "junos": _junos_pfc_off,
    "sonic": _sonic_pfc_off,
    "cumulus": _cumulus_pfc_off,
}


def _pfc_off(finding: Finding, state: DeviceState, want: Want) -> str | None:
    """PFC009 on a switch: PFC off for the priorities the finding says must not pause (its
    `actual` lossless list less `expected`), in the platform's syntax."""
    stop = [p for p in _priorities(finding.actual) if p not in _priorities(want.expected)]
    write = _PFC_OFF.get(state.platform)
    return write(want, stop) if write is not None and stop else None


# ---- QOS010/QOS011: what the RoCE class carries ----------------------------------------------

_REWRITE = re.compile(r"\brewrite\.by_(?P<by>tc|dscp)\.(?P<key>\d+)$")


def _eos_unmark(want: Want, qos: QosConfig, by: str, key: int, dscp: int) -> str | None:
    # EOS re-marks switch-wide from the traffic-class -> DSCP map (`qos rewrite dscp`)
    return f"qos map traffic-class {key} to dscp {dscp}" if by == "tc" else None


def _sonic_unmark(want: Want, qos: QosConfig, by: str, key: int, dscp: int) -> str:
    table = "TC_TO_DSCP_MAP" if by == "tc" else "DSCP_TO_DSCP_MAP"
    return f'{table}|{want.one(table, f"<the port{chr(39)}s {table}>")}: "{key}": "{dscp}"'


def _junos_unmark(want: Want, qos: QosConfig, by: str, key: int, dscp: int) -> str | None:
    if by != "tc":
        return None
    rule = want.one("dscp-rewrite-rule", "<the port's rewrite rule>")
    return (
        f"set class-of-service rewrite-rules dscp {rule} forwarding-class <the forwarding class "
        f"of queue {key}> loss-priority low code-point {dscp:06b}"
    )


def _nxos_unmark(want: Want, qos: QosConfig, by: str, key: int, dscp: int) -> str | None:
    """NX-OS re-marks in the class of the egress `type qos` policy (`service-policy type qos
    output`) that matches the packet (Cisco Nexus 9000 NX-OS QoS Configuration Guide,
    "Configuring Marking": `set dscp` in a policy class). Without its `set dscp` the class lets
    packets leave with the DSCP they came with; writing RoCE's DSCP there instead would also
    mark whatever else the class matches (class-default: everything) as RoCE. The class is named
    by the line of its `set dscp` (the finding's), which the model does not name."""
    rewrite = qos.rewrite
    entry = rewrite.sources.get(f"by_{by}.{key}") if rewrite is not None else None
    if rewrite is None or rewrite.name is None or entry is None or not entry.line:
        return None
    return (
        f"policy-map type qos {rewrite.name}\n"
        f"  class <the class of line {entry.line}>\n"
        "    no set dscp"
    )


_UNMARK: dict[str, Callable[[Want, QosConfig, str, int, int], str | None]] = {
    "eos": _eos_unmark,
    "sonic": _sonic_unmark,
    "junos": _junos_unmark,
    "nxos": _nxos_unmark,
}
"""QOS010 by platform: the rewrite entry that re-marks RoCE (or CNP) writes its DSCP back (NX-OS:
the policy class that re-marks it stops doing so). Cumulus has no rewrite fabriclint reads."""


def _unmark(finding: Finding, state: DeviceState, want: Want) -> str | None:
    """QOS010: the entry of the finding's path (`rewrite.by_tc.3`) set to the DSCP expected."""
    found = _REWRITE.search(want.path)
    write = _UNMARK.get(state.platform)
    if found is None or write is None or not isinstance(want.expected, int):
        return None
    qos = effective_qos(state, want.port)
    return write(want, qos, found["by"], int(found["key"]), want.expected)


def _eos_declassify(want: Want, qos: QosConfig, noun: str, keys: list[int]) -> str:
    values = " ".join(map(str, keys))
    return f"qos map {'dscp' if noun == 'dscp' else 'cos'} {values} to traffic-class 0"


def _sonic_declassify(want: Want, qos: QosConfig, noun: str, keys: list[int]) -> str:
    table = "DSCP_TO_TC_MAP" if noun == "dscp" else "DOT1P_TO_TC_MAP"
    entries = ", ".join(f'"{k}": "0"' for k in keys)
    return f"{table}|{want.one(table, f'<the port{chr(39)}s {table}>')}: {entries}"


def _cumulus_declassify(want: Want, qos: QosConfig, noun: str, keys: list[int]) -> str:
    profile = want.one("mapping-profile", "default-global")
    word = "dscp" if noun == "dscp" else "pcp"
    return "\n".join(f"nv set qos mapping {profile} {word} {k} switch-priority 0" for k in keys)


def _nxos_declassify(want: Want, qos: QosConfig, noun: str, keys: list[int]) -> str | None:
    """NX-OS classifies by the class-maps of the ingress `type qos` policy (`service-policy type
    qos input`; first matching class wins, unmatched traffic goes to class-default's qos-group:
    Cisco Nexus 9000 NX-OS QoS Configuration Guide, "Configuring Classification"). Each value
    leaves the class-map that matches it (`no match dscp 10`, `no match cos 4`) and falls to
    class-default. The class is named by the line that sets its qos-group (the model keeps the
    line, not the class-map's name); one block per such class."""
    field = "dscp_to_tc" if noun == "dscp" else "pcp_to_tc"
    word = "dscp" if noun == "dscp" else "cos"
    by_line: dict[int, list[int]] = {}
    for key in keys:
        source = qos.sources.get(f"{field}.{key}")
        if source is None or not source.line:
            return None  # a platform default: no class-map matches it
        by_line.setdefault(source.line, []).append(key)
    blocks = [
        f"class-map type qos <match type and name of the class at line {line}>\n"
        + "\n".join(f"  no match {word} {k}" for k in values)
        for line, values in sorted(by_line.items())
    ]
    return "\n".join(blocks)


_Declassify = Callable[[Want, QosConfig, str, list[int]], str | None]
_DECLASSIFY: dict[str, tuple[_Declassify, bool]] = {
    "eos": (_eos_declassify, False),
    "sonic": (_sonic_declassify, False),
    "cumulus": (_cumulus_declassify, False),
    "nxos": (_nxos_declassify, True),
}
"""QOS011 by platform: the extra values mapped to traffic class 0 (NX-OS: taken out of the
class-map that matches them, to class-default), and whether the writer edits a policy's
class-maps (a `policy-map ...` finding is then its case; a map writer's hint would miss a
per-port policy, EOS). Junos classifies by classifiers whose RoCE code points would have to
move too."""


def _classifying_port(state: DeviceState, want: Want) -> str | None:
    """The port whose QoS the finding judges: its own, else one applying the finding's profile
    (`profiles.ROCE-CLASSIFY.dscp_to_tc`: the lines of that policy's classes)."""
    if want.port is not None or not want.path.startswith("profiles."):
        return want.port
    name = want.path.split(".")[1]
    return next((n for n, i in state.interfaces.items() if name in i.profiles), None)


def _declassify(finding: Finding, state: DeviceState, want: Want) -> str | None:
    """QOS011: the values the finding lists (`actual`) moved to traffic class 0, best effort,
    when class 0 is itself neither one the finding judges nor lossless."""
    found = _DECLASSIFY.get(state.platform)
    if found is None or not isinstance(finding.actual, dict) or not finding.actual:
        return None
    write, by_policy = found
    if finding.object.startswith("policy-map ") and not by_policy:
        return None  # classified by a policy's class-maps, not by the map the hint writes
    judged = {tc for tc in finding.actual.values() if isinstance(tc, int)}
    qos = effective_qos(state, _classifying_port(state, want))
    if 0 in judged | lossless_tcs(qos) or tc_queue(qos, 0) in {tc_queue(qos, t) for t in judged}:
        return None
    noun = "pcp" if want.path.endswith("pcp_to_tc") else "dscp"
    return write(want, qos, noun, sorted(int(k) for k in finding.actual))


def _pfc009(finding: Finding, state: DeviceState, want: Want) -> str | None:
    """PFC009: PFC off for the RoCE priority, on the NIC (lossy RoCE) or the switch."""
    if state.is_host:
        return f"mlnx_qos -i {want.port or '<netdev>'} --pfc 0,0,0,0,0,0,0,0"
    return _pfc_off(finding, state, want)


_BY_RULE: dict[str, Callable[[Finding, DeviceState, Want], str | None]] = {
    "PFC009": _pfc009,
    "QOS010": _unmark,
    "QOS011": _declassify,
}
"""Rules whose fix is not the intended value of a setting family (their path names a map entry
to write back or values to move, not what intent says)."""


_BY_PLATFORM: dict[str, Callable[[str, Want], str | None]] = {
    "eos": _eos,
    "nxos": _nxos,
    "junos": _junos,
    "sonic": _sonic,
    "cumulus": _cumulus,
    "mlnx-host": _host,
}
_HINTED = ("DRIFT", "PFC", "ECN", "QOS", "MTU", "NIC")


def hint(finding: Finding, state: DeviceState | None, intent: Profile | None) -> str | None:
    """What to configure for `finding` on its device, or None when fabriclint cannot say."""
    if state is None or intent is None or not finding.rule.startswith(_HINTED):
        return None
    setting = family(finding)
    if setting is None and _QUEUE.search(finding.path) and finding.path.endswith(".weight"):
        setting = "scheduler"  # a queue's weight is set with its scheduler
    want = _want(finding, intent, state)
    if finding.rule == "NIC004" and intent.roce is not None:
        nic = state.rdma.get(want.port or "")
        hca = nic.hca if nic and nic.hca else "<hca>"
        tos = want.expected if isinstance(want.expected, int) else intent.roce.dscp[0] << 2 | 2
        return f"cma_roce_tos -d {hca} -t {tos}"
    if finding.rule in _BY_RULE:
        return _BY_RULE[finding.rule](finding, state, want)
    write = _BY_PLATFORM.get(state.platform)
    if setting is None or write is None or ".buffers" in f".{finding.path}":
        # Buffers (QOS008) are grouped with PFC as causes, but `pfc_enable` does not size a
        # pool or reserve headroom: the sizes are the platform's, so no hint rather than a guess.
        return None
    if finding.rule == "ECN004":
        setting = "ecn"  # drop on a lossless queue: mark instead
    return write(setting, want)
