"""Switch transceivers of SONiC (`show interfaces transceiver eeprom`), Cumulus (`nv show
platform transceiver -o json`) and Junos (`show chassis hardware | display json`) in the BOM
lock: read into the transceiver facts EOS and NX-OS fill, locked per cabled port, a swapped
optic named by `bom verify`, an output absent on one side no change, a malformed one a located
input problem (lock exit 3, verify cannot tell), and the lab answering the commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from fabriclint import bom
from fabriclint.cli.app import app
from fabriclint.commands import PLATFORMS, is_allowed
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState
from fabriclint.parsers import cumulus, junos, sonic
from fabriclint.platforms.cumulus import TRANSCEIVERS as NVUE_XCVR
from fabriclint.platforms.junos import TRANSCEIVERS as JUNOS_XCVR
from fabriclint.platforms.sonic import TRANSCEIVERS as SONIC_XCVR
from fabriclint.snapshot import load_snapshot
from tests.examples import baseline_with
from tests.fuzz.checkrun import fuzz_settings

ROOT = Path(__file__).resolve().parents[1]
MULTI = ROOT / "inventories" / "multivendor-pod"
RERUN = "rerun the benchmark"


def sonic_eeprom(serial: str = "MT2411FT00421", firmware: str = "61.20.0") -> str:
    """`show interfaces transceiver eeprom` of an SN4700 (written after the SONiC Command
    Reference layout: a `PORT: SFP EEPROM ...` header, indented fields, a nested advertisement;
    values of typical 400G CMIS optics, one empty cage)."""
    block = """\
{port}: SFP EEPROM detected
        Active Firmware: {firmware}
        Application Advertisement:
                1: 400GAUI-8 C2M (Annex 120E) | 400GBASE-DR4 (Cl 124)
                2: 200GAUI-4 C2M (Annex 120E) | 200GBASE-DR4 (Cl 121)
        CMIS Rev: 5.0
        Connector: MPO 1x12
        Identifier: QSFP-DD Double Density 8X Pluggable Transceiver
        Inactive Firmware: 61.10.0
        Media Interface Technology: 1310 nm EML
        Vendor Date Code(YYYY-MM-DD Lot): 2024-03-11
        Vendor Name: NVIDIA
        Vendor OUI: 48-b0-2d
        Vendor PN: MMS1V00-WM
        Vendor Rev: A2
        Vendor SN: {serial}
"""
    ports = {"Ethernet0": serial, "Ethernet8": "MT2411FT00422", "Ethernet240": "MT2411FT00501"}
    ports["Ethernet248"] = "MT2411FT00502"
    text = "".join(block.format(port=p, serial=s, firmware=firmware) for p, s in ports.items())
    return text + "Ethernet16: SFP EEPROM not detected\n\nEthernet24: SFP EEPROM Not detected\n"


def nvue_transceivers(serial: str = "MT2409FT10331") -> str:
    """`nv show platform transceiver -o json` of an SN4700 on Cumulus Linux 5.11 (written after
    the NVUE command reference: the text form's fields keyed by port; typical values)."""
    module = {
        "cable-type": "Optical module",
        "diagnostics-status": "Diagnostic Data Available",
        "error-status": "N/A",
        "identifier": "QSFP-DD",
        "status": "plugged_enabled",
        "vendor-date-code": "240305__",
        "vendor-name": "NVIDIA",
        "vendor-oui": "48:b0:2d",
        "vendor-pn": "MMS1V00-WM",
        "vendor-rev": "A2",
    }
    data = {
        "swp1": {**module, "vendor-sn": serial},
        "swp2": {**module, "vendor-sn": "MT2409FT10332"},
        "swp3": {"status": "unplugged", "error-status": "N/A"},
        "swp31": {**module, "vendor-sn": "MT2409FT10361"},
        "swp32": {**module, "vendor-sn": "MT2409FT10362"},
    }
    return json.dumps(data, indent=2)


def _text(value: str) -> list[dict[str, str]]:
    return [{"data": value}]


def junos_hardware(serial: str = "1W1CZ9A70011", part: str = "740-174087") -> str:
    """`show chassis hardware | display json` of a QFX5240-64OD (written after the Junos JSON
    layout of `show chassis hardware`: FPC > PIC > Xcvr; a third-party optic reads NON-JNPR;
    the `{master:0}` banner a QFX prints before its prompt)."""

    def xcvr(slot: int, serial: str, part: str) -> dict[str, object]:
        return {
            "name": _text(f"Xcvr {slot}"),
            "version": _text("REV 01"),
            "part-number": _text(part),
            "serial-number": _text(serial),
            "description": _text("OSFP-2x400G-DR4"),
        }

    xcvrs = [xcvr(0, serial, part), xcvr(1, "1W1CZ9A70012", "740-174087")]
    xcvrs += [xcvr(2, "1W1CZ9A70013", "740-174087"), xcvr(3, "G2310054321", "NON-JNPR")]
    pic: dict[str, object] = {"name": _text("PIC 0"), "part-number": _text("BUILTIN")}
    pic |= {"description": _text("64x800G OSFP"), "chassis-sub-sub-module": xcvrs}
    fpc: dict[str, object] = {"name": _text("FPC 0"), "part-number": _text("650-178901")}
    fpc |= {"version": _text("REV 12"), "serial-number": _text("WS3723AK0101")}
    fpc["chassis-sub-module"] = [pic]
    fan = {"name": _text("Fan Tray 0"), "description": _text("QFX5240 Fan Tray, Front to Back")}
    chassis = {
        "attributes": {"junos:style": "inventory"},
        "name": _text("Chassis"),
        "serial-number": _text("WS3723AK0012"),
        "description": _text("QFX5240-64OD"),
        "chassis-module": [fpc, fan],
    }
    data = {"chassis-inventory": [{"chassis": [chassis]}]}
    return json.dumps(data, indent=4) + "\n\n{master:0}\n"


PARSERS = {"sonic": sonic.parse, "cumulus": cumulus.parse, "junos": junos.parse}
COMMANDS = {"sonic": SONIC_XCVR, "cumulus": NVUE_XCVR, "junos": JUNOS_XCVR}
DEVICES = {"sonic": "leaf03", "cumulus": "leaf04", "junos": "spine01"}


def _parsed(platform: str, text: str) -> DeviceState:
    """The multivendor baseline device of `platform` parsed with `text` as its transceivers."""
    name, cmd = DEVICES[platform], COMMANDS[platform]
    base = load_snapshot(MULTI / "snapshots" / "baseline").devices[name].raw
    assert base is not None
    outputs = dict(base.outputs)
    outputs[cmd] = RawOutput(text=text, file=f"{name}/{cmd}.txt")
    return PARSERS[platform](RawDevice(name=name, platform=platform, outputs=outputs))


def _modules(state: DeviceState) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for key, value in state.facts.items():
        if key.startswith("transceiver."):
            port, _, name = key.removeprefix("transceiver.").rpartition(".")
            found.setdefault(port, {})[name] = value
    return found


def _located(state: DeviceState) -> list[tuple[str, int | None]]:
    return [(p.source.file, p.source.line) for p in state.problems if p.source is not None]


CUT_JSON = '{\n  "swp1": {\n    "vendor-name": "NVIDIA",\n'


@pytest.mark.parametrize(
    ("platform", "text", "count", "line"),
    [
        ("sonic", sonic_eeprom(), 4, None),
        ("sonic", "Ethernet0: SFP EEPROM not detected\nEthernet8: SFP EEPROM is not applicable "
         "for RJ45 port\n", 0, None),
        ("sonic", "Ethernet0: SFP EEPROM detected\n        Vendor Name: N/A\n", 0, None),
        ("sonic", "Ethernet0:1 (ganged): SFP EEPROM detected\n        Vendor SN: A1\n"
         "Ethernet0:2 (ganged): SFP EEPROM detected\n        Vendor SN: A2\n", 1, None),
        ("sonic", "", None, 1),
        ("sonic", "Ethernet0: SFP EEPROM detected\n        Vendor SN: X1\nUsage: show [OPTIONS]\n",
         None, 3),
        ("sonic", "        Vendor SN: X1\nEthernet0: SFP EEPROM detected\n", None, 1),
        ("sonic", '{"Ethernet0": {"vendor_name": "NVIDIA"}}', None, 1),
        ("cumulus", nvue_transceivers(), 4, None),
        ("cumulus", "{}", 0, None),
        ("cumulus", CUT_JSON, None, 4),
        ("cumulus", '["swp1"]', None, 1),
        ("cumulus", '{\n"swp1": {"vendor-sn": "A"},\n"swp2": "NVIDIA"\n}', None, 3),
        ("junos", junos_hardware(), 4, None),
        ("junos", '{"chassis-inventory": [{"chassis": [{"name": [{"data": "Chassis"}]}]}]}',
         0, None),
        ("junos", '{\n"chassis-inventory": [\n{"chassis": [\n', None, 4),
        ("junos", '{"interface-information": []}', None, 1),
        ("junos", '{"chassis-inventory": [{"chassis": [{\n"chassis-module": "FPC 0"}]}]}',
         None, 2),
        ("junos", "\n{master:0}\n", None, 3),
    ],
    ids=["sonic", "sonic-none", "sonic-n-a", "sonic-ganged", "sonic-empty", "sonic-usage", "sonic-no-header",
         "sonic-json", "nvue", "nvue-none", "nvue-cut-off", "nvue-list", "nvue-port-string",
         "junos", "junos-none", "junos-cut-off", "junos-other-json", "junos-module-string",
         "junos-banner-only"],
)  # fmt: skip
def test_transceiver_outputs(platform: str, text: str, count: int | None, line: int | None) -> None:
    state = _parsed(platform, text)
    if count is None:
        assert "transceivers" not in state.facts
        name, cmd = DEVICES[platform], COMMANDS[platform]
        assert _located(state) == [(f"{name}/{cmd}.txt", line)]
        return
    assert _located(state) == []
    assert state.facts["transceivers"] == str(count)
    assert len(_modules(state)) == count


@pytest.mark.parametrize(
    ("platform", "port", "module"),
    [
        ("sonic", "Ethernet0", {"vendor": "NVIDIA", "part_number": "MMS1V00-WM",
                                "serial": "MT2411FT00421", "firmware": "61.20.0"}),
        ("cumulus", "swp1", {"vendor": "NVIDIA", "part_number": "MMS1V00-WM",
                             "serial": "MT2409FT10331"}),
        ("junos", "et-0/0/0", {"part_number": "740-174087", "serial": "1W1CZ9A70011"}),
        ("junos", "et-0/0/3", {"part_number": "NON-JNPR", "serial": "G2310054321"}),
    ],
)  # fmt: skip
def test_the_fields_each_output_shows(platform: str, port: str, module: dict[str, str]) -> None:
    text = {"sonic": sonic_eeprom, "cumulus": nvue_transceivers, "junos": junos_hardware}
    assert _modules(_parsed(platform, text[platform]()))[port] == module


def test_a_cage_serves_its_breakouts_and_channels() -> None:
    from fabriclint.parsers.cumulus.optics import cages
    from fabriclint.parsers.junos.optics import inventory

    nvue = cages(nvue_transceivers(), ["swp1s0", "swp1s1", "swp2"]).modules
    assert nvue["swp1s0"]["serial"] == nvue["swp1s1"]["serial"] == "MT2409FT10331"
    assert nvue["swp1"] == nvue["swp1s0"]
    chassis = inventory(junos_hardware(), ["et-0/0/0:0", "et-0/0/0:1", "et-0/0/1"]).modules
    assert chassis["et-0/0/0:1"]["serial"] == "1W1CZ9A70011"
    assert chassis["et-0/0/2"]["serial"] == "1W1CZ9A70013"  # no interface known: et-f/p/N
    assert "et-0/0/0" not in chassis
    # an MX: FPC > MIC > PIC > Xcvr, the MIC not part of the port name
    xcvr = {"name": _text("Xcvr 1"), "part-number": _text("740-021308")}
    xcvr["serial-number"] = _text("AD1138A02V5")
    pic = {"name": _text("PIC 2"), "chassis-sub-sub-sub-module": [xcvr]}
    mic = {"name": _text("MIC 1"), "chassis-sub-sub-module": [pic]}
    fpc = {"name": _text("FPC 1"), "chassis-sub-module": [mic]}
    mx = json.dumps({"chassis-inventory": [{"chassis": [{"chassis-module": [fpc]}]}]})
    assert inventory(mx, ["xe-1/2/1"]).modules == {
        "xe-1/2/1": {"part_number": "740-021308", "serial": "AD1138A02V5"}
    }


def _outputs(
    sonic_text: str | None, nvue: str | None, chassis: str | None
) -> dict[str, dict[str, str]]:
    """Extra baseline outputs: each platform's transceiver text (None: not collected)."""
    extra: dict[str, dict[str, str]] = {}
    for platform, text in (("sonic", sonic_text), ("cumulus", nvue), ("junos", chassis)):
        if text is not None:
            extra[DEVICES[platform]] = {COMMANDS[platform]: text}
    return extra


ALL = (sonic_eeprom(), nvue_transceivers(), junos_hardware())


@pytest.mark.parametrize(
    ("now", "changes"),
    [
        (ALL, []),
        ((sonic_eeprom(serial="MT2433FT09999"), *ALL[1:]),
         [f"leaf03 Ethernet0 transceiver serial MT2411FT00421 -> MT2433FT09999: {RERUN}"]),
        ((sonic_eeprom(firmware="61.30.1"), *ALL[1:]),
         [f"leaf03 Ethernet0 transceiver firmware 61.20.0 -> 61.30.1: {RERUN}",
          f"leaf03 Ethernet240 transceiver firmware 61.20.0 -> 61.30.1: {RERUN}",
          f"leaf03 Ethernet248 transceiver firmware 61.20.0 -> 61.30.1: {RERUN}",
          f"leaf03 Ethernet8 transceiver firmware 61.20.0 -> 61.30.1: {RERUN}"]),
        ((ALL[0], nvue_transceivers(serial="MT2450FT00007"), ALL[2]),
         [f"leaf04 swp1 transceiver serial MT2409FT10331 -> MT2450FT00007: {RERUN}"]),
        ((*ALL[:2], junos_hardware(serial="G2399000001", part="NON-JNPR")),
         [f"spine01 et-0/0/0 transceiver part_number 740-174087 -> NON-JNPR: {RERUN}",
          f"spine01 et-0/0/0 transceiver serial 1W1CZ9A70011 -> G2399000001: {RERUN}"]),
        ((None, None, None), []),
    ],
    ids=["same", "sonic-serial", "sonic-firmware", "nvue-serial", "junos-third-party",
         "not-shown-now"],
)  # fmt: skip
def test_lock_then_verify(
    tmp_path: Path, now: tuple[str | None, str | None, str | None], changes: list[str]
) -> None:
    locked = bom.take(MULTI, baseline_with(tmp_path, MULTI, "a", _outputs(*ALL))).lock
    verdict = bom.verify(
        locked, bom.take(MULTI, baseline_with(tmp_path, MULTI, "b", _outputs(*now)))
    )
    assert verdict.changes == changes
    assert verdict.exit_code == (1 if changes else 0)


def test_only_cabled_ports_are_locked_and_not_shown_is_none(tmp_path: Path) -> None:
    shown = bom.take(MULTI, baseline_with(tmp_path, MULTI, "a", _outputs(*ALL))).lock
    sonic_optics = shown.switches["leaf03"].transceivers
    assert sonic_optics is not None and sorted(sonic_optics) == [
        "Ethernet0", "Ethernet240", "Ethernet248", "Ethernet8",
    ]  # fmt: skip
    assert shown.switches["leaf04"].transceivers is not None
    spine = shown.switches["spine01"].transceivers
    assert spine is not None and spine["et-0/0/3"]["part_number"] == "NON-JNPR"
    plain = bom.take(MULTI, baseline_with(tmp_path, MULTI, "b", {})).lock
    assert {n: plain.switches[n].transceivers for n in ("leaf03", "leaf04", "spine01")} == {
        "leaf03": None, "leaf04": None, "spine01": None,
    }  # fmt: skip
    now = bom.take(MULTI, baseline_with(tmp_path, MULTI, "c", _outputs(*ALL)))
    assert bom.verify(plain, now).changes == []  # not in the lock: not shown, never a change


@pytest.mark.parametrize(
    ("platform", "text", "line"),
    [("sonic", "Ethernet0 SFP EEPROM detected\n", 1), ("cumulus", CUT_JSON, 4),
     ("junos", '{\n"chassis-inventory": [\n{"chassis": [\n', 4)],
)  # fmt: skip
def test_a_malformed_output_makes_lock_exit_3_and_verify_cannot_tell(
    tmp_path: Path, platform: str, text: str, line: int
) -> None:
    name, cmd = DEVICES[platform], COMMANDS[platform]
    bad = baseline_with(tmp_path, MULTI, "bad", {name: {cmd: text}})
    taken = bom.take(MULTI, bad)
    assert set(taken.unreadable) == {name}
    file = load_snapshot(bad).devices[name].raw
    assert file is not None
    assert taken.unreadable[name].endswith(f"{file.outputs[cmd].file}:{line}")
    locked = bom.take(MULTI, baseline_with(tmp_path, MULTI, "good", _outputs(*ALL))).lock
    assert bom.verify(locked, taken).exit_code == 3
    out = tmp_path / "bom.lock.json"
    result = CliRunner().invoke(
        app, ["bom", "lock", str(MULTI), "--snapshot", str(bad), "--out", str(out)]
    )
    assert result.exit_code == 3, result.output
    assert f"{name}: cannot lock" in result.output and not out.exists()


def test_bom_lock_and_verify_through_the_cli(tmp_path: Path) -> None:
    """The gate's own commands on the multivendor pod (temp copies of its baseline): lock with
    every platform's transceivers, then verify a snapshot where one optic per platform was
    swapped (exit 1, each named), the same outputs (exit 0) and none collected (exit 0)."""
    runner = CliRunner()
    before = baseline_with(tmp_path, MULTI, "before", _outputs(*ALL))
    lock = tmp_path / "bom.lock.json"
    locked = runner.invoke(
        app, ["bom", "lock", str(MULTI), "--snapshot", str(before), "--out", str(lock)]
    )
    assert locked.exit_code == 0, locked.output
    switches = json.loads(lock.read_text(encoding="utf-8"))["switches"]
    assert switches["leaf03"]["transceivers"]["Ethernet0"]["firmware"] == "61.20.0"
    assert switches["leaf04"]["transceivers"]["swp2"]["serial"] == "MT2409FT10332"
    assert switches["spine02"].get("transceivers") is None  # no output collected there
    swapped = _outputs(
        sonic_eeprom(serial="MT2433FT09999"),
        nvue_transceivers(serial="MT2450FT00007"),
        junos_hardware(serial="1W1CZ9A79999"),
    )
    cases = {
        "swapped": (swapped, 1),
        "same": (_outputs(*ALL), 0),
        "not-shown": ({}, 0),
    }
    for name, (extra, code) in cases.items():
        snap = baseline_with(tmp_path, MULTI, name, extra)
        result = runner.invoke(
            app, ["bom", "verify", str(MULTI), "--lock", str(lock), "--snapshot", str(snap)]
        )
        assert result.exit_code == code, (name, result.output)
        named = [line for line in result.stdout.splitlines() if "transceiver" in line]
        assert named == ([
            f"leaf03 Ethernet0 transceiver serial MT2411FT00421 -> MT2433FT09999: {RERUN}",
            f"leaf04 swp1 transceiver serial MT2409FT10331 -> MT2450FT00007: {RERUN}",
            f"spine01 et-0/0/0 transceiver serial 1W1CZ9A70011 -> 1W1CZ9A79999: {RERUN}",
        ] if code else []), name  # fmt: skip


def test_the_commands_are_optional_and_allowlisted() -> None:
    for platform, command in COMMANDS.items():
        spec = next(c for c in PLATFORMS[platform].commands if c.key == command)
        assert spec.optional, (platform, command)
        assert is_allowed(platform, command)
    assert not is_allowed("sonic", "show interfaces transceiver eeprom; reboot")
    assert not is_allowed("sonic", "sudo sfputil reset Ethernet0")
    assert not is_allowed("junos", "show chassis hardware | display json | save /tmp/x")
    assert not is_allowed("cumulus", "nv action reset platform transceiver swp1")


def test_collect_from_the_lab_gets_the_transceivers(tmp_path: Path) -> None:
    """The lab serves a snapshot holding the outputs under their commands; `collect` asks for
    them (optional, allowlisted) and gets them; a device whose snapshot lacks one answers the
    platform's error, which collection skips as not available (the lock: not shown)."""
    from fabriclint.collectors.plan import command_error
    from tests.collectors.labkit import collect_from, lab_for

    served = baseline_with(tmp_path, MULTI, "served", _outputs(*ALL))
    text = dict(zip(("sonic", "cumulus", "junos"), ALL, strict=True))
    out = tmp_path / "live"
    with lab_for(served) as lab:
        result = collect_from(lab, MULTI, out, limit=["leaf03", "leaf04", "spine01", "spine02"])
        spine02 = lab.devices["spine02"]
        assert command_error("junos", spine02.answer(JUNOS_XCVR)) is not None
    assert result.complete, [(r.name, r.status) for r in result.failed]
    live = load_snapshot(result.snapshot)
    for platform, name in DEVICES.items():
        raw = live.devices[name].raw
        assert raw is not None, name
        assert COMMANDS[platform] in raw.outputs, (name, sorted(raw.outputs))
        state = PARSERS[platform](raw)
        assert _located(state) == [] and int(state.facts["transceivers"]) == 4, name
        assert _modules(state) == _modules(_parsed(platform, text[platform])), name
    spine02_raw = live.devices["spine02"].raw
    assert spine02_raw is not None and JUNOS_XCVR not in spine02_raw.outputs


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(
        st.sampled_from(["chassis-inventory", "chassis", "chassis-module", "chassis-sub-module",
                         "chassis-sub-sub-module", "name", "data", "part-number", "serial-number",
                         "swp1", "vendor-sn", "status", "Xcvr 0", "FPC 0"]),
        inner,
        max_size=4,
    ),
    max_leaves=20,
)  # fmt: skip
_LINES = st.lists(
    st.sampled_from(["Ethernet0: SFP EEPROM detected", "Ethernet4: SFP EEPROM not detected",
                     "        Vendor SN: X", "        Vendor Name:", "\t", "", "Usage: x",
                     "Ethernet0:1 (ganged): SFP EEPROM detected", "                1: 400G"]),
    max_size=8,
).map("\n".join)  # fmt: skip


@fuzz_settings(150)
@given(data=_JSON, lines=_LINES)
def test_the_readers_never_raise(data: object, lines: str) -> None:
    """Any JSON value or mix of eeprom lines gives modules or a located error, never an
    exception (which would be an internal error, not the input problem it is)."""
    from fabriclint.parsers.cumulus.optics import cages
    from fabriclint.parsers.junos.optics import inventory
    from fabriclint.parsers.sonic.optics import blocks

    text = json.dumps(data, indent=1)
    for read in (cages(text, ["swp1s0"]), inventory(text, ["et-0/0/0"]), blocks(lines)):
        assert (read.error is None) or read.line >= 1
        assert read.error is None or read.modules == {}
