"""Secrets are redacted before anything is written: planted in every platform, grep finds none.

The end-to-end test collects a lab fabric of every platform whose outputs carry planted
secrets, then searches every file under the snapshot, the collection's log lines and the
check reports (JSON and text) for each of them and for the login password.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.collectors.redact import MARK, redact
from fabriclint.engine import CheckOptions, run_check
from fabriclint.reporters import get_reporter
from tests.collectors.labkit import (
    LAB_PASSWORD,
    ROCE_POD,
    all_text,
    cli_app,
    lab_for,
    write_overlay,
)
from tests.collectors.secrets_fabric import OPENSM_KEYS, PLANTED, secrets_fabric

CASES = [
    ("username a privilege 15 role network-admin secret sha512 $6$s$HASH", "$6$s$HASH"),
    ("enable secret 5 $1$abc$ENABLEHASH", "ENABLEHASH"),
    ("enable password 7 0822455D0A16", "0822455D0A16"),
    ("snmp-server community MyCommunity ro", "MyCommunity"),
    ("snmp-server host 10.1.1.1 vrf MGMT version 2c TrapCommunity", "TrapCommunity"),
    ("snmp-server user u g v3 auth sha AuthKey priv aes PrivKey", "AuthKey"),
    ("snmp-server user u g v3 auth sha AuthKey priv aes PrivKey", "PrivKey"),
    ("tacacs-server key 7 070C285F4D06", "070C285F4D06"),
    ("tacacs-server host 10.0.0.7 key 7 TacHostKey", "TacHostKey"),
    ("radius-server key RadiusKey", "RadiusKey"),
    ("radius-server host 10.0.0.8 auth-port 1812 key 7 RadHostKey", "RadHostKey"),
    ("ntp authentication-key 1 md5 NtpKey 7", "NtpKey"),
    ("   neighbor 10.0.0.1 password 7 BgpPass==", "BgpPass=="),
    ("username admin password 5 $5$nx$NXHASH  role network-admin", "NXHASH"),
    ('tacacs-server key 7 "NxTacKey"', "NxTacKey"),
    ('        encrypted-password "$6$jn$JUNOSHASH"; ## SECRET-DATA', "JUNOSHASH"),
    ('            secret "$9$JunosTacplus"; ## SECRET-DATA', "JunosTacplus"),
    ('    authentication-key "$9$OspfKey"; ## SECRET-DATA', "OspfKey"),
    ("    community JunosComm {", "JunosComm"),
    ('        "passkey": "SonicPasskey",', "SonicPasskey"),
    ('"SNMP_COMMUNITY|SonicFlat": {', "SonicFlat"),
    ('        "SNMP_USER_AUTH_PASSWORD": "SonicUserPw"', "SonicUserPw"),
    ("              secret: CumulusSecret", "CumulusSecret"),
    ("            hashed-password: $6$x$CumulusHash", "CumulusHash"),
    ("m_key 0x00c0ffee12345678", "00c0ffee12345678"),
]


@pytest.mark.parametrize(("line", "secret"), CASES, ids=[c[1] for c in CASES])
def test_each_kind_of_secret_is_redacted(line: str, secret: str) -> None:
    out = redact(line + "\n")
    assert secret not in out and MARK in out
    assert out.count("\n") == 1


def test_nested_snmp_communities_are_keys() -> None:
    text = '{\n    "SNMP_COMMUNITY": {\n        "public": {"TYPE": "RO"},\n        "private": {}\n    }\n}\n'
    out = redact(text)
    assert "public" not in out and "private" not in out and '"TYPE": "RO"' in out
    yaml_text = "snmp-server:\n  readonly-community:\n    public:\n      access: {}\n  listening-address: {}\n"
    out = redact(yaml_text)
    assert "public" not in out and "listening-address" in out


def test_qos_and_defaults_are_untouched() -> None:
    text = (
        "qos map dscp 26 to traffic-class 3\npriority-flow-control priority 3 no-drop\n"
        "no password strength-check\nm_key 0x0000000000000000\nsm_key 0x1\n"
        '"pfc_enable": "3,4",\nservice password-encryption\n'
    )
    assert redact(text) == text


def test_example_snapshots_need_no_redaction() -> None:
    for path in (ROCE_POD / "snapshots").rglob("*.txt"):
        text = path.read_text(encoding="utf-8")
        assert redact(text) == text, path


@pytest.fixture(scope="module")
def collected(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """(fabric, live snapshot, log text) of the secrets fabric collected through the CLI."""
    tmp = tmp_path_factory.mktemp("secrets")
    fabric = secrets_fabric(tmp / "fabric")
    out = tmp / "live"
    with lab_for(fabric / "snapshots" / "seed") as lab:
        args = [
            "collect",
            str(fabric),
            "--overlay",
            str(write_overlay(lab, tmp)),
            "--out",
            str(out),
        ]
        result = CliRunner(env=lab.env()).invoke(cli_app(), [*args, "--timeout", "10"])
    assert result.exit_code == 0, result.stderr
    return fabric, out, result.stdout + result.stderr


def _planted(fabric: Path) -> list[str]:
    seed = all_text(fabric / "snapshots" / "seed")
    found = sorted(set(re.findall(r"[$\w.=-]*PLANT[$\w.=-]*", seed)))
    return [*found, *OPENSM_KEYS, LAB_PASSWORD]


def test_no_planted_secret_anywhere(collected: tuple[Path, Path, str]) -> None:
    fabric, out, logs = collected
    planted = _planted(fabric)
    assert len(planted) > 30
    result = run_check(CheckOptions(fabric_dir=fabric, snapshot=out))
    reports = [get_reporter(fmt, color=False)(result.report) for fmt in ("json", "text")]
    haystacks = {"snapshot": all_text(out), "logs": logs, "reports": "\n".join(reports)}
    for where, text in haystacks.items():
        leaked = [secret for secret in planted if secret in text]
        assert leaked == [], f"{where} contains {leaked}"
        assert PLANTED not in text, where
    assert MARK in haystacks["snapshot"]
