"""Secrets are redacted before anything is written: planted in every platform, grep finds none.

The end-to-end test collects a lab fabric of every platform whose outputs carry planted
secrets (the whole planted-secret corpus among them), then searches every file under the
snapshot, the collection's stdout/stderr and the check reports (JSON and text) for each of them
and for the login password. A device whose error reply quotes a secret shows that failure
reasons (built from the device's reply) are redacted too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint.collectors.redact import MARK, redact
from fabriclint.engine import CheckOptions, run_check
from fabriclint.reporters import get_reporter
from tests.collectors.labkit import (
    LAB_PASSWORD,
    all_text,
    cli_app,
    lab_for,
    write_fabric,
    write_overlay,
)
from tests.collectors.secrets_fabric import (
    ERROR_SECRET,
    PLANTED,
    planted_secrets,
    secrets_fabric,
)

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


@pytest.mark.parametrize(
    "end",
    [
        "",  # the output cut off after the key's last full line
        "GhIjKlMnOp",  # ... or in the middle of one
        "-----END RSA PRIV",  # ... or in the middle of the END line
    ],
)
def test_a_private_key_cut_off_before_its_end_line_is_redacted(end: str) -> None:
    """A device that closes mid-command (or a key file cut short) leaves no END line: the
    key's lines up to the end of the output are still key material."""
    text = f"key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAzq9xK\nAbCdEf0123\n{end}"
    out = redact(text)
    for secret in ("MIIEowIBAAKCAQEAzq9xK", "AbCdEf0123", "GhIjKlMnOp"):
        assert secret not in out
    assert out.count("\n") == text.count("\n")
    assert out.startswith("key:\n-----BEGIN RSA PRIVATE KEY-----\n") and MARK in out


@pytest.mark.parametrize("indicator", ["|", ">-", "|+", ">2", "| # the key"])
def test_a_secret_written_as_a_yaml_block_scalar_is_redacted(indicator: str) -> None:
    """`password: |` puts the secret on the lines below the key, indented under it."""
    text = (
        f"aaa:\n  - password: {indicator}\n      Zq9xK first\n\n      Wv7Hp second\n"
        "    role: admin\n  ntp: |\n    server 10.0.0.1\n"
    )
    out = redact(text)
    assert "Zq9xK" not in out and "Wv7Hp" not in out
    assert out.count("\n") == text.count("\n")
    assert f"  - password: {indicator}\n      {MARK}\n\n      {MARK}\n    role: admin\n" in out
    assert out.endswith("  ntp: |\n    server 10.0.0.1\n")  # not a secret-named key


@pytest.fixture(scope="module")
def collected(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """(fabric, live snapshot, log text) of the secrets fabric collected through the CLI."""
    tmp = tmp_path_factory.mktemp("secrets")
    fabric = secrets_fabric(tmp / "fabric")
    code, logs = _collect(fabric, tmp / "live")
    assert code == 0, logs
    return fabric, tmp / "live", logs


def _collect(fabric: Path, out: Path) -> tuple[int, str]:
    """(exit code, stdout + stderr) of `fabriclint collect` of `fabric` from its seed in a lab."""
    with lab_for(fabric / "snapshots" / "seed") as lab:
        args = ["collect", str(fabric), "--overlay", str(write_overlay(lab, out.parent))]
        result = CliRunner(env=lab.env()).invoke(
            cli_app(), [*args, "--out", str(out), "--timeout", "10"]
        )
    return result.exit_code, result.stdout + result.stderr


def test_no_planted_secret_anywhere(collected: tuple[Path, Path, str]) -> None:
    fabric, out, logs = collected
    planted = planted_secrets(fabric)
    assert len(planted) > 150
    result = run_check(CheckOptions(fabric_dir=fabric, snapshot=out))
    reports = [get_reporter(fmt, color=False)(result.report) for fmt in ("json", "text")]
    haystacks = {"snapshot": all_text(out), "logs": logs, "reports": "\n".join(reports)}
    for where, text in haystacks.items():
        leaked = [secret for secret in planted if secret in text]
        assert leaked == [], f"{where} contains {leaked}"
        assert PLANTED not in text, where
    assert MARK in haystacks["snapshot"]


def test_skip_reasons_quoting_a_secret_are_redacted(collected: tuple[Path, Path, str]) -> None:
    _fabric, out, _logs = collected
    devices = json.loads((out / "collect.json").read_text(encoding="utf-8"))["devices"]
    skipped = " ".join(devices["c-nvue"]["skipped"])
    assert "community-password <redacted>" in skipped and ERROR_SECRET not in skipped


def test_failure_reasons_quoting_a_secret_are_redacted(tmp_path: Path) -> None:
    """A device's error reply becomes its failure reason: redacted like any output."""
    secret = "PL-eos-error-reason-77"
    reply = f"% Invalid input (at token 2: 'snmp-server community {secret} ro')"
    fabric = write_fabric(
        tmp_path / "fabric",
        {"e1": ("eos", "leaf", {"show running-config": "hostname e1\n", "show interfaces": reply})},
    )
    code, logs = _collect(fabric, tmp_path / "live")
    assert code == 3
    manifest = json.loads((tmp_path / "live" / "manifest.json").read_text(encoding="utf-8"))
    reason = manifest["devices"]["e1"]["error"]
    assert manifest["devices"]["e1"]["status"] == "command-failed"
    assert "snmp-server community <redacted>" in reason
    for where, text in {"snapshot": all_text(tmp_path / "live"), "logs": logs}.items():
        assert secret not in text, where
        assert LAB_PASSWORD not in text, where


GAP_CASES = [
    # NVUE command form (Cumulus Linux user guide, "TACACS+", "RADIUS AAA", "User Accounts")
    ("cumulus", "nv set system aaa tacacs server 1 secret NvTacSecret", "NvTacSecret"),
    ("cumulus", "nv set system aaa radius server 10.0.0.5 secret NvRadSecret", "NvRadSecret"),
    ("cumulus", "nv set system aaa user ops password NvUserPw", "NvUserPw"),
    (None, "nv set system aaa tacacs server 2 secret AnyTacSecret", "AnyTacSecret"),
    # YAML flow maps
    ("cumulus", "    aaa: {password: FlowPw, role: admin}", "FlowPw"),
    ("cumulus", '  server: {port: 49, secret: "FlowSecret"}', "FlowSecret"),
    (None, "  - {name: r1, passkey: 'FlowPasskey'}", "FlowPasskey"),
    # SONiC config_db passkey as a list or a nested object
    ("sonic", '{"TACPLUS": {"global": {"passkey": ["ListKeyA", "ListKeyB"]}}}', "ListKeyA"),
    ("sonic", '{"TACPLUS": {"global": {"passkey": ["ListKeyA", "ListKeyB"]}}}', "ListKeyB"),
    ("sonic", '    "passkey": {"value": "NestedKey", "n": 7},', "NestedKey"),
    (None, '"RADIUS": {"global": {"passkey": {"v": ["DeepKey"]}}}', "DeepKey"),
]


@pytest.mark.parametrize(("platform", "line", "secret"), GAP_CASES, ids=[c[2] for c in GAP_CASES])
def test_nvue_commands_flow_maps_and_sonic_containers(
    platform: str | None, line: str, secret: str
) -> None:
    out = redact(line + "\n", platform)
    assert secret not in out and MARK in out
    assert out.count("\n") == 1


def test_sonic_passkey_list_over_lines_keeps_its_lines_and_other_keys() -> None:
    text = '{\n  "TACPLUS": {"global": {\n    "passkey": [\n      "KeyOne",\n      12345\n    ],\n    "timeout": "5"\n  }}\n}\n'
    out = redact(text, "sonic")
    assert "KeyOne" not in out and "12345" not in out
    assert out.count("\n") == text.count("\n")
    assert '"timeout": "5"' in out and json.loads(out)["TACPLUS"]["global"]["passkey"] == [
        MARK,
        MARK,
    ]


def test_flow_map_keeps_other_keys_and_nested_maps() -> None:
    text = "a: {password: X1, role: admin}\nreadonly: {community: {public: {}}}\n"
    out = redact(text, "cumulus")
    assert out.splitlines()[0] == f"a: {{password: {MARK}, role: admin}}"
    assert "role: admin" in out


def test_empty_yaml_key_with_the_value_on_the_next_line() -> None:
    """`password:` then the value indented below it is the same YAML as `password: X`."""
    text = "- set:\n    system:\n      aaa:\n        user:\n          ops:\n            password:\n              NextLinePw\n            role: admin\n"
    out = redact(text, "cumulus")
    assert "NextLinePw" not in out and out.count("\n") == text.count("\n")
    assert f"            password:\n              {MARK}\n            role: admin\n" in out


def test_plain_show_text_with_an_empty_password_heading_is_left_alone() -> None:
    """Only YAML outputs are read that way: a `show` table is not guessed at."""
    text = "TACACS Servers\n==============\nserver    port  vrf\n10.0.0.7  49    mgmt\nPassword:\n    configured (hidden)\n\tstatus: ok\n"
    assert redact(text, "cumulus") == text
