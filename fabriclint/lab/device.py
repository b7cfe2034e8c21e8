"""A simulated device: its prompt, its answers (from a snapshot's files) and its faults.

Pure behaviour, no networking (lab/server.py serves it over SSH). Answers are looked up by the
exact command line received; `commands.key_to_command` maps each snapshot key back to the
command fabriclint sends for it (`config_db.json` <- `show runningconfiguration all`).
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from fabriclint.commands import PLATFORMS, SESSION_COMMANDS, SUDO, Platform, key_to_command
from fabriclint.confine import read_inside
from fabriclint.lab.counters import MovingCounters
from fabriclint.lab.faults import Fault
from fabriclint.snapshot import SnapshotError, read_manifest, safe_manifest

# What the terminal-setup commands netmiko sends print on each kind of CLI.
_PREP_REPLIES: dict[str, dict[str, str]] = {
    "arista_eos": {
        "terminal width 511": "Width set to 511 columns.",
        "terminal length 0": "Pagination disabled.",
    },
    "cisco_nxos": {},
    "juniper_junos": {
        "set cli screen-width 511": "Screen width set to 511",
        "set cli complete-on-space off": "Disabling complete-on-space",
        "set cli screen-length 0": "Screen length set to 0",
    },
    "linux": {},
}


@dataclass
class LabDevice:
    """One simulated device."""

    name: str
    platform: str
    outputs: dict[str, str]
    """Command line (as fabriclint sends it) -> the text to answer."""
    fault: Fault = field(default_factory=Fault)
    counters: MovingCounters | None = None
    """Counters that advance per collection (`lab serve --counters SCENARIO`), if any."""

    @property
    def device_type(self) -> str:
        """The netmiko device type this device imitates."""
        return PLATFORMS[self.platform].device_type

    def prompt(self, username: str) -> str:
        """The prompt netmiko's device type expects."""
        if self.device_type == "juniper_junos":
            return f"\n{username}@{self.name}> "
        if self.device_type == "linux":
            return f"{username}@{self.name}:~$ "
        return f"{self.name}#"

    def is_session_command(self, line: str) -> bool:
        """Terminal setup / logout that netmiko sends (not a fabriclint command)."""
        return line in SESSION_COMMANDS[self.device_type]

    def answer(self, line: str) -> str:
        """The text printed for one received line (before the prompt)."""
        prep = _PREP_REPLIES[self.device_type]
        if line in prep:
            return prep[line]
        if self.is_session_command(line):
            return ""
        command = line.removeprefix(SUDO) if self.device_type == "linux" else line
        if self.counters is not None and command in self.counters.current:
            return self.counters.current[command]
        if command in self.outputs:
            return self.outputs[command]
        return self.error(command)

    def error(self, command: str) -> str:
        """What the platform prints for a command it does not know (or a file it lacks)."""
        if self.device_type == "arista_eos":
            return "% Invalid input"
        if self.device_type == "cisco_nxos":
            return "% Invalid command at '^' marker."
        if self.device_type == "juniper_junos":
            return "                      ^\nunknown command."
        words = command.split()
        if words and words[0] == "cat" and len(words) == 2:
            return f"cat: {words[1]}: No such file or directory"
        return f"-bash: {words[0] if words else command}: command not found"


_EOS_HEADER = re.compile(r"^! device: (\S+) \(([^,]+), (?:EOS-)?([^)]+)\)", re.MULTILINE)


def eos_extras(name: str, running_config: str) -> dict[str, str]:
    """`show version | json` and `show hostname | json` (napalm facts) from the config header."""
    match = _EOS_HEADER.search(running_config)
    model, version = (match[2], match[3]) if match else ("vEOS-lab", "4.31.2F")
    show_version = {
        "modelName": model,
        "serialNumber": f"LAB{zlib.crc32(name.encode()) % 10**8:08d}",
        "version": version,
        "internalVersion": f"{version}-lab",
        "bootupTimestamp": 1_700_000_000.0,
    }
    return {
        "show version | json": json.dumps(show_version, indent=2),
        "show hostname | json": json.dumps({"hostname": name, "fqdn": f"{name}.lab"}, indent=2),
    }


def _facts_answers(name: str, platform: Platform, outputs: dict[str, str]) -> dict[str, str]:
    """What the platform's napalm facts commands answer, made up from its configuration
    (napalm reads facts only where the descriptor names a driver and facts commands)."""
    make = FACTS_ANSWERS.get(platform.napalm or "") if platform.facts else None
    config = outputs.get(platform.config_keys[0]) if platform.config_keys else None
    return make(name, config) if make is not None and config is not None else {}


FACTS_ANSWERS = {"eos": eos_extras}
"""Lab answers to napalm's get_facts commands, by napalm driver name."""


def load_snapshot_devices(snapshot: Path) -> list[LabDevice]:
    """Every device the snapshot collected (status ok), answering with its files."""
    manifest = read_manifest(safe_manifest(snapshot))
    devices: list[LabDevice] = []
    for name, entry in manifest.devices.items():
        if entry.status != "ok" or entry.platform not in PLATFORMS:
            continue
        outputs: dict[str, str] = {}
        for key, filename in entry.files.items():
            command = key_to_command(entry.platform, key) or key
            outputs[command] = _read_text(snapshot / name / filename, snapshot)
        outputs = _facts_answers(name, PLATFORMS[entry.platform], outputs) | outputs
        devices.append(LabDevice(name=name, platform=entry.platform, outputs=outputs))
    return devices


def _read_text(path: Path, snapshot: Path) -> str:
    """A snapshot file as text (confined to the snapshot: it is untrusted); SnapshotError
    (file and line) when it is not UTF-8."""
    data = read_inside(path, snapshot)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        message = (
            f"{path}:{line}: not UTF-8 text (byte {exc.start}: {exc.reason}); the lab serves text"
        )
        raise SnapshotError(message) from None
