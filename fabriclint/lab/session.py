"""One interactive shell session of a lab device: prompt, read a line, answer, repeat.

Each line typed is echoed at once (netmiko waits for the echo, as a device's CLI shows what
is typed), then answered, the prompt following the answer in the same write. The session does
the echo itself instead of asyncssh's line editor: the editor processed every character typed
and every character printed in Python (tracking the cursor's column for redraws no client of
the lab uses), about half of the lab's CPU, with hundreds of sessions on one event loop. Line
ends go out as CR LF, as the editor and a device's tty send them. Faults that act inside a
session (stall, slow, latency, fail-command) are applied here.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import asyncssh

from fabriclint.lab.device import LabDevice

if TYPE_CHECKING:
    from fabriclint.lab.server import Lab

SLOW_TICK = 0.05


async def serve_session(
    lab: Lab, device: LabDevice, process: asyncssh.SSHServerProcess[str]
) -> None:
    """Answer lines until `exit` or the client goes away."""
    prompt = device.prompt(str(process.get_extra_info("username") or lab.username))
    received = lab.stats[device.name].received
    failed: list[str] = []
    if device.counters is not None:  # one session is one collection: the counters move on
        device.counters.next_collection()
    try:
        process.stdout.write(prompt)
        while (typed := await _read_line(process)) is not None:
            process.stdout.write(typed + "\r\n")  # the echo, before any latency
            line = typed.strip()
            received.append(line)
            if line == "exit":
                break
            text = await _respond(process, device, line, failed)
            if text is None:  # stalled until the client went away
                return
            await _write(process, device, text, prompt)
    except (asyncssh.Error, ConnectionError, BrokenPipeError):
        return
    process.exit(0)


async def _respond(
    process: asyncssh.SSHServerProcess[str], device: LabDevice, line: str, failed: list[str]
) -> str | None:
    """The answer to one line, after the device's faults; None when the device stalls."""
    is_command = not device.is_session_command(line)
    if is_command and device.fault.stall:
        await process.channel.wait_closed()
        return None
    if line and device.fault.latency:
        await asyncio.sleep(device.fault.latency)
    if is_command and device.fault.fail_command and not failed:
        failed.append(line)
        return device.error(line)
    return device.answer(line)


async def _read_line(process: asyncssh.SSHServerProcess[str]) -> str | None:
    """The next line as typed (without its line end), or None at end of input."""
    while True:
        try:
            line = await process.stdin.readline()
        except (asyncssh.BreakReceived, asyncssh.SignalReceived, asyncssh.TerminalSizeChanged):
            continue
        return line.rstrip("\r\n") if line else None


async def _write(
    process: asyncssh.SSHServerProcess[str], device: LabDevice, text: str, prompt: str
) -> None:
    """Print `text` (ending with a line end) and the prompt, trickling them out when the device
    is slow."""
    if text and not text.endswith("\n"):
        text += "\n"
    text = text.replace("\n", "\r\n") + prompt  # what the line editor sent
    rate = device.fault.slow_bps
    if rate is None:
        process.stdout.write(text)
        await process.stdout.drain()
        return
    chunk = max(1, int(rate * SLOW_TICK))
    for start in range(0, len(text), chunk):
        process.stdout.write(text[start : start + chunk])
        await process.stdout.drain()
        await asyncio.sleep(SLOW_TICK)
