"""What every inventory source produces, and how it becomes inventory.yaml.

A source (NetBox, Nautobot, Ansible, Nornir, AVD) yields SourceDevices (names and the source's
own platform and role words) and SourceLinks. The mapping file turns those words into
fabriclint's platform keys and role names, the filters pick devices, and `build` makes the
Inventory that `render` writes and `changes` compares with the file it replaces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import SplitResult

from fabriclint import platforms
from fabriclint.models.inventory import Credentials, Device, Inventory, Link

if TYPE_CHECKING:
    from fabriclint.inventories.mapping import MappingFile

SOURCES = ("netbox", "nautobot", "ansible", "nornir", "avd")

# The names other tools give the platforms fabriclint parses (each descriptor's `aliases`):
# NetBox/Nautobot platform slugs, Ansible network OS names, netmiko/napalm driver names.
BUILTIN_PLATFORMS: dict[str, str] = {
    name: p.name for p in platforms.ALL for name in (p.name, *p.aliases)
}


class SourceError(Exception):
    """The source cannot be read or holds something that cannot become an inventory.

    `exit_code` is 2 for an input or usage problem (a bad file, a refused token) and 3 when the
    source could not be read completely (a server error, a connection refused, a timeout).
    """

    def __init__(self, messages: list[str] | str, exit_code: int = 2) -> None:
        self.messages = [messages] if isinstance(messages, str) else messages
        super().__init__("; ".join(self.messages))
        self.exit_code = exit_code


@dataclass
class SourceDevice:
    """One device as the source describes it (platform and role in the source's words)."""

    name: str
    platform: str | None
    role: str | None
    host: str | None = None
    site: str | None = None
    tags: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    """Ansible/Nornir groups: the mapping file may give platform and role by group."""


@dataclass(frozen=True)
class SourceLink:
    """One cable, both ends 'device:port', and where the source said so (for messages)."""

    a: str
    b: str
    where: str = ""


@dataclass
class Imported:
    """All a source yields, plus what it had to leave out (reported, never silent)."""

    devices: list[SourceDevice]
    links: list[SourceLink]
    skipped: list[str] = field(default_factory=list)


def shown_url(parts: SplitResult, path: bool = True) -> str:
    """`scheme://host[:port]` (and the path) of a split URL as messages and the cache may show
    it: never a `user:password@` written into it, never its query (both reach CI logs)."""
    host = parts.netloc.rpartition("@")[2]
    return f"{parts.scheme}://{host}{parts.path if path else ''}"


@dataclass
class Mapping:
    """The mapping file: source words to fabriclint's, and what a source cannot say."""

    platforms: dict[str, str] = field(default_factory=dict)
    roles: dict[str, str] = field(default_factory=dict)
    groups: dict[str, dict[str, str]] = field(default_factory=dict)
    """Group name -> {platform, role} for hosts the source gives neither (Ansible, Nornir)."""
    names: dict[str, dict[str, str]] = field(default_factory=dict)
    """Device-name glob -> {platform, role}, the last resort for either."""
    credentials: dict[str, Credentials] = field(default_factory=dict)
    """Platform key or role -> names of the environment variables holding credentials."""
    name: str | None = None

    def platform(self, word: str) -> str:
        """fabriclint's platform key for a source platform word (unknown words kept, lowered:
        `validate` then warns that no parser reads them)."""
        if word in self.platforms:
            return self.platforms[word]
        low = word.lower()
        return self.platforms.get(low) or BUILTIN_PLATFORMS.get(low) or _key_like(low)

    def role(self, word: str) -> str:
        """fabriclint's role name for a source role word."""
        return self.roles.get(word, word)


def _key_like(word: str) -> str:
    """A source word made into a platform key's shape (lower case, no spaces)."""
    return re.sub(r"[^a-z0-9._-]+", "-", word).strip("-._") or "unknown"


@dataclass
class Filters:
    """Which devices to import: every given list must match (site, tag, role)."""

    sites: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)

    def keeps(self, device: SourceDevice, role: str) -> bool:
        """True when `device` (whose fabriclint role is `role`) passes every filter."""
        if self.sites and device.site not in self.sites:
            return False
        if self.tags and not set(self.tags) & set(device.tags):
            return False
        return not self.roles or role in self.roles or device.role in self.roles


def load_mapping(path: Path | None) -> Mapping:
    """Read the mapping file (YAML); SourceError with file:line for anything wrong in it."""
    if path is None:
        return Mapping()
    from fabriclint.inventories.mapping import MappingFile
    from fabriclint.loaders.yaml import load_yaml, validate_doc

    doc, problems = load_yaml(path, str(path))
    if doc is None or problems:
        raise SourceError([str(p) for p in problems] or [f"{path}: cannot read"])
    model, errors = validate_doc(doc, MappingFile)
    if model is None or errors:
        raise SourceError([str(p) for p in errors])
    return mapping_of(model)


def mapping_of(model: MappingFile) -> Mapping:
    """The importers' Mapping of a validated mapping file (or of an inline `mapping:`)."""
    return Mapping(
        platforms=dict(model.platforms),
        roles=dict(model.roles),
        groups={k: v.model_dump(exclude_none=True) for k, v in model.groups.items()},
        names={k: v.model_dump(exclude_none=True) for k, v in model.names.items()},
        credentials=dict(model.credentials),
        name=model.name,
    )


def _resolve(device: SourceDevice, mapping: Mapping) -> tuple[str | None, str | None]:
    """(platform key, role) of a device: its own words first, then its groups' in the mapping,
    then the first name pattern that matches."""
    import fnmatch

    platform = mapping.platform(device.platform) if device.platform else None
    role = mapping.role(device.role) if device.role else None
    given = [mapping.groups.get(g, {}) for g in device.groups]
    given += [v for k, v in mapping.names.items() if fnmatch.fnmatchcase(device.name, k)]
    for choice in given:
        platform = platform or choice.get("platform")
        role = role or choice.get("role")
    return platform, role


def _device(source: SourceDevice, platform: str, role: str, mapping: Mapping) -> Device:
    creds = mapping.credentials.get(role) or mapping.credentials.get(platform) or Credentials()
    return Device(
        platform=platform,
        role=role,
        host=source.host,
        credentials=creds,
        tags=sorted(set(source.tags)),
    )


def build(imported: Imported, mapping: Mapping, filters: Filters, name: str) -> Inventory:
    """The inventory: mapped and filtered devices, the links between kept devices (a cable to a
    device left out is added to `imported.skipped`). SourceError lists every device that has
    no platform or role, whose name cannot be a device name, or that two records of the source
    name (NetBox names are unique per site only: one would silently replace the other)."""
    from fabriclint.models.names import device_name_problem

    devices: dict[str, Device] = {}
    problems: list[str] = []
    for source in imported.devices:
        platform, role = _resolve(source, mapping)
        if not filters.keeps(source, role or ""):
            continue
        bad = device_name_problem(source.name)
        missing = [w for w, v in (("platform", platform), ("role", role)) if not v]
        if bad or missing:
            why = bad or f"no {' or '.join(missing)} (give it in the source or the mapping file)"
            problems.append(f"device {source.name!r}: {why}")
            continue
        assert platform is not None and role is not None
        if source.name in devices:
            problems.append(f"device {source.name!r}: two devices of the source have this name")
            continue
        devices[source.name] = _device(source, platform, role, mapping)
    if problems:
        raise SourceError(problems)
    links = _links(imported, devices)
    return Inventory(name=mapping.name or name, devices=devices, links=links)


def _links(imported: Imported, devices: dict[str, Device]) -> list[Link]:
    """Links whose two ends are kept devices, once each, ends in name order and links sorted
    (a re-import writes the same file whatever order the source gives). A port the source
    cables twice (two devices claiming one peer port) is an SourceError naming both."""
    seen: set[frozenset[str]] = set()
    port_of: dict[str, SourceLink] = {}
    out: list[Link] = []
    clashes: list[str] = []
    for link in imported.links:
        ends = frozenset((link.a, link.b))
        if ends in seen:
            continue
        seen.add(ends)
        outside = [e for e in (link.a, link.b) if e.partition(":")[0] not in devices]
        if outside:
            imported.skipped.append(
                f"cable {link.a} - {link.b}{_at(link)}: {outside[0].partition(':')[0]} is not imported"
            )
            continue
        for end in (link.a, link.b):
            if end in port_of:
                other = port_of[end]
                clashes.append(
                    f"port {end} is cabled twice: {other.a} - {other.b}{_at(other)} "
                    f"and {link.a} - {link.b}{_at(link)}"
                )
            port_of[end] = link
        first, second = sorted((link.a, link.b))  # a source's A/B sides are arbitrary
        out.append(Link(a=first, b=second))
    if clashes:
        raise SourceError(clashes)
    return sorted(out, key=lambda k: (k.a, k.b))


def peer_links(
    device: str, data: dict[str, Any], where: str
) -> tuple[list[SourceLink], list[SourceDevice]]:
    """Links a host's variables declare, and the peer devices they name (with their AVD
    `peer_type` as group, so the mapping can say what a `server` is).

    Two forms: AVD's `ethernet_interfaces: [{name, peer, peer_interface, peer_type}]` and
    `fabriclint_peers: {local_port: "device:port"}`."""
    links: list[SourceLink] = []
    peers: list[SourceDevice] = []
    for item in listed(data.get("ethernet_interfaces"), f"{where}: ethernet_interfaces"):
        if not isinstance(item, dict):
            continue
        port, peer, peer_port = item.get("name"), item.get("peer"), item.get("peer_interface")
        if port and peer and peer_port:
            links.append(SourceLink(f"{device}:{port}", f"{peer}:{peer_port}", where))
            group = [str(item["peer_type"])] if item.get("peer_type") else []
            peers.append(SourceDevice(name=str(peer), platform=None, role=None, groups=group))
    declared = data.get("fabriclint_peers")
    if declared is not None and not isinstance(declared, dict):
        raise SourceError(f"{where}: fabriclint_peers: not a mapping of port to 'device:port'")
    for port, end in (declared or {}).items():
        if isinstance(end, str) and ":" in end:
            links.append(SourceLink(f"{device}:{port}", end, where))
    return links, peers


def listed(value: Any, where: str, exit_code: int = 2) -> list[Any]:
    """`value` when it is a list, [] when absent; SourceError naming `where` otherwise (a
    number there was a TypeError, a string was read letter by letter). `exit_code` 3 for a
    server's answer (the source could not be read), 2 for a file."""
    if value is None or value == "":
        return []
    if not isinstance(value, list):
        raise SourceError(f"{where}: not a list ({type(value).__name__})", exit_code)
    return value


def merge_peers(devices: list[SourceDevice], peers: list[SourceDevice]) -> list[SourceDevice]:
    """`devices` plus the peers that are not devices of the source themselves (once each)."""
    known = {d.name for d in devices}
    out = list(devices)
    for peer in peers:
        if peer.name not in known:
            known.add(peer.name)
            out.append(peer)
    return out


def _at(link: SourceLink) -> str:
    return f" ({link.where})" if link.where else ""


def render(inventory: Inventory, source: str, schema: str | None = None) -> str:
    """inventory.yaml text: a `$schema` line (when given), where it came from, then one flow
    mapping per device and per link."""
    lines = [f"# yaml-language-server: $schema={schema}"] if schema else []
    lines += [
        f"# Written by `fabriclint inventory import --from {source}`; re-run it to refresh.",
        f"name: {_scalar(inventory.name)}",
        "",
        "devices:",
    ]
    for name, device in sorted(inventory.devices.items()):
        lines.append(f"  {_scalar(name)}: {_flow(_device_data(device))}")
    lines += ["", "links:" if inventory.links else "links: []"]
    lines += [f"  - {{a: {_scalar(k.a)}, b: {_scalar(k.b)}}}" for k in inventory.links]
    return "\n".join(lines) + "\n"


def _device_data(device: Device) -> dict[str, Any]:
    data: dict[str, Any] = device.model_dump(exclude_defaults=True)
    data["platform"], data["role"] = device.platform, device.role
    order = ["platform", "role", "host", "port", "credentials", "tags"]
    return {key: data[key] for key in order if key in data}


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return _scalar(value)


_PLAIN = re.compile(r"[A-Za-z0-9_./~-][A-Za-z0-9_./:~-]*")


def _scalar(value: Any) -> str:
    """A YAML scalar: plain when it reads back as the same string (YAML 1.1 rules, the
    stricter: `no`, `1:20` and `0x1f` are quoted), double-quoted otherwise."""
    import json

    import yaml

    if isinstance(value, bool | int):
        return str(value).lower() if isinstance(value, bool) else str(value)
    text = str(value)
    if _PLAIN.fullmatch(text) and not text.endswith(":") and yaml.safe_load(text) == text:
        return text
    return json.dumps(text)


def changes(old: dict[str, Any], new: Inventory) -> list[str]:
    """What a re-import changes against the existing file's data, one line each."""
    old_devices = old.get("devices") if isinstance(old.get("devices"), dict) else {}
    assert isinstance(old_devices, dict)
    new_devices = {n: _device_data(d) for n, d in new.devices.items()}
    out = [f"+ device {n}" for n in sorted(set(new_devices) - set(old_devices))]
    out += [f"- device {n}" for n in sorted(set(old_devices) - set(new_devices))]
    for name in sorted(set(old_devices) & set(new_devices)):
        before = old_devices[name] if isinstance(old_devices[name], dict) else {}
        for key in ("platform", "role", "host", "tags"):
            was, now = before.get(key), new_devices[name].get(key)
            if was != now and (was or now):
                out.append(f"~ device {name}: {key} {was!r} -> {now!r}")
    old_links = {_link_key(k) for k in old.get("links") or [] if isinstance(k, dict)}
    new_links = {frozenset((k.a, k.b)) for k in new.links}
    out += [f"+ link {_show(k)}" for k in sorted(new_links - old_links, key=_show)]
    out += [f"- link {_show(k)}" for k in sorted(old_links - new_links, key=_show)]
    return out


def _link_key(link: dict[str, Any]) -> frozenset[str]:
    return frozenset((str(link.get("a")), str(link.get("b"))))


def _show(ends: frozenset[str]) -> str:
    return " - ".join(sorted(ends))
