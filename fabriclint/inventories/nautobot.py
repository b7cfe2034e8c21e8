"""Nautobot 2.x as an inventory source, over its REST API (the NetBox client, Nautobot's shapes).

Nautobot lists devices and cables like NetBox (pages with `limit` and `next`, `Token` auth) but
nests related objects only as `{id, object_type, url}` unless asked for `depth=1`, calls the
site a `location`, names platforms by `network_driver` (`arista_eos`) and gives a cable one
termination per side (`termination_a_type`, `termination_a`).
"""

from __future__ import annotations

from typing import Any

from fabriclint.inventories.common import Filters, Imported, SourceDevice, SourceLink, listed
from fabriclint.inventories.netbox import Api, _address, _params, _record, _slug


def nautobot_device(raw: dict[str, Any]) -> SourceDevice:
    """A Nautobot 2.x device record (read with depth=1) as a SourceDevice."""
    platform = raw.get("platform")
    word = None
    if isinstance(platform, dict):
        word = platform.get("network_driver") or platform.get("name")
    listing = listed(raw.get("tags"), _record(raw, "tags"), 3)
    tags = [t for t in (_slug(t, "name") for t in listing) if t]
    return SourceDevice(
        name=str(raw.get("name") or f"device-{raw.get('id')}"),
        platform=str(word) if word else None,
        role=_slug(raw.get("role"), "name"),
        host=_address(raw),
        site=_slug(raw.get("location"), "name"),
        tags=tags,
    )


def _end(cable: dict[str, Any], side: str, names: dict[Any, str]) -> str | None:
    term = cable.get(f"termination_{side}")
    if cable.get(f"termination_{side}_type") != "dcim.interface" or not isinstance(term, dict):
        return None
    device = term.get("device")
    dev_id = device.get("id") if isinstance(device, dict) else None
    if dev_id not in names or not term.get("name"):
        return None
    return f"{names[dev_id]}:{term['name']}"


def read_nautobot(api: Api, filters: Filters) -> Imported:
    """Devices (site and tag filtered on the server) and the interface cables between them."""
    params = {**_params(filters, site_key="location", tag_key="tags"), "depth": ["1"]}
    raws = api.pages("dcim/devices", params)
    devices = [nautobot_device(r) for r in raws]
    names = {r.get("id"): d.name for r, d in zip(raws, devices, strict=True)}
    links: list[SourceLink] = []
    skipped: list[str] = []
    for cable in api.pages("dcim/cables", {"depth": ["1"]}):
        a, b = _end(cable, "a", names), _end(cable, "b", names)
        if a and b:
            links.append(SourceLink(a=a, b=b, where=f"cable {cable.get('id')}"))
        elif a or b:
            skipped.append(f"cable {cable.get('id')}: one end is not an imported interface")
    return Imported(devices=devices, links=links, skipped=skipped)
