"""`fabriclint init [DIR]`: a fabric folder to start from, so a first check takes minutes.

Writes inventory.yaml, intent.yaml and policy.yaml, each with a `$schema` line pointing at
the JSON Schemas written next to them (schemas/, from this version of fabriclint: editors
complete and check the files as they are typed) and comments saying what each key means. The
example validates as written; replace its devices with `fabriclint inventory import`.
"""

from __future__ import annotations

from pathlib import Path

from fabriclint.snapshot import atomic_write

FILES = ("inventory.yaml", "intent.yaml", "policy.yaml")

INVENTORY = """\
# yaml-language-server: $schema=schemas/inventory.json
#
# The devices of the fabric and its cabling plan. Rather than typing them, import them:
#   fabriclint inventory import --from netbox --url https://netbox.example.com --out inventory.yaml
#   (or --from nautobot, ansible, nornir, avd; see `fabriclint inventory import --help`)
name: {name}

devices:
  # platform: eos, nxos, junos, sonic, cumulus, mlnx-host (Linux + ConnectX), opensm
  # role: any name; intent.yaml chooses a profile per role
  # credentials name environment variables; secrets never live in this file
  leaf01:
    platform: eos
    role: leaf
    host: 192.0.2.11
    credentials: {{username_env: FABRICLINT_USER, password_env: FABRICLINT_PASSWORD}}
  gpu01:
    platform: mlnx-host
    role: gpu
    host: 192.0.2.101
    credentials: {{username_env: FABRICLINT_HOST_USER, ssh_key: ~/.ssh/id_ed25519}}

links:
  # The cabling plan: cross-device rules (PFC007, MTU001, NIC001...) compare both ends, and
  # per-port RoCE rules look only at ports listed here.
  - {{a: "leaf01:Ethernet1/1", b: "gpu01:ens1np0"}}
"""

INTENT = """\
# yaml-language-server: $schema=schemas/intent.json
#
# What the fabric should be: profiles of intended RoCE settings, and who uses which.
# Every section is optional; drift (DRIFT001/002) compares only what is declared here.
profiles:
  roce:
    trust: dscp
    roce: {dscp: [26], priority: 3}               # RoCE v2 data (add mode: lossy for ECN-only)
    cnp: {dscp: 48, priority: 6, strict: true}    # DCQCN congestion notifications
    pfc:
      priorities: [3]                             # lossless: PFC on the RoCE priority
      watchdog: {enabled: true, detection_ms: 200, restoration_ms: 400}
    ecn: {min_bytes: 150000, max_bytes: 1500000, tolerance_pct: 5}   # switches round to cells
    scheduler: {3: {mode: dwrr, weight: 50}, 6: {mode: strict}}       # by priority
    mtu: {switch_port: 9214, host: 9000, roce: 4096}

roles:
  # A role no device of the inventory has is only a warning: one intent may serve several fabrics.
  leaf: {profile: roce}
  gpu: {profile: roce}
"""

POLICY = """\
# yaml-language-server: $schema=schemas/policy.json
#
# Which rules run and how strictly (`fabriclint rules` lists them; `rules explain CODE`).
extends: [default]       # built-in packs: default, strict (pre-benchmark gate), lab-permissive
fail_on: error           # the lowest severity that makes `check` exit 1
# ignore: [QOS006]
# severity: {PFC001: error}
# suppressions:
#   - {rule: FAB004, device: "lab-*", reason: "lab switches share one uplink"}
"""


class ScaffoldError(Exception):
    """The folder already holds a fabric file (nothing is overwritten)."""


def scaffold(root: Path, name: str | None = None) -> list[Path]:
    """Write the fabric files, schemas/ and snapshots/ under `root`; the files written."""
    from fabriclint.schemas import build_schemas

    existing = [root / f for f in FILES if (root / f).exists() or (root / f).is_symlink()]
    if existing:
        shown = ", ".join(str(p) for p in existing)
        raise ScaffoldError(f"{shown}: already there; init never overwrites a fabric file")
    fabric = name or root.resolve().name or "fabric"
    texts = {
        "inventory.yaml": INVENTORY.format(name=fabric),
        "intent.yaml": INTENT,
        "policy.yaml": POLICY,
    }
    written: list[Path] = []
    for filename, text in build_schemas().items():
        atomic_write(root / "schemas" / filename, text)
        written.append(root / "schemas" / filename)
    for filename, text in texts.items():
        atomic_write(root / filename, text)
        written.append(root / filename)
    (root / "snapshots").mkdir(exist_ok=True)
    return written
