"""Switch transceivers where the first readers had none: Cumulus before 5.11 (`nv show interface
pluggables -o json` on 5.x, `net show interface pluggables` on NCLU 4.x: vendor, part number,
serial, no firmware) and Junos optics' vendor and firmware (`show chassis pic fpc-slot F
pic-slot P`, one per PIC the chassis inventory lists). A platform output without firmware is
said so by `bom lock`, never locked as a firmware."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabriclint import bom
from fabriclint.cli.app import app
from fabriclint.commands import PLATFORMS, derive, is_allowed
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState
from fabriclint.parsers import cumulus, junos
from fabriclint.parsers.kit.optics import FIRMWARE_NOT_SHOWN
from fabriclint.platforms.cumulus import NCLU_PLUGGABLES, NVUE_CONFIG, NVUE_PLUGGABLES
from fabriclint.platforms.cumulus import TRANSCEIVERS as NVUE_XCVR
from fabriclint.platforms.junos import TRANSCEIVERS as JUNOS_XCVR
from fabriclint.snapshot import load_snapshot
from tests.examples import baseline_with
from tests.test_bom_switch_optics import MULTI, RERUN, _located, _modules, _text, junos_hardware

PIC0 = "show chassis pic fpc-slot 0 pic-slot 0"


def nvue_pluggables(serial: str = "MT2318FT04521") -> str:
    """`nv show interface pluggables -o json` of an SN4600C on Cumulus Linux 5.9 (written after
    the NVUE command reference's `nv show interface <interface-id> pluggable` fields, keyed by
    interface as every `nv show interface` collection; the management port and a bond have no
    pluggable, an empty cage an empty one)."""
    module = {"identifier": "QSFP28", "vendor-name": "Mellanox", "vendor-pn": "MCP1600-C003E30L"}
    module["vendor-rev"] = "A3"
    data: dict[str, object] = {
        "eth0": {"type": "eth", "link": {"state": "up"}},
        "bond1": {"type": "bond"},
        "swp1": {"type": "swp", "pluggable": {**module, "vendor-sn": serial}},
        "swp2": {"type": "swp", "pluggable": {**module, "vendor-sn": "MT2318FT04522"}},
        "swp3": {"type": "swp", "pluggable": {}},
        "swp31": {"type": "swp", "pluggable": {**module, "vendor-sn": "MT2318FT04551"}},
        "swp32": {"type": "swp", "pluggable": {**module, "vendor-sn": "MT2318FT04552"}},
    }
    return json.dumps(data, indent=2)


def nclu_pluggables(serial: str = "FNS21370AB1") -> str:
    """`net show interface pluggables` on Cumulus Linux 4.4 (NCLU; written after its column
    layout: Interface, Identifier, Vendor Name, Vendor PN, Vendor SN, Vendor Rev; a vendor
    name with a space, a breakout cage listed once per breakout)."""
    rows = [
        ("swp1", "0x11 (QSFP28)", "FINISAR CORP.", "FTLC9551REPM", serial, "A0"),
        ("swp2", "0x11 (QSFP28)", "FINISAR CORP.", "FTLC9551REPM", "FNS21370AB2", "A0"),
        ("swp31", "0x11 (QSFP28)", "Mellanox", "MCP1600-C003", "MT1923VS07711", "A2"),
        ("swp32", "0x11 (QSFP28)", "Mellanox", "MCP1600-C003", "MT1923VS07712", "A2"),
        ("swp49s0", "0x0d (QSFP+)", "Amphenol", "NDAQGJ-0003", "APF19400012AB3", "B"),
        ("swp49s1", "0x0d (QSFP+)", "Amphenol", "NDAQGJ-0003", "APF19400012AB3", "B"),
    ]
    widths = (11, 14, 15, 14, 15, 10)
    titles = ("Interface", "Identifier", "Vendor Name", "Vendor PN", "Vendor SN", "Vendor Rev")

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    dashes = tuple("-" * w for w in widths)
    return "\n".join(["", line(titles), line(dashes), *(line(r) for r in rows), ""])


def junos_pic(fpc: int = 0, pic: int = 0, firmware: str = "2.10.3") -> str:
    """`show chassis pic fpc-slot 0 pic-slot 0` of a QFX5240-64OD (written after the Junos CLI
    reference layout: the PIC header, the two-line `PIC port information` title, then `Port
    speed information`; Juniper-coded optics and a third-party one on port 3)."""
    rows = [
        (0, "JUNIPER-COHR", "740-174087", "2.11.0", "REV 01"),
        (1, "JUNIPER-COHR", "740-174087", "2.11.0", "REV 01"),
        (2, "JUNIPER-COHR", "740-174087", firmware, "REV 01"),
        (3, "INNOLIGHT", "T-OL8CNT-NJ1", "4.2.1", ""),
    ]
    table = "".join(
        f"  {p:<4} {'800GBASE 2xDR4':<17} SM    {v:<18} {pn:<17} {'1311 nm':<25} {fw:<13} "
        f"{rev:<8} CMIS 5.0\n"
        for p, v, pn, fw, rev in rows
    )
    return (
        f"\n{{master:0}}\nFPC slot {fpc}, PIC slot {pic} information:\n"
        "  Type                             64x800G OSFP\n"
        "  State                            Online\n"
        "  PIC version                   1.1\n"
        "  Uptime                           41 days, 6 hours, 12 minutes, 9 seconds\n\n"
        "PIC port information:\n"
        "                         Fiber                    Xcvr vendor       Wave-"
        "                     Xcvr          JNPR     MSA\n"
        "  Port Cable type        type  Xcvr vendor        part number       length"
        "                    Firmware      Rev      Version\n"
        f"{table}\n"
        "Port speed information:\n\n"
        "  Port  PFE      Capable Port Speeds\n"
        "  0      0       8x100GE, 4x200GE, 2x400GE, 800GE\n"
    )


def _parsed(name: str, extra: dict[str, str], drop: tuple[str, ...] = ()) -> DeviceState:
    """A multivendor baseline device parsed with `extra` outputs added (and `drop` removed)."""
    base = load_snapshot(MULTI / "snapshots" / "baseline").devices[name].raw
    assert base is not None
    outputs = {k: v for k, v in base.outputs.items() if k not in drop}
    outputs |= {k: RawOutput(text=t, file=f"{name}/{k}.txt") for k, t in extra.items()}
    parse = cumulus.parse if base.platform == "cumulus" else junos.parse
    return parse(RawDevice(name=name, platform=base.platform, outputs=outputs))


NVUE_SWP1 = {"vendor": "Mellanox", "part_number": "MCP1600-C003E30L", "serial": "MT2318FT04521"}
NCLU_SWP1 = {"vendor": "FINISAR CORP.", "part_number": "FTLC9551REPM", "serial": "FNS21370AB1"}
BREAKOUT = {"vendor": "Amphenol", "part_number": "NDAQGJ-0003", "serial": "APF19400012AB3"}
JUNOS_ET2 = {"part_number": "740-174087", "serial": "1W1CZ9A70013", "vendor": "JUNIPER-COHR"}
JUNOS_ET2["firmware"] = "2.10.3"
JUNOS_ET3 = {"part_number": "NON-JNPR", "serial": "G2310054321", "vendor": "INNOLIGHT"}
JUNOS_ET3["firmware"] = "4.2.1"


@pytest.mark.parametrize(
    ("name", "extra", "count", "ports", "unshown"),
    [
        ("leaf04", {NVUE_PLUGGABLES: nvue_pluggables()}, 4, {"swp1": NVUE_SWP1},
         f"`{NVUE_PLUGGABLES}` (Cumulus Linux before 5.11)"),
        ("leaf04", {NCLU_PLUGGABLES: nclu_pluggables()}, 6,
         {"swp1": NCLU_SWP1, "swp49s0": BREAKOUT, "swp49s1": BREAKOUT},
         f"`{NCLU_PLUGGABLES}` (Cumulus Linux before 5.11)"),
        ("spine01", {JUNOS_XCVR: junos_hardware(), PIC0: junos_pic()}, 4,
         {"et-0/0/2": JUNOS_ET2, "et-0/0/3": JUNOS_ET3}, None),
        ("spine01", {JUNOS_XCVR: junos_hardware()}, 4,
         {"et-0/0/2": {"part_number": "740-174087", "serial": "1W1CZ9A70013"}},
         f"`{JUNOS_XCVR}` (Junos; `show chassis pic` not collected)"),
        ("spine01", {PIC0: junos_pic()}, 4,
         {"et-0/0/3": {"vendor": "INNOLIGHT", "firmware": "4.2.1"}}, None),
    ],
    ids=["nvue-5.x", "nclu-4.x", "junos-with-pic", "junos-inventory-only", "junos-pic-only"],
)  # fmt: skip
def test_what_each_output_shows(
    name: str, extra: dict[str, str], count: int, ports: dict[str, object], unshown: str | None
) -> None:
    state = _parsed(name, extra)
    assert _located(state) == []
    assert state.facts["transceivers"] == str(count)
    found = _modules(state)
    assert {port: found.get(port) for port in ports} == ports
    assert state.facts.get(FIRMWARE_NOT_SHOWN) == unshown
    assert all("firmware" not in m for m in found.values()) == (unshown is not None)


def test_the_newest_cumulus_output_wins() -> None:
    """A 5.11 output and an older one (a snapshot assembled by hand): 5.11's, with its note
    of nothing missing."""
    from tests.test_bom_switch_optics import nvue_transceivers

    state = _parsed("leaf04", {NVUE_XCVR: nvue_transceivers(), NVUE_PLUGGABLES: nvue_pluggables()})
    assert _modules(state)["swp1"]["serial"] == "MT2409FT10331"
    assert FIRMWARE_NOT_SHOWN not in state.facts


@pytest.mark.parametrize(
    ("name", "key", "text", "line"),
    [
        ("leaf04", NCLU_PLUGGABLES, "Interface  State\n---------  -----\nswp1       up\n", 1),
        ("leaf04", NCLU_PLUGGABLES, nclu_pluggables().replace("swp2 ", "$(x)"), 5),
        ("leaf04", NVUE_PLUGGABLES, '{\n"swp1": {"pluggable": {"vendor-sn": "A"}},\n"swp2": 7\n}',
         3),
        ("spine01", PIC0, junos_pic(pic=1), 3),
        ("spine01", PIC0, "error: syntax error, expecting <command>: pic\n", 1),
        ("spine01", PIC0, junos_pic().replace("  3    800G", "  x    800G"), 15),
    ],
    ids=["nclu-other-table", "nclu-not-a-port", "nvue-port-number", "junos-other-pic",
         "junos-error-text", "junos-not-a-port"],
)  # fmt: skip
def test_a_malformed_output_is_located(name: str, key: str, text: str, line: int) -> None:
    extra = {key: text}
    if key == PIC0:
        extra[JUNOS_XCVR] = junos_hardware()
    state = _parsed(name, extra)
    assert _located(state) == [(f"{name}/{key}.txt", line)]


def test_junos_asks_each_pic_the_inventory_lists_and_nothing_else() -> None:
    qfx = derive("junos", {JUNOS_XCVR: junos_hardware()})
    assert [(c.command, c.optional) for c in qfx] == [(PIC0, True)]
    # an MX: FPC 1 > MIC 1 > PIC 2 and PIC 3; the MIC is not a slot of the command
    pics = [{"name": _text(f"PIC {n}")} for n in (2, 3)]
    mic = {"name": _text("MIC 1"), "chassis-sub-sub-module": pics}
    fpc = {"name": _text("FPC 1"), "chassis-sub-module": [mic]}
    mx = json.dumps({"chassis-inventory": [{"chassis": [{"chassis-module": [fpc]}]}]}, indent=1)
    assert [c.command for c in derive("junos", {JUNOS_XCVR: mx})] == [
        "show chassis pic fpc-slot 1 pic-slot 2",
        "show chassis pic fpc-slot 1 pic-slot 3",
    ]
    assert derive("junos", {}) == []
    assert is_allowed("junos", "show chassis pic fpc-slot 11 pic-slot 2")
    for refused in (
        "show chassis pic fpc-slot 0 pic-slot 0 | save /tmp/x",
        "request chassis pic offline fpc-slot 0 pic-slot 0",
        "show chassis pic fpc-slot 0 pic-slot 0; request system reboot",
    ):
        assert not is_allowed("junos", refused), refused


def test_the_older_cumulus_commands_are_fallbacks() -> None:
    """5.x's command only when 5.11's gave nothing; NCLU's only on a switch without NVUE."""
    specs = {c.key: c for c in PLATFORMS["cumulus"].commands}
    assert specs[NVUE_PLUGGABLES].only_if_missing == NVUE_XCVR
    assert specs[NCLU_PLUGGABLES].only_if_missing == NVUE_CONFIG
    assert specs[NVUE_PLUGGABLES].optional and specs[NCLU_PLUGGABLES].optional
    assert not is_allowed("cumulus", "net show interface pluggables; net commit")


def test_lock_says_what_it_cannot_hold_and_verify_names_a_firmware_change(tmp_path: Path) -> None:
    older = {
        "leaf04": {NVUE_PLUGGABLES: nvue_pluggables()},
        "spine01": {JUNOS_XCVR: junos_hardware()},
    }
    snap = baseline_with(tmp_path, MULTI, "older", older)
    out = tmp_path / "bom.lock.json"
    result = CliRunner().invoke(
        app, ["bom", "lock", str(MULTI), "--snapshot", str(snap), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert [line for line in result.stderr.splitlines() if line.startswith("note: ")] == [
        f"note: leaf04: transceiver firmware not shown by `{NVUE_PLUGGABLES}` (Cumulus Linux "
        "before 5.11): not locked",
        f"note: spine01: transceiver firmware not shown by `{JUNOS_XCVR}` (Junos; `show chassis "
        "pic` not collected): not locked",
    ]
    switches = json.loads(out.read_text(encoding="utf-8"))["switches"]
    assert switches["leaf04"]["transceivers"]["swp1"] == NVUE_SWP1
    with_pic = {"spine01": {JUNOS_XCVR: junos_hardware(), PIC0: junos_pic()}}
    locked = bom.take(MULTI, baseline_with(tmp_path, MULTI, "a", with_pic))
    assert locked.notes == [] and locked.lock.switches["spine01"].transceivers is not None
    upgraded = {"spine01": {JUNOS_XCVR: junos_hardware(), PIC0: junos_pic(firmware="2.11.0")}}
    verdict = bom.verify(
        locked.lock, bom.take(MULTI, baseline_with(tmp_path, MULTI, "b", upgraded))
    )
    assert verdict.changes == [f"spine01 et-0/0/2 transceiver firmware 2.10.3 -> 2.11.0: {RERUN}"]


def test_collect_from_the_lab_asks_the_older_commands(tmp_path: Path) -> None:
    """A 5.x Cumulus (no 5.11 command in its snapshot) is asked `nv show interface pluggables`;
    a Junos switch is asked `show chassis pic` for the PIC its inventory lists; both kept."""
    from tests.collectors.labkit import collect_from, lab_for

    outputs = {
        "leaf04": {NVUE_PLUGGABLES: nvue_pluggables()},
        "spine01": {JUNOS_XCVR: junos_hardware(), PIC0: junos_pic()},
    }
    served = baseline_with(tmp_path, MULTI, "served", outputs)
    with lab_for(served) as lab:
        result = collect_from(lab, MULTI, tmp_path / "live", limit=["leaf04", "spine01"])
    assert result.complete, [(r.name, r.status) for r in result.failed]
    live = load_snapshot(result.snapshot)
    for name, wanted in (("leaf04", NVUE_PLUGGABLES), ("spine01", PIC0)):
        raw = live.devices[name].raw
        assert raw is not None, name
        assert wanted in raw.outputs, (name, sorted(raw.outputs))
        assert NCLU_PLUGGABLES not in raw.outputs
    spine = junos.parse(live.devices["spine01"].raw)  # type: ignore[arg-type]
    assert _modules(spine)["et-0/0/3"] == JUNOS_ET3
