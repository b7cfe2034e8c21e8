"""Host outputs gathered by Slurm (`bench run --hosts-via slurm`): one `fabriclint host
snapshot` task per node through `srun`, into a folder every node can write (the bundle's).

The nodes are the inventory's hosts, by device name (Slurm node names and inventory names must
be the same: `gpu01` is the node `gpu01`); inside an allocation, srun runs them as a step of
it. Each task names its folder after `$SLURMD_NODENAME`, which Slurm sets for it. srun is told
not to kill the other tasks when one exits non-zero (a host whose plan failed still writes its
folder, with its status). What srun did is recorded (`record`): argv, exit status, the tail
of its stderr (secret-named `NAME=value`s redacted: the record is a bundle file); the caller
enters each node that wrote nothing as unreachable, with that reason.
"""

from __future__ import annotations

import datetime as dt
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fabriclint.collectors.redact import MARK, redact

STDERR_TAIL = 20
"""Lines of srun's stderr kept in the record (the reason a node returned nothing)."""


_SECRET_SETTING = re.compile(
    r"(?i)\b([A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY)[A-Z0-9_]*)=([^,\s]+)"
)
"""`NAME=value` with a secret-sounding NAME, as `--export=ALL,NETBOX_TOKEN=...` passes one."""


def scrub(text: str) -> str:
    """`text` for the record: collection's redaction, then secret-named `NAME=value`s."""
    return _SECRET_SETTING.sub(rf"\1={MARK}", redact(text))


class SlurmError(Exception):
    """srun cannot be used at all (not installed): a usage error before anything runs."""


def srun_path() -> str:
    """The srun executable; SlurmError when there is none."""
    found = shutil.which("srun")
    if found is None:
        raise SlurmError("--hosts-via slurm: `srun` not found on PATH (is Slurm installed?)")
    return found


@dataclass(frozen=True)
class HostTask:
    """What each node's `host snapshot` is asked to do."""

    out: Path
    platform: str
    counters: bool
    sudo: bool = False
    command_timeout: float = 30.0


def srun_argv(srun: str, nodes: Sequence[str], task: HostTask, extra: Sequence[str]) -> list[str]:
    """One task per node, none killed when another fails, then `python -m fabriclint host
    snapshot` with the interpreter running now (the same fabriclint on a shared install)."""
    count = str(len(nodes))
    host = [sys.executable, "-m", "fabriclint", "host", "snapshot", "--out", str(task.out)]
    host += ["--platform", task.platform, "--timeout", f"{task.command_timeout:g}"]
    host += ["--counters"] * task.counters + ["--sudo"] * task.sudo
    return [
        srun,
        f"--nodes={count}",
        f"--ntasks={count}",
        "--ntasks-per-node=1",
        f"--nodelist={','.join(nodes)}",
        "--kill-on-bad-exit=0",
        "--job-name=fabriclint-host-snapshot",
        *extra,
        *host,
    ]


@dataclass
class SrunRecord:
    """What one srun did."""

    argv: list[str]
    nodes: list[str]
    exit_status: int | None = None
    error: str | None = None
    stderr: list[str] = field(default_factory=list)
    seconds: float = 0.0
    started: str = ""

    def failure(self) -> str:
        """What went wrong with srun: its status (or error) and its last stderr line."""
        status = self.error or f"srun exited with status {self.exit_status}"
        last = next((line for line in reversed(self.stderr) if line.strip()), "")
        return f"{status}: {last}" if last else status

    def reason(self) -> str:
        """Why a node that wrote nothing did not (entered as its snapshot status's error)."""
        return f"no host folder from this node through srun ({self.failure()})"

    def as_dict(self) -> dict[str, Any]:
        """The record as JSON data."""
        return dict(vars(self))


def run_srun(
    nodes: Sequence[str],
    task: HostTask,
    extra: Sequence[str] = (),
    timeout_s: float | None = None,
    env: Mapping[str, str] | None = None,
) -> SrunRecord:
    """Run the host snapshots on `nodes`; never raises for srun's sake (its failure is in the
    record, and the nodes without a folder say so)."""
    argv = srun_argv(srun_path(), nodes, task, extra)
    record = SrunRecord(argv=[scrub(arg) for arg in argv], nodes=list(nodes))
    record.started = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    start = time.monotonic()
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout_s,
            env=None if env is None else dict(env),
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        record.error = f"srun timed out after {timeout_s:g} s"
        record.stderr = _tail(exc.stderr)
    except OSError as exc:
        record.error = f"srun could not start: {exc.strerror or exc}"
    else:
        record.exit_status = done.returncode
        record.stderr = _tail(done.stderr)
    record.seconds = round(time.monotonic() - start, 3)
    return record


def _tail(data: bytes | str | None) -> list[str]:
    """The last lines of srun's stderr, redacted (a task may echo its environment)."""
    if not data:
        return []
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    return scrub(text).splitlines()[-STDERR_TAIL:]
