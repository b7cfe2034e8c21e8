"""Credentials: env vars named by the inventory, a prompt only when given, scrubbed reasons."""

from __future__ import annotations

import pytest

from fabriclint.collectors.credentials import (
    CredentialError,
    Scrubber,
    Secret,
    default_prompt,
    resolve_logins,
)
from fabriclint.models.inventory import Credentials

CREDS = {
    "leaf01": Credentials(username_env="NET_USER", password_env="NET_PASS"),
    "leaf02": Credentials(username_env="NET_USER", password_env="NET_PASS"),
    "gpu01": Credentials(username_env="HOST_USER", ssh_key="~/.ssh/id_lab"),
    "spine01": Credentials(),
}


def test_from_environment() -> None:
    env = {"NET_USER": "ops", "NET_PASS": "s3cret-pw", "HOST_USER": "root"}
    logins = resolve_logins(CREDS, env=env, prompt=None)
    assert logins["leaf01"].username == "ops"
    assert logins["leaf01"].password is not None
    assert logins["leaf01"].password.reveal() == "s3cret-pw"
    assert logins["gpu01"].password is None and logins["gpu01"].key_file is not None
    assert not str(logins["gpu01"].key_file).startswith("~")
    assert logins["spine01"].username is None and logins["spine01"].password is None


def test_missing_variables_are_named_never_valued() -> None:
    with pytest.raises(CredentialError) as info:
        resolve_logins(CREDS, env={"NET_USER": "ops", "NET_PASS": "s3cret-pw"}, prompt=None)
    assert "HOST_USER" in str(info.value) and "s3cret-pw" not in str(info.value)


def test_prompt_once_per_variable() -> None:
    asked: list[tuple[str, bool]] = []

    def prompt(question: str, hidden: bool) -> str:
        asked.append((question.split(maxsplit=1)[0], hidden))
        return "typed-secret"

    logins = resolve_logins(CREDS, env={"HOST_USER": "root"}, prompt=prompt)
    assert asked == [("NET_USER", False), ("NET_PASS", True)]
    assert logins["leaf02"].password is not None
    assert logins["leaf02"].password.reveal() == "typed-secret"


def test_no_prompt_without_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    class NotATty:
        def isatty(self) -> bool:
            return False

    monkeypatch.setattr("sys.stdin", NotATty())
    assert default_prompt() is None


def test_secret_and_scrubber() -> None:
    secret = Secret("hunter2-long")
    assert (
        "hunter2" not in repr(secret)
        and "hunter2" not in str(secret)
        and "hunter2" not in f"{secret}"
    )
    scrub = Scrubber([secret, Secret("abc")])
    reason = scrub.reason(
        "Authentication failed:\n password 'hunter2-long' rejected\n\n" + "x" * 900
    )
    assert "hunter2" not in reason and "\n" not in reason and len(reason) <= 400
    assert scrub.clean("abc is short") == "abc is short"  # too short to scrub safely


def test_prompts_happen_before_collection() -> None:
    from fabriclint.collectors.run import CollectOptions, ask_credentials
    from tests.collectors.labkit import ROCE_POD

    asked: list[str] = []

    def prompt(question: str, hidden: bool) -> str:
        asked.append(question.split(maxsplit=1)[0])
        return "typed"

    options = CollectOptions(env={"FABRICLINT_HOST_USER": "root"}, prompt=prompt, limit=["*"])
    assert ask_credentials(ROCE_POD, options) == 10
    assert asked == ["FABRICLINT_USER", "FABRICLINT_PASSWORD"]
    assert options.prompt is None and options.env is not None
    assert options.env["FABRICLINT_PASSWORD"] == "typed"
