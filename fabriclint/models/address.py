"""Device addresses: a `host` (inventory, inventory overlay) is an IP address or a DNS name
alone; the SSH port is the separate `port` field.

A port written into the host (`192.0.2.11:2222`, `[2001:db8::11]:22`) would reach SSH as a
host name that cannot resolve, so the device would be reported unreachable (exit 3) for what
is a typo in the fabric's own files. It is refused where it is written instead (a pydantic
validator: the loaders locate it, file:line, exit 2) before anything connects, saying whether
the port is out of range or only belongs in `port:`. A bare IPv6 address is full of colons
and is accepted as it is.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated

from pydantic import AfterValidator

from fabriclint.models.names import refusing

MAX_PORT = 65535
HOST_SHAPE = re.compile(r"(?!-)[A-Za-z0-9._:%\[\]-]{1,255}")
"""What a host name or an address can be made of: no blank, quote, `$`, `;`, `/` or leading `-`
(an SSH config's `ProxyCommand ... %h` puts the host into a command line)."""


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _port_problem(host: str, address: str, port: str) -> str:
    """What is wrong with `address:port` written as one host."""
    if not address:  # `:22`, `[]:22`: the port alone
        return (
            f"host {host!r} has no address before the port: write the device's address or "
            "name as host (and a port as `port: N`)"
        )
    try:
        number = int(port)
    except ValueError:
        return f"host {host!r}: port {port!r} is not a number (write the address alone as host)"
    if not 1 <= number <= MAX_PORT:
        return f"host {host!r}: port {number} is out of range 1-{MAX_PORT}"
    return (
        f"host {host!r} carries a port: write the host as {address!r}"
        f" and the port as `port: {number}`"
    )


def host_problem(host: str) -> str | None:
    """Why `host` is not an address or a name alone (None when it is)."""
    if any(c.isspace() or not c.isprintable() for c in host):  # no name or address holds one
        return f"host {host!r} holds a blank or a control character"
    if host and not HOST_SHAPE.fullmatch(host):
        return (
            f"host {host!r} is no host name or address (letters, digits, '.', '-', ':', '%'; "
            "no blank, quote, '$', ';', '/' or leading '-')"
        )
    if ":" not in host or _is_ip(host.split("%", 1)[0]):
        return None  # a name, an IPv4 address, or a bare IPv6 one (with its zone, fe80::1%eth0)
    if host.startswith("["):
        address, _, rest = host[1:].partition("]")
        if not rest.startswith(":"):
            return f"host {host!r}: write an IPv6 address without brackets ({address!r})"
        return _port_problem(host, address, rest[1:])
    address, _, port = host.rpartition(":")
    return _port_problem(host, address, port)


check_host = refusing(host_problem)
"""`host` itself when valid; ValueError with the reason otherwise."""

Host = Annotated[str, AfterValidator(check_host)]
"""A management address or DNS name, without a port."""
