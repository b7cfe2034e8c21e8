"""The run's known_hosts index: the same answers as paramiko's own scan, for plain and hashed
entries, on port 22 and other ports."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest

from fabriclint.collectors.netmiko_ssh import _load_host_keys

paramiko = importlib.import_module("paramiko")


def _public(seed: int) -> str:
    """An ed25519 public key line body (type and base64), distinct per seed."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    private = ed25519.Ed25519PrivateKey.from_private_bytes(bytes([seed]) * 32)
    data = private.public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    )
    return data.decode()


@pytest.fixture
def known_hosts(tmp_path: Path) -> Path:
    """200 plain entries on lab-style ports, one on port 22, two hashed ones, one with two names."""
    lines = [f"[127.0.0.1]:{20000 + i} {_public(i + 1)}" for i in range(200)]
    lines.append(f"switch22.example.net {_public(210)}")
    lines.append(f"{paramiko.HostKeys.hash_host('hashed.example.net')} {_public(211)}")
    lines.append(f"{paramiko.HostKeys.hash_host('[10.0.0.9]:2222')} {_public(212)}")
    lines.append(f"alias-a,alias-b {_public(213)}")
    path = tmp_path / "known_hosts"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


NAMES = [
    "[127.0.0.1]:20000",
    "[127.0.0.1]:20123",
    "[127.0.0.1]:20199",
    "[127.0.0.1]:20200",  # not there
    "127.0.0.1",  # port 22 of a host known only on other ports: not there
    "switch22.example.net",
    "hashed.example.net",
    "[10.0.0.9]:2222",
    "10.0.0.9",
    "alias-a",
    "alias-b",
    "unknown.example.net",
]


def _as_text(found: Any) -> dict[str, str] | None:
    if found is None:
        return None
    return {kind: found[kind].get_base64() for kind in found}


@pytest.mark.parametrize("name", NAMES)
def test_lookup_answers_as_paramiko_does(known_hosts: Path, name: str) -> None:
    reference = paramiko.HostKeys(str(known_hosts))
    indexed = _load_host_keys(known_hosts)
    assert _as_text(indexed.lookup(name)) == _as_text(reference.lookup(name))
    # SSHClient.connect asks with .get(); the RejectPolicy path needs None for unknown hosts
    assert _as_text(indexed.get(name)) == _as_text(reference.get(name))


def test_a_known_host_gets_its_own_key_not_a_neighbours(known_hosts: Path) -> None:
    indexed = _load_host_keys(known_hosts)
    expected = _public(124).split()[1]
    assert indexed.lookup("[127.0.0.1]:20123")["ssh-ed25519"].get_base64() == expected
    assert (
        indexed.lookup("hashed.example.net")["ssh-ed25519"].get_base64() == _public(211).split()[1]
    )


def test_no_known_hosts_means_no_index() -> None:
    assert _load_host_keys(None) is None
