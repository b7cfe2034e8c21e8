"""The last BOM items: kernel (`uname -r`) and CUDA version (the `nvidia-smi` header) per host,
and switch transceivers (EOS `show inventory | json`, NX-OS `show interface transceiver details
| json`) per cabled port. Each: parsed, locked, a change named by `bom verify`, an absent output
not a change, a malformed output a located input problem."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fabriclint import bom
from fabriclint.commands import PLATFORMS, is_allowed
from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState
from fabriclint.parsers import eos, mlnx_host, nxos
from fabriclint.platforms.eos import TRANSCEIVERS as EOS_XCVR
from fabriclint.platforms.mlnx_host import NVIDIA_SMI_SUMMARY, UNAME
from fabriclint.platforms.nxos import TRANSCEIVERS as NXOS_XCVR
from fabriclint.snapshot import load_snapshot
from tests.examples import baseline_with

ROOT = Path(__file__).resolve().parents[1]
ROCE = ROOT / "inventories" / "roce-pod"
MULTI = ROOT / "inventories" / "multivendor-pod"

# The summary table of an HGX H100 node as plain `nvidia-smi` prints it (written after
# nvidia-smi(1); the header line carries the driver and CUDA versions; one GPU row kept).
SUMMARY = """\
Tue Dec  1 20:15:02 2026
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: {cuda}     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
|=========================================+========================+======================|
|   0  NVIDIA H100 80GB HBM3          On  |   00000000:18:00.0 Off |                    0 |
+-----------------------------------------+------------------------+----------------------+
"""


def eos_inventory(serial: str = "XKT2412A0B1C") -> str:
    """`show inventory | json` of a DCS-7060X5-64S (written after the EOS Command API Guide:
    `xcvrSlots` by front-panel slot; values of typical 400G optics, one empty cage)."""
    slot = {"mfgName": "Arista Networks", "modelName": "OSFP-400G-DR4", "hardwareRev": "11"}
    slots = {
        "1": {**slot, "serialNum": serial},
        "2": {**slot, "serialNum": "XKT2412A0B2D"},
        "33": {**slot, "serialNum": "XKT2412A0C33"},
        "34": {**slot, "serialNum": "XKT2412A0C34"},
        "35": {"mfgName": "Not Present", "modelName": "", "serialNum": "", "hardwareRev": ""},
    }
    data = {"fpgas": {}, "xcvrSlots": slots, "systemInformation": {"name": "DCS-7060X5-64S"}}
    return json.dumps(data, indent=2)


def nxos_transceivers(serial: str = "INL27150123") -> str:
    """`show interface transceiver details | json` of a Nexus 9364D-GX2A (written after the
    NX-API row layout: `TABLE_interface.ROW_interface`; typical 400G QSFP-DD values)."""
    present = {"sfp": "present", "type": "QDD-400G-DR4-S", "name": "CISCO-INNOLIGHT"}
    rows = [
        {"interface": "Ethernet1/1", **present, "partnum": "T-DQ4CNT-NC2", "serialnum": serial},
        {"interface": "Ethernet1/2", **present, "partnum": "T-DQ4CNT-NC2", "serialnum": "INL2"},
        {"interface": "Ethernet1/3", "sfp": "not present"},
    ]
    return json.dumps({"TABLE_interface": {"ROW_interface": rows}}, indent=2)


def _parsed(platform: str, name: str, cmd: str, text: str, fabric: Path = ROCE) -> DeviceState:
    """The baseline device `name` parsed with `text` as its `cmd` output."""
    base = load_snapshot(fabric / "snapshots" / "baseline").devices[name].raw
    assert base is not None
    outputs = dict(base.outputs)
    outputs[cmd] = RawOutput(text=text, file=f"{name}/{cmd}.txt")
    parser = {"eos": eos.parse, "nxos": nxos.parse, "mlnx-host": mlnx_host.parse}[platform]
    return parser(RawDevice(name=name, platform=platform, outputs=outputs))


def _located(state: DeviceState) -> list[tuple[str, int | None]]:
    """(file, line) of each input problem."""
    return [(p.source.file, p.source.line) for p in state.problems if p.source is not None]


@pytest.mark.parametrize(
    ("text", "kernel", "line"),
    [
        ("6.8.0-40-generic\n", "6.8.0-40-generic", None),
        ("4.18.0-513.24.1.el8_9.x86_64\n", "4.18.0-513.24.1.el8_9.x86_64", None),
        ("", None, None),
        ("Linux gpu01 6.8.0-40-generic #40-Ubuntu SMP x86_64 GNU/Linux\n", None, 1),
        ("6.8.0-40-generic\n6.5.0-1\n", None, 2),
    ],
    ids=["ubuntu", "rhel", "empty", "uname-a-instead", "two-lines"],
)
def test_kernel(text: str, kernel: str | None, line: int | None) -> None:
    state = _parsed("mlnx-host", "gpu01", UNAME, text)
    assert state.facts.get("kernel") == kernel
    assert _located(state) == ([] if line is None else [(f"gpu01/{UNAME}.txt", line)])


@pytest.mark.parametrize(
    ("text", "cuda", "line"),
    [
        (SUMMARY.format(cuda="12.4"), "12.4", None),
        (
            "    Driver Version                        : 550.54.15\n    CUDA Version : 12.4\n",
            "12.4",
            None,
        ),
        (SUMMARY.format(cuda="N/A "), None, None),
        ("No devices were found\n", None, None),
        (
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
            None,
            None,
        ),
        (SUMMARY.format(cuda="twelve"), None, 3),
        ("Tue Dec  1 20:15:02 2026\n+------+\n", None, 1),
    ],
    ids=["summary", "query-form", "n-a", "no-gpu", "driver-down", "garbled-value", "no-header"],
)
def test_cuda(text: str, cuda: str | None, line: int | None) -> None:
    state = _parsed("mlnx-host", "gpu01", NVIDIA_SMI_SUMMARY, text)
    assert state.facts.get("cuda_version") == cuda
    want = [] if line is None else [(f"gpu01/{NVIDIA_SMI_SUMMARY}.txt", line)]
    assert _located(state) == want


@pytest.mark.parametrize(
    ("platform", "name", "text", "modules", "line"),
    [
        ("eos", "leaf01", eos_inventory(), 4, None),
        ("eos", "leaf01", '{"xcvrSlots": {}}', 0, None),
        ("eos", "leaf01", '{\n  "xcvrSlots": {\n    "1": \n', None, 4),
        ("eos", "leaf01", '{"xcvrSlots": ["1"]}', None, 1),
        ("eos", "leaf01", '{\n"xcvrSlots": {\n"1": "Arista"}}', None, 3),
        ("nxos", "leaf02", nxos_transceivers(), 2, None),
        ("nxos", "leaf02", '{"TABLE_interface": {"ROW_interface": {"interface": "Ethernet1/1", '
         '"sfp": "present", "name": "CISCO", "partnum": "P", "serialnum": "S"}}}', 1, None),
        ("nxos", "leaf02", '{"TABLE_interface": {}}', None, 1),
        ("nxos", "leaf02", '{\n"TABLE_interface": {\n"ROW_interface": [{"sfp": "present"}]}}', None, 3),
    ],
    ids=["eos", "eos-none", "eos-cut-off", "eos-list", "eos-slot-string",
         "nxos", "nxos-one-row", "nxos-no-rows", "nxos-no-interface"],
)  # fmt: skip
def test_switch_transceivers(
    platform: str, name: str, text: str, modules: int | None, line: int | None
) -> None:
    cmd = EOS_XCVR if platform == "eos" else NXOS_XCVR
    fabric = ROCE if platform == "eos" else MULTI
    state = _parsed(platform, name, cmd, text, fabric)
    shown = {k: v for k, v in state.facts.items() if k.startswith("transceiver")}
    if modules is None:
        assert shown == {}
        assert _located(state) == [(f"{name}/{cmd}.txt", line)]
        return
    assert _located(state) == []
    assert shown["transceivers"] == str(modules)
    assert len([k for k in shown if k.endswith(".serial")]) >= modules


def test_an_eos_slot_serves_each_lane_interface() -> None:
    state = _parsed("eos", "leaf01", EOS_XCVR, eos_inventory())
    assert state.facts["transceiver.Ethernet33/1.serial"] == "XKT2412A0C33"
    assert state.facts["transceiver.Ethernet1/1.vendor"] == "Arista Networks"
    assert state.facts["transceiver.Ethernet1/1.part_number"] == "OSFP-400G-DR4"
    assert not any(k.startswith("transceiver.Ethernet35") for k in state.facts)  # empty cage


def _host_outputs(kernel: str, cuda: str) -> dict[str, dict[str, str]]:
    return {"gpu01": {UNAME: f"{kernel}\n", NVIDIA_SMI_SUMMARY: SUMMARY.format(cuda=cuda)}}


def test_kernel_and_cuda_are_locked_and_a_change_is_named(tmp_path: Path) -> None:
    before = baseline_with(tmp_path, ROCE, "a", _host_outputs("6.8.0-40-generic", "12.4"))
    locked = bom.take(ROCE, before).lock
    assert (locked.hosts["gpu01"].kernel, locked.hosts["gpu01"].cuda) == (
        "6.8.0-40-generic",
        "12.4",
    )
    assert locked.hosts["gpu02"].kernel is None  # no output: not shown
    after = baseline_with(tmp_path, ROCE, "b", _host_outputs("6.8.0-45-generic", "12.2"))
    assert bom.verify(locked, bom.take(ROCE, after)).changes == [
        "gpu01 cuda 12.4 -> 12.2: rerun the benchmark",
        "gpu01 kernel 6.8.0-40-generic -> 6.8.0-45-generic: rerun the benchmark",
    ]


def test_switch_transceivers_are_locked_and_a_swap_is_named(tmp_path: Path) -> None:
    extra = {"leaf01": {EOS_XCVR: eos_inventory()}, "leaf02": {NXOS_XCVR: nxos_transceivers()}}
    locked = bom.take(MULTI, baseline_with(tmp_path, MULTI, "a", extra)).lock
    eos_optics = locked.switches["leaf01"].transceivers
    assert eos_optics is not None and eos_optics["Ethernet1/1"] == {
        "vendor": "Arista Networks",
        "part_number": "OSFP-400G-DR4",
        "serial": "XKT2412A0B1C",
    }
    nx_optics = locked.switches["leaf02"].transceivers
    assert nx_optics is not None and nx_optics["Ethernet1/1"]["serial"] == "INL27150123"
    assert "Ethernet1/3" not in nx_optics  # empty cage, and not cabled
    assert locked.switches["leaf03"].transceivers is None  # SONiC: no output read, not shown
    swapped = {
        "leaf01": {EOS_XCVR: eos_inventory(serial="XKT2433Z9Z9Z")},
        "leaf02": {NXOS_XCVR: nxos_transceivers(serial="INL28990999")},
    }
    now = bom.take(MULTI, baseline_with(tmp_path, MULTI, "b", swapped))
    assert bom.verify(locked, now).changes == [
        "leaf01 Ethernet1/1 transceiver serial XKT2412A0B1C -> XKT2433Z9Z9Z: rerun the benchmark",
        "leaf02 Ethernet1/1 transceiver serial INL27150123 -> INL28990999: rerun the benchmark",
    ]


def test_outputs_absent_on_one_side_are_no_change(tmp_path: Path) -> None:
    extra = {
        **_host_outputs("6.8.0-40-generic", "12.4"),
        "leaf01": {EOS_XCVR: eos_inventory()},
    }
    shown = bom.take(ROCE, baseline_with(tmp_path, ROCE, "a", extra))
    plain = bom.take(ROCE, baseline_with(tmp_path, ROCE, "b", {}))
    assert bom.verify(shown.lock, plain).exit_code == 0
    assert bom.verify(plain.lock, shown).exit_code == 0
    assert plain.lock.switches["leaf01"].transceivers is None


def test_a_malformed_output_is_a_located_input_problem(tmp_path: Path) -> None:
    extra = {"gpu01": {UNAME: "garbage here\n"}, "leaf01": {EOS_XCVR: "% Invalid inpu\n{"}}
    taken = bom.take(ROCE, baseline_with(tmp_path, ROCE, "a", extra))
    assert set(taken.unreadable) == {"gpu01", "leaf01"}
    assert taken.unreadable["gpu01"].endswith(f"gpu01/{UNAME.replace(' ', '_')}.txt:1")
    assert "not JSON" in taken.unreadable["leaf01"]
    locked = bom.take(ROCE, baseline_with(tmp_path, ROCE, "b", {})).lock
    assert bom.verify(locked, taken).exit_code == 3  # cannot tell, never "the same"


def test_the_commands_are_optional_and_allowlisted() -> None:
    for platform, command in (("mlnx-host", UNAME), ("mlnx-host", NVIDIA_SMI_SUMMARY),
                              ("eos", EOS_XCVR), ("nxos", NXOS_XCVR)):  # fmt: skip
        spec = next(c for c in PLATFORMS[platform].commands if c.key == command)
        assert spec.optional, (platform, command)
        assert is_allowed(platform, command)
    assert not is_allowed("eos", "show inventory | json > flash:x")


def test_the_lab_answers_the_new_commands_absent_from_a_snapshot_as_failures() -> None:
    """The lab serves a snapshot's outputs; one without these files answers the platform's
    error, which collection takes as "not available" (optional): not shown in the lock."""
    from fabriclint.collectors.plan import command_error
    from fabriclint.lab.device import load_snapshot_devices

    devices = {d.name: d for d in load_snapshot_devices(ROCE / "snapshots" / "baseline")}
    for name, platform, command in (("leaf01", "eos", EOS_XCVR), ("gpu01", "mlnx-host", UNAME),
                                    ("gpu01", "mlnx-host", NVIDIA_SMI_SUMMARY)):  # fmt: skip
        answer = devices[name].answer(command)
        assert command_error(platform, answer) is not None, (name, command, answer)
    multi = {d.name: d for d in load_snapshot_devices(MULTI / "snapshots" / "baseline")}
    assert command_error("nxos", multi["leaf02"].answer(NXOS_XCVR)) is not None
