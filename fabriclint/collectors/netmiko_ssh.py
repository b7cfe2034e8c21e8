"""The netmiko collector: one interactive SSH session per device.

netmiko opens the connection (SSH config, proxies, host keys, authentication, its error
types); the shell is then driven by `shell.ShellChannel`, which reads by pattern where
netmiko's session preparation and `send_command` sleep and poll. There is no call here (or
anywhere in fabriclint) to netmiko's `send_config_set`, `config_mode` or `enable`; sessions
stay in the mode the account logs in to. netmiko is imported inside the functions, so
`fabriclint --help` never loads it.
"""

from __future__ import annotations

import contextlib
import functools
import heapq
import importlib
import itertools
import logging
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fabriclint.collectors.base import CollectError, SshPolicy, Target, Timeouts
from fabriclint.collectors.credentials import Scrubber
from fabriclint.collectors.errors import Where, classify
from fabriclint.collectors.shell import ShellChannel
from fabriclint.commands import PLATFORMS


def connect_args(target: Target, policy: SshPolicy, timeouts: Timeouts) -> dict[str, Any]:
    """Keyword arguments for netmiko's ConnectHandler (secrets revealed only here)."""
    verify = policy.known_hosts is not None
    key_file = target.key_file or (default_identity() if target.password is None else None)
    args: dict[str, Any] = {
        "device_type": PLATFORMS[target.platform].device_type,
        "host": target.host,
        "port": target.port,
        "username": target.username or "",
        "password": target.password.reveal() if target.password else None,
        "use_keys": key_file is not None,
        "key_file": str(key_file) if key_file else None,
        "allow_agent": policy.allow_agent,
        # RejectPolicy for unknown hosts; the known_hosts file itself is parsed once per run
        # and handed to each client (NetmikoCollector), not re-read per connection
        "ssh_strict": verify,
        "system_host_keys": False,
        "alt_host_keys": False,
        "ssh_config_file": str(policy.ssh_config) if policy.ssh_config else None,
        "conn_timeout": timeouts.connect,
        "auth_timeout": timeouts.connect,
        # below conn_timeout, so a silent device fails on the banner, not on a later symptom
        "banner_timeout": timeouts.connect * 0.8,
        "blocking_timeout": timeouts.command,
        "timeout": max(1, int(timeouts.command)),
        "auto_connect": False,
    }
    return args


IDENTITIES = ("id_ed25519", "id_ecdsa", "id_rsa")


def default_identity() -> Path | None:
    """The first of ssh's default key files that exists (for a device with no password and no
    key in the inventory; the agent is offered as well)."""
    for name in IDENTITIES:
        path = Path("~/.ssh").expanduser() / name
        if path.is_file():
            return path
    return None


class NetmikoSession:
    """An open session; `send` runs one command through the shell channel."""

    def __init__(
        self,
        conn: Any,
        shell: ShellChannel,
        where: Where,
        scrub: Scrubber,
        on_close: Callable[[], None],
    ) -> None:
        self._conn = conn
        self._shell = shell
        self._where = where
        self._scrub = scrub
        self._on_close = on_close
        self._healthy = True

    def send(self, command: str, timeout: float) -> str:
        """Output of `command`, with a trailing newline; raises CollectError."""
        where = Where(**{**self._where.__dict__, "phase": command, "timeout": timeout})
        try:
            text = self._shell.run(command, timeout)
        except Exception as exc:
            self._healthy = False
            raise classify(exc, where, self._scrub) from None
        return text + "\n" if text and not text.endswith("\n") else text

    def close(self) -> None:
        """Log out (`exit`, not waited for) and close the connection, never raising."""
        self._on_close()
        if self._healthy:
            with contextlib.suppress(Exception):  # the device may already be gone
                self._shell.logout()
        _quiet_disconnect(self._conn)


class NetmikoCollector:
    """Opens netmiko sessions; `abort` closes a device's transport from another thread."""

    def __init__(self, policy: SshPolicy, scrub: Scrubber) -> None:
        _quiet_paramiko()
        self.policy = policy
        self._host_keys = _load_host_keys(policy.known_hosts)
        self._scrub = scrub
        self._live: dict[str, Any] = {}
        self._lock = threading.Lock()

    def open(self, target: Target, timeouts: Timeouts) -> NetmikoSession:
        """Connect, authenticate and prepare the terminal; raises CollectError."""
        from netmiko import ConnectHandler

        where = Where(
            host=target.host,
            port=target.port,
            username=target.username,
            phase="connecting",
            timeout=timeouts.connect,
            known_hosts=self.policy.known_hosts,
            allow_legacy=self.policy.allow_legacy,
        )
        try:
            conn = ConnectHandler(**connect_args(target, self.policy, timeouts))
        except Exception as exc:  # bad arguments (a missing key file): scrubbed, one line
            raise classify(exc, where, self._scrub) from None
        if self._host_keys is not None:
            _use_host_keys(conn, self._host_keys)
        _tune_transport(conn)
        with self._lock:
            self._live[target.name] = conn
        shell = self._login(conn, target, timeouts, where)
        forget = functools.partial(self._forget, target.name)
        return NetmikoSession(conn, shell, where, self._scrub, forget)

    def _login(self, conn: Any, target: Target, timeouts: Timeouts, where: Where) -> ShellChannel:
        """Connect, banner, auth (netmiko), then prompt and terminal setup (ShellChannel), within
        `timeouts.connect` in all: each phase has its own limit, and a device slow at every step
        once took twice the connect timeout. A watchdog cuts the transport when it is spent."""
        cut = threading.Event()

        def expire() -> None:
            cut.set()
            self.abort(target)

        watchdog = ALARMS.start(timeouts.connect, expire)
        error: CollectError | None = None
        shell: ShellChannel | None = None
        try:
            shell = _open_shell(conn, timeouts.connect)
        except Exception as exc:
            error = classify(exc, where, self._scrub)
        finally:
            watchdog.cancel()
        if cut.is_set():  # also when the watchdog fired just as the login ended
            error = CollectError(
                "timeout", f"login not finished within the connect timeout ({timeouts.connect:g} s)"
            )
        if error is not None or shell is None:
            self._forget(target.name)
            _quiet_disconnect(conn)
            raise (error or CollectError("unreachable", "no shell session")) from None
        return shell

    def _forget(self, name: str) -> None:
        with self._lock:
            self._live.pop(name, None)

    def abort(self, target: Target) -> None:
        """Close the device's SSH transport so any blocked read fails at once."""
        with self._lock:
            conn = self._live.pop(target.name, None)
        if conn is None:
            return
        for attr in ("remote_conn", "remote_conn_pre"):
            handle = getattr(conn, attr, None)
            if handle is not None:
                with contextlib.suppress(Exception):  # already closing; nothing more to do
                    handle.close()


def warm_imports() -> None:
    """Import what a session uses (netmiko's connection classes, paramiko), as `open` would
    on the first device."""
    importlib.import_module("netmiko")
    importlib.import_module("netmiko.base_connection")


def _open_shell(conn: Any, timeout: float) -> ShellChannel:
    """netmiko's connection (`establish_connection`: TCP, SSH, auth, an interactive shell on a
    511-column pty), then the prompt and terminal setup by pattern (not `session_preparation`)."""
    conn._modify_connection_params()
    conn.establish_connection()
    shell = ShellChannel(
        conn.remote_conn, _linefeeds(conn), conn.strip_ansi_escape_codes, conn.encoding
    )
    shell.start(conn.device_type, timeout)
    return shell


def _linefeeds(conn: Any) -> Callable[[str], str]:
    """netmiko's `normalize_linefeeds` for `conn`, without its two regex passes over each
    output when every CR in it is part of a CR LF (what a tty sends): then the result is the
    text with each CR LF made LF (`crlf_only`). Any other text, a driver with its own
    normalization or another line end, gets netmiko's own."""
    base = importlib.import_module("netmiko.base_connection").BaseConnection
    normalize: Callable[[str], str] = conn.normalize_linefeeds
    own = type(conn).normalize_linefeeds is not base.normalize_linefeeds
    if own or conn.RESPONSE_RETURN != "\n":
        return normalize
    return functools.partial(crlf_only, fallback=normalize)


def crlf_only(text: str, fallback: Callable[[str], str]) -> str:
    """`fallback(text)` (netmiko's normalization: CR CR CR LF, CR CR LF, CR LF and LF CR to
    LF, then any CR left to LF), computed without it when every CR is followed by a LF: then
    each match of netmiko's pattern (CR LF, or LF CR before a LF) consumes one LF and gives
    one, so its result is the text with every CR dropped."""
    if "\r" not in text:
        return text
    plain = text.replace("\r\n", "\n")
    return plain if "\r" not in plain else fallback(text)


def _tune_transport(conn: Any) -> None:
    """Connect the TCP socket paramiko will use ourselves, with TCP_NODELAY (as OpenSSH does),
    and have paramiko prefer AES-GCM.

    paramiko leaves Nagle's algorithm on: during the handshake and authentication it sends
    small messages back to back, and the second waits for the peer's delayed ACK (up to 40 ms
    on Linux), which made a login on 127.0.0.1 take 50-95 ms instead of 5 ms. A socket from
    the SSH config (ProxyCommand, ProxyJump) is left alone.
    """
    params = conn._connect_params_dict

    def with_socket() -> dict[str, Any]:
        args: dict[str, Any] = params()
        args["transport_factory"] = _aead_first
        if args.get("sock") is None:
            address = (args["hostname"], args["port"])
            sock = socket.create_connection(address, timeout=args["timeout"])
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            args["sock"] = ReadAhead(sock)
        return args

    conn._connect_params_dict = with_socket


READ_AHEAD = 1 << 16
"""Bytes `ReadAhead` asks the kernel for at once (two full SSH packets of the 32 kB paramiko
accepts, with their headers)."""


class ReadAhead(socket.socket):
    """The TCP socket paramiko reads, reading ahead: paramiko reads each packet in two calls
    (its first block, then the rest, the exact sizes), each a `recv` system call that lets
    the interpreter lock go and waits to take it back behind every other session's thread.
    Here a `recv` takes what the kernel holds (up to READ_AHEAD) and later ones are served
    from it: one system call per packet or fewer, the same bytes in the same order.
    Everything else (timeouts, send, close) is the socket's own."""

    def __init__(self, sock: socket.socket) -> None:
        timeout = sock.gettimeout()
        super().__init__(sock.family, sock.type, sock.proto, fileno=sock.detach())
        self.settimeout(timeout)
        self._ahead = b""

    def recv(self, size: int, flags: int = 0) -> bytes:
        """Up to `size` bytes: the ones read ahead first, else from the kernel (blocking as the
        socket's timeout says; b"" at end of stream)."""
        if flags and not self._ahead:  # not how paramiko reads: the kernel's own call
            return super().recv(size, flags)
        if flags & socket.MSG_PEEK:
            return self._ahead[:size]
        if not self._ahead:
            data = super().recv(max(size, READ_AHEAD))
            if len(data) <= size:
                return data
            self._ahead = data
        out, self._ahead = self._ahead[:size], self._ahead[size:]
        return out


def _aead_first(sock: Any, **kwargs: Any) -> Any:
    """A paramiko Transport that offers AES-GCM before its other ciphers (same set, same
    checks: only the order changes). With a CTR cipher and an HMAC, paramiko compares every
    packet's MAC in a Python loop: 40 % of its transport thread's CPU in the lab benchmark.
    A device without AES-GCM (OpenSSH has had it since 6.2) gets the usual CTR cipher.
    Its handshake time limit runs on `ALARMS` (`_handshake_on`)."""
    paramiko = importlib.import_module("paramiko")
    transport = paramiko.Transport(sock, **kwargs)
    options = transport.get_security_options()
    aead = tuple(name for name in options.ciphers if name.endswith("-gcm@openssh.com"))
    options.ciphers = aead + tuple(name for name in options.ciphers if name not in aead)
    _handshake_on(transport.packetizer)
    return transport


def _handshake_on(packetizer: Any) -> None:
    """paramiko's handshake time limit (`Transport.handshake_timeout`) on the shared alarm
    thread instead of a `threading.Timer` of its own: the same limit and the same effect (the
    flag `read_timer` sets, which its reads check), without a thread started per connection,
    and `complete_handshake`, which paramiko calls after every packet, cancels it once."""
    mangled = "_Packetizer__timer"  # the timer start_handshake sets and complete_handshake cancels
    if not hasattr(packetizer, mangled):  # another paramiko: keep its own timer
        return

    def start_handshake(timeout: float) -> None:
        if not getattr(packetizer, mangled):
            setattr(packetizer, mangled, ALARMS.start(float(timeout), packetizer.read_timer))

    packetizer.start_handshake = start_handshake


class Alarm:
    """One armed alarm of `Alarms`; `cancel` may be called any number of times."""

    def __init__(self, alarms: Alarms, entry: list[Any]) -> None:
        self._alarms = alarms
        self._entry = entry

    def cancel(self) -> None:
        """The action will not run (unless it already has)."""
        if self._entry[2] is not None:
            self._alarms.cancel(self._entry)


class Alarms:
    """Actions to run after a delay, all on one thread (started when one is armed, ended when
    none is left): a login's time limit and paramiko's handshake limit were each a
    `threading.Timer`, two threads started per device on top of its session's own."""

    def __init__(self) -> None:
        self._wake = threading.Condition()
        self._heap: list[list[Any]] = []  # [when, order, action or None when cancelled]
        self._order = itertools.count()
        self._thread: threading.Thread | None = None

    def start(self, seconds: float, action: Callable[[], None]) -> Alarm:
        """Run `action` (which must not raise) in `seconds`, unless cancelled first."""
        entry = [time.monotonic() + seconds, next(self._order), action]
        with self._wake:
            heapq.heappush(self._heap, entry)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="alarms", daemon=True)
                self._thread.start()
            self._wake.notify()
        return Alarm(self, entry)

    def cancel(self, entry: list[Any]) -> None:
        """Drop `entry` (an Alarm's): its action will not run."""
        with self._wake:
            entry[2] = None
            self._wake.notify()

    def _run(self) -> None:
        while (action := self._next()) is not None:
            # one failing action must not end the thread the other limits depend on
            with contextlib.suppress(Exception):
                action()

    def _next(self) -> Callable[[], None] | None:
        """The next action due (waiting for it), or None when nothing is armed any more."""
        with self._wake:
            while True:
                while self._heap and self._heap[0][2] is None:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._thread = None
                    return None
                when, _, action = self._heap[0]
                left = when - time.monotonic()
                if left <= 0:
                    heapq.heappop(self._heap)
                    return action  # type: ignore[no-any-return]
                self._wake.wait(left)


ALARMS = Alarms()
"""This process's alarms (every collector's logins and handshakes)."""


class KnownHosts:
    """known_hosts parsed once per run and indexed by host name.

    paramiko would parse the whole file for every connection (65 ms at 500 entries), and its
    `HostKeys.lookup` compares the name with every entry, three times per login: quadratic
    over a fabric (~1 s of CPU for 500 lab devices). `lookup` here compares it only with the
    entries that can match: those naming it in clear, and every hashed (`|1|`) one, which only
    paramiko's own HMAC check can match. The comparison itself is paramiko's. The name asked
    is the one paramiko connects to (after the SSH config's HostName), `[host]:port` or `host`.
    """

    def __init__(self, path: Path) -> None:
        paramiko = importlib.import_module("paramiko")
        self._paramiko = paramiko
        loaded = paramiko.HostKeys(str(path))
        self._named: dict[str, list[Any]] = {}
        self._hashed: list[Any] = []
        for entry in loaded._entries:
            for name in entry.hostnames:
                if name.startswith("|1|"):
                    self._hashed.append(entry)
                else:
                    self._named.setdefault(name, []).append(entry)
        self._hashed = list(dict.fromkeys(self._hashed))  # an entry with several hashed names

    def lookup(self, hostname: str) -> Any:
        """paramiko's `HostKeys.lookup` over the entries that may match `hostname`."""
        view = self._paramiko.HostKeys()
        view._entries = list(dict.fromkeys(self._named.get(hostname, []) + self._hashed))
        return view.lookup(hostname)

    def host_keys(self) -> Any:
        """A read-only paramiko HostKeys whose lookups go through the index."""
        index = self

        class Indexed(self._paramiko.HostKeys):  # type: ignore[name-defined,misc]
            def lookup(self, hostname: str) -> Any:
                return index.lookup(hostname)

        return Indexed()


def _load_host_keys(path: Path | None) -> Any:
    """The run's known hosts (a paramiko HostKeys), or None when host keys are not checked."""
    return None if path is None else KnownHosts(path).host_keys()


def _use_host_keys(conn: Any, host_keys: Any) -> None:
    """Give the SSHClient netmiko builds (its `_get_ssh_client_instance` hook) the run's known
    hosts; they are only read: unknown hosts are rejected (RejectPolicy), never added."""
    paramiko = importlib.import_module("paramiko")

    def client() -> Any:
        made = paramiko.SSHClient()
        made._host_keys = host_keys
        return made

    conn._get_ssh_client_instance = client


def _quiet_paramiko() -> None:
    """paramiko logs transport-thread errors with tracebacks (on stderr when logging is not
    configured); fabriclint reports them itself, as one line per device."""
    logger = logging.getLogger("paramiko")
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())
    logger.propagate = False


def _quiet_disconnect(conn: Any) -> None:
    """Close the connection, never raising (closing must not hide the real result). netmiko's
    `disconnect` would first check for config mode and type `exit` again, waiting on a device
    that may be stalled; the logout line, if any, was already typed by the session."""
    with contextlib.suppress(Exception):
        conn.paramiko_cleanup()
    with contextlib.suppress(Exception):
        conn.disconnect()  # only closes now; also drops the secrets filter netmiko put on its logger
