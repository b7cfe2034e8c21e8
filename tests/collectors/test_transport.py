"""The TCP socket and cipher order fabriclint gives paramiko (through netmiko's connect)."""

from __future__ import annotations

import importlib
import itertools
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from fabriclint.collectors.netmiko_ssh import (
    READ_AHEAD,
    ReadAhead,
    _aead_first,
    _linefeeds,
    _tune_transport,
    crlf_only,
)


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


@pytest.mark.parametrize(
    ("chunks", "sizes"),
    [
        ([b"abcdefgh"], [4]),  # two reads served by one recv
        ([b"ab", b"cdefgh"], [4, 1]),  # a read gets what was there, not more
        ([b"x" * 70000], [4, 69996, 1]),  # more than READ_AHEAD: the rest from the kernel
        ([b"abc", b"defghijk"], [10]),  # larger asks than what came: what came
    ],
)
def test_read_ahead_gives_the_same_bytes_in_the_same_order(
    chunks: list[bytes], sizes: list[int]
) -> None:
    left, right = socket.socketpair()
    left.settimeout(2.0)
    sock = ReadAhead(left)
    sent = b"".join(chunks)
    got = b""
    try:
        assert sock.gettimeout() == 2.0  # the timeout set before the wrapping survives it
        for chunk in chunks:
            right.sendall(chunk)
        for size in itertools.cycle(sizes):
            if len(got) == len(sent):
                break
            data = sock.recv(size)
            assert 0 < len(data) <= size
            got += data
        assert got == sent
        right.close()
        assert sock.recv(4) == b""  # end of stream once everything read ahead is served
    finally:
        sock.close()
        right.close()


def test_read_ahead_serves_later_reads_without_a_system_call() -> None:
    left, right = socket.socketpair()
    sock = ReadAhead(left)
    calls: list[int] = []
    kernel = socket.socket.recv

    def counted(self: socket.socket, size: int, flags: int = 0) -> bytes:
        calls.append(size)
        return kernel(self, size, flags)

    try:
        right.sendall(b"1234" + b"p" * 100)  # a packet's length, then its body
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(socket.socket, "recv", counted)
            assert sock.recv(4) == b"1234"
            assert sock.recv(100) == b"p" * 100
        assert calls == [READ_AHEAD]
    finally:
        sock.close()
        right.close()


def test_read_ahead_peeks_at_what_it_read_ahead() -> None:
    left, right = socket.socketpair()
    sock = ReadAhead(left)
    try:
        right.sendall(b"abcdef")
        assert sock.recv(2) == b"ab"  # "cdef" read ahead
        assert sock.recv(3, socket.MSG_PEEK) == b"cde"
        assert sock.recv(10) == b"cdef"
        right.sendall(b"gh")
        assert sock.recv(1, socket.MSG_PEEK) == b"g"  # nothing ahead: the kernel's peek
        assert sock.recv(10) == b"gh"
    finally:
        sock.close()
        right.close()


def _netmiko_normalize(text: str) -> str:
    """netmiko's own normalization, as `crlf_only` falls back to."""
    conn = importlib.import_module("netmiko.base_connection").BaseConnection
    fake = type("Fake", (), {"RESPONSE_RETURN": "\n"})()
    return str(conn.normalize_linefeeds(fake, text))


def test_crlf_only_is_netmikos_normalization_for_every_short_text() -> None:
    fallbacks: list[str] = []

    def fallback(text: str) -> str:
        fallbacks.append(text)
        return _netmiko_normalize(text)

    # every text of up to 7 characters over a letter, CR and LF: each case of the shortcut
    for size in range(8):
        for letters in itertools.product("a\r\n", repeat=size):
            text = "".join(letters)
            assert crlf_only(text, fallback) == _netmiko_normalize(text), repr(text)
    assert "\r\n\r\n" not in fallbacks and "a\n\r\n" not in fallbacks  # the shortcut took these
    assert "\r" in fallbacks and "\r\r\n" in fallbacks  # a CR not before a LF: netmiko's


def test_a_driver_with_its_own_normalization_keeps_it() -> None:
    base = importlib.import_module("netmiko.base_connection").BaseConnection

    class Own(base):  # type: ignore[misc,valid-type]
        def __init__(self) -> None:
            self.RESPONSE_RETURN = "\n"

        def normalize_linefeeds(self, a_string: str) -> str:
            return a_string.upper()

    class Plain(base):  # type: ignore[misc,valid-type]
        def __init__(self, response_return: str) -> None:
            self.RESPONSE_RETURN = response_return

    assert _linefeeds(Own())("a\r\n") == "A\r\n"
    assert _linefeeds(Plain("\r\n"))("a\r\n") == "a\r\n"  # netmiko's, with its line end
    assert _linefeeds(Plain("\n"))("a\r\n\r\n") == "a\n\n"
