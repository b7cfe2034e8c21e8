"""Turn what netmiko/paramiko raise into a device status and a one-line, secret-free reason.

netmiko wraps most failures in NetmikoTimeoutException with a multi-line text; the original
paramiko/socket exception is its `__context__`, so the whole chain is inspected.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fabriclint.collectors.base import CollectError
from fabriclint.collectors.credentials import Scrubber
from fabriclint.collectors.legacy import legacy_reason, offered_algorithms
from fabriclint.snapshot import DeviceStatus


@dataclass(frozen=True)
class Where:
    """What was being done when an exception happened."""

    host: str
    port: int
    username: str | None
    phase: str
    """'connecting', or the command being run."""
    timeout: float
    """The limit that applied to this phase, in seconds."""
    known_hosts: Path | None
    allow_legacy: bool = False


def chain(exc: BaseException) -> list[BaseException]:
    """`exc` and every exception it was raised from or during."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def _find(excs: list[BaseException], *names: str) -> BaseException | None:
    return next((e for e in excs if _names(e) & set(names)), None)


def classify(exc: BaseException, where: Where, scrub: Scrubber) -> CollectError:
    """The CollectError for `exc` (never raises; unknown errors keep their type and text)."""
    excs = chain(exc)
    for check in (_host_key, _auth, _legacy, _socket, _timeout):
        found = check(excs, where)
        if found is not None:
            return CollectError(found.status, scrub.reason(found.reason), found.transient)
    text = str(exc).strip().splitlines()
    detail = text[0] if text else ""
    status: DeviceStatus = "unreachable" if where.phase == "connecting" else "command-failed"
    return CollectError(status, scrub.reason(f"{where.phase}: {type(exc).__name__}: {detail}"))


def _target(where: Where) -> str:
    return f"{where.host}:{where.port}"


def _host_key(excs: list[BaseException], where: Where) -> CollectError | None:
    kh = where.known_hosts
    if _find(excs, "BadHostKeyException"):
        return CollectError(
            "auth-failed",
            f"host key of {_target(where)} differs from the one in {kh}: possible "
            "man-in-the-middle, or the device was replaced; verify it before updating known_hosts",
        )
    if any("not found in known_hosts" in str(e) for e in excs):
        port = f"-p {where.port} " if where.port != 22 else ""
        return CollectError(
            "auth-failed",
            f"host key of {_target(where)} is not in {kh}; verify it and add it "
            f"(ssh-keyscan {port}{where.host} >> {kh}), or pass --insecure-no-host-key-check",
        )
    return None


def _auth(excs: list[BaseException], where: Where) -> CollectError | None:
    bad_type = _find(excs, "BadAuthenticationType")
    if bad_type is not None:
        allowed = ", ".join(getattr(bad_type, "allowed_types", []) or ["?"])
        return CollectError("auth-failed", f"{_target(where)} accepts only: {allowed}")
    if _find(excs, "AuthenticationException"):
        user = where.username or "(default user)"
        return CollectError(
            "auth-failed",
            f"authentication failed for user {user} on {_target(where)} (not retried: "
            "repeated failures can lock the account)",
        )
    return None


def _legacy(excs: list[BaseException], where: Where) -> CollectError | None:
    if not _find(excs, "IncompatiblePeer"):
        return None
    try:
        offered = offered_algorithms(where.host, where.port, min(where.timeout, 5.0))
    except (OSError, ValueError, EOFError):
        return CollectError("unreachable", f"{_target(where)}: no SSH algorithm in common")
    return CollectError(
        "unreachable", legacy_reason(where.host, where.port, offered, where.allow_legacy)
    )


def _socket(excs: list[BaseException], where: Where) -> CollectError | None:
    target = _target(where)
    if _find(excs, "gaierror"):
        return CollectError("unreachable", f"cannot resolve host name {where.host}")
    if _find(excs, "ConnectionRefusedError") or any(
        isinstance(e, OSError) and "Unable to connect" in str(e) for e in excs
    ):
        return CollectError("unreachable", f"connection refused by {target}", transient=True)
    if _find(excs, "ConnectionResetError", "BrokenPipeError", "EOFError"):
        reason = f"connection closed by {target} while {where.phase}"
        return CollectError("unreachable", reason, transient=True)
    return _no_answer(excs, where) if where.phase == "connecting" else None


def _no_answer(excs: list[BaseException], where: Where) -> CollectError | None:
    """Connecting: no TCP answer, no SSH banner, or another socket error."""
    target = _target(where)
    if _find(excs, "timeout", "TimeoutError"):
        if any("banner" in str(e) for e in excs):
            reason = f"no SSH handshake from {target} within {where.timeout:g} s"
            return CollectError("timeout", reason)
        return CollectError("unreachable", f"no answer from {target} within {where.timeout:g} s")
    os_error = next((e for e in excs if isinstance(e, OSError) and e.strerror), None)
    if isinstance(os_error, OSError):
        return CollectError("unreachable", f"{target}: {os_error.strerror}")
    return None


def _timeout(excs: list[BaseException], where: Where) -> CollectError | None:
    if not _find(excs, "ReadTimeout", "NetmikoTimeoutException", "timeout", "TimeoutError"):
        return None
    if where.phase == "connecting":
        texts = " ".join(str(e) for e in excs)
        if "banner" in texts or "No existing session" in texts:
            reason = f"no SSH handshake from {_target(where)} within {where.timeout:g} s"
            return CollectError("timeout", reason)
        reason = f"{_target(where)}: no prompt after login within {where.timeout:g} s"
        return CollectError("timeout", reason)
    return CollectError(
        "timeout", f"no complete output for '{where.phase}' within {where.timeout:g} s"
    )
