"""A fabric of every platform whose outputs carry planted secrets (redaction and audit tests).

The first devices carry secrets containing `PLANT`; the `c-*` devices serve the planted-secret
corpus (tests/collectors/redaction_corpus.py: every kind of secret of every platform), and one
optional command answers with an error line that quotes a secret (it reaches collect.json as a
skip reason). After collection no file, log or report may contain any of `planted_secrets()`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.collectors import redaction_corpus as corpus
from tests.collectors.labkit import LAB_PASSWORD, ROCE_POD, all_text, write_fabric

EOS_SECRETS = """\
username admin privilege 15 role network-admin secret sha512 $6$PLANTsalt$PLANTeosHash01
username ops secret 0 PLANTeosPlain02
enable secret sha512 $6$PLANTen$PLANTenable03
snmp-server community PLANTcommRO04 ro
snmp-server host 10.0.0.9 version 2c PLANTtrapcomm05
snmp-server user mon monitoring v3 auth sha PLANTv3auth06 priv aes PLANTv3priv07
tacacs-server key 7 PLANTtacacs08
tacacs-server host 10.0.0.7 key 7 PLANTtachost09
radius-server key 7 PLANTradius10
radius-server host 10.0.0.8 key PLANTradhost11
ntp authentication-key 1 md5 PLANTntp12 7
"""

NXOS = """\
!Command: show running-config
hostname nx1
username admin password 5 $5$PLANTnx$PLANTnxHash13  role network-admin
snmp-server user admin network-admin auth md5 0xPLANTnxauth14 priv 0xPLANTnxpriv15 localizedkey
snmp-server community PLANTnxcomm16 group network-operator
tacacs-server key 7 "PLANTnxtac17"
feature lldp
interface Ethernet1/1
  mtu 9216
"""

JUNOS = """\
## Last commit: 2026-11-29 02:00:00 UTC by ops
system {
    host-name jn1;
    root-authentication {
        encrypted-password "$6$PLANTjn$PLANTjunosHash18"; ## SECRET-DATA
    }
    login {
        user ops {
            authentication {
                encrypted-password "$6$x$PLANTjunosHash19"; ## SECRET-DATA
            }
        }
    }
    tacplus-server {
        10.0.0.7 {
            secret "$9$PLANTjunosTac20"; ## SECRET-DATA
        }
    }
}
snmp {
    community PLANTjncomm21 {
        authorization read-only;
    }
}
"""

SONIC_NESTED = {
    "DEVICE_METADATA": {"localhost": {"hostname": "sn1", "hwsku": "lab"}},
    "TACPLUS": {"global": {"passkey": "PLANTsonicTac22", "auth_type": "pap"}},
    "RADIUS_SERVER": {"10.0.0.8": {"passkey": "PLANTsonicRad23"}},
    "SNMP_COMMUNITY": {"PLANTsonicComm24": {"TYPE": "RO"}},
    "SNMP_USER": {"mon": {"SNMP_USER_AUTH_PASSWORD": "PLANTsonicUser25"}},
    "PORT": {"Ethernet0": {"mtu": "9100", "admin_status": "up"}},
}
SONIC_FLAT = {
    "DEVICE_METADATA|localhost": {"hostname": "sn2"},
    "SNMP_COMMUNITY|PLANTsonicFlat26": {"TYPE": "RO"},
}

CUMULUS = """\
- header:
    rev-id: 1.0
- set:
    system:
      hostname: cl1
      aaa:
        tacacs:
          server:
            '1':
              host: 10.0.0.7
              secret: PLANTcumulusTac27
        user:
          cumulus:
            hashed-password: $6$PLANT$PLANTcumulusHash28
    service:
      snmp-server:
        readonly-community:
          PLANTcumulusComm29:
            access:
              any: {}
"""

OPENSM = "sm_priority 14\nm_key 0x00c0ffee12345678\nsm_key 0x00c0ffee87654321\nsa_key 0x1\n"
OPENSM_KEYS = ("00c0ffee12345678", "00c0ffee87654321")

PLANTED = "PLANT"


def _eos_leaf() -> dict[str, str]:
    folder = ROCE_POD / "snapshots" / "baseline" / "leaf01"
    config = (folder / "show_running-config.txt").read_text(encoding="utf-8")
    config = config.replace("hostname leaf01\n", "hostname leaf01\n" + EOS_SECRETS, 1)
    interfaces = (folder / "show_interfaces.txt").read_text(encoding="utf-8")
    return {"show running-config": config, "show interfaces": interfaces}


def _gpu_host() -> dict[str, str]:
    folder = ROCE_POD / "snapshots" / "baseline" / "gpu01"
    manifest = json.loads((folder.parent / "manifest.json").read_text())["devices"]["gpu01"]
    return {
        key: (folder / name).read_text(encoding="utf-8") for key, name in manifest["files"].items()
    }


ERROR_SECRET = "PL-cl-error-021"
"""Quoted by the error reply of an optional command (a skip reason, never an output)."""
_QOS_ERROR = f"Error: community-password {ERROR_SECRET} is not a qos roce setting\n"


def _corpus_devices() -> dict[str, tuple[str, str, dict[str, str]]]:
    """The corpus as lab devices, each output under the command the platform collects."""
    c = {(p.platform, p.key): p.text for p in corpus.CORPUS}
    gpu = _gpu_host() | {
        "ibstat": c["mlnx-host", "smpquery portinfo"]
        + corpus.plant("mlnx-host", "ibstat", corpus.GENERIC).text
    }
    return {
        "c-eos": (
            "eos",
            "leaf",
            {"show running-config": c["eos", "show running-config"], "show interfaces": ""},
        ),
        "c-nxos": (
            "nxos",
            "leaf",
            {"show running-config": c["nxos", "show running-config"], "show interface": ""},
        ),
        "c-junos": ("junos", "leaf", {"show configuration": c["junos", "show configuration"]}),
        "c-junos-set": (
            "junos",
            "leaf",
            {"show configuration": c["junos", "show configuration | display set"]},
        ),
        "c-sonic": ("sonic", "leaf", {"config_db.json": c["sonic", "config_db.json"]}),
        "c-sonic-flat": ("sonic", "leaf", {"config_db.json": c["sonic", "config_db.json (flat)"]}),
        "c-nvue": (
            "cumulus",
            "leaf",
            {
                "nv config show -o yaml": c["cumulus", "nv config show -o yaml"],
                "nv show qos roce -o json": _QOS_ERROR,
            },
        ),
        "c-nvue-flow": (
            "cumulus",
            "leaf",
            {"nv config show -o yaml": c["cumulus", "nv config show -o yaml (flow maps)"]},
        ),
        "c-nclu": (
            "cumulus",
            "leaf",
            {"net show configuration commands": c["cumulus", "net show configuration commands"]},
        ),
        "c-host": ("mlnx-host", "gpu", gpu),
        "c-sm": ("opensm", "sm", {"opensm.conf": c["opensm", "opensm.conf"]}),
    }


def planted_secrets(fabric: Path) -> list[str]:
    """Every secret planted in the fabric's seed snapshot, and the lab's login password."""
    seed = all_text(fabric / "snapshots" / "seed")
    found = set(re.findall(r"[$\w.=-]*PLANT[$\w.=-]*", seed))
    found.update(secret for planted in corpus.CORPUS for secret in planted.secrets)
    found.update((*OPENSM_KEYS, ERROR_SECRET, LAB_PASSWORD))
    missing = sorted(secret for secret in found if secret not in seed and secret != LAB_PASSWORD)
    assert missing == [], f"not planted in the seed: {missing}"
    return sorted(found)


def secrets_fabric(root: Path) -> Path:
    """The fabric (with its `seed` snapshot) under `root`."""
    return write_fabric(
        root,
        {
            **_corpus_devices(),
            "leaf01": ("eos", "leaf", _eos_leaf()),
            "nx1": ("nxos", "leaf", {"show running-config": NXOS, "show interface": ""}),
            "jn1": ("junos", "leaf", {"show configuration": JUNOS}),
            "sn1": ("sonic", "leaf", {"config_db.json": json.dumps(SONIC_NESTED, indent=4)}),
            "sn2": ("sonic", "leaf", {"config_db.json": json.dumps(SONIC_FLAT, indent=4)}),
            "cl1": ("cumulus", "leaf", {"nv config show -o yaml": CUMULUS}),
            "gpu01": ("mlnx-host", "gpu", _gpu_host()),
            "sm1": ("opensm", "sm", {"opensm.conf": OPENSM}),
        },
    )
