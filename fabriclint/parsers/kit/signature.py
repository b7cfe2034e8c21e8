"""Whose configuration is this? A cheap network-OS signature check run before trusting a parse.

A configuration of another OS declared as a supported platform (a Dell OS10 config in an `eos`
device's snapshot, say) would otherwise parse with nothing recognised and check clean. Each OS
below has a few markers that only its configurations carry (header lines, interface naming,
statements no other OS spells that way). When the text carries more distinct markers of another
OS than of the declared platform, and at least one, the device gets an `unparseable` problem
(PARSE003: "this looks like Dell OS10 (line 1: `! Version 10.5.4.0`), not eos"), so the run is
incomplete (exit 3) instead of clean.

Only the head of the configuration output is read (markers sit in headers and the first
blocks), each marker found by a literal substring first and only then matched as a regex on the
lines holding it: about a millisecond per device. Host and subnet-manager inputs (mlnx-host, opensm) are
command outputs, not configurations, and are not fingerprinted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fabriclint import platforms
from fabriclint.models.common import Source, construct
from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState, InputProblem

HEAD_BYTES = 32 * 1024
"""How much of each output is read: headers and the first interface blocks fit."""

CONFIGS: dict[str, tuple[str, ...]] = {
    p.name: p.config_keys for p in platforms.ALL if p.config_keys
}
"""Platforms whose inputs are configurations (their descriptors' `config_keys`), and the outputs
fingerprinted (the configuration
itself; `show interfaces` and the like say nothing about whose OS wrote the config). A device
with none of them gets its first output fingerprinted."""


Marker = tuple[str, str]
"""(a literal every matching line contains, the regex the whole line must match from its start).
The literal is found with str.find (fast); only lines holding it are matched against the regex."""


@dataclass(frozen=True)
class Os:
    """A network OS and the markers only its configurations carry."""

    label: str
    platform: str | None
    """The fabriclint platform key, when fabriclint parses this OS."""
    markers: tuple[Marker, ...]


_IF = "interface "

# Markers, one per line-level idiom, from each vendor's configuration guides and the shape of
# their `show running-config` output (header comments, interface naming, keywords).
OSES: tuple[Os, ...] = (
    Os(
        "Arista EOS",
        "eos",
        (
            ("! device: ", r"! device: \S+ \(.*EOS"),
            ("! boot system flash:", r"! boot system flash:"),
            ("qos profile ", r"qos profile \S"),
            ("service-profile ", r"\s+service-profile \S"),
            ("qos map ", r"qos map (dscp|cos|traffic-class) "),
            (" no-drop", r"\s+priority-flow-control priority \d+ no-drop"),
            ("daemon TerminAttr", r"daemon TerminAttr"),
            ("management api http-commands", r"management api http-commands"),
            ("interface Ethernet", r"interface Ethernet\d+(/\d+)?\s*$"),
        ),
    ),
    Os(
        "Cisco NX-OS",
        "nxos",
        (
            ("!Command: show running-config", r"!Command: show running-config"),
            ("feature ", r"feature \S"),
            ("version ", r"version \d+\.\d+\(\d"),
            ("pause pfc-cos", r"\s+pause pfc-cos \d"),
            ("hardware access-list tcam ", r"hardware access-list tcam "),
            ("vdc ", r"vdc \S+ id \d"),
            ("policy-map type ", r"policy-map type (network-qos|queuing) \S"),
            ("interface Ethernet", r"interface Ethernet\d+/\d+(/\d+)?\s*$"),
        ),
    ),
    Os(
        "Juniper Junos",
        "junos",
        (
            ("## Last ", r"## Last (commit|changed):"),
            ("set ", r"set (interfaces|class-of-service|system|protocols|chassis) "),
            (" {", r"(class-of-service|interfaces|protocols|chassis) \{"),
            ("version ", r"version \d+\.\d+[RX]\d"),
        ),
    ),
    Os(
        "SONiC",
        "sonic",
        (
            ('"DEVICE_METADATA"', r'\s*"DEVICE_METADATA"\s*:'),
            ('"PORT"', r'\s*"PORT"\s*:\s*\{'),
            ('"BUFFER_POOL"', r'\s*"BUFFER_POOL"\s*:'),
        ),
    ),
    Os(
        "NVIDIA Cumulus Linux",
        "cumulus",
        (
            ("- set:", r"- set:"),
            ("nv set ", r"\s*nv set "),
            ("auto swp", r"auto swp\d"),
            ("iface swp", r"iface swp\d"),
            ("swp", r"\s+swp\d+(s\d+)?:\s*$"),
        ),
    ),
    Os(
        "Dell OS10",
        None,
        (
            ("! Version 10.", r"! Version 10\.\d"),
            ("interface ethernet", r"interface ethernet\d+/\d+/\d+(:\d+)?\s*$"),
            ("interface mgmt", r"interface mgmt\d+/\d+/\d+"),
            ("system-user linuxadmin ", r"system-user linuxadmin "),
            ("ets mode on", r"\s+ets mode on"),
            ("trust dscp-map ", r"trust dscp-map \S"),
            ("qos-map traffic-class ", r"qos-map traffic-class \S"),
            ("iscsi target port ", r"iscsi target port "),
        ),
    ),
    Os(
        "Dell OS9 (FTOS)",
        None,
        (
            ("! Version 9.", r"! Version 9\.\d+\("),
            (_IF, r"interface (TenGigabitEthernet|fortyGigE|hundredGigE|twentyFiveGigE) \d+/\d+"),
            ("interface ManagementEthernet ", r"interface ManagementEthernet \d"),
            ("dcb-map ", r"dcb-map \S"),
            (" dcb-map ", r"\s+dcb-map \S"),
            ("protocol lldp", r"\s+protocol lldp\s*$"),
        ),
    ),
    Os(
        "Cisco IOS / IOS XE",
        None,
        (
            ("version 1", r"version 1[2-7]\.\d+\s*$"),
            ("service timestamps ", r"service timestamps "),
            ("boot-start-marker", r"boot-start-marker"),
            (_IF, r"interface (GigabitEthernet|TenGigabitEthernet|FastEthernet)\d"),
        ),
    ),
    Os(
        "Cisco IOS XR",
        None,
        (
            ("!! IOS XR Configuration", r"!! IOS XR Configuration"),
            (_IF, r"interface (TenGigE|HundredGigE|FourHundredGigE)\d+/\d+/\d+/\d+"),
        ),
    ),
    Os(
        "Huawei VRP",
        None,
        (
            ("sysname ", r"sysname \S"),
            ("!Software Version V", r"!Software Version V\d"),
            (_IF, r"interface (10|25|40|100|400)GE\d+/\d+/\d+"),
        ),
    ),
)

_COMPILED = [(os_, [(lit, re.compile(rx)) for lit, rx in os_.markers]) for os_ in OSES]
MAX_HITS = 32
"""Occurrences of one literal looked at (interface lines repeat; the first few decide)."""


@dataclass(frozen=True)
class Evidence:
    """How strongly a text looks like one OS: distinct markers seen, and the first one's line."""

    os: Os
    count: int
    line: int
    text: str


def _line_at(head: str, pos: int) -> tuple[int, str]:
    """(start offset, text) of the line holding offset `pos`."""
    start = head.rfind("\n", 0, pos) + 1
    end = head.find("\n", pos)
    return start, head[start : end if end >= 0 else None]


def _first_line(head: str, literal: str, pattern: re.Pattern[str]) -> int | None:
    """Offset of the first line that holds `literal` and matches `pattern` from its start."""
    pos = head.find(literal)
    for _ in range(MAX_HITS):
        if pos < 0:
            return None
        start, line = _line_at(head, pos)
        if pattern.match(line):
            return start
        pos = head.find(literal, start + len(line))
    return None


def _evidence(os_: Os, markers: list[tuple[str, re.Pattern[str]]], head: str) -> Evidence | None:
    starts = [s for lit, pat in markers if (s := _first_line(head, lit, pat)) is not None]
    if not starts:
        return None
    first = min(starts)
    line = head.count("\n", 0, first) + 1
    return Evidence(os_, len(starts), line, _line_at(head, first)[1].strip())


def fingerprint(text: str) -> list[Evidence]:
    """Every OS whose markers appear in the head of `text`, most distinct markers first."""
    head = text[:HEAD_BYTES]
    found = [e for os_, marks in _COMPILED if (e := _evidence(os_, marks, head)) is not None]
    return sorted(found, key=lambda e: -e.count)


def foreign(platform: str, text: str) -> Evidence | None:
    """The other OS `text` looks like, when it carries more of that OS's markers than of the
    declared `platform`'s; None when the text looks like its platform's (or like nothing)."""
    evidence = fingerprint(text)
    own = max((e.count for e in evidence if e.os.platform == platform), default=0)
    other = next((e for e in evidence if e.os.platform != platform), None)
    return other if other is not None and other.count > own else None


def not_this_platform(raw: RawDevice) -> DeviceState | None:
    """When an input of `raw` is another OS's configuration, a state of the device carrying
    only the PARSE003 problem (what was parsed from a foreign text means nothing); else None."""
    names = CONFIGS.get(raw.platform)
    if names is None or not raw.outputs:
        return None
    outputs = [raw.outputs[n] for n in names if n in raw.outputs]
    for output in outputs or list(raw.outputs.values())[:1]:
        found = foreign(raw.platform, output.text)
        if found is None:
            continue
        message = (
            f"this looks like {found.os.label} (line {found.line}: `{found.text[:80]}`), "
            f"not {raw.platform}: declare the device's real platform"
        )
        problem = InputProblem(
            kind="unparseable", message=message, source=Source(file=output.file, line=found.line)
        )
        return construct(DeviceState, name=raw.name, platform=raw.platform, problems=[problem])
    return None
