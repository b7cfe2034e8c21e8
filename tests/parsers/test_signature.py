"""Each parser recognises whether a text is its platform's (parsers/kit/signature.py, PARSE003).

The Dell fixtures under signature/ are written for these tests from the OS10 and OS9 (FTOS)
configuration guides' syntax: `! Version 10.x` headers, `interface ethernet1/1/1`,
`trust dscp-map`, `qos-map traffic-class`, `ets mode on`; `! Version 9.x`,
`interface TenGigabitEthernet 1/1`, `dcb-map`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fabriclint.models.raw import RawDevice, RawOutput
from fabriclint.models.state import DeviceState
from fabriclint.parsers import get_parser
from fabriclint.parsers.kit.signature import fingerprint, foreign

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"
DELL_OS10 = (HERE / "signature" / "dell_os10.cfg").read_text(encoding="utf-8")
DELL_OS9 = (HERE / "signature" / "dell_os9.cfg").read_text(encoding="utf-8")
COMMAND = {"eos": "show running-config", "nxos": "show running-config"}
COMMAND |= {"junos": "show configuration", "cumulus": "nv config show -o yaml"}
COMMAND |= {"sonic": "config_db.json"}


def parse(platform: str, text: str, file: str = "leaf01/running-config.txt") -> DeviceState:
    """Parse `text` as `platform` through the registry (what `check` does)."""
    parser = get_parser(platform)
    assert parser is not None
    outputs = {COMMAND[platform]: RawOutput(text=text, file=file)}
    return parser(RawDevice(name="leaf01", platform=platform, outputs=outputs))


@pytest.mark.parametrize("platform", ["eos", "nxos"])
def test_dell_os10_declared_as_another_platform_is_parse003(platform: str) -> None:
    state = parse(platform, DELL_OS10)
    (problem,) = state.problems
    assert problem.kind == "unparseable"
    assert problem.message.startswith("this looks like Dell OS10 (line 1: `! Version 10.5.4.0`)")
    assert f"not {platform}" in problem.message
    assert problem.source is not None and problem.source.line == 1
    assert state.interfaces == {}  # nothing parsed from a foreign text is kept


@pytest.mark.parametrize("platform", ["junos", "cumulus", "sonic"])
def test_a_parser_that_already_refuses_the_text_keeps_its_reason(platform: str) -> None:
    """Junos, NVUE and config_db.json syntax rejects an OS10 text on its own; that reason (the
    line that is not the platform's syntax) is kept, and the device is unparseable either way."""
    problems = parse(platform, DELL_OS10).problems
    assert [p.kind for p in problems][:1] == ["unparseable"]
    assert not any("looks like" in p.message for p in problems)


@pytest.mark.parametrize("platform", ["eos", "nxos"])
def test_dell_os9_ftos_is_named(platform: str) -> None:
    (problem,) = parse(platform, DELL_OS9).problems
    assert "looks like Dell OS9 (FTOS) (line 2: `! Version 9.14(2.4)`)" in problem.message


def _golden(platform: str) -> list[tuple[str, Path]]:
    out = []
    for case in sorted((GOLDEN / platform).iterdir()):
        if case.name.startswith("not_"):
            continue  # another OS's text on purpose
        out += [(platform, f) for f in sorted(case.iterdir()) if f.name not in _META]
    return out


_META = ("expected.json", "inputs.json")
GOLDEN_FILES = [g for p in ("eos", "nxos", "junos", "sonic", "cumulus") for g in _golden(p)]


@pytest.mark.parametrize(
    ("platform", "path"),
    GOLDEN_FILES,
    ids=[f"{p}/{f.parent.name}/{f.name}" for p, f in GOLDEN_FILES],
)
def test_every_golden_input_is_its_own_platforms(platform: str, path: Path) -> None:
    assert foreign(platform, path.read_text(encoding="utf-8")) is None


@pytest.mark.parametrize(
    ("declared", "source", "label"),
    [
        ("eos", "nxos", "Cisco NX-OS"),
        ("nxos", "eos", "Arista EOS"),
        ("eos", "junos", "Juniper Junos"),
        ("junos", "eos", "Arista EOS"),
        ("cumulus", "nxos", "Cisco NX-OS"),
    ],
)
def test_a_supported_platforms_config_declared_as_another(
    declared: str, source: str, label: str
) -> None:
    text = (GOLDEN / source / "roce_leaf" / _main(source)).read_text(encoding="utf-8")
    found = foreign(declared, text)
    assert found is not None and found.os.label == label


def _main(platform: str) -> str:
    return {"eos": "running-config.txt", "nxos": "running-config.txt"}.get(
        platform, "show_configuration.txt"
    )


def test_text_with_no_markers_is_not_judged() -> None:
    """A bare snippet (tests, rendered fragments) carries no OS's markers: nothing to say."""
    assert fingerprint("interface Ethernet1\n   mtu 9214\n")[0].os.label == "Arista EOS"
    assert foreign("eos", "hostname leaf01\n!\n") is None
    assert foreign("nxos", "hostname leaf01\n!\n") is None


def test_only_the_head_is_read() -> None:
    text = "hostname leaf01\n" + "!\n" * 40000 + "! Version 10.5.4.0\n"
    assert foreign("eos", text) is None
