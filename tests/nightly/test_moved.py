"""A finding that only changed scope between two nights carries on its life (not new, not
resolved): `broken`, then `broken` with 3 of spine02's 4 uplinks on a fixed profile, which leaves
the ECN threshold drift on Ethernet4/1 alone under another fingerprint (tests/cli/test_diff_identity.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from fabriclint.history import migrations
from fabriclint.history.store import open_store
from tests.cli.test_diff_identity import partial_fix
from tests.nightly.conftest import nightly

LEFT = "interface Ethernet4/1"


def _drift(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        f
        for f in doc["findings"]
        if f["rule"] == "DRIFT001" and f["device"] == "spine02" and "ECN minimum" in f["message"]
    ]


def test_fault_left_on_one_port_persists(fabric: Path) -> None:
    _, first, _ = nightly(fabric, "--snapshot", "broken")
    [shared] = _drift(first)
    assert shared["object"] == "qos"
    partial = partial_fix(fabric, extra_trust=False)
    code, doc, err = nightly(fabric, "--snapshot", str(partial))
    assert code == 0, err
    assert doc["summary"]["new"] == 0
    assert doc["summary"]["resolved"] == 0
    assert doc["summary"]["open"] == first["summary"]["open"]
    [left] = _drift(doc)
    assert (left["object"], left["status"], left["nights_open"]) == (LEFT, "persisting", 2)
    assert left["first_seen_at"] == shared["first_seen_at"]
    assert left["fingerprint"] != shared["fingerprint"]
    code, third, err = nightly(fabric, "--snapshot", str(partial))  # and it keeps on persisting
    assert (code, third["summary"]["new"], third["summary"]["resolved"]) == (0, 0, 0), err
    [again] = _drift(third)
    assert (again["fingerprint"], again["nights_open"]) == (left["fingerprint"], 3)


def test_new_fault_next_to_a_moved_one_is_new(fabric: Path) -> None:
    nightly(fabric, "--snapshot", "broken")
    code, doc, err = nightly(fabric, "--snapshot", str(partial_fix(fabric, extra_trust=True)))
    assert code == 1, err
    new = sorted((f["rule"], f["object"]) for f in doc["findings"] if f["status"] == "new")
    assert new == [("DRIFT001", LEFT), ("QOS001", LEFT)]
    assert [f["status"] for f in _drift(doc)] == ["persisting"]
    assert doc["summary"]["resolved"] == 0


def _downgrade_to_0001(database: Path) -> None:
    """The history as a fabriclint of revision 0001 left it (rows without setting and ports)."""
    from alembic import command
    from alembic.config import Config

    store = open_store(f"sqlite:///{database}")
    config = Config()
    config.set_main_option("script_location", str(Path(migrations.__file__).parent))
    with store.transaction() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0001")


def test_a_history_of_revision_0001_upgrades_and_keeps_its_findings(fabric: Path) -> None:
    nightly(fabric, "--snapshot", "broken")
    database = fabric / ".fabriclint" / "history.sqlite"
    _downgrade_to_0001(database)
    with sqlite3.connect(database) as conn:
        assert "setting" not in [row[1] for row in conn.execute("PRAGMA table_info(findings)")]
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == ("0001",)
    code, doc, err = nightly(fabric, "--snapshot", "broken")
    assert (code, doc["summary"]["new"], doc["summary"]["persisting"]) == (0, 0, 38), err
    with sqlite3.connect(database) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == ("0002",)
        rows = conn.execute("SELECT setting, ports FROM findings WHERE state = 'open'").fetchall()
    ports = '["Ethernet1/1", "Ethernet2/1", "Ethernet3/1", "Ethernet4/1"]'
    assert ("roce_queue.ecn.min_bytes", ports) in rows  # a persisting finding gets them too
    code, doc, err = nightly(fabric, "--snapshot", str(partial_fix(fabric, extra_trust=False)))
    assert (code, doc["summary"]["new"], doc["summary"]["resolved"]) == (0, 0, 0), err
