"""A headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
JSON messages ended by NUL on file descriptors 3 and 4), so a test can click and read the DOM
with no websocket library and no network port."""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import time
from pathlib import Path
from types import TracebackType
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    """One headless Chromium with one page."""

    def __init__(self, profile: Path, width: int = 1400, height: int = 1000) -> None:
        assert CHROMIUM is not None
        to_child, self._out = os.pipe()
        self._in, from_child = os.pipe()
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
        flags += [f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"]
        # the child's ends moved above 9 first: either may itself be 3 or 4
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_child, from_child)]
        for fd in (to_child, from_child):
            os.close(fd)
        quiet = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
        actions = [
            (os.POSIX_SPAWN_DUP2, high[0], 3),
            (os.POSIX_SPAWN_DUP2, high[1], 4),
            (os.POSIX_SPAWN_DUP2, quiet, 1),
            (os.POSIX_SPAWN_DUP2, quiet, 2),
        ]
        self._pid = os.posix_spawn(CHROMIUM, [CHROMIUM, *flags], os.environ, file_actions=actions)
        for fd in (*high, quiet):
            os.close(fd)
        self._buffer, self._next, self._events = b"", 0, list[dict[str, Any]]()
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        attached = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})
        self._session: str | None = attached["sessionId"]
        self.call("Page.enable")
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
        self.call("Emulation.setDeviceMetricsOverride", metrics)

    def __enter__(self) -> Browser:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            self.call("Browser.close")
        except (OSError, RuntimeError, TimeoutError):
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, signal.SIGKILL)
        os.waitpid(self._pid, 0)
        os.close(self._in)
        os.close(self._out)

    def _message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._in], [], [], max(left, 0))
            if not ready:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self._in, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        message: dict[str, Any] = json.loads(raw)
        return message

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one command and return its result (events that arrive meanwhile are kept)."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if getattr(self, "_session", None):
            message["sessionId"] = self._session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + 60
        while True:
            answer = self._message(deadline)
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer.get("result", {})
                return result
            self._events.append(answer)

    def wait_for(self, event: str) -> None:
        """Wait until `event` arrives (or has arrived)."""
        deadline = time.monotonic() + 60
        while not any(e.get("method") == event for e in self._events):
            self._events.append(self._message(deadline))

    def events(self, name: str) -> list[dict[str, Any]]:
        """The events called `name` since the page was opened."""
        return [e for e in self._events if e.get("method") == name]

    def open(self, page: Path) -> None:
        """Load a local file and wait for its load event."""
        self._events.clear()
        self.call("Page.navigate", {"url": page.resolve().as_uri()})
        self.wait_for("Page.loadEventFired")

    def js(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page."""
        done = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in done:
            raise RuntimeError(f"{expression}: {done['exceptionDetails']}")
        return done["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element `selector` names."""
        box = self.js(
            f"(function(){{var e=document.querySelector({json.dumps(selector)});"
            "e.scrollIntoView({block:'center'});var r=e.getBoundingClientRect();"
            "return [r.left+r.width/2, r.top+r.height/2];})()"
        )
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            event = {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}
            self.call("Input.dispatchMouseEvent", event)

    def screenshot(self, path: Path) -> None:
        """The whole page as PNG."""
        shot = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        path.write_bytes(base64.b64decode(shot["data"]))
