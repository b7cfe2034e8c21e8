"""Pattern reads on an interactive SSH shell: wait for the prompt, never for a fixed time.

netmiko's session preparation and `send_command` poll the channel in fixed steps (a 25 ms loop
per command, `clear_buffer`'s 0.1 s sleeps, a 0.1 s sleep before the terminal setup): about
0.45 s of sleeping per device before the first command, and up to 25 ms after each output has
ended. `ShellChannel` drives the channel netmiko opened instead: every read blocks in the SSH
library until bytes arrive (it wakes on the first byte, not at the next poll), and each step
ends when its pattern is seen: the command's echo, then the prompt at the end of the output.

The lines typed are the ones netmiko's session preparation types for the same device type
(`SETUP`, all in `commands.SESSION_COMMANDS`), then fabriclint's own commands, then `exit`.
"""

from __future__ import annotations

import codecs
import time
from collections.abc import Callable
from typing import Any

RETURN = "\n"
TERMINATORS = ">#$%"
"""Characters a CLI or shell prompt ends with (Junos `>`/`#`, EOS and NX-OS `#`/`>`, shells
`$`/`#`, a Junos or BSD root shell `%`)."""
QUIET = 0.25
"""Seconds without new data after which a prompt seen once is taken (only for a device that
prints no prompt until it gets a first RETURN; others show it twice and need no wait)."""
WINDOW = 256
"""Characters past the prompt (trailing blanks) the end-of-output check looks at."""
CHUNK = 1 << 20

SETUP: dict[str, tuple[str, ...]] = {
    # netmiko's session_preparation of each device type types these, in this order
    "arista_eos": ("terminal width 511", "terminal length 0"),
    "cisco_nxos": ("terminal width 511", "terminal length 0"),
    "juniper_junos": (
        "set cli screen-width 511",
        "set cli complete-on-space off",
        "set cli screen-length 0",
    ),
    "linux": (),
}
"""Terminal setup typed after login, by netmiko device type: wide lines, no pager."""


class ShellChannel:
    """One shell session over an open SSH channel (paramiko `Channel`).

    Raises TimeoutError when a step does not end in time, EOFError when the device (or an
    abort from another thread) closes the channel; `errors.classify` turns both into a status.
    """

    def __init__(
        self,
        channel: Any,
        normalize: Callable[[str], str],
        strip_ansi: Callable[[str], str],
        encoding: str = "utf-8",
    ) -> None:
        self._channel = channel
        self._normalize = normalize
        self._strip_ansi = strip_ansi
        # incremental: a multi-byte character split between two reads is kept whole
        self._decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
        self._pending = ""
        self.prompt = ""
        """The device's prompt (its last line after login, trailing blanks removed)."""

    def start(self, device_type: str, timeout: float) -> None:
        """Find the prompt after login, then type the device type's terminal setup."""
        deadline = time.monotonic() + timeout
        greeting = self._greeting(deadline)
        self._write(RETURN)  # as netmiko does: some devices print nothing until a key
        self.prompt = self._find_prompt(deadline, greeting)
        for line in SETUP.get(device_type, ()):
            self.run(line, deadline - time.monotonic())

    def run(self, command: str, timeout: float) -> str:
        """The output of `command`: what the device printed between its echo and the prompt,
        line ends normalized, ANSI escapes removed, with no echo and no prompt."""
        deadline = time.monotonic() + timeout
        self._write(command + RETURN)
        self._skip_echo(command, deadline)
        text = self._normalize(self._until_prompt(deadline))
        # text starts with the echo line's end and ends with the prompt line: drop both
        body = text[1:].rpartition("\n")[0] if "\n" in text[1:] else ""
        return self._strip_ansi(body) if "\x1b" in body else body

    def logout(self) -> None:
        """Type `exit` without waiting for an answer (the caller closes the connection)."""
        self._write("exit" + RETURN)

    def _write(self, text: str) -> None:
        self._channel.sendall(text.encode())

    def _read(self, deadline: float) -> str:
        """The next bytes the device sends, decoded; blocks until some arrive."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no answer in time")
        self._channel.settimeout(left)
        data = self._channel.recv(CHUNK)  # socket.timeout is TimeoutError
        if not data:
            raise EOFError("the device closed the session")
        return str(self._decoder.decode(data))

    def _greeting(self, deadline: float) -> str:
        """What the device prints before anything is typed: read up to a line that looks like a
        prompt, or until QUIET seconds of silence (a device that waits for a key)."""
        text = ""
        while not _looks_like_prompt(_last_line(text)):
            try:
                text += self._read(min(deadline, time.monotonic() + QUIET))
            except TimeoutError:
                if time.monotonic() >= deadline:
                    raise
                break
        return text

    def _find_prompt(self, deadline: float, greeting: str = "") -> str:
        """The prompt: a last line that looks like one, shown twice in a row (the greeting,
        then the answer to the RETURN) or followed by QUIET seconds of silence.

        When the greeting ended with a prompt, the answer to the RETURN is a prompt too and is
        waited for (until the deadline), never guessed from a silence: a device slow to answer
        the RETURN would otherwise print that prompt after the first command's echo, where it
        ends the command's output early and every later output is read one command late."""
        text = greeting
        owed = _looks_like_prompt(_last_line(greeting))
        while True:
            lines = _last_lines(text)
            prompt = lines[-1] if lines else ""
            answered = not owed or _looks_like_prompt(_last_line(text[len(greeting) :]))
            if _looks_like_prompt(prompt) and answered:
                if len(lines) == 2 and lines[0] == prompt:
                    return prompt
                try:
                    text += self._read(min(deadline, time.monotonic() + QUIET))
                except TimeoutError:
                    if time.monotonic() >= deadline:
                        raise
                    return prompt
                continue
            text += self._read(deadline)

    def _skip_echo(self, command: str, deadline: float) -> None:
        """Read to the end of the command's echo line. What came before it (a prompt repainted
        late) is dropped; the echo line's own end is kept, so an empty output still has a
        line end before its prompt."""
        text, self._pending = self._pending, ""
        while True:
            at = text.find(command)
            end = text.find("\n", at) if at >= 0 else -1
            if end >= 0:
                self._pending = text[end:]
                return
            text += self._read(deadline)

    def _until_prompt(self, deadline: float) -> str:
        """Everything from the echo line's end up to and including the prompt at the end.
        Only the tail is searched: a large output costs one pass, not one per read."""
        chunks = [self._pending]
        self._pending = ""
        tail = chunks[0][-WINDOW:]
        while not _ends_with_prompt(tail, self.prompt):
            chunk = self._read(deadline)
            chunks.append(chunk)
            tail = (tail + chunk)[-(len(self.prompt) + WINDOW) :]
        return "".join(chunks)


def _last_lines(text: str) -> list[str]:
    """The last two non-blank lines of `text` (fewer when it has fewer), stripped."""
    lines = [line.strip() for line in text.replace("\r", "\n").split("\n")]
    return [line for line in lines if line][-2:]


def _last_line(text: str) -> str:
    """The last non-blank line of `text`, stripped ("" when there is none)."""
    lines = _last_lines(text)
    return lines[-1] if lines else ""


def _looks_like_prompt(line: str) -> bool:
    """Ends with a prompt character and names something: a banner's `#####` border or a
    `# Authorized use only #` line split off by a read is not taken for the prompt when the
    line after it follows at once."""
    return bool(line) and line[-1] in TERMINATORS and any(ch.isalnum() for ch in line)


def _ends_with_prompt(tail: str, prompt: str) -> bool:
    """True when `tail` ends with `prompt` at the start of a line (then only blanks)."""
    stripped = tail.rstrip()
    return stripped.endswith("\n" + prompt) or stripped.endswith("\r" + prompt)
