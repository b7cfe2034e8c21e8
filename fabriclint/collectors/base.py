"""The collection seam: a Collector opens a Session to one device; the types they exchange."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from fabriclint.collectors.credentials import Secret
from fabriclint.snapshot import DeviceStatus


@dataclass(frozen=True)
class SshPolicy:
    """How SSH connections are made and trusted (the same for every device of a run)."""

    known_hosts: Path | None
    """known_hosts file host keys are verified against; None = not verified (explicit flag)."""
    ssh_config: Path | None = None
    """OpenSSH config file (HostName, Port, User, ProxyCommand, ProxyJump)."""
    allow_agent: bool = True
    """Offer the ssh-agent's keys."""
    allow_legacy: bool = False
    """Offer every algorithm the SSH library implements, including the ones it disables."""


@dataclass(frozen=True)
class Timeouts:
    """Per-device time limits, in seconds."""

    connect: float = 10.0
    """The whole login (TCP connect, SSH banner, authentication, terminal setup), per attempt."""
    command: float = 30.0
    """Waiting for one command's output to end."""
    device: float = 130.0
    """Everything for one device (attempts, backoff, commands): after it, the session is cut."""


@dataclass(frozen=True)
class Target:
    """One device to collect, with everything needed to reach it."""

    name: str
    platform: str
    host: str
    port: int
    username: str | None
    password: Secret | None = None
    key_file: Path | None = None
    sudo: bool = False
    """Prefix shell commands with `sudo -n` (Linux-based platforms only)."""
    counters: bool = False
    """Collect only the platform's counter commands (`collect --counters`)."""


@dataclass
class DeviceResult:
    """What collecting one device gave: outputs (redacted) or a status and one-line reason."""

    name: str
    platform: str
    status: DeviceStatus = "ok"
    reason: str | None = None
    outputs: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    """Optional commands that failed (not written; parsers treat them as absent)."""
    attempts: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    """Non-fatal remarks (facts unavailable, ...)."""


class CollectError(Exception):
    """A device could not be collected: its status and a one-line, secret-free reason."""

    def __init__(self, status: DeviceStatus, reason: str, transient: bool = False) -> None:
        super().__init__(reason)
        self.status: DeviceStatus = status
        self.reason = reason
        self.transient = transient
        """Worth retrying (connection refused/reset); never true for authentication."""


class Session(Protocol):
    """An open, read-only session: sends one allowlisted command, returns its output."""

    def send(self, command: str, timeout: float) -> str:
        """Output of `command` (prompt and echo stripped); raises CollectError."""
        ...

    def close(self) -> None:
        """Log out and release the connection (never raises)."""
        ...


class Collector(Protocol):
    """Opens read-only sessions to devices. The runner may call `abort` from another thread to cut a hung device."""

    def open(self, target: Target, timeouts: Timeouts) -> Session:
        """Connect and authenticate; raises CollectError."""
        ...

    def abort(self, target: Target) -> None:
        """Close whatever connection to `target` is in progress, so blocked reads fail now."""
        ...
