"""A live inventory: the fabric folder names its source (`inventory-source.yaml`) instead of
holding an inventory.yaml, and `check`, `collect` and `nightly` read it through the importers.

What the source gave last is kept in `FABRIC/.fabriclint/inventory-cache.yaml`, written
atomically, an ordinary inventory file (so findings can point at its lines) whose first line
records when and from where it was fetched and a digest of the source settings. Every command
that loads a fabric reads that cache; the CLI refreshes it first (see `refresh`):

- fetched: the cache is rewritten and used;
- `--offline`: the cache is used whatever its age, and the run says so (no cache: exit 2);
- the source cannot be read (unreachable, 5xx, timeout) and the cache is at most `max_age`
  old: a warning, the cache is used; with no cache, or one too old, exit 3 (incomplete:
  nothing could be checked against a plan that is not known);
- the source refuses the token or its settings are wrong: exit 2, cache or not (a cache
  would hide a configuration that has to be fixed).

No token ever reaches the cache: it holds what `fabriclint inventory import` writes (devices,
credentials as environment variable names, links) and the source's URL without user info or
query.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import urllib.parse
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator

from fabriclint.inventories.common import Filters, Mapping, SourceError, shown_url
from fabriclint.inventories.mapping import MappingFile
from fabriclint.loaders.fabric import CACHE_FILE, SOURCE_FILE, has_source
from fabriclint.loaders.yaml import Problem
from fabriclint.models.inventory import Strict

_HEADER = "# fabriclint inventory cache: "
_DURATION = re.compile(r"^\s*(\d+)\s*([smhd]?)\s*$")
_UNIT_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


class SourceFilters(Strict):
    """Which devices of the source make the fabric (each list, when given, must match)."""

    sites: list[str] = Field(default_factory=list)
    """Site slugs (NetBox) or location names (Nautobot)."""
    tags: list[str] = Field(default_factory=list)
    """Tag slugs or names."""
    roles: list[str] = Field(default_factory=list)
    """The source's role or fabriclint's (after mapping)."""


class InventorySource(Strict):
    """inventory-source.yaml: where the fabric's devices and cables are read from, live."""

    source: Literal["netbox", "nautobot", "ansible", "nornir", "avd"]
    """The inventory source, as `fabriclint inventory import --from`."""
    url: str | None = None
    """NetBox/Nautobot base URL (`https://netbox.example.com`)."""
    token_env: str | None = None
    """Environment variable holding the API token (default NETBOX_TOKEN or NAUTOBOT_TOKEN).
    The token itself is never written in this file."""
    inputs: list[str] = Field(default_factory=list)
    """Ansible inventory sources, the Nornir folder or the AVD folder, relative to the fabric
    folder and inside it."""
    json_file: str | None = Field(default=None, alias="json")
    """Ansible: a saved `ansible-inventory --list` output, inside the fabric folder."""
    filters: SourceFilters = Field(default_factory=SourceFilters)
    """Site, tag and role filters."""
    mapping: MappingFile | str | None = None
    """The mapping (platforms, roles, groups, names, credentials, name) inline, or the path
    of a mapping file inside the fabric folder."""
    max_age: str = "24h"
    """How old the cache may be when the source cannot be read: seconds, or a number with
    s, m, h or d (`30m`, `24h`, `7d`)."""
    timeout: float = Field(default=30.0, gt=0, le=600)
    """Seconds to wait for each API page."""

    @field_validator("max_age")
    @classmethod
    def _duration(cls, value: str) -> str:
        parse_duration(value)
        return value


def parse_duration(text: str) -> timedelta:
    """`90`, `30m`, `24h`, `7d` as a timedelta; ValueError for anything else."""
    match = _DURATION.match(str(text))
    if match is None or len(match.group(1)) > 9:  # 10^9 s is 31 years; more overflows
        raise ValueError(f"{text!r} is not a duration (seconds, or a number with s, m, h or d)")
    return timedelta(seconds=int(match.group(1)) * _UNIT_SECONDS[match.group(2)])


@dataclass(frozen=True)
class CacheInfo:
    """What the cache's first line says."""

    fetched: datetime
    source: str
    where: str
    digest: str


@dataclass(frozen=True)
class Refreshed:
    """The outcome of `refresh`: the cache in use, a line to show, and whether it is a
    warning (a cache used because the source could not be read, or an offline run)."""

    path: Path
    message: str
    warning: bool = False


def read_source(root: Path) -> tuple[InventorySource | None, list[Problem]]:
    """inventory-source.yaml, validated, or the located problems that stop it."""
    from fabriclint.loaders.fabric import display_path, refuse_outside
    from fabriclint.loaders.yaml import load_yaml, validate_doc

    path = root / SOURCE_FILE
    refused = refuse_outside(path, root)
    if refused is not None:
        return None, [Problem(display_path(path), 1, 1, refused)]
    doc, problems = load_yaml(path, display_path(path))
    if doc is None or problems:
        return None, problems or [Problem(display_path(path), 1, 1, "cannot read")]
    model, errors = validate_doc(doc, InventorySource)
    return (model if not errors else None), errors


def load_source(root: Path) -> tuple[InventorySource, str]:
    """inventory-source.yaml and the digest of the settings it names (the file and the
    mapping file it points at); SourceError (exit 2) with file:line:col for mistakes."""
    model, problems = read_source(root)
    if model is None or problems:
        raise SourceError([str(p) for p in problems] or [f"{root / SOURCE_FILE}: cannot read"])
    digest = hashlib.sha256((root / SOURCE_FILE).read_bytes())
    if isinstance(model.mapping, str):
        digest.update(_inside(root, model.mapping).read_bytes())
    return model, digest.hexdigest()[:16]


def _inside(root: Path, name: str, folder: bool = False) -> Path:
    """A path of inventory-source.yaml, relative to the fabric folder and confined to it (an
    Ansible inventory may be a script Ansible runs: it must be as trusted as the folder)."""
    from fabriclint.confine import UnsafeInput, resolve_inside
    from fabriclint.loaders.fabric import refuse_outside

    path = root / name
    try:
        resolved = resolve_inside(path, root)
        if folder and resolved.is_dir():
            refused = _link_out_in(path, root)
        else:
            refused = refuse_outside(path, root)
    except FileNotFoundError:
        refused = "not found"
    except UnsafeInput as exc:
        refused = str(exc)
    if refused is not None:
        raise SourceError(f"{root / SOURCE_FILE}: {name}: {refused}")
    return path


def _link_out_in(folder: Path, root: Path) -> str | None:
    """The first link under an input folder that leads out of the fabric folder (`nr/hosts.yaml`
    -> /etc/..., an Ansible `group_vars/all.yml` -> a CI secret), or None. The importers read
    what the folder holds, so every link in it must stay inside like the folder itself."""
    inside = Path(os.path.realpath(root))
    seen: set[str] = set()
    for top, dirs, files in os.walk(folder, followlinks=True):  # a linked folder is read too
        real = os.path.realpath(top)
        if real in seen:  # a link loop
            dirs.clear()
            continue
        seen.add(real)
        for entry in (*dirs, *files):
            path = Path(top) / entry
            target = Path(os.path.realpath(path))
            if path.is_symlink() and not target.is_relative_to(inside):
                dirs.clear()
                return f"{path}: resolves to {target}, outside {root}; links must stay inside it"
    return None


def _mapping(root: Path, source: InventorySource) -> Mapping:
    from fabriclint.inventories.common import load_mapping, mapping_of

    if isinstance(source.mapping, str):
        return load_mapping(_inside(root, source.mapping))
    return mapping_of(source.mapping or MappingFile())


def public_url(url: str | None) -> str:
    """The URL as it may be shown and cached: no user info, no query."""
    if not url:
        return ""
    return shown_url(urllib.parse.urlsplit(url))


TRUST_ENV = "FABRICLINT_TRUSTED_SOURCES"
"""The environment variable (set outside any fabric folder: a CI secret, a shell profile) that
names what a live source may reach: `https://netbox.example.com` (an origin; `host:*` for any
port), `https://netbox.example.com=MY_TOKEN_VAR` (that origin with a token variable other than
the source's default `NETBOX_TOKEN` / `NAUTOBOT_TOKEN`), and `ansible` (run `ansible-inventory`
over files of the fabric folder). A fabric folder from a pull request names its own url,
token_env and inputs: without this gate `check` would send any environment variable to any
server, or run an inventory script from the PR."""


def _trusted() -> dict[str, str | None]:
    """The entries of FABRICLINT_TRUSTED_SOURCES: origin (or word) -> token variable or None."""
    entries: dict[str, str | None] = {}
    for item in re.split(r"[\s,]+", os.environ.get(TRUST_ENV, "")):
        if item:
            origin, _, var = item.partition("=")
            entries[origin.rstrip("/").lower()] = var or None
    return entries


def _origin_allowed(origin: str, entries: dict[str, str | None]) -> str | None:
    """The entry that allows `origin` (exact, or `scheme://host:*`), else None."""
    if origin in entries:
        return origin
    any_port = origin.rsplit(":", 1)[0] + ":*" if origin.count(":") > 1 else origin + ":*"
    return any_port if any_port in entries else None


def check_trusted(source: InventorySource) -> None:
    """SourceError (exit 2) unless FABRICLINT_TRUSTED_SOURCES allows what `source` would do:
    send a token to its URL's origin, or run ansible-inventory over the folder's files."""
    entries = _trusted()
    if source.source == "ansible" and source.inputs and "ansible" not in entries:
        raise SourceError(
            f"inventory-source.yaml: an ansible source runs ansible-inventory over files of the "
            f"fabric folder (inventory scripts and plugins run code); allow it with {TRUST_ENV}="
            "ansible set outside the folder, or use `json:` (a saved `ansible-inventory --list`)",
            2,
        )
    if source.source not in ("netbox", "nautobot") or not source.url:
        return
    from fabriclint.inventories import check_url

    check_url(source.url)  # a URL the client cannot use is said as such, first
    origin = shown_url(urllib.parse.urlsplit(source.url), path=False).lower()
    default = f"{source.source.upper()}_TOKEN"
    var = source.token_env or default
    entry = _origin_allowed(origin, entries)
    if entry is None:
        raise SourceError(
            f"inventory-source.yaml: {origin} is not a trusted inventory source: the token in "
            f"{var} is only sent to origins listed in {TRUST_ENV} (set it outside the fabric "
            f"folder, e.g. {TRUST_ENV}={origin}; a fabric folder from a PR can name any server)",
            2,
        )
    if var != (entries[entry] or default):
        raise SourceError(
            f"inventory-source.yaml: token_env {var} is not the token variable {TRUST_ENV} "
            f"allows for {origin} ({entries[entry] or default}); write {origin}={var} there to "
            "allow it",
            2,
        )


def _cache_inside(root: Path) -> Path:
    """The cache's path; SourceError (exit 2) when a link in the fabric folder (the cache, or
    `.fabriclint/` itself) would have the write replace a file outside it: a fabric folder
    from a PR is not trusted."""
    path = root / CACHE_FILE
    resolved = Path(os.path.realpath(path))
    if not resolved.is_relative_to(Path(os.path.realpath(root))):
        raise SourceError(
            f"{path}: resolves to {resolved}, outside the fabric folder {root}; "
            "the cache is only written inside it (remove the link)"
        )
    return path


def fetch(root: Path, source: InventorySource, digest: str, now: datetime) -> Refreshed:
    """Read the source through the importers and rewrite the cache atomically."""
    from fabriclint.inventories import ImportRequest, read_source
    from fabriclint.inventories.common import build, render
    from fabriclint.snapshot import atomic_write

    check_trusted(source)
    cache = _cache_inside(root)
    filters = Filters(**source.filters.model_dump())
    request = ImportRequest(
        source=source.source,
        out=cache,
        inputs=[_inside(root, p, folder=True) for p in source.inputs],
        json_file=_inside(root, source.json_file) if source.json_file else None,
        url=source.url,
        token_env=source.token_env,
        filters=filters,
        timeout=source.timeout,
    )
    mapping = _mapping(root, source)
    imported = read_source(request)
    inventory = build(imported, mapping, filters, mapping.name or root.resolve().name)
    if not inventory.devices:
        raise SourceError(f"{source.source} {public_url(source.url)}: no device kept", 2)
    info = {
        "fetched": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "source": source.source,
        "where": public_url(source.url) or ", ".join(source.inputs or [source.json_file or ""]),
        "digest": digest,
    }
    text = _HEADER + json.dumps(info, sort_keys=True) + "\n" + render(inventory, source.source)
    try:
        atomic_write(cache, text)
    except OSError as exc:
        raise SourceError(f"{cache}: cannot write: {exc.strerror or exc}") from None
    what = f"{len(inventory.devices)} devices, {len(inventory.links)} links"
    message = f"inventory: read {what} from {source.source} {info['where']}; cached"
    return Refreshed(cache, message)


def _first_line(path: Path) -> str | None:
    """The first line of the regular file `path`, else None: a FIFO planted there in a PR's
    fabric folder is no cache (O_NONBLOCK: opening it must not wait for a writer)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        try:
            return handle.readline(4096).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None


def cache_info(path: Path) -> CacheInfo | None:
    """The cache's first line, or None when there is no cache or it is not one."""
    first = _first_line(path)
    if first is None or not first.startswith(_HEADER):
        return None
    try:
        data: Any = json.loads(first[len(_HEADER) :])
        fetched = datetime.strptime(str(data["fetched"]), "%Y-%m-%dT%H:%M:%SZ")
        return CacheInfo(
            fetched.replace(tzinfo=UTC), str(data["source"]), str(data["where"]), data["digest"]
        )
    except (ValueError, KeyError, TypeError):
        return None


def _age(delta: timedelta) -> str:
    seconds = max(0, int(delta.total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _use_cache(root: Path, digest: str) -> tuple[CacheInfo | None, str]:
    """The cache's info when it is a cache of these settings, and why not otherwise."""
    path = root / CACHE_FILE
    info = cache_info(path)
    if info is None:
        return None, f"no inventory cache ({path})"
    if info.digest != digest:
        return None, f"the cache {path} was fetched with other settings of {SOURCE_FILE}"
    return info, ""


def refresh(root: Path, offline: bool = False, now: datetime | None = None) -> Refreshed | None:
    """Bring the cache of a live source up to date (or, offline, vouch for it); None when the
    fabric has no live source. SourceError (exit 2 or 3, see the module docstring) otherwise."""
    if not has_source(root):
        return None
    if (root / "inventory.yaml").exists():
        raise SourceError(
            f"{root}: both inventory.yaml and {SOURCE_FILE}: keep one (a live source writes "
            f"its inventory to {CACHE_FILE})"
        )
    now = now or datetime.now(UTC)
    source, digest = load_source(root)
    if offline:
        info, why = _use_cache(root, digest)
        if info is None:
            raise SourceError(f"--offline: {why}; run once without --offline", 2)
        return Refreshed(root / CACHE_FILE, _cached("offline", info, now), warning=True)
    try:
        return fetch(root, source, digest, now)
    except SourceError as exc:
        if exc.exit_code == 2:
            raise
        return _fallback(root, source, digest, now, exc)


def _fallback(
    root: Path, source: InventorySource, digest: str, now: datetime, exc: SourceError
) -> Refreshed:
    """The source could not be read: the cache when fresh enough, else SourceError (exit 3)."""
    info, why = _use_cache(root, digest)
    limit = parse_duration(source.max_age)
    if info is not None and now - info.fetched > limit:
        why = f"the cache is {_age(now - info.fetched)} old, more than max_age {source.max_age}"
        info = None
    if info is None:
        raise SourceError([*exc.messages, f"{why}: nothing can be checked"], exit_code=3)
    reason = "; ".join(exc.messages)
    return Refreshed(root / CACHE_FILE, _cached(reason, info, now), warning=True)


def _cached(reason: str, info: CacheInfo, now: datetime) -> str:
    fetched = info.fetched.strftime("%Y-%m-%dT%H:%M:%SZ")
    return (
        f"inventory: {reason}: using the cache of {info.source} {info.where} fetched "
        f"{fetched} ({_age(now - info.fetched)} ago)"
    )
