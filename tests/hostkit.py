"""Stand-in host tools for `host snapshot` tests: a folder of scripts, one per tool of the
host platform's plan, each printing the output a snapshot holds for its exact command line
(the file `command_to_filename` names) and answering `command not found` (exit 127) for any
other, so a test host shows exactly one snapshot device's outputs whatever is installed."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from fabriclint.commands import COUNTER_COMMANDS, PLATFORMS

SCRIPT = """#!/bin/sh
key="$(basename "$0")${{1+ $*}}"
file={data}/"$(printf '%s' "$key" | sed -e 's|/|%2F|g' -e 's| |_|g').txt"
if [ -f "$file" ]; then cat "$file"; exit 0; fi
echo "$(basename "$0"): command not found" >&2
exit 127
"""


def tools(platform: str = "mlnx-host") -> list[str]:
    """Every program the platform's plans run (configuration and counters)."""
    spec = PLATFORMS[platform]
    keys = [c.command for c in spec.commands] + list(spec.templates)
    counters = COUNTER_COMMANDS.get(platform)
    if counters is not None:
        keys += [c.command for c in counters.commands]
        keys += [p.pattern for p in counters.patterns]
    return sorted({m[0] for key in keys if (m := re.match(r"[A-Za-z0-9_]+", key))})


def fake_tools(bin_dir: Path, data: Path, platform: str = "mlnx-host") -> Path:
    """Write the stand-in tools into `bin_dir`, serving the outputs in `data` (a device's
    snapshot folder); returns `bin_dir` (put it first on PATH)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    for tool in tools(platform):
        script = bin_dir / tool
        script.write_text(SCRIPT.format(data=shlex.quote(str(data))))
        script.chmod(0o755)
    return bin_dir
