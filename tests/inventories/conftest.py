"""The fake NetBox runs on 127.0.0.1 on a free port: trust it as a live inventory source (as a
user sets FABRICLINT_TRUSTED_SOURCES outside the fabric folder) unless a test says otherwise."""

from __future__ import annotations

import pytest

from fabriclint.inventories.live import TRUST_ENV


@pytest.fixture(autouse=True)
def _trust_the_local_netbox(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TRUST_ENV, "http://127.0.0.1:*=POD_NETBOX_TOKEN")
