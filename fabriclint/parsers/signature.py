"""Whose configuration is this? A cheap network-OS signature check run before trusting a parse.

A configuration of another OS declared as a supported platform (a Dell OS10 config in an `eos`
device's snapshot, say) would otherwise parse with nothing recognised and check clean. Each OS
below has a few markers that only its configurations carry (header lines, interface naming,
statements no other OS spells that way). When the text carries more distinct markers of another
OS than of the declared platform, and at least one, the device gets an `unparseable` problem
(PARSE003: "this looks like Dell OS10 (line 1: `! Version 10.5.4.0`), not eos"), so the run is
incomplete (exit 3) instead of clean.

Only the head of each output is read (markers sit in headers and the first blocks): the check
costs a few regex scans per device. Host and subnet-manager inputs (mlnx-host, opensm) are
command outputs, not configurations, and are not fingerprinted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fabriclint.models.common import Source
from fabriclint.models.raw import RawDevice
from fabriclint.models.state import DeviceState, InputProblem

HEAD_BYTES = 32 * 1024
"""How much of each output is read: headers and the first interface blocks fit."""

CHECKED = ("eos", "nxos", "junos", "sonic", "cumulus")
"""Platforms whose inputs are configurations and are fingerprinted."""


@dataclass(frozen=True)
class Os:
    """A network OS and the markers only its configurations carry."""

    label: str
    platform: str | None
    """The fabriclint platform key, when fabriclint parses this OS."""
    markers: tuple[str, ...]

    def pattern(self) -> re.Pattern[str]:
        """One alternation, a named group per marker (so distinct markers can be counted)."""
        groups = "|".join(f"(?P<m{i}>{m})" for i, m in enumerate(self.markers))
        return re.compile(groups, re.MULTILINE)


# Markers, one per line-level idiom, from each vendor's configuration guides and the shape of
# their `show running-config` output (header comments, interface naming, keywords).
OSES: tuple[Os, ...] = (
    Os(
        "Arista EOS",
        "eos",
        (
            r"^! device: \S+ \(.*EOS",
            r"^! boot system flash:",
            r"^qos profile \S",
            r"^\s+service-profile \S",
            r"^qos map (dscp|cos|traffic-class) ",
            r"^\s+priority-flow-control priority \d+ no-drop",
            r"^daemon TerminAttr",
            r"^management api http-commands",
            r"^interface Ethernet\d+(/\d+)?\s*$",
        ),
    ),
    Os(
        "Cisco NX-OS",
        "nxos",
        (
            r"^!Command: show running-config",
            r"^feature \S",
            r"^version \d+\.\d+\(\d",
            r"^\s+pause pfc-cos \d",
            r"^hardware access-list tcam ",
            r"^vdc \S+ id \d",
            r"^policy-map type (network-qos|queuing) \S",
            r"^interface Ethernet\d+/\d+(/\d+)?\s*$",
        ),
    ),
    Os(
        "Juniper Junos",
        "junos",
        (
            r"^## Last (commit|changed):",
            r"^set (interfaces|class-of-service|system|protocols|chassis) ",
            r"^(class-of-service|interfaces|protocols|chassis) \{",
            r"^version \d+\.\d+[RX]\d",
        ),
    ),
    Os("SONiC", "sonic", (r'"DEVICE_METADATA"\s*:', r'"PORT"\s*:\s*\{', r'"BUFFER_POOL"\s*:')),
    Os(
        "NVIDIA Cumulus Linux",
        "cumulus",
        (r"^- set:", r"^\s*nv set ", r"^auto swp\d", r"^iface swp\d", r"^\s+swp\d+(s\d+)?:\s*$"),
    ),
    Os(
        "Dell OS10",
        None,
        (
            r"^! Version 10\.\d",
            r"^interface ethernet\d+/\d+/\d+(:\d+)?\s*$",
            r"^interface mgmt\d+/\d+/\d+",
            r"^system-user linuxadmin ",
            r"^\s+ets mode on",
            r"^trust dscp-map \S",
            r"^qos-map traffic-class \S",
            r"^iscsi target port ",
        ),
    ),
    Os(
        "Dell OS9 (FTOS)",
        None,
        (
            r"^! Version 9\.\d+\(",
            r"^interface (TenGigabitEthernet|fortyGigE|hundredGigE|twentyFiveGigE) \d+/\d+",
            r"^interface ManagementEthernet \d",
            r"^dcb-map \S",
            r"^\s+dcb-map \S",
            r"^\s+protocol lldp\s*$",
        ),
    ),
    Os(
        "Cisco IOS / IOS XE",
        None,
        (
            r"^version 1[2-7]\.\d+\s*$",
            r"^service timestamps ",
            r"^boot-start-marker",
            r"^interface (GigabitEthernet|TenGigabitEthernet|FastEthernet)\d",
        ),
    ),
    Os(
        "Cisco IOS XR",
        None,
        (
            r"^!! IOS XR Configuration",
            r"^interface (TenGigE|HundredGigE|FourHundredGigE)\d+/\d+/\d+/\d+",
        ),
    ),
    Os(
        "Huawei VRP",
        None,
        (r"^sysname \S", r"^!Software Version V\d", r"^interface (10|25|40|100|400)GE\d+/\d+/\d+"),
    ),
)

_PATTERNS = [(os_, os_.pattern()) for os_ in OSES]


@dataclass(frozen=True)
class Evidence:
    """How strongly a text looks like one OS: distinct markers seen, and the first one's line."""

    os: Os
    count: int
    line: int
    text: str


def _evidence(os_: Os, pattern: re.Pattern[str], head: str) -> Evidence | None:
    seen: set[str] = set()
    first: re.Match[str] | None = None
    for match in pattern.finditer(head):
        seen.add(str(match.lastgroup))
        first = first or match
    if first is None:
        return None
    line = head.count("\n", 0, first.start()) + 1
    end = head.find("\n", first.start())
    text = head[head.rfind("\n", 0, first.start()) + 1 : end if end >= 0 else None]
    return Evidence(os_, len(seen), line, text.strip())


def fingerprint(text: str) -> list[Evidence]:
    """Every OS whose markers appear in the head of `text`, most distinct markers first."""
    head = text[:HEAD_BYTES]
    found = [e for os_, pat in _PATTERNS if (e := _evidence(os_, pat, head)) is not None]
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
    if raw.platform not in CHECKED:
        return None
    for output in raw.outputs.values():
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
        return DeviceState(name=raw.name, platform=raw.platform, problems=[problem])
    return None
