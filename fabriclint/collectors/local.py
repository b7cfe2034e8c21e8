"""A Session on this machine: the host's read-only commands run as local processes, no SSH.

`fabriclint host snapshot` drives the same command plan as an SSH collection through it
(`plan.GuardedSession` in front, so only allowlisted commands ever run). Each command runs in
its own process group under a shell with stdout and stderr merged, as an interactive SSH shell
shows them; at its timeout the whole group is killed (a hung `nvidia-smi` or `mlxlink` leaves
no child behind). A tool that is not installed, or a command that timed out, answers with an
error line `plan.command_error` recognises: an optional command is then skipped ("not
available"), a required one fails the host; neither raises here.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess

from fabriclint import interrupts

NOT_FOUND = 127
"""The shell's exit status for a command it could not find (POSIX `sh`)."""


def _shell() -> list[str]:
    """bash when there is one (its messages are the ones SSH collection sees), else sh."""
    bash = shutil.which("bash")
    return [bash, "-c"] if bash else ["/bin/sh", "-c"]


class LocalSession:
    """Runs each command locally; see the module docstring."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        # a fixed locale: tools print the English messages the parsers and error checks read
        self._env = {**(os.environ if env is None else env), "LC_ALL": "C"}
        self.sent: list[str] = []

    def send(self, command: str, timeout: float) -> str:
        """The merged output of `command`, or an error line (not found, timed out)."""
        self.sent.append(command)
        proc: subprocess.Popen[bytes] | None = None
        try:
            # Raised inside Popen after the child started (on a loaded machine the parent runs
            # again only once the command runs), an interrupt left a command nobody knew of:
            # its group was never killed and a hung tool outlived fabriclint. Held, it lands
            # here once `proc` is known.
            with interrupts.deferred():
                proc = subprocess.Popen(
                    [*_shell(), command],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    env=self._env,
                    start_new_session=True,
                )
            data, _ = proc.communicate(timeout=timeout)
        except OSError as exc:
            if proc is not None:
                _kill_group(proc)
                raise
            return f"Error: cannot start a shell: {exc.strerror or exc}"
        except subprocess.TimeoutExpired:  # from communicate: proc is known
            if proc is not None:
                _kill_group(proc)
            return f"Error: '{command}' timed out after {timeout:g} s (killed)"
        except BaseException:  # Ctrl-C, SIGTERM: the command's own session would outlive us
            if proc is not None:
                _kill_group(proc)
            raise
        text = data.decode("utf-8", errors="replace")
        if proc.returncode == NOT_FOUND:  # worded alike by bash and dash (`1: ip: not found`)
            tool = command.split(maxsplit=1)[0] if command.strip() else command
            return f"{tool}: command not found"
        return text

    def close(self) -> None:
        """Nothing to release."""


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the command's process group and reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()
