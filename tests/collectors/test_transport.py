"""The TCP socket and cipher order fabriclint gives paramiko (through netmiko's connect)."""

from __future__ import annotations

import importlib
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from fabriclint.collectors.netmiko_ssh import _aead_first, _tune_transport


class _Conn:
    """The one netmiko hook `_tune_transport` wraps: the paramiko connect arguments."""

    def __init__(self, args: dict[str, Any]) -> None:
        self._args = args

    def _connect_params_dict(self) -> dict[str, Any]:
        return dict(self._args)


@pytest.fixture
def listener() -> Iterator[int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    yield int(server.getsockname()[1])
    server.close()


def test_the_socket_is_connected_with_nodelay_and_gcm_comes_first(listener: int) -> None:
    conn = _Conn({"hostname": "127.0.0.1", "port": listener, "timeout": 5.0, "sock": None})
    _tune_transport(conn)
    args = conn._connect_params_dict()
    sock = args["sock"]
    try:
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
        assert sock.getpeername() == ("127.0.0.1", listener)
        transport = args["transport_factory"](sock)
        ciphers = transport.get_security_options().ciphers
        assert ciphers[0].endswith("-gcm@openssh.com") and "aes128-ctr" in ciphers
    finally:
        sock.close()


def test_a_proxy_socket_from_the_ssh_config_is_kept() -> None:
    proxy = object()
    conn = _Conn({"hostname": "leaf01", "port": 22, "timeout": 5.0, "sock": proxy})
    _tune_transport(conn)
    assert conn._connect_params_dict()["sock"] is proxy


def test_a_refused_connection_is_the_usual_error() -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))  # bound, not listening: refused
    port = int(closed.getsockname()[1])
    conn = _Conn({"hostname": "127.0.0.1", "port": port, "timeout": 5.0, "sock": None})
    _tune_transport(conn)
    try:
        with pytest.raises(ConnectionRefusedError):
            conn._connect_params_dict()
    finally:
        closed.close()


def test_the_cipher_set_is_unchanged() -> None:
    paramiko: Any = importlib.import_module("paramiko")  # untyped, as in the collector
    left, right = socket.socketpair()
    try:
        transport = _aead_first(left)
        assert set(transport.get_security_options().ciphers) == set(
            paramiko.Transport(right).get_security_options().ciphers
        )
    finally:
        left.close()
        right.close()
