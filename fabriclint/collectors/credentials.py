"""Credentials: from the environment variables the inventory names, or a prompt on a terminal.

Secrets are wrapped in `Secret` (its repr/str never show the value) and every text fabriclint
writes from an exception goes through `Scrubber.clean`, so a password cannot leak through a
library's error message.
"""

from __future__ import annotations

import getpass
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from fabriclint.models.inventory import Credentials

Prompt = Callable[[str, bool], str]
"""(question, hide the answer) -> answer."""


class Secret:
    """A secret string: `reveal()` gives the value; repr and str never do."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The secret itself (only to hand it to the SSH library)."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__


class CredentialError(Exception):
    """Credentials named by the inventory are missing and cannot be prompted for."""


@dataclass(frozen=True)
class Login:
    """How to log in to one device."""

    username: str | None
    password: Secret | None
    key_file: Path | None


def terminal_prompt(question: str, hidden: bool) -> str:
    """Ask on the terminal (the password is not echoed)."""
    if hidden:
        return getpass.getpass(question)
    sys.stderr.write(question)
    sys.stderr.flush()
    return sys.stdin.readline().strip()


def default_prompt() -> Prompt | None:
    """A prompt only when stdin is a terminal (never in CI, never blocking a pipe)."""
    return terminal_prompt if sys.stdin.isatty() else None


@dataclass
class _Lookup:
    env: Mapping[str, str]
    prompt: Prompt | None
    users: dict[str, list[str]]
    cache: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)

    def value(self, var: str, hidden: bool) -> str | None:
        if var in self.cache:
            return self.cache[var]
        value = self.env.get(var)
        if value is None and self.prompt is not None:
            who = ", ".join(self.users[var][:3]) + (" ..." if len(self.users[var]) > 3 else "")
            value = self.prompt(
                f"{var} ({'password' if hidden else 'username'} for {who}): ", hidden
            )
        if value is None:
            self.missing.append(var)
            return None
        self.cache[var] = value
        return value


def _users(devices: Mapping[str, Credentials]) -> dict[str, list[str]]:
    """Credential variable -> the devices naming it."""
    users: dict[str, list[str]] = {}
    for name, creds in devices.items():
        for var in (creds.username_env, creds.password_env):
            if var:
                users.setdefault(var, []).append(name)
    return users


def prompt_missing(
    devices: Mapping[str, Credentials], env: Mapping[str, str], prompt: Prompt
) -> dict[str, str]:
    """`env` plus an answer for each variable the devices name that is unset (asked once)."""
    lookup = _Lookup(env, prompt, _users(devices))
    for creds in devices.values():
        _login(creds, lookup)
    return {**env, **lookup.cache}


def resolve_logins(
    devices: Mapping[str, Credentials],
    env: Mapping[str, str] | None = None,
    prompt: Prompt | None = None,
) -> dict[str, Login]:
    """Logins per device; raises CredentialError naming every unset variable (never a value)."""
    lookup = _Lookup(env if env is not None else os.environ, prompt, _users(devices))
    logins = {name: _login(creds, lookup) for name, creds in devices.items()}
    if lookup.missing:
        names = ", ".join(sorted(set(lookup.missing)))
        raise CredentialError(
            f"environment variable(s) {names} not set (named in the inventory's credentials); "
            "set them, or run on a terminal to be prompted"
        )
    return logins


def _login(creds: Credentials, lookup: _Lookup) -> Login:
    user = lookup.value(creds.username_env, False) if creds.username_env else None
    password = lookup.value(creds.password_env, True) if creds.password_env else None
    key = Path(creds.ssh_key).expanduser() if creds.ssh_key else None
    return Login(user, Secret(password) if password is not None else None, key)


_SPACE = re.compile(r"\s+")
MAX_REASON = 400


class Scrubber:
    """Removes known secret values from any text before it is logged or written."""

    def __init__(self, secrets: list[Secret] | None = None) -> None:
        self._values: list[str] = []
        for secret in secrets or []:
            self.add(secret)

    def add(self, secret: Secret) -> None:
        """Remember one more secret (values under 4 characters would mangle ordinary text)."""
        value = secret.reveal()
        if len(value) >= 4 and value not in self._values:
            self._values.append(value)
            self._values.sort(key=len, reverse=True)

    def clean(self, text: str) -> str:
        """`text` with every known secret replaced by ***."""
        for value in self._values:
            text = text.replace(value, "***")
        return text

    def reason(self, text: str) -> str:
        """A one-line, secret-free reason for the manifest and the logs."""
        line = _SPACE.sub(" ", self.clean(text)).strip()
        return line if len(line) <= MAX_REASON else line[: MAX_REASON - 3] + "..."
