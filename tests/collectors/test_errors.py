"""From what netmiko/paramiko raise to a status and a one-line reason; legacy SSH algorithms."""

from __future__ import annotations

import importlib
import socket
import struct
from pathlib import Path
from typing import Any

import pytest

from fabriclint.collectors.credentials import Scrubber, Secret
from fabriclint.collectors.errors import Where, classify
from fabriclint.collectors.legacy import legacy_reason, parse_kexinit

paramiko: Any = importlib.import_module("paramiko")  # untyped; imported as the collector does
WHERE = Where("10.0.0.1", 22, "ops", "connecting", 5.0, Path("/kh"))


def _raised(inner: BaseException, outer: BaseException) -> BaseException:
    """`outer` raised while handling `inner` (how netmiko wraps paramiko)."""
    try:
        try:
            raise inner
        except BaseException:
            raise outer  # noqa: B904 - netmiko re-raises without `from`
    except BaseException as exc:
        return exc


def _netmiko(inner: BaseException) -> BaseException:
    from netmiko.exceptions import NetmikoTimeoutException

    return _raised(
        inner, NetmikoTimeoutException("TCP connection to device failed.\n\nCommon causes")
    )


def test_statuses() -> None:
    from netmiko.exceptions import NetmikoAuthenticationException, ReadTimeout

    scrub = Scrubber()
    cases: list[tuple[BaseException, str, bool]] = [
        (_netmiko(ConnectionRefusedError(111, "Connection refused")), "unreachable", True),
        (_netmiko(TimeoutError("timed out")), "unreachable", False),
        (_netmiko(socket.gaierror(-2, "Name or service not known")), "unreachable", False),
        (_netmiko(paramiko.SSHException("Error reading SSH protocol banner")), "timeout", False),
        (NetmikoAuthenticationException("Authentication to device failed."), "auth-failed", False),
        (
            _netmiko(paramiko.SSHException("Server '[h]:22' not found in known_hosts")),
            "auth-failed",
            False,
        ),
        (_netmiko(EOFError()), "unreachable", True),
    ]
    for exc, status, transient in cases:
        err = classify(exc, WHERE, scrub)
        assert (err.status, err.transient) == (status, transient), (exc, err.reason)
        assert "\n" not in err.reason
    err = classify(
        ReadTimeout("Pattern not detected"), Where(**{**WHERE.__dict__, "phase": "show x"}), scrub
    )
    assert err.status == "timeout" and "'show x'" in err.reason


def test_reasons_are_scrubbed() -> None:
    scrub = Scrubber([Secret("hunter2-secret")])
    err = classify(RuntimeError("login hunter2-secret\nfailed"), WHERE, scrub)
    assert "hunter2" not in err.reason and "\n" not in err.reason


def _kexinit(kex: str, keys: str) -> bytes:
    lists = [
        kex,
        keys,
        "aes128-ctr",
        "aes128-ctr",
        "hmac-sha2-256",
        "hmac-sha2-256",
        "",
        "",
        "",
        "",
    ]
    body = b"".join(struct.pack(">I", len(x)) + x.encode() for x in lists)
    return bytes([20]) + b"\0" * 16 + body + b"\0" + b"\0\0\0\0"


def test_kexinit_and_legacy_reason() -> None:
    offered = parse_kexinit(_kexinit("diffie-hellman-group1-sha1,ext-info-s", "ssh-dss"))
    assert offered["kex"] == ["diffie-hellman-group1-sha1"]
    reason = legacy_reason("10.0.0.1", 22, offered, allowed=False)
    assert "diffie-hellman-group1-sha1" in reason and "ssh-dss" in reason
    assert "--allow-legacy-ssh" in reason and "curve25519" in reason


def test_legacy_reason_suggests_the_flag_when_it_helps(monkeypatch: pytest.MonkeyPatch) -> None:

    kex = dict(paramiko.Transport._kex_info)
    kex["diffie-hellman-group1-sha1"] = object
    monkeypatch.setattr(paramiko.Transport, "_kex_info", kex)
    offered = parse_kexinit(_kexinit("diffie-hellman-group1-sha1", "ssh-ed25519"))
    reason = legacy_reason("10.0.0.1", 22, offered, allowed=False)
    assert reason.endswith("pass --allow-legacy-ssh to allow them")
    from fabriclint.collectors.legacy import allow_legacy_algorithms

    monkeypatch.setattr(paramiko.Transport, "_preferred_kex", paramiko.Transport._preferred_kex)
    allow_legacy_algorithms()
    assert "diffie-hellman-group1-sha1" in paramiko.Transport._preferred_kex
