"""The lab: every LabDevice served over SSH on 127.0.0.1 (asyncssh, one event loop in a thread).

    with Lab(load_snapshot_devices(path)) as lab:   # listening when the block starts
        lab.ports["leaf01"], lab.known_hosts, lab.overlay_yaml(), lab.stats["leaf01"].received

Nothing ever binds another address than 127.0.0.1. Each device records what it received
(every line, including netmiko's terminal setup), its connections and its login attempts.
"""

from __future__ import annotations

import asyncio
import secrets
import shutil
import socket
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncssh

from fabriclint.lab.device import LabDevice

HOST = "127.0.0.1"
USER_ENV = "FABRICLINT_LAB_USER"
PASSWORD_ENV = "FABRICLINT_LAB_PASSWORD"
LEGACY_KEX = ("diffie-hellman-group1-sha1", "diffie-hellman-group14-sha1")
START_TIMEOUT = 60.0
MSG_IGNORE = 2
"""SSH_MSG_IGNORE (RFC 4253 section 11.2)."""


@dataclass
class DeviceStats:
    """What one lab device saw."""

    connections: int = 0
    logins: int = 0
    """Password/key authentication attempts."""
    received: list[str] = field(default_factory=list)
    """Every line received in a shell session, in order."""


class _Server(asyncssh.SSHServer):
    def __init__(self, lab: Lab, device: LabDevice) -> None:
        self._lab, self._device = lab, device

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._lab.stats[self._device.name].connections += 1
        self._lab.track(conn)

    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return True

    def public_key_auth_supported(self) -> bool:
        return bool(self._lab.client_keys)

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        self._lab.stats[self._device.name].logins += 1
        if self._device.fault.wrong_password:  # "wrong credentials": keys are refused too
            return False
        wanted = {k.export_public_key("openssh").split()[1] for k in self._lab.client_keys}
        offered = key.export_public_key("openssh").split()[1]
        return username == self._lab.username and offered in wanted

    def validate_password(self, username: str, password: str) -> bool:
        self._lab.stats[self._device.name].logins += 1
        if self._device.fault.wrong_password:
            return False
        return username == self._lab.username and password == self._lab.password


class Lab:
    """Serves devices over SSH until stopped; use as a context manager."""

    def __init__(
        self,
        devices: Iterable[LabDevice],
        username: str = "fabriclint",
        password: str | None = None,
        workdir: Path | None = None,
        client_keys: list[asyncssh.SSHKey] | None = None,
    ) -> None:
        self.devices = {d.name: d for d in devices}
        self.client_keys = list(client_keys or [])
        """Public keys accepted for login (besides the password)."""
        self.username = username
        self.password = password or secrets.token_urlsafe(12)
        self._own_dir = workdir is None
        self.workdir = workdir or Path(tempfile.mkdtemp(prefix="fabriclint-lab-"))
        self.known_hosts = self.workdir / "known_hosts"
        self.ports: dict[str, int] = {}
        self.stats = {name: DeviceStats() for name in self.devices}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="lab", daemon=True)
        self._closers: list[Any] = []
        self._conns: list[asyncssh.SSHServerConnection] = []
        self._sockets: list[socket.socket] = []

    def __enter__(self) -> Lab:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def track(self, conn: asyncssh.SSHServerConnection) -> None:
        """Remember a connection so stop() can close it."""
        self._conns.append(conn)

    def start(self) -> None:
        """Listen for every device (returns when all ports are open)."""
        _no_ignore_packets()
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._start_all(), self._loop)
        try:
            future.result(timeout=START_TIMEOUT)
            self._write_known_hosts()
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Close every listener and connection; remove the work folder if the lab made it."""
        if self._thread.is_alive():
            future = asyncio.run_coroutine_threadsafe(self._stop_all(), self._loop)
            try:
                future.result(timeout=10)
            finally:
                self._loop.call_soon_threadsafe(self._loop.stop)
                self._thread.join(timeout=10)
        if not self._thread.is_alive() and not self._loop.is_closed():
            self._loop.close()
        for sock in self._sockets:
            sock.close()
        if self._own_dir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    async def _start_all(self) -> None:
        self._host_key = asyncssh.generate_private_key("ssh-ed25519")
        for device in self.devices.values():
            self.ports[device.name] = await self._listen(device)

    async def _listen(self, device: LabDevice) -> int:
        if device.fault.refuse:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind((HOST, 0))  # bound, never listening: connections are refused
            self._sockets.append(sock)
            return int(sock.getsockname()[1])
        if device.fault.hang:
            server = await asyncio.start_server(_silent, HOST, 0)
            self._closers.append(server)
            return int(server.sockets[0].getsockname()[1])
        acceptor = await asyncssh.listen(HOST, 0, **self._ssh_options(device))
        self._closers.append(acceptor)
        return int(acceptor.get_port())

    def _ssh_options(self, device: LabDevice) -> dict[str, Any]:
        from fabriclint.lab.session import serve_session

        options: dict[str, Any] = {
            "server_factory": lambda: _Server(self, device),
            "process_factory": lambda process: serve_session(self, device, process),
            "server_host_keys": [self._host_key],
            "line_editor": False,  # the session echoes (lab/session.py)
            "backlog": 512,
        }
        if device.fault.legacy_ssh:
            options["kex_algs"] = list(LEGACY_KEX)
        return options

    async def _stop_all(self) -> None:
        for conn in self._conns:
            conn.close()
        for closer in self._closers:
            closer.close()
        for task in asyncio.all_tasks():
            if task is not asyncio.current_task():
                task.cancel()
        await asyncio.sleep(0)

    def _write_known_hosts(self) -> None:
        public = self._host_key.export_public_key("openssh").decode().split()[:2]
        lines = [f"[{HOST}]:{self.ports[name]} {' '.join(public)}" for name in self.devices]
        self.known_hosts.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def overlay(self) -> dict[str, Any]:
        """An inventory overlay pointing every device at its lab port (collect --overlay)."""
        creds = {"username_env": USER_ENV, "password_env": PASSWORD_ENV}
        devices = {
            name: {"host": HOST, "port": port, "credentials": dict(creds)}
            for name, port in self.ports.items()
        }
        return {"known_hosts": str(self.known_hosts), "devices": devices}

    def overlay_yaml(self) -> str:
        """The overlay as YAML text, with a comment saying how to use it."""
        import yaml

        head = (
            f"# fabriclint lab: {len(self.ports)} devices on {HOST}\n"
            f"# export {USER_ENV}={self.username} {PASSWORD_ENV}=<the lab password>\n"
            "# fabriclint collect FABRIC --overlay THIS_FILE\n"
        )
        return head + str(yaml.safe_dump(self.overlay(), sort_keys=False))

    def env(self) -> dict[str, str]:
        """The environment variables the overlay's credentials name."""
        return {USER_ENV: self.username, PASSWORD_ENV: self.password}


def _no_ignore_packets() -> None:
    """Stop asyncssh from sending an empty SSH_MSG_IGNORE before every packet once encrypted.

    asyncssh inserts one ahead of each packet after the key exchange (a countermeasure for CBC
    ciphers, RFC 4251 section 9.3.1; the lab negotiates AES-GCM or ChaCha20-Poly1305, where it
    protects nothing). Real devices' SSH servers (OpenSSH, the switches' own) do not: it doubled
    the packets a client of the lab decrypts and the lab encrypts, about half of every
    session's packets. That insertion is asyncssh's only use of MSG_IGNORE; the lab sends no
    other, so dropping every one of them drops exactly those.
    """
    connection = asyncssh.connection.SSHConnection
    send = connection.send_packet
    if getattr(send, "without_ignore", False):
        return

    def send_packet(self: Any, pkttype: int, *args: bytes, handler: Any = None) -> None:
        if pkttype != MSG_IGNORE:
            send(self, pkttype, *args, handler=handler)

    send_packet.without_ignore = True  # type: ignore[attr-defined]
    connection.send_packet = send_packet  # type: ignore[method-assign]


async def _silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """A hung device: accepts TCP, never sends a byte; returns when the client goes away."""
    try:
        await reader.read()
    finally:
        writer.close()
