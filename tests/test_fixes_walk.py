"""Fix hints a new user types in clear their findings: a two-vendor fabric written from scratch
(the README's intent, an EOS leaf whose ports apply no `qos profile`, a SONiC leaf), checked with
`--configs`, each hint applied as printed, checked again."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from fabriclint.engine import CheckOptions, run_check

INVENTORY = """\
name: walkpod
devices:
  leaf01: {platform: eos, role: leaf, host: 192.0.2.11}
  leaf02: {platform: sonic, role: leaf, host: 192.0.2.12}
  gpu01: {platform: mlnx-host, role: gpu, host: 192.0.2.101}
  gpu02: {platform: mlnx-host, role: gpu, host: 192.0.2.102}
links:
  - {a: "leaf01:Ethernet1/1", b: "gpu01:ens1np0"}
  - {a: "leaf02:Ethernet0", b: "gpu02:ens1np0"}
  - {a: "leaf01:Ethernet49/1", b: "leaf02:Ethernet48"}
"""

INTENT = """\
profiles:
  roce:
    trust: dscp
    roce: {dscp: [26], priority: 3}
    cnp: {dscp: 48, priority: 6, strict: true}
    pfc:
      priorities: [3]
      watchdog: {enabled: true, detection_ms: 200, restoration_ms: 400}
    ecn: {min_bytes: 150000, max_bytes: 1500000, tolerance_pct: 5}
    scheduler: {3: {mode: dwrr, weight: 50}, 6: {mode: strict}}
    mtu: {switch_port: 9214, host: 9000, roce: 4096}
roles:
  leaf: {profile: roce}
  gpu: {profile: roce}
"""

EOS = """\
hostname leaf01
!
qos map dscp 26 to traffic-class 3
qos map dscp 48 to traffic-class 6
!
interface Ethernet1/1
   mtu 9214
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
!
interface Ethernet49/1
   mtu 9214
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
!
end
"""

SONIC = {
    "DEVICE_METADATA": {"localhost": {"hostname": "leaf02"}},
    "PORT": {
        "Ethernet0": {"mtu": "9214", "admin_status": "up"},
        "Ethernet48": {"mtu": "9214", "admin_status": "up"},
    },
    "DSCP_TO_TC_MAP": {"ROCE": {"26": "3", "48": "6"}},
    "WRED_PROFILE": {"ROCE_LOSSLESS": {"ecn": "ecn_all"}},
    "PORT_QOS_MAP": {
        "Ethernet0": {"dscp_to_tc_map": "ROCE", "pfc_enable": "3"},
        "Ethernet48": {"dscp_to_tc_map": "ROCE", "pfc_enable": "3"},
    },
}


def _fabric(tmp_path: Path, eos: str, sonic: dict[str, dict[str, dict[str, str]]]) -> Path:
    (tmp_path / "inventory.yaml").write_text(INVENTORY)
    (tmp_path / "intent.yaml").write_text(INTENT)
    rendered = tmp_path / "rendered"
    rendered.mkdir(exist_ok=True)
    (rendered / "leaf01.cfg").write_text(eos)
    (rendered / "leaf02.json").write_text(json.dumps(sonic, indent=2))
    return rendered


def _check(tmp_path: Path, eos: str, sonic: dict[str, dict[str, dict[str, str]]]) -> list:  # type: ignore[type-arg]
    rendered = _fabric(tmp_path, eos, sonic)
    return run_check(CheckOptions(fabric_dir=tmp_path, configs=rendered)).report.findings


def _fix(findings: list, device: str, rule: str, obj: str, path: str = "") -> str:  # type: ignore[type-arg]
    for f in findings:
        if (f.device, f.rule, f.object) == (device, rule, obj) and path in f.path:
            assert f.fix is not None, f
            return str(f.fix)
    raise AssertionError(
        (device, rule, obj, path, [(f.device, f.rule, f.object) for f in findings])
    )


def _eos_apply(config: str, fix: str) -> str:
    """Type an `interface X` hint into that interface's block, as a user would."""
    head, *body = fix.splitlines()
    assert head.startswith("interface ") and f"\n{head}\n" in config, fix
    return config.replace(f"\n{head}\n", f"\n{head}\n" + "".join(f"{b}\n" for b in body), 1)


_ENTRY = re.compile(r'^(?P<table>[A-Z_]+)\|(?P<key>\S+): (?P<fields>".*)$')


def _sonic_apply(db: dict[str, dict[str, dict[str, str]]], fix: str) -> None:
    """Merge `TABLE|key: "field": "value", ...` hint lines into the config_db."""
    for line in fix.splitlines():
        found = _ENTRY.match(line)
        assert found, line
        fields = json.loads("{" + found["fields"] + "}")
        db.setdefault(found["table"], {}).setdefault(found["key"], {}).update(fields)


def test_hints_typed_in_clear_their_findings(tmp_path: Path) -> None:
    before = _check(tmp_path, EOS, SONIC)

    # EOS, ports without a qos profile: the hint goes under the port, not `qos profile <...>`,
    # and the scheduler follows the intent (dwrr, weight 50), not `priority strict`.
    sched = _fix(
        before, "leaf01", "DRIFT002", "interface Ethernet1/1", "priority_queue.3.scheduler"
    )
    assert sched == (
        "interface Ethernet1/1\n   tx-queue 3\n      no priority\n      bandwidth percent 50"
    )
    dog = _fix(before, "leaf01", "PFC004", "interface Ethernet1/1")
    assert dog == (
        "interface Ethernet1/1\n   priority-flow-control pause watchdog\n"
        "   priority-flow-control pause watchdog port timer timeout 0.2 polling-interval auto "
        "recovery-time 0.4"
    )
    # SONiC: a WRED profile marks green packets only with wred_green_enable, and acts only on
    # the queues QUEUE binds it to.
    ecn = _fix(before, "leaf02", "ECN001", "queue 3")
    assert ecn == (
        'WRED_PROFILE|ROCE_LOSSLESS: "ecn": "ecn_all", "wred_green_enable": "true", '
        '"green_min_threshold": "150000", "green_max_threshold": "1500000"\n'
        'QUEUE|Ethernet0,Ethernet48|3: "wred_profile": "ROCE_LOSSLESS"'
    )
    # SONiC watchdog: the PFC_WD entry, in the config_db form of the other SONiC hints.
    sonic_dog = _fix(before, "leaf02", "PFC004", "interface Ethernet0")
    assert sonic_dog == (
        'PFC_WD|Ethernet0: "action": "drop", "detection_time": "200", "restoration_time": "400"'
    )

    eos = EOS
    for port in ("Ethernet1/1", "Ethernet49/1"):
        for rule, path in (("DRIFT002", "priority_queue.3.scheduler"), ("PFC004", "")):
            eos = _eos_apply(eos, _fix(before, "leaf01", rule, f"interface {port}", path))
    sonic = json.loads(json.dumps(SONIC))
    _sonic_apply(sonic, ecn)
    for port in ("Ethernet0", "Ethernet48"):
        _sonic_apply(sonic, _fix(before, "leaf02", "PFC004", f"interface {port}"))

    after = _check(tmp_path, eos, sonic)
    left = {(f.device, f.rule, f.path) for f in after if not f.suppressed}
    for port in ("Ethernet1/1", "Ethernet49/1"):
        assert ("leaf01", "PFC004", f"interfaces.{port}.qos.pfc.watchdog") not in left
        for what in ("scheduler", "weight"):
            assert ("leaf01", "DRIFT002", f"interfaces.{port}.priority_queue.3.{what}") not in left
        for what in ("detection_ms", "restoration_ms"):
            assert ("leaf01", "DRIFT002", f"interfaces.{port}.qos.pfc.watchdog.{what}") not in left
    for port in ("Ethernet0", "Ethernet48"):
        assert ("leaf02", "PFC004", f"interfaces.{port}.qos.pfc.watchdog") not in left
    assert not {x for x in left if x[0] == "leaf02" and x[1] in ("ECN001", "ECN007", "PARSE001")}
    assert not {x for x in left if x[0] == "leaf02" and "ecn" in x[2]}, left


def test_no_buffer_hint_that_would_not_clear_qos008(tmp_path: Path) -> None:
    """QOS008 (no lossless pool or headroom) was given `pfc_enable`, already set on the port:
    buffer sizes are the platform's, so it has no hint."""
    findings = _check(tmp_path, EOS, SONIC)
    (qos008,) = [f for f in findings if f.rule == "QOS008"]
    assert qos008.fix is None


def test_eos_device_wide_hint_creates_the_profile_and_applies_it(tmp_path: Path) -> None:
    """No port applies a `qos profile`: the device-wide ECN hint was `qos profile <the port's
    profile>`, which cannot be typed in. It names a profile and applies it to the RoCE ports."""
    before = _check(tmp_path, EOS, SONIC)
    fix = _fix(before, "leaf01", "ECN001", "queue 3")
    assert fix == (
        "qos profile ROCE\n   tx-queue 3\n      random-detect ecn minimum-threshold 150000 bytes "
        "maximum-threshold 1500000 bytes\ninterface Ethernet1/1\n   service-profile ROCE\n"
        "interface Ethernet49/1\n   service-profile ROCE"
    )
    after = _check(tmp_path, EOS.replace("\nend\n", f"\n{fix}\n!\nend\n"), SONIC)
    left = {(f.rule, f.object) for f in after if f.device == "leaf01"}
    assert not {x for x in left if x[0] in ("ECN001", "QOS006", "PARSE001")}, left
    assert not [f for f in after if f.device == "leaf01" and ".ecn." in f.path], left


def test_sonic_scheduler_hints_typed_in_clear_their_findings(tmp_path: Path) -> None:
    """SONiC scheduler and weight drift had no hint: a SCHEDULER of the intended type and
    weight, bound to the queue by QUEUE."""
    before = _check(tmp_path, EOS, SONIC)
    weighted = [
        f for f in before
        if f.device == "leaf02" and f.rule == "DRIFT002" and "priority_queue" in f.path
    ]  # fmt: skip
    assert weighted and all(f.fix for f in weighted), [(f.path, f.fix) for f in weighted]
    sched = _fix(before, "leaf02", "DRIFT002", "interface Ethernet0", "priority_queue.3.scheduler")
    assert sched == (
        'SCHEDULER|scheduler.3: "type": "DWRR", "weight": "50"\n'
        'QUEUE|Ethernet0|3: "scheduler": "scheduler.3"'
    )
    sonic = json.loads(json.dumps(SONIC))
    for finding in weighted:
        _sonic_apply(sonic, str(finding.fix))
    after = _check(tmp_path, EOS, sonic)
    left = [(f.rule, f.path) for f in after if f.device == "leaf02" and "priority_queue" in f.path]
    assert left == [], left


def test_no_scheduler_hint_for_a_weight_the_switch_cannot_take(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """EOS `bandwidth percent` and SONiC's SCHEDULER `weight` take whole numbers (fabriclint's
    own EOS reader reads only those): an intended weight of 12.5 gave `bandwidth percent 12.5`
    and `"weight": "12.5"`, which cannot clear the finding. No hint rather than a guess."""
    monkeypatch.setattr(
        sys.modules[__name__], "INTENT", INTENT.replace("weight: 50", "weight: 12.5")
    )
    before = _check(tmp_path, EOS, SONIC)
    weighted = [
        f for f in before
        if f.rule == "DRIFT002" and f.path.endswith((".3.scheduler", ".3.weight"))
    ]  # fmt: skip
    assert {f.device for f in weighted} == {"leaf01", "leaf02"}, [f.path for f in before]
    assert [f.fix for f in weighted if f.fix and "12.5" in f.fix] == []
