"""`--limit`: which inventory devices to collect.

Terms are separated by commas (or given as several --limit options): a name glob (`leaf*`),
`role:ROLE`, `platform:KEY` or `tag:TAG` (globs allowed in the value too). A device is
selected when any term matches it; a term starting with `!` removes the devices it matches.
"""

from __future__ import annotations

import fnmatch

from fabriclint.models.inventory import Device

FIELDS = ("role", "platform", "tag")


class LimitError(ValueError):
    """A --limit expression that cannot be used."""


def _matches(term: str, name: str, device: Device) -> bool:
    field, sep, value = term.partition(":")
    if not sep:
        return fnmatch.fnmatchcase(name, term)
    if field == "role":
        return fnmatch.fnmatchcase(device.role, value)
    if field == "platform":
        return fnmatch.fnmatchcase(device.platform, value)
    if field == "tag":
        return any(fnmatch.fnmatchcase(tag, value) for tag in device.tags)
    raise LimitError(f"--limit term {term!r}: unknown field '{field}' (use {', '.join(FIELDS)})")


def select(devices: dict[str, Device], limits: list[str] | None) -> list[str]:
    """Device names selected by `limits` (all when none), in inventory order."""
    terms = [t.strip() for value in limits or [] for t in value.split(",") if t.strip()]
    if not terms:
        return list(devices)
    include = [t for t in terms if not t.startswith("!")]
    exclude = [t[1:] for t in terms if t.startswith("!")]
    chosen = [
        name
        for name, device in devices.items()
        if (not include or any(_matches(t, name, device) for t in include))
        and not any(_matches(t, name, device) for t in exclude)
    ]
    if not chosen:
        raise LimitError(f"--limit {','.join(terms)} selects no device of the inventory")
    return chosen
