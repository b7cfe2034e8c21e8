"""NetBox 4.x as an inventory source, over its REST API (plain HTTP: no client library needed).

Devices come from /api/dcim/devices/ (name, platform slug, role slug, site slug, primary IP,
tag slugs), cables from /api/dcim/cables/ (`a_terminations`/`b_terminations`, each a list of
`{object_type, object_id, object}`; only `dcim.interface` ends become links). Both lists are
read in pages (`limit`, then each page's `next` URL): NetBox answers `limit=0` (everything at
once) slowly on large installs. The token goes in the `Authorization: Token ...` header and
never into a message: errors name the URL without its query and redact the token.
"""

from __future__ import annotations

import http.client
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from fabriclint.bounded import InputLimitError, json_loads
from fabriclint.inventories.common import (
    Filters,
    Imported,
    SourceDevice,
    SourceError,
    SourceLink,
    listed,
    shown_url,
)

PAGE = 200
MAX_PAGES = 10_000
"""A `next` chain longer than this is a server bug (or a loop), not a fabric."""
MAX_BODY = 64 * 1024 * 1024
"""Bytes read of one page at most (200 devices or cables are a few hundred KB): a server that
answers without end is an incomplete read, not an exhausted memory."""


@dataclass
class Api:
    """A NetBox-like REST API: base URL and token (the token is never shown)."""

    url: str
    token: str | None
    timeout: float = 30.0
    product: str = "NetBox"

    def _redact(self, text: str) -> str:
        return text.replace(self.token, "[redacted]") if self.token else text

    def _where(self, url: str) -> str:
        return shown_url(urllib.parse.urlsplit(url))

    def get(self, url: str) -> Any:
        """GET one URL as JSON; SourceError (exit 2 for refused tokens and bad requests, 3 for
        server errors and unreachable servers) with the URL and the server's reason."""
        request = urllib.request.Request(url, headers={"Accept": "application/json"})
        if self.token:
            request.add_header("Authorization", f"Token {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = self._body(response, url)
        except urllib.error.HTTPError as exc:
            raise self._http_error(url, exc) from None
        except (ValueError, http.client.InvalidURL) as exc:  # a port that is not a number...
            message = f"{self._where(url)}: not a usable URL: {exc}"
            raise SourceError(self._redact(message), exit_code=2) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", exc)
            message = f"{self._where(url)}: cannot reach {self.product}: {reason}"
            raise SourceError(self._redact(message), exit_code=3) from None
        try:  # bounded: a page nested without end was a RecursionError (an internal error)
            return json_loads(body.decode("utf-8"))
        except InputLimitError as exc:
            message = f"{self._where(url)}: {self.product} answered JSON past a limit: {exc}"
            raise SourceError(message, exit_code=3) from None
        except ValueError:  # also UnicodeDecodeError
            message = f"{self._where(url)}: {self.product} answered something that is not JSON"
            raise SourceError(message, exit_code=3) from None

    def _body(self, response: http.client.HTTPResponse, url: str) -> bytes:
        """At most MAX_BODY bytes of one page, read within `timeout` seconds in all: the socket
        timeout bounds one wait only, and a server that sends a byte at a time never hit it."""
        deadline = time.monotonic() + self.timeout
        chunks: list[bytes] = []
        size = 0
        while chunk := response.read1(1 << 16):
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_BODY:
                message = f"{self._where(url)}: {self.product} page larger than {MAX_BODY} bytes"
                raise SourceError(message, exit_code=3)
            if time.monotonic() > deadline:
                message = (
                    f"{self._where(url)}: {self.product} did not send the page within "
                    f"{self.timeout:g} s (an overloaded server or proxy?)"
                )
                raise SourceError(message, exit_code=3)
        return b"".join(chunks)

    def _http_error(self, url: str, exc: urllib.error.HTTPError) -> SourceError:
        detail = _detail(exc)
        where = self._where(url)
        if exc.code in (401, 403):
            hint = "set a valid API token in the variable --token-env names"
            message = (
                f"{where}: {self.product} refused the token (HTTP {exc.code}: {detail}); {hint}"
            )
            return SourceError(self._redact(message), exit_code=2)
        code = 3 if exc.code >= 500 else 2
        message = f"{where}: {self.product} answered HTTP {exc.code}: {detail}"
        return SourceError(self._redact(message), exit_code=code)

    def _same_origin(self, url: str) -> str:
        """`url` (a page's `next`) when it is on the base URL's scheme, host and port: the token
        goes with every request, so a server (or a proxy in front of it) that points `next`
        elsewhere must not get it sent there (SourceError, exit 3)."""
        base, other = urllib.parse.urlsplit(self.url), urllib.parse.urlsplit(url)
        if (base.scheme, base.netloc) != (other.scheme, other.netloc):
            message = (
                f"{self._where(self.url)}: {self.product}'s next page is on another server "
                f"({self._where(url)}); the token is only sent to {self._where(self.url)}"
            )
            raise SourceError(self._redact(message), exit_code=3)
        return url

    def pages(self, path: str, params: dict[str, list[str]]) -> list[dict[str, Any]]:
        """Every result of a list endpoint, following `next` page by page."""
        query = urllib.parse.urlencode({**params, "limit": [str(PAGE)]}, doseq=True)
        url: str | None = f"{self.url.rstrip('/')}/api/{path}/?{query}"
        out: list[dict[str, Any]] = []
        read: set[str] = set()
        for _ in range(MAX_PAGES):
            if url is None:
                return out
            read.add(url)
            page = self.get(url)
            if not isinstance(page, dict) or not isinstance(page.get("results"), list):
                message = f"{self._where(url)}: not a {self.product} list (no 'results')"
                raise SourceError(message, exit_code=3)
            out += [r for r in page["results"] if isinstance(r, dict)]
            url = self._next(page.get("next"), read)
        where = self._where(f"{self.url.rstrip('/')}/api/{path}/")
        raise SourceError(f"{where}: more than {MAX_PAGES} pages", exit_code=3)

    def _next(self, nxt: Any, read: set[str]) -> str | None:
        """The next page's URL, None after the last; a `next` already read is a paging loop
        (SourceError, exit 3), not 10,000 requests for the same records."""
        if not isinstance(nxt, str) or not nxt:
            return None
        if nxt in read:
            message = (
                f"{self._where(nxt)}: {self.product}'s next page was already read (its pages loop)"
            )
            raise SourceError(message, exit_code=3)
        return self._same_origin(nxt)


def _detail(exc: urllib.error.HTTPError) -> str:
    """The server's reason: NetBox's `{"detail": ...}`, else the status text."""
    try:
        data = json_loads((exc.read(2000) or b"{}").decode("utf-8"))
    except (ValueError, OSError):  # InputLimitError and UnicodeDecodeError are ValueErrors
        data = {}
    detail = data.get("detail") if isinstance(data, dict) else None
    return " ".join(str(detail or exc.reason or "error").split())[:200]


def _slug(value: Any, key: str = "slug") -> str | None:
    """A nested object's slug (or name), or None when absent."""
    if isinstance(value, dict):
        found = value.get(key) or value.get("name")
        return str(found) if found else None
    return None


def _address(device: dict[str, Any]) -> str | None:
    """The primary IP without its prefix length."""
    for key in ("primary_ip", "primary_ip4", "primary_ip6"):
        ip = device.get(key)
        if isinstance(ip, dict) and isinstance(ip.get("address"), str):
            return str(ip["address"]).split("/")[0]
    return None


def _record(raw: dict[str, Any], key: str) -> str:
    """How a field of a device record is named in a message: `device NAME (id N): key`."""
    return f"device {raw.get('name')!s} (id {raw.get('id')!s}): {key}"


def netbox_device(raw: dict[str, Any]) -> SourceDevice:
    """A NetBox 4.x device record as a SourceDevice (`role`; 3.x called it `device_role`)."""
    tags = [t for t in (_slug(t) for t in listed(raw.get("tags"), _record(raw, "tags"), 3)) if t]
    return SourceDevice(
        name=str(raw.get("name") or f"device-{raw.get('id')}"),
        platform=_slug(raw.get("platform")),
        role=_slug(raw.get("role") or raw.get("device_role")),
        host=_address(raw),
        site=_slug(raw.get("site")),
        tags=tags,
    )


def _interface_end(term: dict[str, Any], names: dict[Any, str]) -> str | None:
    """'device:port' of a cable termination that is an interface of an imported device."""
    obj = term.get("object")
    if term.get("object_type") != "dcim.interface" or not isinstance(obj, dict):
        return None
    device = obj.get("device")
    dev_id = device.get("id") if isinstance(device, dict) else None
    if dev_id not in names or not obj.get("name"):
        return None
    return f"{names[dev_id]}:{obj['name']}"


def cable_links(cable: dict[str, Any], names: dict[Any, str]) -> tuple[list[SourceLink], str]:
    """The links of one cable and, when some ends cannot be paired, why (else "").

    A breakout cable has several terminations on a side: the i-th A end is paired with the
    i-th B end (NetBox keeps them in the order they were given), so a 1-to-4 breakout must list
    the four lanes (Ethernet1/1/1..4) on the switch side; unequal counts are reported."""
    label = f"cable {cable.get('id')}" + (f" ({cable['label']})" if cable.get("label") else "")
    a_terms = listed(cable.get("a_terminations"), f"{label}: a_terminations", 3)
    b_terms = listed(cable.get("b_terminations"), f"{label}: b_terminations", 3)
    a_ends = [_interface_end(t, names) for t in a_terms if isinstance(t, dict)]
    b_ends = [_interface_end(t, names) for t in b_terms if isinstance(t, dict)]
    if len(a_ends) != len(b_ends):
        return [], f"{label}: {len(a_ends)} A end(s) but {len(b_ends)} B end(s); cannot pair them"
    links = [
        SourceLink(a=a, b=b, where=label)
        for a, b in zip(a_ends, b_ends, strict=True)
        if a is not None and b is not None
    ]
    dropped = len(a_ends) - len(links)
    return (
        links,
        f"{label}: {dropped} end pair(s) not between interfaces of imported devices"
        if dropped
        else "",
    )


def _params(filters: Filters, site_key: str = "site", tag_key: str = "tag") -> dict[str, list[str]]:
    """Server-side filters: site and tag (NetBox ORs repeated values of one key, ANDs the
    keys). Roles are filtered after mapping, since --role names fabriclint's roles."""
    out: dict[str, list[str]] = {}
    for key, values in ((site_key, filters.sites), (tag_key, filters.tags)):
        if values:
            out[key] = list(values)
    return out


def read_netbox(api: Api, filters: Filters) -> Imported:
    """Devices (filtered on the server) and the cables between them."""
    raws = api.pages("dcim/devices", _params(filters))
    devices = [netbox_device(r) for r in raws]
    names = {r.get("id"): d.name for r, d in zip(raws, devices, strict=True)}
    site = {"site": list(filters.sites)} if filters.sites else {}
    links: list[SourceLink] = []
    skipped: list[str] = []
    for cable in api.pages("dcim/cables", site):
        found, why = cable_links(cable, names)
        links += found
        if why:
            skipped.append(why)
    return Imported(devices=devices, links=links, skipped=skipped)
