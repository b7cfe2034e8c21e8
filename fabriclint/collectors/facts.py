"""Device facts (model, serial, OS version) through napalm, where napalm adds value: EOS.

napalm's EOS driver with `transport: ssh` runs `show ... | json` over a netmiko session. It is
handed fabriclint's own guarded session instead of opening a second login (no second SSH
handshake, no `enable`): every command it sends still passes the allowlist. The interface list
napalm would also build is not kept, so that one query is answered locally with an empty list
rather than pulling a large JSON document from the switch. napalm is imported here only.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable
from typing import Any

from fabriclint import platforms
from fabriclint.collectors.plan import GuardedSession

FACTS_KEY = "napalm get_facts"
KEPT = ("hostname", "fqdn", "vendor", "model", "serial_number", "os_version")
_SKIPPED = "show interfaces | json"


class _NetmikoLike:
    """The slice of a netmiko connection napalm's EOS driver calls (`send_command`)."""

    def __init__(self, session: GuardedSession, timeout: Callable[[str], float]) -> None:
        self._session = session
        self._timeout = timeout

    def send_command(self, command: str, **_kwargs: Any) -> str:
        if command == _SKIPPED:
            return '{"interfaces": {}}'
        return self._session.send(command, self._timeout(command))


def eos_facts(session: GuardedSession, timeout: Callable[[str], float]) -> str:
    """napalm get_facts as JSON text (the stable fields only; uptime would change every run)."""
    driver = copy.copy(_eos_driver())
    adapter = _NetmikoLike(session, timeout)
    driver._netmiko_device = adapter
    driver.device = adapter
    facts = driver.get_facts()
    return json.dumps({k: facts.get(k) for k in KEPT}, indent=2, sort_keys=True) + "\n"


@functools.cache
def _eos_driver() -> Any:
    """An unopened napalm EOS driver, copied for each device: building one inspects netmiko's
    ConnectHandler signature (`netmiko_args`), ~0.2 ms per switch, for options that are the
    same every time (none but the transport)."""
    from napalm.eos.eos import EOSDriver

    return EOSDriver("device", "", "", optional_args={"transport": "ssh"})


def warm() -> None:
    """Import napalm and build the EOS driver `eos_facts` copies, as the first switch would."""
    _eos_driver()


READERS: dict[str, Callable[[GuardedSession, Callable[[str], float]], str]] = {"eos": eos_facts}
"""Facts readers by napalm driver name."""

FACTS = {p.name: READERS[p.napalm] for p in platforms.ALL if p.facts and p.napalm in READERS}
"""Platforms with a facts reader: their descriptor names facts commands and a napalm driver
fabriclint reads through."""
