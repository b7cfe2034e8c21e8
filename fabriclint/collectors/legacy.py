"""Devices that offer only legacy SSH algorithms: name them, and say what can allow them.

When paramiko finds no algorithm in common it only says "Incompatible ssh peer". To give an
error that names the algorithms, `offered_algorithms` reads the device's KEXINIT (RFC 4253
section 7.1: sent in clear right after the version line); nothing is sent but our version line.
"""

from __future__ import annotations

import importlib
import socket
import struct
from typing import Any

MSG_KEXINIT = 20
_MARKERS = ("ext-info-", "kex-strict-")
"""Names in the kex list that are protocol extension markers, not algorithms."""
_LISTS = ("kex", "host key", "cipher", "cipher s2c", "mac", "mac s2c")
_KEYS = {"kex": "_kex_info", "host key": "_key_info", "cipher": "_cipher_info", "mac": "_mac_info"}
_PREFERRED = {
    "kex": "_preferred_kex",
    "host key": "_preferred_keys",
    "cipher": "_preferred_ciphers",
    "mac": "_preferred_macs",
}
MODERN = "kex curve25519-sha256 or ecdh-sha2-nistp256, host key ssh-ed25519 or rsa-sha2-256"


def _read_exact(sock: socket.socket, count: int) -> bytes:
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise EOFError("connection closed")
        data += chunk
    return data


def _skip_version(sock: socket.socket) -> None:
    line = b""
    while not line.startswith(b"SSH-"):
        line = b""
        while not line.endswith(b"\n"):
            line += _read_exact(sock, 1)
            if len(line) > 1024:
                raise ValueError("no SSH version line")


def parse_kexinit(payload: bytes) -> dict[str, list[str]]:
    """The algorithm name-lists of a KEXINIT payload, by category."""
    if not payload or payload[0] != MSG_KEXINIT:
        raise ValueError("not a KEXINIT message")
    pos, lists = 17, {}
    for name in _LISTS:
        (length,) = struct.unpack(">I", payload[pos : pos + 4])
        names = payload[pos + 4 : pos + 4 + length].decode("ascii", "replace").split(",")
        lists[name] = [n for n in names if n and not n.startswith(_MARKERS)]
        pos += 4 + length
    return lists


def offered_algorithms(host: str, port: int, timeout: float) -> dict[str, list[str]]:
    """What the SSH server at host:port offers (raises OSError/ValueError when it cannot tell)."""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(b"SSH-2.0-fabriclint_probe\r\n")
        _skip_version(sock)
        (length,) = struct.unpack(">I", _read_exact(sock, 4))
        if length > 256 * 1024:
            raise ValueError("implausible packet length")
        packet = _read_exact(sock, length)
        padding = packet[0]
        return parse_kexinit(packet[1 : length - padding])


def _paramiko() -> Any:
    """paramiko, imported on first use (it ships no type information)."""
    return importlib.import_module("paramiko")


def _paramiko_tables() -> tuple[str, dict[str, list[str]], dict[str, list[str]]]:
    """(version, implemented, enabled by default) algorithm names per category."""
    paramiko = _paramiko()
    transport = paramiko.Transport
    implemented = {c: list(getattr(transport, a)) for c, a in _KEYS.items()}
    enabled = {c: list(getattr(transport, a)) for c, a in _PREFERRED.items()}
    return str(paramiko.__version__), implemented, enabled


def legacy_reason(host: str, port: int, offered: dict[str, list[str]], allowed: bool) -> str:
    """One line: the algorithms the device insists on and the option (if any) that helps."""
    version, implemented, enabled = _paramiko_tables()
    blocked = {
        c: offered.get(c, []) for c in _KEYS if not set(offered.get(c, [])) & set(enabled[c])
    }
    if not blocked:
        return f"{host}:{port}: SSH negotiation failed (no algorithm in common)"
    named = "; ".join(f"{c} {', '.join(a)}" for c, a in blocked.items())
    usable = all(set(a) & set(implemented[c]) for c, a in blocked.items())
    head = f"{host}:{port} offers only legacy SSH algorithms ({named})"
    if usable and not allowed:
        return f"{head}; pass --allow-legacy-ssh to allow them"
    return (
        f"{head}, which paramiko {version} no longer implements (--allow-legacy-ssh cannot "
        f"help); enable on the device {MODERN}"
    )


def allow_legacy_algorithms() -> None:
    """Let paramiko offer every algorithm it implements, including those it disables by default.

    Process-wide, and only ever called for an explicit --allow-legacy-ssh.
    """
    transport = _paramiko().Transport
    for category, attr in _PREFERRED.items():
        preferred = tuple(getattr(transport, attr))
        extra = tuple(a for a in getattr(transport, _KEYS[category]) if a not in preferred)
        setattr(transport, attr, preferred + extra)
