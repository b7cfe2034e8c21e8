"""ShellChannel against a scripted channel: prompts found by pattern (late, only after a
RETURN, split over reads), outputs cut exactly at the echo and the prompt, time limits kept."""

from __future__ import annotations

import queue
import re
import threading
import time

import pytest

from fabriclint.collectors.shell import QUIET, SETUP, ShellChannel
from fabriclint.commands import SESSION_COMMANDS

Script = dict[str, list[tuple[float, bytes]]]
"""Line typed (without its newline) -> what the device sends back: (delay in s, bytes)."""


class FakeChannel:
    """The slice of paramiko's Channel that ShellChannel uses, answering from a script, in
    order (like a device: what was typed is answered after the greeting, one line at a time)."""

    def __init__(self, greeting: list[tuple[float, bytes]], script: Script) -> None:
        self.typed: list[str] = []
        self._script = script
        self._inbox: queue.Queue[bytes] = queue.Queue()
        self._outbox: queue.Queue[tuple[float, bytes]] = queue.Queue()
        self._timeout: float | None = None
        self.timeouts: list[float | None] = []
        """Every read's time limit, in order."""
        self._pending = ""
        for part in greeting:
            self._outbox.put(part)
        threading.Thread(target=self._feed, daemon=True).start()

    def _feed(self) -> None:
        while True:
            delay, data = self._outbox.get()
            time.sleep(delay)
            self._inbox.put(data)

    def sendall(self, data: bytes) -> None:
        self._pending += data.decode()
        while "\n" in self._pending:
            line, _, self._pending = self._pending.partition("\n")
            self.typed.append(line)
            for part in self._script.get(line, []):
                self._outbox.put(part)

    def settimeout(self, timeout: float | None) -> None:
        self._timeout = timeout
        self.timeouts.append(timeout)

    def recv(self, size: int) -> bytes:
        try:
            return self._inbox.get(timeout=self._timeout)
        except queue.Empty:
            raise TimeoutError("timed out") from None

    def close(self) -> None:
        self._inbox.put(b"")


def _normalize(text: str) -> str:
    return re.sub("\r\n|\n\r", "\n", text).replace("\r", "\n")


def _shell(greeting: list[tuple[float, bytes]], script: Script) -> tuple[ShellChannel, FakeChannel]:
    channel = FakeChannel(greeting, script)
    return ShellChannel(
        channel, _normalize, lambda text: re.sub(r"\x1b\[[0-9;]*m", "", text)
    ), channel


def _answer(command: str, output: str, prompt: str = "leaf01#") -> list[tuple[float, bytes]]:
    """The echo, then the output and the prompt a little later."""
    return [(0.0, f"{command}\r\n".encode()), (0.02, f"{output}{prompt}".encode())]


EOS_SETUP: Script = {
    "": [(0.0, b"\r\nleaf01#")],
    "terminal width 511": _answer("terminal width 511", "Width set to 511 columns.\r\n"),
    "terminal length 0": _answer("terminal length 0", "Pagination disabled.\r\n"),
}


def test_a_prompt_that_arrives_late_is_found_and_the_setup_is_netmikos() -> None:
    greeting = [(0.3, b"Last login: today\r\n"), (0.3, b"leaf01#")]
    script = EOS_SETUP | {"show version": _answer("show version", "EOS 4.31\r\n")}
    shell, channel = _shell(greeting, script)
    shell.start("arista_eos", timeout=5)
    assert shell.prompt == "leaf01#"
    assert shell.run("show version", timeout=5) == "EOS 4.31"
    assert channel.typed == ["", "terminal width 511", "terminal length 0", "show version"]


def test_every_setup_line_is_a_known_session_command() -> None:
    for device_type, lines in SETUP.items():
        assert set(lines) <= SESSION_COMMANDS[device_type], device_type


def test_a_device_silent_until_the_first_return_is_collected() -> None:
    script: Script = {
        "": [(0.05, b"\r\nops@gpu01:~$ ")],
        "ibdev2netdev": _answer(
            "ibdev2netdev", "mlx5_0 port 1 ==> ens1np0 (Up)\r\n", "ops@gpu01:~$ "
        ),
    }
    shell, channel = _shell([], script)
    shell.start("linux", timeout=5)
    # taken after QUIET seconds of silence (the last read's limit), not the login's 5 s
    assert channel.timeouts[-1] is not None and channel.timeouts[-1] <= QUIET
    assert shell.prompt == "ops@gpu01:~$"
    assert shell.run("ibdev2netdev", timeout=5) == "mlx5_0 port 1 ==> ens1np0 (Up)"


def test_output_in_pieces_ends_only_at_the_prompt_on_its_own_line() -> None:
    pieces = [b"show running-config\r\n", b"! device: leaf01\r\nhostname leaf01#", b"x\r\n"]
    pieces += [b"interface Ethernet1\r\n   mtu 9214\r\n", b"leaf", b"01#"]
    script = EOS_SETUP | {"show running-config": [(0.02, piece) for piece in pieces]}
    shell, _ = _shell([(0.0, b"leaf01#")], script)
    shell.start("arista_eos", timeout=5)
    text = shell.run("show running-config", timeout=5)
    assert text == "! device: leaf01\nhostname leaf01#x\ninterface Ethernet1\n   mtu 9214"


def test_stale_prompts_before_the_echo_are_dropped_and_empty_output_is_empty() -> None:
    script = EOS_SETUP | {
        "show a": [(0.0, b"\r\nleaf01#\r\nleaf01#show a\r\n"), (0.01, b"A\r\nleaf01#")],
        "show empty": [(0.0, b"show empty\r\nleaf01#")],
    }
    shell, _ = _shell([(0.0, b"leaf01#")], script)
    shell.start("arista_eos", timeout=5)
    assert shell.run("show a", timeout=5) == "A"
    assert shell.run("show empty", timeout=5) == ""


def test_junos_blank_line_before_the_prompt_and_ansi_and_split_utf8() -> None:
    prompt = "\r\nops@spine01> "
    word = "café".encode()
    script: Script = {
        "": [(0.0, prompt.encode())],
        "show configuration": [
            (0.0, b"show configuration\r\n"),
            (0.01, b'\x1b[1mdescription "' + word[:4]),
            (0.01, word[4:] + b'";\x1b[0m\r\n' + prompt.encode()),
        ],
    }
    for line in SETUP["juniper_junos"]:
        script[line] = _answer(line, "ok\r\n", prompt)
    shell, _ = _shell([(0.0, prompt.encode())], script)
    shell.start("juniper_junos", timeout=5)
    assert shell.prompt == "ops@spine01>"
    assert shell.run("show configuration", timeout=5) == 'description "café";\n'


def test_a_device_that_never_answers_times_out_in_time() -> None:
    shell, channel = _shell([(0.0, b"leaf01#")], EOS_SETUP)
    shell.start("arista_eos", timeout=5)
    reads = len(channel.timeouts)
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        shell.run("show running-config", timeout=0.5)
    assert time.monotonic() - started > 0.4  # waited for the answer, then gave up
    limits = channel.timeouts[reads:]  # each read waits at most what is left of the 0.5 s
    assert limits and all(t is not None and 0 < t <= 0.5 for t in limits), limits


def test_no_prompt_after_login_times_out() -> None:
    shell, _ = _shell([(0.0, b"Welcome, there is no prompt here\r\n")], {})
    with pytest.raises(TimeoutError):
        shell.start("linux", timeout=0.5)


def test_a_closed_channel_is_an_eof() -> None:
    shell, channel = _shell([(0.0, b"leaf01#")], EOS_SETUP)
    shell.start("arista_eos", timeout=5)
    channel.close()
    with pytest.raises(EOFError):
        shell.run("show running-config", timeout=5)


def test_a_banner_border_split_off_by_a_read_is_not_the_prompt() -> None:
    border = b"##########\r\n"
    greeting = [(0.0, border + b"# Authorized use only #\r\n" + border), (0.05, b"leaf01#")]
    shell, _ = _shell(greeting, EOS_SETUP)
    shell.start("arista_eos", timeout=5)
    assert shell.prompt == "leaf01#"


class EchoingChannel(FakeChannel):
    """A FakeChannel whose device echoes each line as it arrives, before answering the ones
    typed earlier (as a line editor or a tty does): a late answer lands after a later echo."""

    def __init__(self, greeting: bytes, script: Script) -> None:
        super().__init__([], script)
        self._inbox.put(greeting)  # already sent when the shell opens

    def sendall(self, data: bytes) -> None:
        for line in data.decode().split("\n")[:-1]:
            self._inbox.put(f"{line}\r\n".encode())
        super().sendall(data)


@pytest.mark.parametrize("late", [QUIET * 4, QUIET * 8])
def test_a_late_answer_to_the_login_return_is_waited_for_not_taken_as_an_output(
    late: float,
) -> None:
    # the greeting prompt is shown at once; the prompt answering the RETURN comes late (a
    # busy device): it must not end the first command's output, nor shift later outputs
    prompt = b"ops@gpu01:~$ "
    script: Script = {
        "": [(late, prompt)],
        "ibdev2netdev": [(0.0, b"mlx5_0 port 1 ==> ens1np0 (Up)\r\n" + prompt)],
        "ethtool -S ens1np0": [(0.0, b"NIC statistics:\r\n" + prompt)],
    }
    channel = EchoingChannel(b"Last login: today\r\n" + prompt, script)
    shell = ShellChannel(channel, _normalize, lambda text: text)
    shell.start("linux", timeout=late + 5)
    assert shell.prompt == "ops@gpu01:~$"
    assert shell.run("ibdev2netdev", timeout=5) == "mlx5_0 port 1 ==> ens1np0 (Up)"
    assert shell.run("ethtool -S ens1np0", timeout=5) == "NIC statistics:"
    assert channel.typed == ["", "ibdev2netdev", "ethtool -S ens1np0"]
