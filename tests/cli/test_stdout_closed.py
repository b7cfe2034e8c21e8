"""A stdout the shell closed or that is full is not fabriclint's bug: one line on stderr and
exit 3 (the result was not delivered), never "internal error, please report it"; a closed
stderr drops the messages and leaves the exit code alone; `| head` stays quiet."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECK = ["check", "inventories/roce-pod", "--snapshot", "baseline"]
VALIDATE = ["validate", "inventories/roce-pod"]
COMMANDS = pytest.mark.parametrize("args", [CHECK, VALIDATE], ids=["check", "validate"])


def _run(args: list[str], **streams: object) -> subprocess.CompletedProcess[bytes]:
    """`fabriclint ARGS` in a process of its own, with the given standard streams."""
    code = "import sys; from fabriclint.cli import main; sys.argv[0] = 'fabriclint'; main()"
    env = {key: value for key, value in os.environ.items() if key != "FABRICLINT_DEBUG"}
    result: subprocess.CompletedProcess[bytes] = subprocess.run(  # type: ignore[call-overload]
        [sys.executable, "-c", code, *args], cwd=ROOT, env=env, timeout=120, check=False, **streams
    )
    return result


def _closing(fd: int) -> dict[str, object]:
    """Popen arguments that start the child with descriptor `fd` closed (`>&-`, `2>&-`)."""
    return {"preexec_fn": lambda: os.close(fd)}


@COMMANDS
def test_a_closed_stdout_is_one_line_and_exit_3(args: list[str]) -> None:
    """`>&-`: was AttributeError ("'NoneType' object has no attribute 'isatty'"), internal error."""
    result = _run(args, stderr=subprocess.PIPE, **_closing(1))
    assert result.returncode == 3
    assert result.stderr.decode() == (
        "fabriclint: cannot write the report to stdout: Bad file descriptor\n"
    )


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@COMMANDS
def test_a_full_stdout_is_one_line_and_exit_3(args: list[str]) -> None:
    """`> /dev/full`: ENOSPC was an internal error."""
    with open("/dev/full", "wb") as full:
        result = _run(args, stdout=full, stderr=subprocess.PIPE)
    assert result.returncode == 3
    assert result.stderr.decode() == (
        "fabriclint: cannot write the report to stdout: No space left on device\n"
    )


@pytest.mark.parametrize(
    ("args", "code"),
    [(CHECK, 0), (VALIDATE, 0), (["check", "inventories/roce-pod", "--snapshot", "broken"], 1)],
    ids=["check", "validate", "findings"],
)
def test_a_closed_stderr_keeps_the_result(args: list[str], code: int) -> None:
    """`2>&-`: the report still reaches stdout and the exit code is the result's."""
    result = _run(args, stdout=subprocess.PIPE, **_closing(2))
    assert result.returncode == code
    assert b"roce-pod" in result.stdout or b"ok: 10 devices" in result.stdout


def test_a_closed_pipe_stays_quiet() -> None:
    """`| head -1`: nothing on stderr, as before."""
    code = "import sys; from fabriclint.cli import main; sys.argv[0] = 'fabriclint'; main()"
    args = [sys.executable, "-c", code, "check", "inventories/roce-pod", "--snapshot", "broken"]
    with subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read()
    assert proc.returncode in (0, 1) and err == b""


_FD_PROBE = """
import errno, os, sys
from fabriclint.cli.errors import report_undelivered, standard_streams
standard_streams()
before = set(os.listdir('/proc/self/fd'))
code = report_undelivered(OSError(errno.ENOSPC, 'No space left on device'))
after = set(os.listdir('/proc/self/fd'))
print(code, len(after - before), file=sys.stderr)
"""


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="no /proc/self/fd")
@pytest.mark.parametrize("closed", [False, True], ids=["open-stdout", "closed-stdout"])
def test_report_undelivered_leaves_no_descriptor_open(closed: bool) -> None:
    """It puts /dev/null on stdout's own descriptor and keeps no other: the descriptor it opened
    to get there is closed and the new sys.stdout writes to stdout's descriptor (two more were
    left open before), whether stdout was open or closed at start (the stand-in's /dev/null)."""
    streams: dict[str, object] = {"stderr": subprocess.PIPE, "stdout": subprocess.DEVNULL}
    if closed:
        streams = {"stderr": subprocess.PIPE, **_closing(1)}
    result = subprocess.run(  # type: ignore[call-overload]
        [sys.executable, "-c", _FD_PROBE], cwd=ROOT, timeout=60, check=False, **streams
    )
    lines = result.stderr.decode().splitlines()
    assert lines[-1] == "3 0", result.stderr.decode()
