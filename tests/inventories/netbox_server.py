"""A stand-in for NetBox 4.x and Nautobot 2.x REST APIs on 127.0.0.1 (neither can be installed
here). The record shapes follow the products' API documentation: NetBox devices with nested
`role`/`platform`/`site` objects and `primary_ip`, cables with `a_terminations`/
`b_terminations` lists of `{object_type, object_id, object}`; Nautobot devices with `location`
and `network_driver`, cables with `termination_a_type`/`termination_a`. Lists are paged with
`limit`/`offset`, `next` as an absolute URL, and a page size capped as NetBox's MAX_PAGE_SIZE
caps it. Token errors answer 403 `{"detail": "Invalid token"}` as NetBox does."""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.inventories.roce_pod import CABLES, HOSTS, SWITCHES

TOKEN = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class Data:
    """What the server holds and how it misbehaves."""

    devices: list[dict[str, Any]]
    cables: list[dict[str, Any]]
    max_page: int = 4
    fail_cables: bool = False
    echo_token: bool = False
    """Repeat the presented token in the 403 (a careless proxy does): it must be redacted."""
    next_host: str = "127.0.0.1"
    """The host `next` links name (another one: a server pointing the client, and its token,
    elsewhere)."""
    requests: list[str] = field(default_factory=list)
    raw_body: bytes | None = None
    """Answer every request with these bytes (200), whatever they are."""
    loop: bool = False
    """Each page's `next` names the first page again (a server whose paging loops)."""
    drip_s: float = 0.0
    """Send each body byte by byte, this many seconds apart (a server that never finishes)."""


def _nested(kind: str, ident: int, name: str, slug: str) -> dict[str, Any]:
    return {
        "id": ident,
        "url": f"/api/dcim/{kind}/{ident}/",
        "display": name,
        "name": name,
        "slug": slug,
    }


def netbox_data(extra_device: bool = True) -> Data:
    """roce-pod as NetBox 4.x would return it, plus a device of another site and a console
    cable (neither belongs in the inventory)."""
    devices: list[dict[str, Any]] = []
    ids: dict[str, int] = {}
    rows: list[tuple[str, str, str, str, list[str]]]
    rows = [(n, r, ip, "arista-eos", []) for n, (r, ip) in SWITCHES.items()]
    rows += [(n, "gpu-server", ip, "ubuntu-connectx", tags) for n, (ip, tags) in HOSTS.items()]
    if extra_device:
        rows.append(("oob-sw01", "oob", "192.0.2.250", "cisco-ios", []))
    for index, (name, role, ip, platform, tags) in enumerate(rows, start=1):
        ids[name] = index
        site = "pod-b" if name == "oob-sw01" else "pod-a"
        devices.append(
            {
                "id": index,
                "url": f"/api/dcim/devices/{index}/",
                "display": name,
                "name": name,
                "role": _nested("device-roles", 10 + len(role), role.title(), role),
                "platform": _nested("platforms", 20 + len(platform), platform, platform),
                "site": _nested("sites", 1 if site == "pod-a" else 2, site.upper(), site),
                "status": {"value": "active", "label": "Active"},
                "primary_ip": {
                    "id": 100 + index,
                    "family": {"value": 4, "label": "IPv4"},
                    "address": f"{ip}/24",
                },
                "primary_ip4": {
                    "id": 100 + index,
                    "family": {"value": 4, "label": "IPv4"},
                    "address": f"{ip}/24",
                },
                "tags": [
                    {"id": 50 + i, "name": t, "slug": t, "color": "9e9e9e"}
                    for i, t in enumerate(tags)
                ],
            }
        )
    cables = [
        netbox_cable(i, [(a, ap)], [(b, bp)], ids)
        for i, (a, ap, b, bp) in enumerate(CABLES, start=1)
    ]
    console = netbox_cable(99, [("leaf01", "console")], [("oob-sw01", "Gi0/1")], ids)
    console["a_terminations"][0]["object_type"] = "dcim.consoleport"
    cables.append(console)
    return Data(devices=devices, cables=cables)


def netbox_cable(
    ident: int, a: list[tuple[str, str]], b: list[tuple[str, str]], ids: dict[str, int]
) -> dict[str, Any]:
    """A NetBox 4.x cable; a breakout has several terminations on a side."""

    def term(device: str, port: str, n: int) -> dict[str, Any]:
        dev = {
            "id": ids.get(device, 999),
            "url": f"/api/dcim/devices/{ids.get(device, 999)}/",
            "display": device,
            "name": device,
        }
        obj = {
            "id": ident * 10 + n,
            "url": "/api/dcim/interfaces/",
            "display": port,
            "device": dev,
            "name": port,
            "cable": ident,
            "_occupied": True,
        }
        return {"object_type": "dcim.interface", "object_id": obj["id"], "object": obj}

    return {
        "id": ident,
        "url": f"/api/dcim/cables/{ident}/",
        "display": f"#{ident}",
        "type": "smf",
        "a_terminations": [term(d, p, i) for i, (d, p) in enumerate(a)],
        "b_terminations": [term(d, p, 5 + i) for i, (d, p) in enumerate(b)],
        "status": {"value": "connected", "label": "Connected"},
        "label": "",
        "tags": [],
    }


def nautobot_data() -> Data:
    """roce-pod as Nautobot 2.x answers with depth=1 (UUID ids, location, network_driver)."""
    devices = []
    ids: dict[str, str] = {}
    rows: list[tuple[str, str, str, str, list[str]]]
    rows = [(n, r, ip, "arista_eos", []) for n, (r, ip) in SWITCHES.items()]
    rows += [(n, "gpu-server", ip, "linux", tags) for n, (ip, tags) in HOSTS.items()]
    for index, (name, role, ip, driver, tags) in enumerate(rows, start=1):
        uuid = f"00000000-0000-4000-8000-{index:012d}"
        ids[name] = uuid
        devices.append(
            {
                "id": uuid,
                "object_type": "dcim.device",
                "name": name,
                "role": {"id": f"r-{role}", "object_type": "extras.role", "name": role},
                "platform": {
                    "id": f"p-{driver}",
                    "object_type": "dcim.platform",
                    "name": driver.title(),
                    "network_driver": driver,
                },
                "location": {"id": "l-1", "object_type": "dcim.location", "name": "pod-a"},
                "primary_ip4": {
                    "id": f"ip-{index}",
                    "object_type": "ipam.ipaddress",
                    "address": f"{ip}/24",
                },
                "tags": [{"id": f"t-{t}", "object_type": "extras.tag", "name": t} for t in tags],
            }
        )
    cables = []
    for index, (a, ap, b, bp) in enumerate(CABLES, start=1):
        cable: dict[str, Any] = {"id": f"c-{index}", "object_type": "dcim.cable"}
        for side, device, port in (("a", a, ap), ("b", b, bp)):
            cable[f"termination_{side}_type"] = "dcim.interface"
            cable[f"termination_{side}_id"] = f"i-{index}-{side}"
            cable[f"termination_{side}"] = {
                "id": f"i-{index}-{side}",
                "object_type": "dcim.interface",
                "name": port,
                "device": {
                    "id": ids[device],
                    "object_type": "dcim.device",
                    "url": "/api/dcim/devices/",
                },
            }
        cables.append(cable)
    return Data(devices=devices, cables=cables)


def _matches(record: dict[str, Any], query: dict[str, list[str]]) -> bool:
    sites = query.get("site") or query.get("location")
    if sites:
        site = record.get("site") or record.get("location") or {}
        if site.get("slug", site.get("name")) not in sites:
            return False
    tags = query.get("tag") or query.get("tags")
    if tags:
        have = {t.get("slug", t.get("name")) for t in record.get("tags", [])}
        if not have & set(tags):
            return False
    return True


class Handler(BaseHTTPRequestHandler):
    """GET /api/dcim/devices/ and /api/dcim/cables/, paged."""

    data: Data

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(self, code: int, body: Any) -> None:
        raw = json.dumps(body).encode() if self.data.raw_body is None else self.data.raw_body
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        if not self.data.drip_s:
            self.wfile.write(raw)
            return
        for byte in raw:
            self.wfile.write(bytes([byte]))
            self.wfile.flush()
            time.sleep(self.data.drip_s)

    def do_GET(self) -> None:
        self.data.requests.append(self.path)
        presented = self.headers.get("Authorization", "")
        if presented != f"Token {TOKEN}":
            echo = f": {presented}" if self.data.echo_token else ""
            self._send(403, {"detail": f"Invalid token{echo}"})
            return
        parts = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(parts.query)
        if parts.path == "/api/dcim/cables/" and self.data.fail_cables:
            self._send(500, {"error": "Internal Server Error"})
            return
        records = {
            "/api/dcim/devices/": self.data.devices,
            "/api/dcim/cables/": self.data.cables,
        }.get(parts.path)
        if records is None:
            self._send(404, {"detail": "Not found."})
            return
        if parts.path == "/api/dcim/devices/":
            records = [r for r in records if _matches(r, query)]
        self._page(parts.path, query, records)

    def _page(self, path: str, query: dict[str, list[str]], records: list[dict[str, Any]]) -> None:
        limit = int(query.get("limit", ["50"])[0])
        limit = self.data.max_page if limit == 0 or limit > self.data.max_page else limit
        offset = int(query.get("offset", ["0"])[0])
        nxt = None
        if self.data.loop:
            port = self.server.server_port  # type: ignore[attr-defined]
            nxt = f"http://{self.data.next_host}:{port!s}{path}?limit={limit}&offset=0"
        elif offset + limit < len(records):
            rest = {**query, "limit": [str(limit)], "offset": [str(offset + limit)]}
            port = self.server.server_port  # type: ignore[attr-defined]
            nxt = f"http://{self.data.next_host}:{port!s}{path}?{urllib.parse.urlencode(rest, doseq=True)}"
        self._send(
            200,
            {
                "count": len(records),
                "next": nxt,
                "previous": None,
                "results": records[offset : offset + limit],
            },
        )


@contextmanager
def serve(data: Data) -> Iterator[str]:
    """Serve `data` on 127.0.0.1 (a free port); yields the base URL."""
    handler = type("BoundHandler", (Handler,), {"data": data})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
